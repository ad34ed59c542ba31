package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestInterruptedCounts: Ctrl-C's message accounts for every input, so
// its parts add up to the inputs (issue: "166 of 352 converted, 183 not
// converted" left 3 unexplained).
func TestInterruptedCounts(t *testing.T) {
	for _, tt := range []struct {
		s    summary
		want string
	}{
		{summary{Inputs: 352, Converted: 166, Unchanged: 2, Empty: 1, Failed: failedCounts{Total: 5, Input: 1, Interrupted: 4}},
			"166 of 352 inputs converted, 2 unchanged, 1 empty, 1 failed, 182 not converted"},
		{summary{Inputs: 10, Converted: 3, Failed: failedCounts{Total: 1, Interrupted: 1}}, "3 of 10 inputs converted, 7 not converted"},
		{summary{Inputs: 4, Converted: 4}, "4 of 4 inputs converted, 0 not converted"},
	} {
		got := interruptedCounts(tt.s)
		if got != tt.want {
			t.Errorf("interruptedCounts = %q, want %q", got, tt.want)
		}
		sum := 0
		for i, m := range regexp.MustCompile(`\d+`).FindAllString(got, -1) {
			if i == 1 {
				continue // "of M"
			}
			n, _ := strconv.Atoi(m)
			sum += n
		}
		if sum != tt.s.Inputs {
			t.Errorf("%q adds up to %d, not %d inputs", got, sum, tt.s.Inputs)
		}
	}
}

// TestLineWarningsSummed: per-line warnings of one input are shown up to
// maxLineWarnings, then summed in one line; the table counts them all.
func TestLineWarningsSummed(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "basic.jsonl")
	b, err := os.ReadFile("../../samples/session/basic.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(src, append(b, []byte(strings.Repeat("{not json\n", 10))...), 0o644)
	code, _, se := runCLI(t, "", "run", "--out", filepath.Join(dir, "out"), src)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, se)
	}
	if n := strings.Count(se, "skipped line: malformed_json"); n != maxLineWarnings {
		t.Errorf("%d per-line warnings shown, want %d:\n%s", n, maxLineWarnings, se)
	}
	for _, s := range []string{"7 more skipped lines not shown", "lines skipped  10 (malformed_json 10)"} {
		if !strings.Contains(se, s) {
			t.Errorf("stderr lacks %q:\n%s", s, se)
		}
	}
}

// TestOutInWorkTree: a run that makes its --out inside a git work tree
// says so; once the folder is there (a golden run kept on purpose), no
// more; outside a work tree, never.
func TestOutInWorkTree(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(repo, "basic.jsonl")
	copyFile(t, "../../samples/session/basic.jsonl", src)
	const warn = "is inside the git work tree at"
	out := filepath.Join(repo, "receipts")
	if code, _, se := runCLI(t, "", "run", "--out", out, src); code != 0 || !strings.Contains(se, warn) {
		t.Errorf("first run in a work tree: exit %d\n%s", code, se)
	}
	if code, _, se := runCLI(t, "", "run", "--out", out, src); code != 0 || strings.Contains(se, warn) {
		t.Errorf("second run: exit %d\n%s", code, se)
	}
	if code, _, se := runCLI(t, "", "run", "--out", filepath.Join(t.TempDir(), "r"), src); code != 0 || strings.Contains(se, warn) {
		t.Errorf("outside a work tree: exit %d\n%s", code, se)
	}
}

// TestBytesReadOfRefusedInput: an input detection read and refused was
// read: the table's bytes read counts it, never 0 B.
func TestBytesReadOfRefusedInput(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "other.jsonl")
	os.WriteFile(src, []byte(`{"foo":1}`+"\n"+`{"bar":2}`+"\n"), 0o644)
	code, _, se := runCLI(t, "", "run", "--out", filepath.Join(dir, "out"), src)
	if code != exitFailed || !strings.Contains(se, "bytes read     20 B") {
		t.Errorf("exit %d, want %d and 20 bytes read:\n%s", code, exitFailed, se)
	}
}
