package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/contextreceipts/convert/internal/leak"
)

// TestCommandPeakRSS: the peak RSS is the child's own, not the vfork
// floor of the parent's, and grows with what the child holds.
func TestCommandPeakRSS(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	hold := make([]byte, 200<<20) // a big parent: its RSS must not show in the child's
	for i := range hold {
		hold[i] = 1
	}
	cases := []struct {
		mb       int
		min, max float64
	}{{0, 1, 60}, {150, 140, 260}}
	for _, c := range cases {
		script := "import time\nb = bytearray(" + strconv.Itoa(c.mb) + " << 20)\nfor i in range(0, len(b), 4096): b[i] = 1\ntime.sleep(0.3)"
		r, err := Command("python", 0, nil, false, "python3", "-c", script)
		if err != nil {
			t.Fatal(err)
		}
		if r.PeakRSSMB < c.min || r.PeakRSSMB > c.max {
			t.Errorf("holding %d MB: peak RSS %.0f MB, want %.0f-%.0f", c.mb, r.PeakRSSMB, c.min, c.max)
		}
	}
	_ = hold[len(hold)-1]
}

// TestWriteFloor: the floor writes as many files and bytes as the tree it
// copies (its dot files, the manifest, aside), under the same names, and
// leaves no temporary file; the tree is the caller's to remove.
func TestWriteFloor(t *testing.T) {
	out, dir := t.TempDir(), filepath.Join(t.TempDir(), "floor")
	files := map[string]int{"a/s1.receipt.ndjson": 10, "a/s1.otel.json": 3 << 20, "b/c/s2.receipt.ndjson": 0, ".convert-manifest.json": 5}
	writeTree(t, out, files)
	r, err := WriteFloor(out, dir, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if r.Inputs != 3 || r.Note != "3 files, 3 MB" || r.Bytes != 1000 || r.WallSeconds <= 0 {
		t.Errorf("floor = %+v, want 3 files of 3 MB for 1000 input bytes", r)
	}
	for rel, n := range files {
		st, err := os.Stat(filepath.Join(dir, rel))
		switch {
		case strings.HasPrefix(rel, "."):
			if err == nil {
				t.Errorf("%s: a dot file is copied", rel)
			}
		case err != nil || st.Size() != int64(n):
			t.Errorf("%s: %v, want %d bytes", rel, err, n)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*", ".*tmp-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestCheckFloor: every line that would be converted is walked (keys and
// raw values counted; a pass-through value that fits its shape is not
// raw), and lines convert would skip are read but not walked.
func TestCheckFloor(t *testing.T) {
	dir := t.TempDir()
	const line = `{"type":"user","sessionId":"7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b","message":{"content":"CANARY hello"}}`
	a := filepath.Join(dir, "a.jsonl")
	b := filepath.Join(dir, "b.jsonl")
	if err := os.WriteFile(a, []byte(line+"\n{not json\n[1,2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2, 3} {
		var mu sync.Mutex
		var asked []string
		r, err := CheckFloor("floor", []string{a, b}, 1000, workers, func(f string) leak.Paths {
			mu.Lock()
			asked = append(asked, filepath.Base(f))
			mu.Unlock()
			return leak.Paths{"sessionId": leak.UUID}
		})
		if err != nil {
			t.Fatal(err)
		}
		// Per converted line: 4 keys and 2 raw values ("user", the
		// content); the session id is admitted.
		if r.Note != "4 lines, 12 raw strings walked" || r.Inputs != 2 || r.Bytes != 1000 || r.WallSeconds <= 0 {
			t.Errorf("%d workers: floor = %+v, want 4 lines and 12 raw strings", workers, r)
		}
		sort.Strings(asked)
		if strings.Join(asked, " ") != "a.jsonl b.jsonl" {
			t.Errorf("%d workers: pass paths asked for %q", workers, asked)
		}
	}
	if _, err := CheckFloor("floor", []string{filepath.Join(dir, "missing.jsonl")}, 0, 2, func(string) leak.Paths { return nil }); err == nil {
		t.Error("a file that cannot be read is not an error")
	}
}

// TestMedian: the run of median wall time is kept whole, with the spread
// in its note; one run is kept as it is; a failed run is the result.
func TestMedian(t *testing.T) {
	walls := []float64{3, 1, 2}
	i := 0
	r, err := Median(3, func() (Result, error) {
		i++
		return Result{Name: "x", WallSeconds: walls[i-1], CPUSeconds: 10 * walls[i-1], Note: "n"}, nil
	})
	if err != nil || r.WallSeconds != 2 || r.CPUSeconds != 20 || r.Note != "n; median of 3 runs (1.00-3.00 s, spread 200%)" || r.SpreadPct != 200 {
		t.Errorf("median = %+v, %v", r, err)
	}
	one, _ := Median(1, func() (Result, error) { return Result{WallSeconds: 5}, nil })
	if one.WallSeconds != 5 || one.Note != "" {
		t.Errorf("one run = %+v", one)
	}
	calls := 0
	if _, err := Median(3, func() (Result, error) { calls++; return Result{}, os.ErrNotExist }); err == nil || calls != 1 {
		t.Errorf("a failed run: err %v after %d calls", err, calls)
	}
}

// TestInterleave: rows are measured in rounds (A B A B, not A A B B),
// each measure is told its round, each row keeps its own median run and
// spread, and a failure ends the series.
func TestInterleave(t *testing.T) {
	var order []string
	row := func(name string, walls ...float64) func(int) (Result, error) {
		return func(round int) (Result, error) {
			order = append(order, fmt.Sprintf("%s%d", name, round))
			return Result{Name: name, WallSeconds: walls[round]}, nil
		}
	}
	rs, err := Interleave(3, row("a", 1, 4, 2), row("b", 10, 10, 10))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, " "); got != "a0 b0 a1 b1 a2 b2" {
		t.Errorf("order %q, want rounds a0 b0 a1 b1 a2 b2", got)
	}
	if rs[0].WallSeconds != 2 || rs[0].SpreadPct != 300 || rs[1].WallSeconds != 10 || rs[1].SpreadPct != 0 {
		t.Errorf("rows %+v", rs)
	}
	calls := 0
	_, err = Interleave(3, func(int) (Result, error) { calls++; return Result{}, nil }, func(int) (Result, error) { return Result{}, os.ErrNotExist })
	if err == nil || calls != 1 {
		t.Errorf("a failed run: err %v after %d calls of the row before it", err, calls)
	}
}

// TestIOFloor: with inputs, the floor reads and hashes each of them whole
// and still writes the output tree again, whichever worker takes a job;
// an input that cannot be read fails the row.
func TestIOFloor(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	outputs := map[string]int{"p/s1.receipt.ndjson": 7, "p/s1.otel.json": 70 << 10, "q/s2.otel.json": 1}
	writeTree(t, out, outputs)
	var inputs []string
	for i, n := range []int{0, 1, 3 << 20} { // empty, one byte, many reads of 64 KiB
		p := filepath.Join(dir, fmt.Sprintf("in%d.jsonl", i))
		if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, p)
	}
	for _, workers := range []int{1, 2} {
		again := filepath.Join(dir, fmt.Sprintf("again%d", workers))
		r, err := IOFloor("io", inputs, out, again, 1000, workers)
		if err != nil {
			t.Fatal(err)
		}
		if want := "3 inputs, 3 MB read and hashed; 3 outputs, 0 MB written"; r.Note != want || r.Inputs != 3 || r.Name != "io" {
			t.Errorf("%d workers: %+v, want note %q", workers, r, want)
		}
		for rel, n := range outputs {
			if st, err := os.Stat(filepath.Join(again, rel)); err != nil || st.Size() != int64(n) {
				t.Errorf("%d workers: %s: %v, want %d bytes", workers, rel, err, n)
			}
		}
	}
	if _, err := IOFloor("io", []string{filepath.Join(dir, "missing.jsonl")}, out, filepath.Join(dir, "x"), 0, 2); err == nil {
		t.Error("a missing input: no error")
	}
}

// writeTree writes under root a file of zeros for each path, of its size.
func writeTree(t *testing.T, root string, files map[string]int) {
	t.Helper()
	for rel, n := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
