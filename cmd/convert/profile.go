package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
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

// startHeapProfile writes, when CONVERT_HEAPPROFILE names a file, the heap
// profile of the largest live heap the process had: after each collection
// whose live heap is a new peak (by more than 1/16), the profile (in-use
// figures as of that collection) replaces the file. `go tool pprof
// -sample_index=inuse_space` then shows what was live at the peak. A run
// too small to collect at all gets the profile at exit: the returned stop
// writes it when none was.
func startHeapProfile(path string, stderr io.Writer) (stop func()) {
	if path == "" {
		// The binary links runtime/pprof, so the runtime would sample
		// allocations (a stack walk every 512 KiB) for a heap profile
		// nobody asked for: sampling stays off unless one is asked for.
		runtime.MemProfileRate = 0
		return func() {}
	}
	var mu sync.Mutex
	var peak uint64
	written := false
	write := func(live uint64, always bool) {
		mu.Lock()
		defer mu.Unlock()
		if !always && live <= peak+peak/16 || always && written {
			return
		}
		peak, written = max(peak, live), true
		fh, err := os.Create(path)
		if err == nil {
			err = pprof.Lookup("heap").WriteTo(fh, 0)
			if cerr := fh.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintln(stderr, "convert: CONVERT_HEAPPROFILE:", err)
		}
	}
	afterEachGC(func(live uint64) {
		go write(live, false) // not on the finalizer goroutine: writing allocates
	})
	return func() { write(0, true) }
}
