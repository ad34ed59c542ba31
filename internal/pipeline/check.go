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
	"github.com/contextreceipts/convert/internal/schema"
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
	outs := leak.NewOutputs(vocabulary(set))
	for _, f := range files {
		if err := addFile(outs, f); err != nil {
			return nil, err
		}
	}
	chk := outs.NewChecker()
	for _, in := range inputs {
		chk.Pass(path.Base(in))
		chk.Pass(in)
	}
	for _, in := range inputs {
		if err := probeAll(chk, in, conv.PassThrough); err != nil {
			return nil, err
		}
	}
	return chk.Findings(), nil
}

// probeAll probes every parseable line of an input (or a .json sidecar).
func probeAll(chk *leak.Checker, input string, pass leak.Paths) error {
	if strings.HasSuffix(input, ".json") {
		doc, err := readMeta(input)
		if err != nil {
			return fmt.Errorf("%s: %w", input, err)
		}
		chk.Line(doc, 1, pass)
		return nil
	}
	fh, err := openInput(input, false)
	if err != nil {
		return fmt.Errorf("%s: %w", input, err)
	}
	defer fh.Close()
	err = eachLine(jsonl.NewReader(fh, 0), func(l jsonl.Line) error {
		if !l.TooLong && gjson.ValidBytes(l.Bytes) {
			chk.Line(l.Bytes, l.N, pass)
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
			addStrings(outs, gjson.ParseBytes(doc), path, nil)
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
				addStrings(outs, gjson.Parse(t), where, nil)
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
// and const values, event names, converter and span names.
// It is built once per process and only read afterwards.
func vocabulary(set *schema.Set) map[string]bool {
	vocabOnce.Do(func() {
		vocab = set.Vocabulary()
		for _, c := range converters.All() {
			vocab[c.Name], vocab[c.SpanName] = true, true
		}
	})
	return vocab
}

var (
	vocabOnce sync.Once
	vocab     map[string]bool
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
