package main

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/receipt"
)

// TestDisplayInput: a message names an input by the argument as typed
// (relative), ~/... (under the home) or nothing of it, then only id-shaped
// folders and file names: never a user name or an encoded working folder.
func TestDisplayInput(t *testing.T) {
	home := filepath.Join(string(filepath.Separator), "Users", "CANARYUSER")
	old := homeDir
	homeDir = func() (string, error) { return home, nil }
	defer func() { homeDir = old }()
	projects := filepath.Join(home, ".claude", "projects")
	enc := filepath.Join(projects, "-Users-CANARYUSER-acme")
	uuid := "2b6e4d1f-7f3c-4a10-9a8b-5e0c1d2e3f4a"
	tests := []struct {
		name, arg, path, want string
	}{
		{"walked default folder", projects, filepath.Join(enc, uuid+".jsonl"), "~/.claude/projects/…/" + uuid + ".jsonl"},
		{"subagent companion", projects, filepath.Join(enc, uuid, "subagents", "agent-a1b2c3d4.jsonl"), "~/.claude/projects/…/" + uuid + "/subagents/agent-a1b2c3d4.jsonl"},
		{"the encoded folder given", enc, filepath.Join(enc, uuid+".jsonl"), "~/.claude/projects/…/" + uuid + ".jsonl"},
		{"a file given absolute", filepath.Join(enc, uuid+".jsonl"), filepath.Join(enc, uuid+".jsonl"), "~/.claude/projects/…/" + uuid + ".jsonl"},
		{"a relative file as typed", "logs/a.jsonl", "logs/a.jsonl", "logs/a.jsonl"},
		{"a relative folder as typed", "logs", filepath.Join("logs", "2026", "01", "rollout-2026-01-02T03-04-05-"+uuid+".jsonl"), "logs/2026/01/rollout-2026-01-02T03-04-05-" + uuid + ".jsonl"},
		{"a relative encoded folder", "-Users-CANARYUSER-acme", filepath.Join("-Users-CANARYUSER-acme", uuid+".jsonl"), "…/" + uuid + ".jsonl"},
		{"outside the home", "/srv/CANARY-team/logs", "/srv/CANARY-team/logs/" + uuid + ".jsonl", "…/" + uuid + ".jsonl"},
		{"a file outside the home", "/srv/CANARY-team/" + uuid + ".jsonl", "/srv/CANARY-team/" + uuid + ".jsonl", "…/" + uuid + ".jsonl"},
		{"a name that is no id", projects, filepath.Join(enc, "notes.jsonl"), "~/.claude/projects/…/notes.jsonl"},
		{"a name with the user's", projects, filepath.Join(enc, "canaryuser-notes.jsonl"), "~/.claude/projects/…/[input 7, name withheld]"},
		{"a name that encodes a path", projects, filepath.Join(projects, "-srv-CANARY-x.jsonl"), "~/.claude/projects/[input 7, name withheld]"},
		{"a folder that is no id", projects, filepath.Join(projects, "CANARY-client", uuid+".jsonl"), "~/.claude/projects/…/" + uuid + ".jsonl"},
		{"a hex word is no id", projects, filepath.Join(projects, "cafe", "x.jsonl"), "~/.claude/projects/…/x.jsonl"},
		{"standard input", "-", "stdin", "stdin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := displayInput(7, tt.arg, filepath.FromSlash(tt.path))
			if got != tt.want {
				t.Errorf("displayInput(%q, %q) = %q, want %q", tt.arg, tt.path, got, tt.want)
			}
			if strings.Contains(got, "CANARY") {
				t.Errorf("%q names the canary", got)
			}
		})
	}
}

// TestStderrPassesLeakcheck: convert's own stderr, over a home folder whose
// encoded working folder names the user, names no folder of the inputs and
// passes convert leakcheck --input of the logs it read (the README's advice
// before sharing stderr). Bad lines, a failure (--strict) and a file whose
// name holds the user's name all reach stderr.
func TestStderrPassesLeakcheck(t *testing.T) {
	home := filepath.Join(t.TempDir(), "CANARYUSER") // the user's name is the home's
	t.Setenv("HOME", home)
	dir := filepath.Join(home, ".claude", "projects", "-Users-CANARYUSER-proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "samples", "claude_code", "bad_junk_lines.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	log := strings.ReplaceAll(string(src), `"cwd": "`, `"cwd": "/Users/CANARYUSER/proj`) +
		`{"type":"user","cwd":"/Users/CANARYUSER/proj","message":{"role":"user","content":"read /Users/CANARYUSER/proj/CANARY-payroll.csv"` + "\n"
	for _, name := range []string{"1234abcd-3333-4444-8555-666677778888.jsonl", "CANARYUSER-notes.jsonl"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	projects := filepath.Join(home, ".claude", "projects")
	for _, strict := range []bool{false, true} {
		args := []string{"run", "--out", t.TempDir(), projects}
		if strict {
			args = append(args, "--strict")
		}
		code, _, se := runCLI(t, "", args...) // runCLI fails on any CANARY on stdout or stderr
		if want := map[bool]int{false: exitOK, true: exitFailed}[strict]; code != want {
			t.Fatalf("strict=%v: exit %d, want %d\n%s", strict, code, want, se)
		}
		// Off a terminal a file named by the user (here with the user's
		// name) is shown as its outputs are named.
		if !strings.Contains(se, "~/.claude/projects/…/1234abcd-3333-4444-8555-666677778888.jsonl:") ||
			!strings.Contains(se, "~/.claude/projects/…/"+pipeline.InputFileName(receipt.Hasher{}, "CANARYUSER-notes.jsonl")+":") {
			t.Errorf("strict=%v: stderr does not name the inputs as expected:\n%s", strict, se)
		}
		for _, bad := range []string{home, "-Users-", "CANARY", "-proj"} {
			if strings.Contains(se, bad) {
				t.Errorf("strict=%v: stderr carries %q:\n%s", strict, bad, se)
			}
		}
		saved := filepath.Join(t.TempDir(), "run.stderr")
		if err := os.WriteFile(saved, []byte(se), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, so, se2 := runCLI(t, "", "leakcheck", "--input", projects, saved); code != exitOK {
			t.Errorf("strict=%v: leakcheck of convert's own stderr: exit %d\n%s%s", strict, code, so, se2)
		}
	}
	// report converts logs through the same pipeline: its messages too
	code, _, se := runCLI(t, "", "report", projects) // runCLI fails on any CANARY
	if code != exitOK || !strings.Contains(se, "~/.claude/projects/…/1234abcd-3333-4444-8555-666677778888.jsonl:") || strings.Contains(se, "-Users-") {
		t.Errorf("report: exit %d, stderr:\n%s", code, se)
	}
}

// TestInputNamer: on a terminal a walked file is named as displayInput
// names it; off one (a log, a pipe) a walked file whose name the user
// chose is named as its outputs are, keyed in keyed mode, and a file the
// user named, or an agent's own session name, stays.
func TestInputNamer(t *testing.T) {
	key := make([]byte, 32)
	rand.Read(key)
	keyed, err := receipt.NewKeyed([]byte(hex.EncodeToString(key)))
	if err != nil {
		t.Fatal(err)
	}
	uuid := "2b6e4d1f-7f3c-4a10-9a8b-5e0c1d2e3f4a"
	dir := filepath.Join("logs", "CANARY-client")
	for _, tc := range []struct {
		name      string
		tty       bool
		h         receipt.Hasher
		arg, path string
		want      string
	}{
		{"terminal, walked", true, receipt.Hasher{}, "logs", filepath.Join(dir, "CANARY-notes.jsonl"), "logs/…/CANARY-notes.jsonl"},
		{"log, walked", false, receipt.Hasher{}, "logs", filepath.Join(dir, "CANARY-notes.jsonl"), "logs/…/" + pipeline.InputFileName(receipt.Hasher{}, "CANARY-notes.jsonl")},
		{"log, walked, keyed", false, keyed, "logs", filepath.Join(dir, "CANARY-notes.jsonl"), "logs/…/" + pipeline.InputFileName(keyed, "CANARY-notes.jsonl")},
		{"log, walked session", false, receipt.Hasher{}, "logs", filepath.Join(dir, uuid+".jsonl"), "logs/…/" + uuid + ".jsonl"},
		{"log, named by the user", false, receipt.Hasher{}, "CANARY-notes.jsonl", "CANARY-notes.jsonl", "CANARY-notes.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := inputNamer(tc.tty, tc.h)(1, tc.arg, tc.path)
			if got != tc.want {
				t.Errorf("%q, want %q", got, tc.want)
			}
			if !tc.tty && tc.path != tc.arg && strings.Contains(got, "CANARY") {
				t.Errorf("%q names the canary off a terminal", got)
			}
		})
	}
	if a, b := inputNamer(false, receipt.Hasher{})(1, "logs", filepath.Join(dir, "CANARY-notes.jsonl")),
		inputNamer(false, keyed)(1, "logs", filepath.Join(dir, "CANARY-notes.jsonl")); a == b {
		t.Errorf("keyed and plain names agree: %q", a)
	}
}
