// Package report aggregates receipts (what `convert run` writes) into a
// report of what entered a history of agent runs: sessions, tokens per
// model, instruction files and other context inputs, skills, MCP, memory,
// compaction, subagents and conversion health. It reads receipts and traces
// only, so a report holds nothing a receipt does not hold, and renders it as
// an aligned table, JSON (schemas/report.schema.json), Markdown or one
// self-contained HTML page.
package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/internal/untrusted"
	"github.com/contextreceipts/convert/internal/usage"

	"github.com/tidwall/gjson"
)

// Event is one receipt line.
type Event struct {
	Name   string
	Time   time.Time // zero when the line has none
	SpanID string
	Attrs  map[string]gjson.Result
	Line   int
}

// Str returns a string attribute, or "".
func (e *Event) Str(k string) string {
	if v, ok := e.Attrs[k]; ok && v.Type == gjson.String {
		return v.Str
	}
	return ""
}

// Int returns an integer attribute, or 0.
func (e *Event) Int(k string) int64 { return e.Attrs[k].Int() }

// Bool returns a boolean attribute.
func (e *Event) Bool(k string) bool { return e.Attrs[k].Type == gjson.True }

// name returns a private name written as key.name (revealed) or
// key.name_hash (a digest), whichever the receipt holds.
func (e *Event) name(key string) string {
	if s := e.Str(key + ".name"); s != "" {
		return s
	}
	return e.Str(key + ".name_hash")
}

// Session is one receipt: one converted input.
type Session struct {
	ID        string // session.id, or the trace id
	TraceID   string
	Agent     string // the converter
	Versions  []string
	Project   string // digest of the receipt's folder
	Input     string // convert.input.path: a file name
	Start     time.Time
	End       time.Time
	Events    []Event
	Summary   *Event
	TracePath string // sibling trace file on disk, "" when none
	Trace     []byte // trace bytes held in memory (converted in this run)
	// Responses are the responses the trace's chat spans name (message
	// ids and their usage): how copies across sessions are folded.
	Responses []usage.Response
	folded    []usage.Response // copies another session holds (Build)
}

// Models returns the models with token usage in the session, sorted.
func (s *Session) Models() []string {
	var ms []string
	seen := map[string]bool{}
	for i := range s.Events {
		e := &s.Events[i]
		if e.Name == "gen_ai.token_usage.summarized" {
			if m := e.Str("gen_ai.request.model"); !seen[m] {
				seen[m] = true
				ms = append(ms, m)
			}
		}
	}
	sort.Strings(ms)
	return ms
}

// ParseReceipt reads one receipt. rel is the receipt's path relative to the
// argument it was found under (its folder names the project); name is used
// in messages only. Errors are "name:line: reason" and never quote content.
func ParseReceipt(name, rel string, r io.Reader) (*Session, error) {
	s := &Session{}
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > 0 {
			if perr := s.addLine(line, n); perr != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, n, perr)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, n, err)
		}
	}
	if len(s.Events) == 0 {
		return nil, fmt.Errorf("%s:1: not a receipt: no events", name)
	}
	if s.Summary == nil {
		return nil, fmt.Errorf("%s:%d: not a complete receipt: no convert.summary line", name, s.Events[len(s.Events)-1].Line)
	}
	s.Project = project(rel, s.Agent, s.Summary.Str("convert.input.project"))
	s.screen()
	return s, nil
}

func (s *Session) addLine(line []byte, n int) error {
	if !jsonscan.Valid(line) {
		return errors.New("not a receipt line: malformed JSON")
	}
	v := gjson.ParseBytes(line)
	if !v.IsObject() {
		return errors.New("not a receipt line: not an object")
	}
	r := v.Get("name")
	if r.Type != gjson.String || v.Get("schema").Str != "convert.receipt.v1" {
		return errors.New("not a receipt line: no name or schema convert.receipt.v1")
	}
	e := Event{Name: r.Str, SpanID: v.Get("span_id").Str, Line: n, Attrs: map[string]gjson.Result{}}
	if t := v.Get("time"); t.Type == gjson.String {
		if tt, err := time.Parse(time.RFC3339Nano, t.Str); err == nil {
			e.Time = tt.UTC()
		}
	}
	v.Get("attributes").ForEach(func(k, val gjson.Result) bool {
		e.Attrs[k.Str] = val
		return true
	})
	if s.TraceID == "" {
		s.TraceID = v.Get("trace_id").Str
	}
	if s.ID == "" {
		s.ID = e.Str("session.id")
	}
	if s.Agent == "" {
		s.Agent = v.Get("converter").Str
	}
	if !e.Time.IsZero() {
		if s.Start.IsZero() || e.Time.Before(s.Start) {
			s.Start = e.Time
		}
		if e.Time.After(s.End) {
			s.End = e.Time
		}
	}
	s.Events = append(s.Events, e)
	if e.Name == "convert.summary" {
		s.Summary = &s.Events[len(s.Events)-1]
		s.Input = e.Str("convert.input.path")
		if s.ID == "" {
			s.ID = s.TraceID
		}
		s.Agent = e.Str("convert.converter")
		for _, x := range e.Attrs["convert.input.agent_versions"].Array() {
			s.Versions = append(s.Versions, x.Str)
		}
	}
	return nil
}

// project is the project of a receipt or a log at rel, relative to its
// argument, written by agent, whose summary names the project of its
// working directory as key ("" when the log names none). Both are
// "project-<hex>", the digest of the working directory's folder as Claude
// Code names it (keyed when the receipts were), so the sessions of every
// agent in one folder are one row, and the row is Claude Code's output
// folder on disk:
//   - a Claude Code session's is its folder as `convert run` names it
//     (pipeline.ProjectOf), where its path names one: the folder on disk;
//   - any other session's is the key its receipt carries (Codex, Copilot
//     CLI, Cursor, Droid, OpenCode and pi name their working directory);
//     without one, its folder's (Gemini CLI's digest folders, Cursor's
//     encoded ones), else topFolder.
//
// The report converts logs in plain mode, and receipts already carry
// their project's name. A project is never shown in clear, even with
// --reveal names: the folder names a user and a layout.
func project(rel, agent, key string) string {
	folder := pipeline.ProjectOf(receipt.Hasher{}, strings.TrimPrefix(rel, "./"))
	switch {
	case folder != "" && agent == "claude_code":
		return folder
	case isProjectKey(key):
		return key
	case folder != "":
		return folder
	}
	return topFolder
}

// isProjectKey reports a convert.input.project value: "project-" and 12
// lowercase hex digits.
func isProjectKey(s string) bool {
	hx, ok := strings.CutPrefix(s, "project-")
	if !ok || len(hx) != 12 {
		return false
	}
	for i := 0; i < len(hx); i++ {
		if c := hx[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// topFolder is the project of a receipt at the top of its argument.
const topFolder = "(top)"

// ReceiptSuffix and the trace suffixes name what `convert run` writes.
const ReceiptSuffix = ".receipt.ndjson"

// TraceFor returns the trace written next to a receipt, or "".
func TraceFor(receiptPath string) string {
	base := strings.TrimSuffix(receiptPath, ReceiptSuffix)
	for _, ext := range []string{".otel.json", ".otel.jsonl"} {
		if st, err := os.Stat(base + ext); err == nil && !st.IsDir() {
			return base + ext
		}
	}
	return ""
}

// IsTrace reports whether p is a trace file `convert run` writes.
func IsTrace(p string) bool {
	return strings.HasSuffix(p, ".otel.json") || strings.HasSuffix(p, ".otel.jsonl")
}

// screen makes a session parsed from a receipt safe to print. A receipt
// file may come from anywhere: every name, key and string value it holds
// is kept only when a written receipt could hold it in its field, else
// replaced by its digest and a note (internal/untrusted), before anything
// aggregates or prints it. Equal values stay equal, so grouping is
// unchanged; receipts the report converted itself pass the same screen, so
// a report from logs and one from their receipts agree.
//
// An id or model name is judged as the reader of the receipt's agent
// writes it (its id grammar, its own model names), when the receipt
// names an agent convert has a reader for; else by the kinds alone.
func (s *Session) screen() {
	know := pipeline.KnowledgeOf(s.Agent)
	if len(s.ID) != 32 || strings.Trim(s.ID, "0123456789abcdef") != "" { // a trace id stands in when there is no session id
		s.ID = untrusted.FieldFor(know, "session.id", s.ID)
	}
	s.TraceID = showHex(s.TraceID, 32)
	s.Agent = untrusted.Show(s.Agent)
	s.Input = untrusted.Field("convert.input.path", s.Input)
	for i, v := range s.Versions {
		s.Versions[i] = untrusted.Show(v)
	}
	for i := range s.Events {
		e := &s.Events[i]
		e.Name = untrusted.Show(e.Name)
		e.SpanID = showHex(e.SpanID, 16)
		attrs := make(map[string]gjson.Result, len(e.Attrs))
		for k, v := range e.Attrs {
			attrs[untrusted.Show(k)] = screenValue(know, k, v)
		}
		e.Attrs = attrs
	}
}

func screenValue(know *leak.Knowledge, k string, v gjson.Result) gjson.Result {
	switch {
	case v.Type == gjson.String:
		return stringResult(untrusted.FieldFor(know, k, v.Str))
	case v.IsArray():
		var parts []string
		for _, x := range v.Array() {
			parts = append(parts, screenValue(know, k, x).Raw)
		}
		return gjson.Parse("[" + strings.Join(parts, ",") + "]")
	case v.IsObject():
		return stringResult(untrusted.Withheld(v.Raw))
	}
	return v // a number, true, false, null
}

func stringResult(s string) gjson.Result {
	b, _ := json.Marshal(s)
	return gjson.ParseBytes(b)
}

// showHex is a trace or span id: n lower-case hex digits as it is, else
// screened.
func showHex(v string, n int) string {
	if len(v) == n && strings.Trim(v, "0123456789abcdef") == "" {
		return v
	}
	return untrusted.Show(v)
}
