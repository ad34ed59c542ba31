package converters_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/fuzzgen"
	"github.com/contextreceipts/convert/internal/pipeline"
)

// The fuzz targets put inputs through the real pipeline (read, convert,
// validate, leak check, trace), in memory (pipeline.ConvertFiles: no
// temporary files), and check on every input the properties the project
// promises (convtest.Check).
//
//   - FuzzScenarioConverters, FuzzNativeConverters: whole files, byte-mutated
//     from the bundled samples (junk, torn lines, huge numbers, deep nesting,
//     invalid UTF-8).
//   - FuzzScenarioLogs: the fuzzer's bytes are a stream of choices for
//     internal/fuzzgen, which builds a log from a scenario converter's
//     record types and samples and perturbs it, canaries in every raw slot.
//     Small inputs, so minimising a new one is cheap; a finding minimises
//     to the choices that matter. The native readers' logs are built from
//     their grammars beside them (FuzzLogs in converters/<reader>).
//
// Seeds and findings live in testdata/fuzz/<Target>/ and are replayed by a
// plain go test.

func fuzzConverters(isNative bool) []converters.Converter {
	var out []converters.Converter
	for _, c := range converters.All() {
		if (c.Native != nil) == isNative {
			out = append(out, c)
		}
	}
	return out
}

func FuzzScenarioConverters(f *testing.F) { fuzzBytes(f, fuzzConverters(false)) }

func FuzzNativeConverters(f *testing.F) { fuzzBytes(f, fuzzConverters(true)) }

func fuzzBytes(f *testing.F, convs []converters.Converter) {
	convtest.SeedSamples(f, convs)
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		conv := convs[int(which)%len(convs)]
		convtest.Check(t, convtest.FuzzCase{Conv: conv, Files: pipeline.Files{"in.jsonl": data}, In: pipeline.Input{Path: "in.jsonl", Rel: "in.jsonl"}}, data)
	})
}

// FuzzScenarioLogs: the first choice picks the scenario converter, the rest
// build its event log from its record types and its samples' fields.
func FuzzScenarioLogs(f *testing.F) {
	for _, s := range logSeeds(len(fuzzConverters(false))) {
		f.Add(s)
	}
	grammars := scenarioGrammars(f)
	f.Fuzz(func(t *testing.T, choices []byte) {
		convtest.Check(t, scenarioCase(grammars, choices), choices)
	})
}

func scenarioCase(grammars []fuzzgen.Grammar, choices []byte) convtest.FuzzCase {
	var which byte
	if len(choices) > 0 {
		which, choices = choices[0], choices[1:]
	}
	return convtest.LogCase(fuzzgen.Scenario(grammars[int(which)%len(grammars)], choices), false)
}

// logSeeds are choice streams that pick each generator in turn with a few
// different streams: enough for the engine to start from every format.
func logSeeds(n int) [][]byte {
	var out [][]byte
	for i := 0; i < n; i++ {
		for _, tail := range []string{"", "\x01\x02\x03\x04\x05\x06\x07\x08", "\xff\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0\xd0\xe0\xf0\x05\x04\x03\x02\x01"} {
			out = append(out, append([]byte{byte(i)}, tail...))
		}
	}
	return out
}

// scenarioGrammars reads each scenario converter's record types and fields
// from the registry and its samples' record sequences.
func scenarioGrammars(tb testing.TB) []fuzzgen.Grammar {
	var out []fuzzgen.Grammar
	for _, c := range fuzzConverters(false) {
		gr := fuzzgen.Grammar{Name: c.Name, TypeField: c.TypeField, TimeField: c.TimeField, Types: c.Types, PassThrough: c.PassThrough}
		files := convtest.SampleFiles(tb, c)
		sort.SliceStable(files, func(i, j int) bool { // the good samples first
			return !strings.HasPrefix(filepath.Base(files[i]), "bad_") && strings.HasPrefix(filepath.Base(files[j]), "bad_")
		})
		for _, p := range files {
			data, err := os.ReadFile(p)
			if err != nil {
				tb.Fatal(err)
			}
			var seq []fuzzgen.Rec
			for _, line := range bytes.Split(data, []byte{'\n'}) {
				var r fuzzgen.Rec
				d := json.NewDecoder(bytes.NewReader(line))
				d.UseNumber()
				if d.Decode(&r) == nil {
					seq = append(seq, r)
				}
			}
			if len(seq) > 0 {
				gr.Sequences = append(gr.Sequences, seq)
			}
		}
		out = append(out, gr)
	}
	return out
}
