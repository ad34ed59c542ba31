package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/contextreceipts/convert/internal/receipt"
)

// TestPublisher: every input handed over is written once and reported
// once, with its own bytes; an input whose outputs are over
// maxQueuedOutput is written only once the one before it is done, by the
// worker itself; close returns only when the last one is out.
func TestPublisher(t *testing.T) {
	out := t.TempDir()
	opt := RunOptions{Out: out}
	man := loadManifest(out, receipt.Hasher{})
	var mu sync.Mutex
	var order []int
	var goroutines []bool // written on the worker's goroutine?
	worker := goroutineID()
	w := newPublisher(context.Background(), opt, man, "", func(i int, d done) {
		mu.Lock()
		defer mu.Unlock()
		if d.res.Err != nil {
			t.Errorf("input %d: %v", i, d.res.Err)
		}
		if d.res.Receipt != nil || d.res.Trace != nil {
			t.Errorf("input %d: its outputs are still held after they were written", i)
		}
		order = append(order, i)
		goroutines = append(goroutines, goroutineID() == worker)
	})
	big := bytes.Repeat([]byte("x"), maxQueuedOutput+1)
	sizes := []int{10, 20, len(big), 30}
	for i, n := range sizes {
		rel := filepath.Join("s", string(rune('a'+i))+".jsonl")
		p := &published{in: Input{Path: rel, Rel: rel}, outs: []string{"r", "t"}, index: i}
		p.d.res.Receipt, p.d.res.Trace = big[:n], []byte("{}\n")
		w.publish(p)
	}
	w.close()
	if want := []int{0, 1, 2, 3}; len(order) != len(want) || order[0] != 0 || order[1] != 1 || order[2] != 2 || order[3] != 3 {
		t.Fatalf("reported %v, want %v (one at a time, the large one after the one before it)", order, want)
	}
	if goroutines[0] || goroutines[1] || !goroutines[2] || goroutines[3] {
		t.Fatalf("written on the worker's goroutine: %v, want only the large output", goroutines)
	}
	for i, n := range sizes {
		base := filepath.Join(out, OutputName(filepath.Join("s", string(rune('a'+i))+".jsonl"), ""))
		rec, err := os.ReadFile(base + ".receipt.ndjson")
		if err != nil || len(rec) != n {
			t.Fatalf("input %d: receipt of %d bytes (%v), want %d", i, len(rec), err, n)
		}
	}
}

// goroutineID is the running goroutine's number, from its stack header
// ("goroutine 7 [running]:").
func goroutineID() string {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	f := bytes.Fields(b)
	if len(f) < 2 {
		return ""
	}
	return string(f[1])
}
