package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLeakcheckRun: leakcheck OUT with no --input checks what a run with
// no PATH wrote for three agents, each output against its own input found
// again in the default locations: no false leak (checking every output
// against one agent's logs found dozens), and a Gemini CLI legacy session
// of more than 1 MiB is read as the session it is, not refused as a
// sidecar. A leak planted in one output is found; an input gone since the
// run leaves its outputs unchecked, and the check says so and fails.
func TestLeakcheckRun(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	samples := filepath.Join(repo, "samples")
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	clearLocationEnv(t)
	for from, to := range map[string]string{"claude_code/basic": ".claude/projects", "codex/basic/sessions": ".codex/sessions",
		"gemini_cli/legacy_pretty/tmp": ".gemini/tmp"} {
		copyTree(t, filepath.Join(samples, filepath.FromSlash(from)), filepath.Join(home, filepath.FromSlash(to)))
	}
	legacy, _ := filepath.Glob(filepath.Join(home, ".gemini/tmp/*/chats/session-*.json"))
	if len(legacy) != 1 {
		t.Fatalf("legacy sessions: %v", legacy)
	}
	b, _ := os.ReadFile(legacy[0])
	big := strings.Replace(string(b), `"CANARY-legacy-prompt"`, `"CANARY-legacy-prompt`+strings.Repeat(" CANARY-pad", 120_000)+`"`, 1)
	if len(big) < 1<<20 || big == string(b) {
		t.Fatalf("the legacy session is %d bytes", len(big))
	}
	os.WriteFile(legacy[0], []byte(big), 0o644)
	// An empty session file, as real trees have: run skips it, and so do
	// both ways of leakcheck.
	projects, _ := filepath.Glob(filepath.Join(home, ".claude/projects/*"))
	os.WriteFile(filepath.Join(projects[0], "0a1b2c3d-0000-4000-8000-000000000000.jsonl"), nil, 0o644)
	old := stdinPiped
	stdinPiped = func() bool { return false }
	defer func() { stdinPiped = old }()
	out := filepath.Join(t.TempDir(), "receipts")
	if code, _, se := runCLI(t, "", "run", "--out", out); code != 0 || !strings.Contains(se, "gemini_cli") {
		t.Fatalf("run: exit %d\n%s", code, se)
	}

	code, so, se := runCLI(t, "", "leakcheck", out)
	if code != 0 || !strings.Contains(so+se, "no leak: ") || !strings.Contains(so+se, "each against its own input (6 inputs found under the agents' default locations") {
		t.Fatalf("leakcheck OUT: exit %d\n%s%s", code, so, se)
	}
	if code, so, se := runCLI(t, "", "leakcheck", "--json", out); code != 0 || !strings.Contains(so, `"inputs":6`) || !strings.Contains(so, `"leak":false`) {
		t.Errorf("leakcheck --json OUT: exit %d\n%s%s", code, so, se)
	}
	// The same with the folders named, as a run given PATHs is checked.
	code, so, se = runCLI(t, "", "leakcheck", "--logs", filepath.Join(home, ".claude/projects"), "--logs", filepath.Join(home, ".codex/sessions"),
		"--logs", filepath.Join(home, ".gemini/tmp"), out)
	if code != 0 {
		t.Fatalf("leakcheck --logs: exit %d\n%s%s", code, so, se)
	}
	if strings.Contains(so+se, home) {
		t.Errorf("the home folder is printed:\n%s%s", so, se)
	}
	if code, so, se := runCLI(t, "", "leakcheck", "--input", filepath.Join(home, ".claude/projects"), filepath.Join(out, "claude-code")); code != 0 {
		t.Errorf("leakcheck --input a folder with an empty file: exit %d\n%s%s", code, so, se)
	}

	// A raw value of the Claude session planted in its receipt.
	var claude string
	filepath.WalkDir(filepath.Join(out, "claude-code"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".receipt.ndjson") {
			claude = p
		}
		return nil
	})
	log, _ := filepath.Glob(filepath.Join(home, ".claude/projects/*/7f3c2a10-*.jsonl"))
	raw := "CANARY-answer Let me look at the ledger."
	if len(log) != 1 || claude == "" {
		t.Fatalf("claude log %v, receipt %q", log, claude)
	}
	if lb, _ := os.ReadFile(log[0]); !strings.Contains(string(lb), raw) {
		t.Fatalf("the claude sample lacks %q", raw)
	}
	rec, _ := os.ReadFile(claude)
	planted := strings.Replace(string(rec), `"convert.converter":"claude_code"`, `"convert.converter":"claude_code","x.note":"`+raw+`"`, 1)
	os.WriteFile(claude, []byte(planted), 0o644)
	if code, so, se := runCLI(t, "", "leakcheck", out); code != exitLeak || !strings.Contains(se, "leak: ") {
		t.Errorf("a planted leak: exit %d, want %d\n%s%s", code, exitLeak, so, se)
	}
	os.WriteFile(claude, rec, 0o644)

	// An input gone since the run.
	os.RemoveAll(filepath.Join(home, ".codex"))
	if code, so, se := runCLI(t, "", "leakcheck", out); code != exitFailed || !strings.Contains(se, "3 of 6 inputs the manifest records were not found") {
		t.Errorf("inputs gone: exit %d, want %d\n%s%s", code, exitFailed, so, se)
	}
	if code, _, se := runCLI(t, "", "leakcheck", filepath.Join(home, ".claude")); code != exitUsage || !strings.Contains(se, "has no .convert-manifest.json") {
		t.Errorf("a folder no run wrote: exit %d\n%s", code, se)
	}
}
