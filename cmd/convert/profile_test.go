package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestHeapProfileOfARunTooSmallToCollect: a run that never collects
// still leaves its heap profile, written at exit.
func TestHeapProfileOfARunTooSmallToCollect(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heap.prof")
	stop := startHeapProfile(path, io.Discard)
	stop()
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		t.Fatalf("no heap profile at exit: %v", err)
	}
	startHeapProfile("", io.Discard)() // no file asked: nothing, no panic
}
