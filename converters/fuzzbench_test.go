package converters_test

import (
	"os"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
)

// BenchmarkFuzzBody runs the fuzz targets' body (two conversions and every
// property of convtest.Check) over their seeds, so it can be profiled:
//
//	go test ./converters -run '^$' -bench FuzzBody -cpuprofile cpu.out
func BenchmarkFuzzBody(b *testing.B) {
	grammars := scenarioGrammars(b)
	for _, tc := range []struct {
		name  string
		cases func() ([]convtest.FuzzCase, [][]byte)
	}{
		{"ScenarioConverters", func() ([]convtest.FuzzCase, [][]byte) { return sampleCases(b, false) }},
		{"NativeConverters", func() ([]convtest.FuzzCase, [][]byte) { return sampleCases(b, true) }},
		{"ScenarioLogs", func() (cs []convtest.FuzzCase, seeds [][]byte) {
			for _, s := range logSeeds(len(grammars)) {
				cs, seeds = append(cs, scenarioCase(grammars, s)), append(seeds, s)
			}
			return cs, seeds
		}},
	} {
		cases, seeds := tc.cases()
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				convtest.Check(b, cases[i%len(cases)], seeds[i%len(cases)])
			}
		})
	}
}

func sampleCases(b *testing.B, isNative bool) (cs []convtest.FuzzCase, seeds [][]byte) {
	for _, c := range fuzzConverters(isNative) {
		for _, p := range convtest.SampleFiles(b, c) {
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			cs = append(cs, convtest.FuzzCase{Conv: c, Files: pipeline.Files{"in.jsonl": data}, In: pipeline.Input{Path: "in.jsonl", Rel: "in.jsonl"}})
			seeds = append(seeds, data)
		}
	}
	return cs, seeds
}
