package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
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

// TestWriteOutputs: both outputs land with the mode receipts are shared
// with (0644 less the umask, made so in the one create), in a folder made
// on the first write into it, with no temporary file left beside them,
// and a temporary name a crashed process left behind is stepped over.
func TestWriteOutputs(t *testing.T) {
	out := t.TempDir()
	name := "p/q/session"
	dir := filepath.Join(out, "p", "q")
	for try := range 2 { // the first makes the folders; the second replaces
		if try == 1 {
			// A stale temporary file under the next name this process takes.
			stale := filepath.Join(dir, fmt.Sprintf(".session.receipt.ndjson.tmp-%d-%d", os.Getpid(), tempSeq.Load()+1))
			if err := os.WriteFile(stale, []byte("stale"), 0o600); err != nil {
				t.Fatal(err)
			}
			defer func() {
				if b, err := os.ReadFile(stale); err != nil || string(b) != "stale" {
					t.Errorf("the stale temporary file was touched: %q, %v", b, err)
				}
				os.Remove(stale)
			}()
		}
		rec, trace := fmt.Sprintf("receipt %d\n", try), fmt.Sprintf("trace %d\n", try)
		if err := write(out, name, []byte(rec), []byte(trace), ".otel.jsonl"); err != nil {
			t.Fatal(err)
		}
		for suffix, want := range map[string]string{".receipt.ndjson": rec, ".otel.jsonl": trace} {
			p := filepath.Join(dir, "session"+suffix)
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(p); string(b) != want {
				t.Errorf("%s: %q, want %q", suffix, b, want)
			}
			if mode := st.Mode().Perm(); mode != 0o644&^umask(t) {
				t.Errorf("%s: mode %v, want %v", suffix, mode, fs.FileMode(0o644&^umask(t)))
			}
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 { // the two outputs and the stale file
		t.Errorf("folder holds %d entries, want the 2 outputs and the stale file: %v", len(ents), ents)
	}
}

// umask is the process's file mode creation mask, read back from a file
// made with 0777.
func umask(t *testing.T) fs.FileMode {
	p := filepath.Join(t.TempDir(), "m")
	fh, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o777)
	if err != nil {
		t.Fatal(err)
	}
	fh.Close()
	st, _ := os.Stat(p)
	return 0o777 &^ st.Mode().Perm()
}
