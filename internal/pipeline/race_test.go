package pipeline

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
)

// TestConcurrentSessionsAgree converts every native reader's samples (with
// their subagent files), four copies of each, with eight workers and
// --reveal names, and compares every output with a one-worker run's. Under
// -race (make test) it is also the check that no reader's kept string is
// read while another input's reader refills a pooled buffer; without, a
// view kept past its line shows as a difference.
func TestConcurrentSessionsAgree(t *testing.T) {
	src := t.TempDir()
	for _, c := range converters.Natives() {
		for _, dir := range c.Samples() {
			from := filepath.Join("..", "..", filepath.FromSlash(dir))
			for copyN := range 4 {
				to := filepath.Join(src, c.Name, string(rune('a'+copyN)))
				if err := os.CopyFS(to, os.DirFS(from)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	ins, err := Expand([]string{src})
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) < 20 {
		t.Fatalf("only %d inputs", len(ins))
	}
	run := func(jobs int) string {
		out := t.TempDir()
		Run(context.Background(), ins, RunOptions{Options: Options{Reveal: true}, Out: out, Jobs: jobs, Force: true}, io.Discard)
		return out
	}
	one, eight := run(1), run(8)
	files := 0
	err = filepath.WalkDir(one, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(d.Name(), ".receipt.") && !strings.Contains(d.Name(), ".otel.") {
			return err
		}
		rel, _ := filepath.Rel(one, p)
		a, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(filepath.Join(eight, rel))
		if err != nil {
			return err
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between one worker and eight", rel)
		}
		files++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 40 {
		t.Fatalf("only %d outputs compared", files)
	}
}
