// Package audit checks receipts for the failure modes a receipt alone can
// reveal: seed 003's six for state-assembly receipts (selected_entries,
// output.context_hash) and the summary invariants of convert.receipt.v1
// receipts. Findings name a rule id and a position, never a raw value.
package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Finding is one broken rule at a file position.
type Finding struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// String is "path:line: rule: message".
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", f.Path, f.Line, f.Rule, f.Message)
}

// Rule ids.
const (
	RuleParse        = "audit.parse"
	RuleUnknownShape = "audit.unknown_shape"

	RuleStaleFact       = "sa.stale_fact"
	RuleSuperseded      = "sa.superseded_included"
	RuleTombstoned      = "sa.tombstoned_resurrected"
	RuleConflict        = "sa.unflagged_conflict"
	RuleAsOfFallback    = "sa.as_of_fallback"
	RuleContextHash     = "sa.context_hash_mismatch"
	RuleStateAssemblyID = "sa.shape"

	RuleSchema         = "cr.schema"
	RuleSummaryLast    = "cr.summary_last"
	RuleConverter      = "cr.converter"
	RuleEventCount     = "cr.event_count"
	RuleLineAccounting = "cr.line_accounting"
	RuleSkipReasons    = "cr.skip_reasons"
	RuleLeakCheck      = "cr.leak_check"
	RuleTraceID        = "cr.trace_id"
	RuleInputDigest    = "cr.input_digest"
)

// Rules lists every rule id with what it checks, for --help and docs.
var Rules = [][2]string{
	{RuleParse, "the file is not JSON / JSON Lines"},
	{RuleUnknownShape, "a document is neither a state-assembly receipt nor a convert.receipt.v1 line"},
	{RuleStaleFact, "a selected entry's valid_to is at or before the receipt's as_of (seed 003 mode 1)"},
	{RuleSuperseded, "a selected entry has supersession_status superseded (mode 2)"},
	{RuleTombstoned, "a selected entry has supersession_status tombstoned (mode 3)"},
	{RuleConflict, "entries share a fact_key and none is marked conflict_status merged (mode 4)"},
	{RuleAsOfFallback, "the requested as_of (requested_as_of or --as-of) differs from the receipt's as_of (mode 5)"},
	{RuleContextHash, "sha256 of the delivered bytes (assembled_context or --context) is not output.context_hash, or the size differs (mode 6)"},
	{RuleStateAssemblyID, "a state-assembly receipt lacks receipt_id, as_of, selected_entries or a sha256 output.context_hash"},
	{RuleSchema, "a line's schema is not convert.receipt.v1"},
	{RuleSummaryLast, "convert.summary is not the one last line"},
	{RuleConverter, "a line's converter is not the summary's convert.converter"},
	{RuleEventCount, "convert.output.events is not the number of event lines"},
	{RuleLineAccounting, "convert.input.lines is not records + skipped + blank"},
	{RuleSkipReasons, "the convert.input.skipped.* counts do not add up to convert.input.lines.skipped"},
	{RuleLeakCheck, "convert.leak_check.status is not passed"},
	{RuleTraceID, "the lines do not share one trace_id"},
	{RuleInputDigest, "convert.input.sha256 is not sha256:<64 hex>"},
}

// Options are the caller's side of the assembly call, which a receipt does
// not hold: the as_of asked for and the bytes delivered.
type Options struct {
	AsOf    string // requested as_of; overrides a document's requested_as_of
	Context []byte // delivered bytes; overrides a document's assembled_context
}

// File audits one file.
func File(path string, opt Options) ([]Finding, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	return Data(path, data, opt), nil
}

// doc is one JSON value of a file and the line it starts on.
type doc struct {
	line    int
	v       map[string]any
	entries []int // line of each selected_entries element
}

// Data audits the bytes of one file named path.
func Data(path string, data []byte, opt Options) []Finding {
	docs, bad := decode(data)
	if bad > 0 {
		return []Finding{{path, bad, RuleParse, "not a JSON value (the file must be JSON or JSON Lines of objects)"}}
	}
	if len(docs) == 0 {
		return []Finding{{path, 1, RuleParse, "empty file"}}
	}
	if docs[0].v["schema"] == "convert.receipt.v1" || docs[0].v["trace_id"] != nil {
		return ours(path, docs)
	}
	var fs []Finding
	for _, d := range docs {
		if isPrepared(d.v) {
			fs = append(fs, prepared(path, d)...)
			continue
		}
		if _, ok := d.v["selected_entries"]; !ok {
			fs = append(fs, Finding{path, d.line, RuleUnknownShape, "not a convert, state-assembly (selected_entries) or PreparedContext receipt"})
			continue
		}
		fs = append(fs, stateAssembly(path, d, opt, len(docs) == 1)...)
	}
	return fs
}

// decode reads successive JSON objects; bad is the line of the first value
// that is not one (0 when all are).
func decode(data []byte) (docs []doc, bad int) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		off := int(dec.InputOffset())
		for off < len(data) && strings.ContainsRune(" \t\r\n", rune(data[off])) {
			off++
		}
		line := 1 + bytes.Count(data[:off], []byte{'\n'})
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return docs, 0
		}
		if err != nil {
			return nil, line
		}
		var v map[string]any
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if d.Decode(&v) != nil || v == nil {
			return nil, line
		}
		docs = append(docs, doc{line, v, entryLines(raw, line)})
	}
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func obj(m map[string]any, k string) map[string]any {
	o, _ := m[k].(map[string]any)
	return o
}

func num(m map[string]any, k string) (int64, bool) {
	n, ok := m[k].(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// entryLines returns the line each selected_entries element starts on, for
// a document raw that starts on line first.
func entryLines(raw []byte, first int) []int {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	lineAt := func() int {
		off := int(dec.InputOffset())
		for off < len(raw) && strings.ContainsRune(" \t\r\n,", rune(raw[off])) {
			off++
		}
		return first + bytes.Count(raw[:off], []byte{'\n'})
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil
		}
		if k != "selected_entries" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nil
		}
		var lines []int
		for dec.More() {
			lines = append(lines, lineAt())
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
		}
		return lines
	}
	return nil
}
