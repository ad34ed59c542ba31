package pipeline

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/jsonl"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/otlp"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/internal/schema"
	"github.com/contextreceipts/convert/internal/vocab"
	"github.com/tidwall/gjson"
)

// ValidateFile checks a written output: *.otel.json against the OTLP/JSON
// rules, anything else as receipt NDJSON against the schemas. Each problem is
// returned as "path:line: message".
func ValidateFile(path string) ([]string, error) {
	if strings.HasSuffix(path, ".otel.jsonl") {
		return validateTraceLines(path)
	}
	if strings.HasSuffix(path, ".json") {
		doc, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, openError(err))
		}
		var out []string
		for _, p := range otlp.Validate(doc) {
			loc := path
			if p.Line > 0 {
				loc += ":" + strconv.Itoa(p.Line)
			}
			out = append(out, loc+": "+p.Error())
		}
		return out, nil
	}
	set, err := schema.Load()
	if err != nil {
		return nil, err
	}
	out, lines, err := validateLines(path, func(doc []byte) []string {
		if err := set.ValidateLine(doc); err != nil {
			return []string{err.Error()}
		}
		return nil
	})
	if err == nil && lines == 0 {
		out = append(out, path+": no receipt lines")
	}
	return out, err
}

// validateLines runs check on every non-blank line of path and returns its
// problems as "path:line: message", and how many lines it checked.
func validateLines(path string, check func([]byte) []string) ([]string, int, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, openError(err))
	}
	defer fh.Close()
	var out []string
	n := 0
	err = eachLine(jsonl.NewReader(fh, 0), func(l jsonl.Line) error {
		n++
		if l.TooLong {
			out = append(out, fmt.Sprintf("%s:%d: line too long", path, l.N))
			return nil
		}
		for _, p := range check(l.Bytes) {
			out = append(out, fmt.Sprintf("%s:%d: %s", path, l.N, p))
		}
		return nil
	})
	if err != nil {
		return out, n, fmt.Errorf("%s: %w", path, err)
	}
	return out, n, nil
}

// eachLine calls fn on every line of r until the end, or until fn or the
// reader fails.
func eachLine(r *jsonl.Reader, fn func(jsonl.Line) error) error {
	for {
		l, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(l); err != nil {
			return err
		}
	}
}

// LeakCheckFiles runs the leak check alone: the raw strings of the inputs
// (read with the pass-through fields of converter, detected from the first
// input when "") against every string in files. Receipt NDJSON and OTLP
// JSON are read as JSON; any other file (a saved stderr, say) as text lines.
// An input ending in .json (a sidecar) is read as one JSON document.
func LeakCheckFiles(inputs []string, converter string, files []string) ([]leak.Finding, error) {
	conv, err := pick(inputs[0], Options{Converter: converter})
	if err != nil {
		return nil, err
	}
	set, err := schema.Load()
	if err != nil {
		return nil, err
	}
	in := leak.NewInput()
	for _, p := range inputs {
		in.Pass(path.Base(p))
		in.Pass(p)
		if err := eachInputLine(p, func(doc []byte, _ int) { in.Line(doc, conv.PassThrough) }); err != nil {
			return nil, err
		}
	}
	outs := leak.NewOutputs(vocabulary(set))
	for _, f := range files {
		if err := addFile(outs, f); err != nil {
			return nil, err
		}
	}
	chk := outs.Check(in)
	if chk.NeedsProbe() {
		for _, p := range inputs {
			if err := eachInputLine(p, func(doc []byte, n int) { chk.Line(doc, n, conv.PassThrough) }); err != nil {
				return nil, err
			}
		}
	}
	return chk.Findings(), nil
}

// eachInputLine calls fn on every parseable line of an input (or on a .json
// sidecar as one document).
func eachInputLine(input string, fn func(doc []byte, line int)) error {
	if strings.HasSuffix(input, ".json") {
		doc, err := readMeta(nil, input)
		if err != nil {
			return fmt.Errorf("%s: %w", input, err)
		}
		fn(doc, 1)
		return nil
	}
	fh, err := openInput(input, false)
	if err != nil {
		return fmt.Errorf("%s: %w", input, err)
	}
	defer fh.Close()
	err = eachLine(jsonl.NewReader(fh, 0), func(l jsonl.Line) error {
		if !l.TooLong && gjson.ValidBytes(l.Bytes) {
			fn(l.Bytes, l.N)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", input, err)
	}
	return nil
}

func addFile(outs *leak.Outputs, path string) error {
	fh, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, openError(err))
	}
	defer fh.Close()
	if strings.HasSuffix(path, ".json") {
		doc, err := io.ReadAll(fh)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if gjson.ValidBytes(doc) {
			addJSON(outs, gjson.ParseBytes(doc), path, nil)
			return nil
		}
		outs.Add(string(doc), path)
		return nil
	}
	sc := bufio.NewReader(fh)
	for n := 1; ; n++ {
		line, err := sc.ReadString('\n')
		if len(line) > 0 {
			where := path + " line " + strconv.Itoa(n)
			if t := strings.TrimRight(line, "\r\n"); gjson.Valid(t) {
				addJSON(outs, gjson.Parse(t), where, nil)
			} else {
				outs.Add(t, where)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
}

// vocabulary is every string the program itself writes: schema keys, enum
// and const values, event names, converter and span names, record types,
// the OTLP writer's field names and schema URL, and every string literal of
// the packages that build outputs (internal/vocab, generated). It is built
// once per process, from those sources, and only read afterwards.
func vocabulary(set *schema.Set) map[string]bool {
	vocabOnce.Do(func() {
		words = set.Vocabulary()
		for _, c := range converters.All() {
			words[c.Name], words[c.SpanName] = true, true
			words[scopePrefix+c.Name] = true
			for _, t := range c.Types {
				words[t] = true
			}
			for _, e := range c.Events {
				words[e] = true
			}
		}
		for _, w := range otlp.Vocabulary() {
			words[w] = true
		}
		for _, w := range vocab.Words() {
			words[w] = true
		}
		words[Version] = true
		for _, l := range receipt.Ladders() {
			for _, b := range l.Labels {
				words[b] = true
			}
		}
		// The segments of dotted names are our words too: a span attribute
		// key made of them says nothing of the input.
		for w := range words {
			if strings.Contains(w, ".") && !strings.ContainsAny(w, "/ ") {
				for _, seg := range strings.Split(w, ".") {
					words[seg] = true
				}
			}
		}
	})
	return words
}

// messageWords are the single words of every vocabulary phrase and format
// string, for messages the program composes.
func messageWords(set *schema.Set) map[string]bool {
	msgOnce.Do(func() {
		msgWords = map[string]bool{}
		for w := range vocabulary(set) {
			for _, p := range strings.FieldsFunc(w, func(r rune) bool { return r == ' ' || r == '.' || r == ':' || r == '"' }) {
				msgWords[p] = true
			}
		}
		for _, w := range vocab.Formats() {
			for _, p := range strings.Fields(w) {
				if !strings.Contains(p, "%") {
					msgWords[strings.Trim(p, ":,.;()\"")] = true
				}
			}
		}
	})
	return msgWords
}

var (
	msgOnce  sync.Once
	msgWords map[string]bool
)

// ownWords are the words of the pipeline's messages that appear in no
// other literal (internal/vocab collects them from here).
var ownWords = []string{
	"skipped", "line", "warning", "withheld", "it", "would", "have", "contained", "raw", "input",
	"line_too_long", "invalid_utf8", "truncated_last_line", "malformed_json", "not_an_object", "missing_type",
	"unknown_record_type", "invalid_time", "record", "rejected", "message", "interrupted", "strict",
	"service", "name", "version", "0", "invalid",
}

var (
	vocabOnce sync.Once
	words     map[string]bool
)

// validateTraceLines checks an OTLP file-exporter file: one TracesData per line.
func validateTraceLines(path string) ([]string, error) {
	out, _, err := validateLines(path, func(doc []byte) []string {
		var msgs []string
		for _, p := range otlp.Validate(doc) {
			msgs = append(msgs, p.Error())
		}
		return msgs
	})
	return out, err
}
