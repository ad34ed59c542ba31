//go:build unix

package pipeline

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestWalkSkipsWhatIsNotAFile: a named pipe called *.jsonl in a walked
// folder, and a link to /dev/zero, are named and failed at once instead of
// blocking the run or reading for ever; the folder's real log converts.
func TestWalkSkipsWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "a-fifo.jsonl"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "b-zero.jsonl")); err != nil {
		t.Fatal(err)
	}
	log, _ := os.ReadFile(filepath.Join("..", "..", "samples", "session", "basic.jsonl"))
	os.WriteFile(filepath.Join(dir, "c-real.jsonl"), log, 0o644)
	ins, err := Expand([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan Outcome, 1)
	var msgs []string
	go func() {
		done <- Run(context.Background(), ins, RunOptions{Out: t.TempDir(), Jobs: 2, Messages: func(m Message) { msgs = append(msgs, m.Text) }}, io.Discard)
	}()
	select {
	case oc := <-done:
		if oc.Converted != 1 || oc.Failed != 2 {
			t.Errorf("converted %d, failed %d; want 1 and 2\n%s", oc.Converted, oc.Failed, strings.Join(msgs, "\n"))
		}
		all := strings.Join(msgs, "\n")
		for _, want := range []string{"a-fifo.jsonl: not a regular file (a named pipe)", "b-zero.jsonl: not a regular file (a device)"} {
			if !strings.Contains(all, want) {
				t.Errorf("messages lack %q:\n%s", want, all)
			}
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the run blocked on a named pipe or a device")
	}
}
