package converters_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/otlp"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
)

// The fuzz targets feed whole files (many lines, junk, torn last lines,
// huge numbers, deep nesting, invalid UTF-8: whatever the engine makes of
// the samples) to the converters through the real pipeline, and check on
// every input the properties the project promises.

func fuzzConverters(isNative bool) []converters.Converter {
	var out []converters.Converter
	for _, c := range converters.All() {
		if (c.Native != nil) == isNative {
			out = append(out, c)
		}
	}
	return out
}

// seedSamples adds every sample file of the converters as a seed.
func seedSamples(f *testing.F, convs []converters.Converter) {
	for i, c := range convs {
		var files []string
		for _, dir := range c.Samples() {
			filepath.WalkDir(filepath.Join("..", filepath.FromSlash(dir)), func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
					files = append(files, p)
				}
				return nil
			})
		}
		sort.Strings(files)
		for _, p := range files {
			if data, err := os.ReadFile(p); err == nil && len(data) < 1<<20 {
				f.Add(data, uint8(i))
			}
		}
	}
}

func FuzzScenarioConverters(f *testing.F) { fuzzTarget(f, fuzzConverters(false)) }

func FuzzNativeConverters(f *testing.F) { fuzzTarget(f, fuzzConverters(true)) }

func fuzzTarget(f *testing.F, convs []converters.Converter) {
	seedSamples(f, convs)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		conv := convs[int(which)%len(convs)]
		path := filepath.Join(dir, "in.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		in := pipeline.Input{Path: path, Rel: "in.jsonl"}
		opt := pipeline.Options{Converter: conv.Name, MaxLine: 1 << 20}
		watchdog := time.AfterFunc(10*time.Second, func() { panic("input took over 10 s with " + conv.Name) })
		defer watchdog.Stop()
		res := pipeline.Convert(in, opt)
		checkResult(t, conv, data, res)
		again := pipeline.Convert(in, opt)
		if !bytes.Equal(res.Receipt, again.Receipt) || !bytes.Equal(res.Trace, again.Trace) ||
			errText(res.Err) != errText(again.Err) || strings.Join(res.Diags, "\n") != strings.Join(again.Diags, "\n") {
			t.Fatal("two runs on the same bytes differ")
		}
	})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// checkResult asserts, for one conversion of data:
//   - no panic reached the pipeline's recover;
//   - on success every line read is converted or skipped, never both;
//   - on success every receipt line validates and the trace follows the
//     OTLP rules;
//   - the leak check is not vacuous: a 16-byte copy of a raw string of this
//     input, planted in the outputs, is found.
func checkResult(t *testing.T, conv converters.Converter, data []byte, res pipeline.Result) {
	t.Helper()
	if strings.Contains(errText(res.Err), "internal error") {
		t.Fatalf("panic inside the conversion: %v", res.Err)
	}
	if res.Err != nil {
		return // a failure writes nothing; that is the safe outcome
	}
	s := res.Stats
	if s.Lines != s.Records+s.Skipped+s.Blank {
		t.Fatalf("lines %d != records %d + skipped %d + blank %d", s.Lines, s.Records, s.Skipped, s.Blank)
	}
	set := loadSchemas(t)
	for i, l := range bytes.Split(bytes.TrimSuffix(res.Receipt, []byte{'\n'}), []byte{'\n'}) {
		if err := set.ValidateLine(l); err != nil {
			t.Fatalf("receipt line %d: %v", i+1, err)
		}
	}
	if p := otlp.Validate(res.Trace); len(p) > 0 {
		t.Fatalf("trace: %v", p)
	}
	raw := firstRaw(data, conv.PassThrough)
	if raw == "" {
		return
	}
	outs := leak.NewOutputs(set.Vocabulary())
	outs.Add("planted "+raw[:16], "planted")
	chk := outs.NewChecker()
	for i, line := range bytes.Split(data, []byte{'\n'}) {
		if gjson.ValidBytes(line) {
			chk.Line(line, i+1, conv.PassThrough)
		}
	}
	if len(chk.Findings()) == 0 {
		t.Fatalf("a planted copy of raw input was not found by the leak check")
	}
}

// firstRaw returns a raw string of 16+ bytes from a valid line of data: a
// value the converter may never copy.
func firstRaw(data []byte, pass leak.Paths) string {
	for _, line := range bytes.Split(data, []byte{'\n'}) {
		if !gjson.ValidBytes(line) {
			continue
		}
		var found string
		var walk func(v gjson.Result, path string)
		walk = func(v gjson.Result, path string) {
			if found != "" {
				return
			}
			switch {
			case v.Type == gjson.String:
				if len(v.Str) >= 16 && !(pass[path] != leak.None && pass[path].Admit(v.Str)) && !receipt.IsDigest(v.Str) {
					found = v.Str
				}
			case v.IsArray():
				v.ForEach(func(_, e gjson.Result) bool { walk(e, join(path, "#")); return true })
			case v.IsObject():
				v.ForEach(func(k, e gjson.Result) bool { walk(e, join(path, k.Str)); return true })
			}
		}
		walk(gjson.ParseBytes(line), "")
		if found != "" {
			return found
		}
	}
	return ""
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}
