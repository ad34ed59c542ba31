package converters_test

import (
	"os"
	"testing"

	"github.com/contextreceipts/convert/internal/pipeline"
)

// BenchmarkFuzzBody runs the fuzz targets' body (two conversions and every
// property of checkCase) over their seeds, so it can be profiled:
//
//	go test ./converters -run '^$' -bench FuzzBody -cpuprofile cpu.out
func BenchmarkFuzzBody(b *testing.B) {
	grammars := scenarioGrammars(b)
	for _, tc := range []struct {
		name  string
		cases func() ([]fuzzCase, [][]byte)
	}{
		{"ScenarioConverters", func() ([]fuzzCase, [][]byte) { return sampleCases(false) }},
		{"NativeConverters", func() ([]fuzzCase, [][]byte) { return sampleCases(true) }},
		{"ScenarioLogs", func() (cs []fuzzCase, seeds [][]byte) {
			for _, s := range logSeeds(len(grammars)) {
				cs, seeds = append(cs, scenarioCase(grammars, s)), append(seeds, s)
			}
			return cs, seeds
		}},
		{"NativeLogs", func() (cs []fuzzCase, seeds [][]byte) {
			for _, s := range logSeeds(3) {
				cs, seeds = append(cs, nativeCase(s)), append(seeds, s)
			}
			return cs, seeds
		}},
	} {
		cases, seeds := tc.cases()
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				checkCase(b, cases[i%len(cases)], seeds[i%len(cases)])
			}
		})
	}
}

func sampleCases(isNative bool) (cs []fuzzCase, seeds [][]byte) {
	for _, c := range fuzzConverters(isNative) {
		for _, p := range sampleFiles(c) {
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			cs = append(cs, fuzzCase{conv: c, files: pipeline.Files{"in.jsonl": data}, in: pipeline.Input{Path: "in.jsonl", Rel: "in.jsonl"}})
			seeds = append(seeds, data)
		}
	}
	return cs, seeds
}
