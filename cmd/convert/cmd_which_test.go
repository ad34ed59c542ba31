package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestWhich: the input-<hex> and project-<hex> names a run gives map back
// to the file and folder of this machine they stand for, by the digests
// computed again, keyed when the run was; the answer goes to a terminal
// only.
func TestWhich(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	copyTree(t, filepath.Join(repo, "samples", "claude_code", "basic"), logs)
	notes := filepath.Join(logs, "alice-payroll-notes.jsonl")
	copyFile(t, filepath.Join(repo, "samples", "session", "basic.jsonl"), notes)
	key := filepath.Join(dir, "k")
	if code, _, errs := call(t, nil, "keygen", "--alg", "hash", "--out", key); code != 0 {
		t.Fatalf("keygen: %s", errs)
	}
	key += ".hashkey"
	plain, keyed := filepath.Join(dir, "plain"), filepath.Join(dir, "keyed")
	if code, _, errs := call(t, nil, "run", "--out", plain, logs); code != 0 {
		t.Fatalf("run: %s", errs)
	}
	if code, _, errs := call(t, nil, "run", "--out", keyed, "--hash-key-file", key, logs); code != 0 {
		t.Fatalf("run: %s", errs)
	}
	name := func(out, glob string) string {
		m, _ := filepath.Glob(filepath.Join(out, glob))
		if len(m) != 1 {
			t.Fatalf("%s under %s: %v", glob, out, m)
		}
		return m[0]
	}
	plainInput, keyedInput := name(plain, "input-*.receipt.ndjson"), name(keyed, "input-*.receipt.ndjson")
	plainProject := filepath.Base(name(plain, "project-*"))
	if filepath.Base(plainInput) == filepath.Base(keyedInput) {
		t.Fatal("the keyed name is the plain one")
	}
	project, _ := filepath.Glob(filepath.Join(logs, "-*"))
	old := whichTerminal
	whichTerminal = func(io.Writer) bool { return true }
	defer func() { whichTerminal = old }()
	tests := []struct {
		name string
		args []string
		exit int
		out  string
	}{
		{"an output's path", []string{"which", plainInput, logs}, 0, notes},
		{"as a message names the input", []string{"which", strings.TrimSuffix(filepath.Base(plainInput), ".receipt.ndjson") + ".jsonl", logs}, 0, notes},
		{"a project folder", []string{"which", plainProject, logs}, 0, project[0]},
		{"a keyed name, with its key", []string{"which", "--hash-key-file", key, filepath.Base(keyedInput), logs}, 0, notes},
		{"a keyed name, without", []string{"which", filepath.Base(keyedInput), logs}, exitFailed, ""},
		{"no such name here", []string{"which", "input-0123456789ab", logs}, exitFailed, ""},
		{"not a digest name", []string{"which", "basic.jsonl", logs}, exitUsage, ""},
		{"no name", []string{"which"}, exitUsage, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := call(t, nil, tt.args...)
			if code != tt.exit {
				t.Fatalf("exit %d, want %d\n%s%s", code, tt.exit, out, errs)
			}
			if tt.out != "" && strings.TrimSpace(out) != tt.out {
				t.Errorf("stdout %q, want %q", out, tt.out)
			}
		})
	}
	whichTerminal = func(io.Writer) bool { return false }
	if code, out, errs := call(t, nil, "which", plainInput, logs); code != exitUsage || out != "" || !strings.Contains(errs, "to a terminal only") {
		t.Errorf("off a terminal: exit %d, stdout %q: %s", code, out, errs)
	}
}
