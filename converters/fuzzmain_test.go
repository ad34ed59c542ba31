package converters_test

import (
	"flag"
	"os"
	"testing"
)

// fuzzMinimizeTime bounds the minimisation of each new input (100
// executions) when -fuzzminimizetime is not given. The engine's default of
// 60 s is made for targets of microseconds: here every input is two
// whole-pipeline conversions, and minimising one new input (quadratic in
// its length) took the rest of a short run, its executions mostly not
// counted in go test's figure. A finding is written either way; the
// choice-stream targets' findings are short to begin with.
const fuzzMinimizeTime = "100x"

func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.fuzzminimizetime" })
	if fz := flag.Lookup("test.fuzz"); fz != nil && fz.Value.String() != "" && !given {
		flag.Set("test.fuzzminimizetime", fuzzMinimizeTime)
	}
	os.Exit(m.Run())
}
