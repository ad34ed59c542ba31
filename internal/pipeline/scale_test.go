package pipeline

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestScaleBoundedMemory converts a directory of 2,000 small sessions and
// one file with a 300 MB line in one run, with the default line cap and a
// small one. Everything converts (the huge line is skipped and counted), and
// the heap in use (sampled from runtime stats, garbage included, not timed)
// stays under a small multiple of the cap plus a fixed allowance: memory
// follows the cap, never the line or the number of files.
func TestScaleBoundedMemory(t *testing.T) {
	dir := t.TempDir()
	small, err := os.ReadFile(repoPath("samples/session/basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2000; i++ {
		writeFile(t, dir, fmt.Sprintf("s%02d/session-%04d.jsonl", i%20, i), string(small))
	}
	big := filepath.Join(dir, "huge-line.jsonl")
	fh, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(fh, 1<<20)
	w.WriteString(`{"type":"session.start","time":"2026-06-01T00:00:00Z","session_id":"s-huge","agent":"claude-code"}` + "\n")
	w.WriteString(`{"type":"context.input","time":"2026-06-01T00:00:01Z","kind":"memory","source_text":"`)
	chunk := bytes.Repeat([]byte("CANARY huge body "), 1<<16)
	for n := 0; n < 300<<20; n += len(chunk) {
		w.Write(chunk)
	}
	w.WriteString(`"}` + "\n" + `{"type":"tool.call","time":"2026-06-01T00:00:02Z","name":"Read"}` + "\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	fh.Close()

	ins, err := Expand([]string{dir})
	if err != nil || len(ins) != 2001 {
		t.Fatalf("expand: %d inputs, %v", len(ins), err)
	}
	for _, maxLine := range []int{0, 8 << 20} {
		limit := uint64(4*effectiveCap(maxLine) + 64<<20)
		peak, oc, stderr := runSampled(t, ins, maxLine)
		if oc.Converted != 2001 || oc.SkipReasons["line_too_long"] != 1 {
			t.Fatalf("cap %d: outcome %+v\n%s", maxLine, oc, stderr)
		}
		if peak > limit {
			t.Errorf("cap %d MiB: heap in use peaked at %d MiB, over %d MiB", effectiveCap(maxLine)>>20, peak>>20, limit>>20)
		}
		t.Logf("cap %d MiB: peak heap in use %d MiB (limit %d MiB)", effectiveCap(maxLine)>>20, peak>>20, limit>>20)
		if bytes.Contains([]byte(stderr), []byte("CANARY")) {
			t.Error("canary in stderr")
		}
	}
}

func effectiveCap(maxLine int) int {
	if maxLine == 0 {
		return 64 << 20
	}
	return maxLine
}

// runSampled runs the batch while sampling the heap in use.
func runSampled(t *testing.T, ins []Input, maxLine int) (uint64, Outcome, string) {
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if v := ms.HeapInuse; v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	var stderr bytes.Buffer
	oc := Run(context.Background(), ins, RunOptions{Options: Options{Converter: "session", MaxLine: maxLine}, Out: t.TempDir(), Jobs: 2}, &stderr)
	close(stop)
	<-done
	return peak.Load(), oc, stderr.String()
}
