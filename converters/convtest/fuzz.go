package convtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/fuzzgen"
	"github.com/contextreceipts/convert/internal/otlp"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/internal/schema"
	"github.com/contextreceipts/convert/internal/testshared"
)

// SampleFiles returns the sample files of a converter, sorted: its JSON
// Lines files and its one-document files (Format.Document).
func SampleFiles(tb testing.TB, c converters.Converter) []string {
	var files []string
	for _, dir := range c.Samples() {
		filepath.WalkDir(testshared.Repo(tb, filepath.FromSlash(dir)), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".jsonl") || converters.IsDocument(d.Name())) {
				files = append(files, p)
			}
			return nil
		})
	}
	sort.Strings(files)
	return files
}

// sampleDocuments returns a converter's one-document sample files
// (Format.Document, Format.DocumentAt), sorted.
func sampleDocuments(tb testing.TB, c converters.Converter) []string {
	var files []string
	for _, dir := range c.Samples() {
		filepath.WalkDir(testshared.Repo(tb, filepath.FromSlash(dir)), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".jsonl") && converters.IsDocumentPath(p) {
				files = append(files, p)
			}
			return nil
		})
	}
	sort.Strings(files)
	return files
}

// SeedSamples adds every sample file of the converters as a seed; a
// one-document file (Format.Document, Format.DocumentAt) as the one line
// the pipeline reads it as.
func SeedSamples(f *testing.F, convs []converters.Converter) {
	for i, c := range convs {
		for _, data := range sampleSeeds(f, c) {
			f.Add(data, uint8(i))
		}
	}
}

// FuzzCase is one input: its files, the converter, and whether it was
// generated (then no "canary" may reach any output).
type FuzzCase struct {
	Conv      converters.Converter
	Auto      bool // detect the converter from the content instead of naming it
	Files     pipeline.Files
	In        pipeline.Input
	Generated bool // generated from a grammar: no "canary" in any case may reach an output
}

func LogCase(l *fuzzgen.Log, auto bool) FuzzCase {
	conv, _ := converters.Lookup(l.Format)
	in := pipeline.Input{Path: l.Main, Rel: path.Base(l.Main), Meta: l.Meta}
	for _, c := range l.Companions {
		in.Companions = append(in.Companions, pipeline.Companion{Path: c.Path, Rel: c.Rel, Meta: c.Meta})
	}
	return FuzzCase{Conv: conv, Auto: auto, Files: l.Files, In: in, Generated: true}
}

// convert converts the case; poison overwrites each line once converted
// (pipeline.Options.PoisonLines), so a view of a line kept past it shows.
func (c FuzzCase) Convert(poison bool) pipeline.Result {
	opt := pipeline.Options{Converter: c.Conv.Name, MaxLine: 1 << 20, PoisonLines: poison}
	if c.Auto {
		opt.Converter = "auto"
	}
	return pipeline.ConvertFiles(c.Files, c.In, opt)
}

func ErrText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Check converts one input twice and asserts:
//   - no panic reaches the pipeline's recover, and no input takes 10 s;
//   - a failure writes nothing (no receipt, no trace);
//   - the two runs are byte-identical (outputs, warnings, error), the
//     second with each line overwritten once converted (PoisonLines): a
//     converter that kept a view of a line past it differs;
//   - every line is accounted for: the summary's lines are the input's
//     lines, and records + skipped + blank (skip reasons adding up);
//   - every receipt line validates and the trace follows the OTLP rules,
//     and every event is one the converter declares (Converter.Events);
//   - every output string has a declared provenance (no untyped string);
//   - a generated input's canaries reach no output, output name, warning
//     or error, the leak check never refuses one (its raw content is in
//     raw slots only), and its outputs never fail validation;
//   - the leak check is not vacuous: a 16-byte copy of a raw input string
//     planted in the outputs is refused;
//   - the leak check agrees with a naive quadratic reference (refcheck_test.go)
//     on which of a set of planted strings are refused.
//
// seed drives the choices of the planted strings.
func Check(t testing.TB, c FuzzCase, seed []byte) {
	t.Helper()
	defer logExec(c.Conv.Name, len(seed), time.Now())
	watchdog := time.AfterFunc(10*time.Second, func() { panic("input took over 10 s with " + c.Conv.Name) })
	defer watchdog.Stop()
	res := c.Convert(false)
	again := c.Convert(true) // the same outputs, with each line overwritten once read
	if strings.Contains(ErrText(res.Err), "internal error") {
		t.Fatalf("panic inside the conversion: %v", res.Err)
	}
	if !bytes.Equal(res.Receipt, again.Receipt) || !bytes.Equal(res.Trace, again.Trace) ||
		ErrText(res.Err) != ErrText(again.Err) || strings.Join(res.Diags, "\n") != strings.Join(again.Diags, "\n") {
		t.Fatal("two runs on the same bytes differ")
	}
	if c.Generated {
		checkCanaries(t, c, res)
		// A generated log's raw content sits in raw slots only: a converter
		// that tried to write some is a leak the check caught, or a field
		// declared with another shape than the converter admits it by (a
		// false refusal of honest sessions). Both are bugs.
		var le *pipeline.LeakError
		if errors.As(res.Err, &le) {
			t.Fatalf("generated %s log refused by the leak check: %v", c.Conv.Name, res.Err)
		}
		// Outputs that fail their own schema or the OTLP rules are what
		// the converter wrote, whatever the log: a bug (a repeated usage
		// update wrote a span's attribute twice, and Kimi sessions were
		// lost).
		var se *pipeline.SchemaError
		if errors.As(res.Err, &se) {
			t.Fatalf("generated %s log's outputs fail validation: %v", c.Conv.Name, res.Err)
		}
	}
	if res.Err != nil {
		if res.Receipt != nil || res.Trace != nil {
			t.Fatalf("failed input has outputs: %v", res.Err)
		}
		return
	}
	checkCounts(t, c, res)
	declared := map[string]bool{"convert.summary": true}
	for _, e := range c.Conv.Events {
		declared[e] = true
	}
	for _, l := range bytes.Split(bytes.TrimSuffix(res.Receipt, []byte{'\n'}), []byte{'\n'}) {
		if name := gjson.GetBytes(l, "name").Str; !declared[name] {
			t.Fatalf("%s wrote a %s event it does not declare (Converter.Events: the docs and schemas go by them)", c.Conv.Name, name)
		}
	}
	if res.Stats.Untyped != 0 && untypedKnown[c.Conv.Name] == "" {
		t.Fatalf("%d output strings have no provenance (%s): every string we write is typed", res.Stats.Untyped, c.Conv.Name)
	}
	set, err := schema.Load()
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range bytes.Split(bytes.TrimSuffix(res.Receipt, []byte{'\n'}), []byte{'\n'}) {
		if err := set.ValidateLine(l); err != nil {
			t.Fatalf("receipt line %d: %v", i+1, err)
		}
	}
	if p := otlp.Validate(res.Trace); len(p) > 0 {
		t.Fatalf("trace: %v", p)
	}
	ch := fuzzgen.NewChoices(sha(seed))
	checkPlanted(t, c, res, ch)
	checkReference(t, c, ch)
}

// logExec appends one line per execution (converter, input bytes,
// microseconds) to the file named by CONVERT_FUZZ_EXECLOG, when set: go
// test's own figure counts a minimisation's executions only when it ends,
// so it is the way to measure a target's real rate.
func logExec(conv string, n int, start time.Time) {
	name := os.Getenv("CONVERT_FUZZ_EXECLOG")
	if name == "" {
		return
	}
	fh, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(fh, "%s %d %d\n", conv, n, time.Since(start).Microseconds())
	fh.Close()
}

func sha(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}

// checkCanaries: no generated canary (any case) in any output, output
// name, warning or error message.
func checkCanaries(t testing.TB, c FuzzCase, res pipeline.Result) {
	t.Helper()
	places := map[string]string{
		"receipt": string(res.Receipt), "trace": string(res.Trace), "warnings": strings.Join(res.Diags, "\n"),
		"error": ErrText(res.Err), "receipt name": pipeline.OutputName(c.In.Rel, ".receipt.ndjson"),
		"trace name": pipeline.OutputName(c.In.Rel, ".otel.jsonl"),
	}
	for where, s := range places {
		if i := strings.Index(strings.ToLower(s), "canary"); i >= 0 {
			t.Fatalf("a canary reached the %s (%s): ...%s...", where, c.Conv.Name, s[max(0, i-60):min(len(s), i+60)])
		}
	}
}

// checkCounts: the summary accounts for every line of every file read.
func checkCounts(t testing.TB, c FuzzCase, res pipeline.Result) {
	t.Helper()
	s := res.Stats
	if s.Lines != s.Records+s.Skipped+s.Blank {
		t.Fatalf("lines %d != records %d + skipped %d + blank %d", s.Lines, s.Records, s.Skipped, s.Blank)
	}
	var reasons int64
	for _, n := range s.SkipReasons {
		reasons += n
	}
	if reasons != s.Skipped {
		t.Fatalf("skip reasons add up to %d, skipped %d", reasons, s.Skipped)
	}
	want := inputLines(c.In.Path, c.Files[c.In.Path])
	for _, comp := range c.In.Companions {
		want += inputLines(comp.Path, c.Files[comp.Path])
	}
	if s.Lines != want {
		t.Fatalf("the input has %d lines, the summary says %d", want, s.Lines)
	}
	lines := bytes.Split(bytes.TrimSuffix(res.Receipt, []byte{'\n'}), []byte{'\n'})
	sum := gjson.GetBytes(lines[len(lines)-1], "attributes")
	for key, n := range map[string]int64{"convert.input.lines": s.Lines, "convert.input.records": s.Records,
		"convert.input.lines.skipped": s.Skipped, "convert.input.lines.blank": s.Blank, "convert.output.events": int64(len(lines) - 1)} {
		if got := sum.Get(gjson.Escape(key)); got.Int() != n {
			t.Fatalf("summary %s = %s, want %d", key, got.Raw, n)
		}
	}
}

// inputLines is how many lines the pipeline reads of a file: one for a
// whole JSON document it reads as one record (a format's one-document
// file, by name or place, or a first line that opens an object and holds
// nothing else), one per element for a document that is a JSON array
// (Codebuff's chat-messages.json: pipeline's documentRecord).
func inputLines(name string, b []byte) int64 {
	first, _, found := bytes.Cut(b, []byte{'\n'})
	opens := found && string(bytes.TrimSpace(first)) == "{"
	if (opens || converters.IsDocumentPath(name)) && json.Valid(b) {
		var elems []json.RawMessage
		if json.Unmarshal(b, &elems) == nil {
			return int64(len(elems))
		}
		return 1
	}
	return countLines(b)
}

// countLines counts lines as a reader does: a last line without a newline
// is a line.
func countLines(b []byte) int64 {
	n := int64(bytes.Count(b, []byte{'\n'}))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// checkPlanted plants a 16-byte piece of a raw input string (at a chosen
// offset, its letters' case changed now and then) inside a new string in
// a line added to the receipt and asserts the leak check refuses that
// line, unless the piece has a provenance of its own (a number, a word of
// ours).
func checkPlanted(t testing.TB, c FuzzCase, res pipeline.Result, ch *fuzzgen.Choices) {
	t.Helper()
	raws := rawStrings(c, 16)
	if len(raws) == 0 {
		return
	}
	r := raws[ch.Intn(len(raws))]
	off := ch.Intn(len(r) - 15)
	for off > 0 && !utf8.ValidString(r[off:off+16]) {
		off-- // a piece that JSON can carry as it is
	}
	piece := r[off : off+16]
	if !utf8.ValidString(piece) {
		return
	}
	if ch.OneIn(3) {
		piece = strings.ToUpper(piece)
	}
	planted := "planted " + piece + " here"
	line, _ := json.Marshal(map[string]string{"planted": planted})
	name := pipeline.OutputName(c.In.Rel, ".receipt.ndjson")
	where := fmt.Sprintf("%s line %d", name, bytes.Count(res.Receipt, []byte{'\n'})+1)
	chk, err := pipeline.LeakCheckOutputs(c.Files, c.Conv.Name, map[string][]byte{name: append(append([]byte(nil), res.Receipt...), line...)})
	if err != nil {
		t.Fatal(err)
	}
	if !contains(chk.Untyped(), strings.ToLower(planted)) || chk.OnlyOwn(planted, len("planted "), len("planted ")+len(piece)) {
		return // the piece is a word of ours, a number or a digest: nothing to find
	}
	for _, fd := range chk.Findings() {
		if fd.Where.String() == where {
			return
		}
	}
	t.Fatalf("a planted copy of raw input (%q, from %q) was not found by the leak check", piece, r)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// rawStrings returns the raw strings of at least min bytes of the input's
// files (values at no pass-through path, or outside its shape), as the
// leak check reads them: every line that is valid JSON.
func rawStrings(c FuzzCase, minLen int) []string {
	var out []string
	for _, name := range sortedNames(c.Files) {
		eachDoc(name, c.Files[name], func(doc []byte, _ int) {
			walkRaw(gjson.ParseBytes(doc), "", c.Conv.PassThrough, agentKnows(c.Conv), func(v string, _ rawKind) {
				if len(v) >= minLen && !receipt.IsDigest(v) {
					out = append(out, v)
				}
			}, nil)
		})
	}
	return out
}

func sortedNames(files pipeline.Files) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// eachDoc calls fn on every line of a file that is valid JSON (a .json
// sidecar as one compacted document), with its line number.
func eachDoc(name string, data []byte, fn func(doc []byte, line int)) {
	if strings.HasSuffix(name, ".json") {
		var b bytes.Buffer
		if len(data) <= 1<<20 && json.Compact(&b, data) == nil && gjson.ValidBytes(b.Bytes()) && utf8.Valid(b.Bytes()) {
			fn(b.Bytes(), 1)
		}
		return
	}
	for i, l := range bytes.Split(data, []byte{'\n'}) {
		if l = bytes.TrimSuffix(l, []byte{'\r'}); gjson.ValidBytes(l) {
			fn(l, i+1)
		}
	}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// untypedKnown are the converters that write strings with no declared
// provenance by design, and which: the fuzz targets hold every other one
// to none.
// (code_search_retrieval was one, copying a path's extension as it stood:
// an extension is now one of its words or "other".)
var untypedKnown = map[string]string{}

// FuzzSamples is a reader's byte-level fuzz target: its sample files,
// mutated byte by byte, each converted through the whole pipeline in
// memory and held to Check.
//
//	func FuzzSamples(f *testing.F) { convtest.FuzzSamples(f, "droid") }
func FuzzSamples(f *testing.F, converter string) {
	conv, ok := converters.Lookup(converter)
	if !ok {
		f.Fatalf("no converter %s", converter)
	}
	SeedSamples(f, []converters.Converter{conv})
	f.Fuzz(func(t *testing.T, data []byte, _ uint8) {
		Check(t, FuzzCase{Conv: conv, Files: pipeline.Files{"in.jsonl": data}, In: pipeline.Input{Path: "in.jsonl", Rel: "in.jsonl"}}, data)
	})
}

// FuzzLogs is a reader's structure-aware fuzz target: the fuzzer's bytes
// are a stream of choices for gen, the reader's grammar (internal/fuzzgen),
// which builds a log and perturbs it with a canary in every raw slot; each
// log is held to Check. The first choice's top bit has the converter
// detected instead of named.
//
//	func FuzzLogs(f *testing.F) { convtest.FuzzLogs(f, fuzzgen.Codex) }
func FuzzLogs(f *testing.F, gen func([]byte) *fuzzgen.Log) {
	for _, tail := range []string{"", "\x01\x02\x03\x04\x05\x06\x07\x08", "\xff\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0\xd0\xe0\xf0\x05\x04\x03\x02\x01"} {
		f.Add([]byte("\x00" + tail))
	}
	f.Fuzz(func(t *testing.T, choices []byte) {
		var first byte
		if len(choices) > 0 {
			first, choices = choices[0], choices[1:]
		}
		Check(t, LogCase(gen(choices), first&0x80 != 0), append([]byte{first}, choices...))
	})
}

// Main is a TestMain for a package with fuzz targets: each is two whole
// conversions per input, so minimizing a new input is bounded to 100
// executions unless -fuzzminimizetime is given (fuzzgen.BoundMinimization).
func Main(m *testing.M) {
	fuzzgen.BoundMinimization("100x")
	os.Exit(m.Run())
}
