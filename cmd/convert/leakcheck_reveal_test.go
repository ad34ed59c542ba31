package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLeakcheckReveal: convert leakcheck checks outputs as the run wrote
// them, with --reveal names or not. A model name no catalog knows (a
// deployment named after a person) is written as its digest, and in
// clear under --reveal names: a copy of it in an output is a leak for the
// outputs of a plain run, and not for those of a --reveal names run, as
// leakcheck --reveal names says. A run's own outputs pass either way they
// were made: its manifest records --reveal names for each input, and
// leakcheck OUT checks each input's outputs as they were made.
func TestLeakcheckReveal(t *testing.T) {
	const person = "alice-kowalczyk-finetune"
	src, err := os.ReadFile(filepath.Join("..", "..", "samples", "codex", "basic", "sessions", "2026", "03", "14",
		"rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	data := strings.ReplaceAll(string(src), `"model":"gpt-5.3-codex"`, `"model":"`+person+`"`)
	if data == string(src) {
		t.Fatal("the sample's model was not found")
	}
	dir := t.TempDir()
	logs := filepath.Join(dir, "sessions")
	os.MkdirAll(logs, 0o755)
	log := filepath.Join(logs, "rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl")
	copied := filepath.Join(dir, "copied.txt")
	os.WriteFile(log, []byte(data), 0o644)
	os.WriteFile(copied, []byte("chat "+person+"\n"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"leakcheck", "--input", log, copied}, exitLeak},
		{[]string{"leakcheck", "--reveal", "names", "--input", log, copied}, 0},
		{[]string{"leakcheck", "--reveal", "everything", "--input", log, copied}, exitUsage},
	} {
		if code, so, se := runCLI(t, "", tc.args...); code != tc.code || strings.Contains(so+se, person) {
			t.Errorf("%v: exit %d, want %d\n%s%s", tc.args, code, tc.code, so, se)
		}
	}
	for _, reveal := range [][]string{nil, {"--reveal", "names"}} {
		out := filepath.Join(t.TempDir(), "receipts")
		args := append(append([]string{"run"}, reveal...), "--out", out, logs)
		if code, so, se := runCLI(t, "", args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, so, se)
		}
		// The run's manifest records --reveal names: its folder needs no flag.
		if code, so, se := runCLI(t, "", "leakcheck", "--logs", logs, out); code != 0 || !strings.Contains(so+se, "no leak") {
			t.Errorf("leakcheck of %v: exit %d\n%s%s", args, code, so, se)
		}
		manifest, _ := os.ReadFile(filepath.Join(out, ".convert-manifest.json"))
		if got := strings.Contains(string(manifest), `"reveal_names":true`); got != (reveal != nil) {
			t.Errorf("%v: the manifest records --reveal names %v", args, got)
		}
	}
}
