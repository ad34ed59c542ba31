package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// startCPUProfile writes a CPU profile of the whole process to path when
// CONVERT_CPUPROFILE names one (make bench uses it); it returns the stop.
func startCPUProfile(path string, stderr io.Writer) (stop func()) {
	if path == "" {
		return func() {}
	}
	fh, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(fh)
	}
	if err != nil {
		fmt.Fprintln(stderr, "convert: CONVERT_CPUPROFILE:", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		fh.Close()
	}
}
