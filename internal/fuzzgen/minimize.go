package fuzzgen

import "flag"

// BoundMinimization sets -test.fuzzminimizetime to limit when fuzzing and
// the flag was not given: call it from a TestMain before m.Run. The
// engine's default of 60 s is made for targets of microseconds; for a
// target of milliseconds, minimising each new input (quadratic in its
// length) takes the rest of a short run, and its executions are mostly not
// counted in go test's figure. A finding is written either way.
func BoundMinimization(limit string) {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.fuzzminimizetime" })
	if fz := flag.Lookup("test.fuzz"); fz != nil && fz.Value.String() != "" && !given {
		flag.Set("test.fuzzminimizetime", limit)
	}
}
