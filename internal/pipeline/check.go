package pipeline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/gate"
	"github.com/contextreceipts/convert/internal/jsonl"
	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/contextreceipts/convert/internal/leak"
)

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

// KnowledgeOf is what the reader of the converter named converter knows
// of the values it writes (converters.Converter.Knowledge: its agent's id
// grammar and own model names), for the read-back side; nil when no
// converter has that name or it reads no agent's logs.
func KnowledgeOf(converter string) *leak.Knowledge {
	if c, ok := converters.Lookup(converter); ok {
		return c.Knowledge()
	}
	return nil
}

// checkInput is the leak check's input knowledge, begun for outputs
// written with --reveal names or not (reveal): a model name no catalog
// knows is in clear only so, and admitted by the check only so.
func checkInput(reveal bool) *leak.Input {
	in := leak.NewInput()
	in.RevealNames = reveal
	return in
}

// LeakCheckFiles runs the leak check alone: the raw strings of the inputs
// (read with the pass-through fields of converter, detected from the first
// input when "") against every string in files (gate.AddFile: receipt
// NDJSON and OTLP JSON are read as JSON, a PreparedContext by its receipt,
// any other file, a saved stderr say, as text lines), made with
// --reveal names or not (reveal, as the run that wrote them). An input
// ending in .json (a sidecar) is read as one JSON document.
func LeakCheckFiles(inputs []string, converter string, files []string, reveal bool) ([]gate.Finding, error) {
	return leakCheckFiles(inputs, converter, files, reveal, nil)
}

// LeakCheckInput is LeakCheckFiles for the outputs a run wrote of in
// (files: convert leakcheck OUT; inputs: in's files), with --reveal names
// or not (reveal). Output bytes alone do not say which numbers the
// program computed, so a raw input number found is judged again with the
// notes of a conversion of in now (gate.Numbers), as the run judged it: a
// count or sum the program computes from this input is not a copy,
// whatever it equals. Only an input with such a finding is converted
// again.
func LeakCheckInput(in Input, inputs, files []string, reveal bool) ([]gate.Finding, error) {
	fs, err := leakCheckFiles(inputs, "auto", files, reveal, nil)
	if err != nil || !anyNumber(fs) {
		return fs, err
	}
	return leakCheckFiles(inputs, "auto", files, reveal, notesOf([]Input{in}, "auto", reveal))
}

// LeakCheckArgs is LeakCheckInput for convert leakcheck --input: the
// sessions of the paths given (args, read as convert run reads them:
// Expand) are converted again with converter when a raw input number is
// found, and their notes judge it; reveal is LeakCheckFiles'. Paths that
// are no session (Expand fails) leave the findings as LeakCheckFiles
// makes them.
func LeakCheckArgs(args []string, converter string, inputs, files []string, reveal bool) ([]gate.Finding, error) {
	fs, err := leakCheckFiles(inputs, converter, files, reveal, nil)
	if err != nil || !anyNumber(fs) {
		return fs, err
	}
	ins, err := Expand(args)
	if err != nil {
		return fs, nil
	}
	return leakCheckFiles(inputs, converter, files, reveal, notesOf(ins, converter, reveal))
}

// notesOf converts each of ins with converter ("auto" when "") and
// --reveal names or not (reveal), as their outputs were made, and joins
// the provenance of their outputs' numbers (nil when none converted).
func notesOf(ins []Input, converter string, reveal bool) *gate.Numbers {
	if converter == "" {
		converter = "auto"
	}
	var nums *gate.Numbers
	for _, in := range ins {
		res := Convert(in, Options{Converter: converter, Reveal: reveal})
		if res.numbers == nil {
			continue
		}
		if nums == nil {
			nums = &gate.Numbers{}
		}
		nums.Join(res.numbers)
	}
	return nums
}

func anyNumber(fs []gate.Finding) bool {
	for _, f := range fs {
		if strings.HasPrefix(f.What, "raw input number") {
			return true
		}
	}
	return false
}

func leakCheckFiles(inputs []string, converter string, files []string, reveal bool, nums *gate.Numbers) ([]gate.Finding, error) {
	inputs, err := storeSessions(inputs)
	if err != nil {
		return nil, err
	}
	if len(inputs) == 0 {
		return nil, &InputError{Path: "--input", Msg: "no session to check against (a database without sessions)"}
	}
	conv, err := passThroughOf(inputs[0], converter, nil)
	if err != nil {
		return nil, err
	}
	readers := inputReaders(inputs, converter, conv)
	in := checkInput(reveal)
	for i, p := range inputs {
		in.Pass(path.Base(p))
		in.Pass(p)
		for _, id := range pathIDs(p) { // as convert run counts them (file.read)
			in.Pass(id)
		}
		if err := eachInputLine(p, func(doc []byte, _ int) { in.Line(doc, readers[i].PassThrough, readers[i].know) }); err != nil {
			return nil, err
		}
	}
	outs := gate.NewOutputs()
	outs.WithNumbers(nums)
	for _, f := range files {
		if err := outs.AddFile(f, nil); err != nil {
			return nil, err
		}
	}
	chk := outs.Check(in)
	if chk.NeedsProbe() {
		for i, p := range inputs {
			if err := eachInputLine(p, func(doc []byte, n int) { chk.Line(doc, n, readers[i].PassThrough, readers[i].know) }); err != nil {
				return nil, err
			}
		}
	}
	return chk.Findings(), nil
}

// reader is what the check reads one input by: its reader's pass-through
// fields, and what that reader knows of the ids it writes (an id is
// admitted only when the reader would write it in clear).
type reader struct {
	PassThrough leak.Paths
	know        *leak.Knowledge
}

func readerOf(c converters.Converter) reader { return reader{c.PassThrough, c.Knowledge()} }

// inputReaders is the reader each input is read by: with no converter
// named, each log's own kind's (a folder may hold several agents' logs,
// and one agent's fields and ids would make another's admitted values
// raw), a sidecar its log's, and first's where a file's kind is not known
// (a storage part, an unknown log: every string of it is raw).
func inputReaders(inputs []string, converter string, first converters.Converter) []reader {
	readers := make([]reader, len(inputs))
	byStem := map[string]reader{}
	auto := converter == "" || converter == "auto"
	for i, p := range inputs {
		readers[i] = readerOf(first)
		if !auto || isSidecar(p) {
			continue
		}
		if c, err := passThroughOf(p, "", nil); err == nil {
			readers[i] = readerOf(c)
			byStem[strings.TrimSuffix(strings.TrimSuffix(p, ".jsonl"), ".json")] = readers[i]
		}
	}
	for i, p := range inputs {
		if auto && isSidecar(p) {
			stem := strings.TrimSuffix(strings.TrimSuffix(p, ".meta.json"), ".settings.json")
			if f, ok := byStem[stem]; ok {
				readers[i] = f
			}
		}
	}
	return readers
}

func isSidecar(p string) bool {
	return strings.HasSuffix(p, ".meta.json") || strings.HasSuffix(p, ".settings.json")
}

// eachInputLine calls fn on every parseable line of an input (or on a
// sidecar as one document). A sidecar is known by its name (isSidecar),
// not by being .json: a session document (Gemini CLI's legacy session, an
// OpenCode storage file) is read as a run reads it, whatever its size.
func eachInputLine(input string, fn func(doc []byte, line int)) error {
	if isSidecar(input) {
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
	err = eachLine(jsonl.NewReader(fh.Reader, 0), func(l jsonl.Line) error {
		if !l.TooLong && jsonscan.Valid(l.Bytes) {
			fn(l.Bytes, l.N)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", input, err)
	}
	return nil
}

// ownWords are the words of the pipeline's messages that appear in no
// other literal (internal/vocab collects them from here).
var ownWords = []string{
	"skipped", "line", "warning", "withheld", "it", "would", "have", "contained", "raw", "input",
	"line_too_long", "invalid_utf8", "truncated_last_line", "malformed_json", "not_an_object", "nested_too_deeply", "missing_type",
	"unknown_record_type", "invalid_time", "invalid_count", "record", "rejected", "message", "interrupted", "strict",
	"service", "name", "version", "0", "invalid",
}

// passThroughOf is the converter whose pass-through fields read the
// inputs of a leak check: the one named, else the one the first input is
// detected as. Named, it is taken as asked (a sidecar may come first; the
// check converts nothing), unlike a conversion's, which must claim its
// input.
func passThroughOf(first, converter string, fsys fs.FS) (converters.Converter, error) {
	if converter != "" && converter != "auto" {
		c, ok := converters.Lookup(converter)
		if !ok {
			return c, &InputError{Path: first, Msg: fmt.Sprintf("unknown converter %q", converter)}
		}
		return c, nil
	}
	conv, fh, err := pick(first, Options{FS: fsys})
	if fh != nil {
		fh.Close() // the check reads each file itself
	}
	return conv, err
}
