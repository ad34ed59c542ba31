package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cliCase is one in-process run of the command: arguments, then what must
// be on stdout and stderr, and the exit code.
type cliCase struct {
	name      string
	args      []string
	exit      int
	stdout    []string // substrings
	stderr    []string
	noStderr  bool
	wantFiles []string // relative to the output dir
	emptyOut  bool     // the output dir must hold no file at all
}

func TestCLI(t *testing.T) {
	// run with no PATH reads the agents' default folders: none in a fake home.
	t.Setenv("HOME", t.TempDir())
	clearLocationEnv(t)
	repo, _ := filepath.Abs("../..")
	sample := func(conv, name string) string { return filepath.Join(repo, "samples", conv, name+".jsonl") }
	tests := []cliCase{
		{name: "no command prints help", args: nil, exit: 0, stdout: []string{"USAGE", "EXIT CODES", "leakcheck"}},
		{name: "unknown command", args: []string{"frobnicate"}, exit: 2, stderr: []string{`unknown command "frobnicate"`}},
		{name: "list", args: []string{"list"}, exit: 0, stdout: []string{"session ", "mcp_tool_search "}},
		{name: "list -v prints the tables' invariants", args: []string{"list", "-v"}, exit: 0, stdout: []string{
			"    memory.governance.delete.completed -> memory.governance.delete.completed\n        after: request_id only after a memory.governance.delete.requested with that request_id\n",
			"        check: deleted memories had the confirmation their candidates required\n"}},
		{name: "list takes no args", args: []string{"list", "x"}, exit: 2},
		{name: "run without paths", args: []string{"run"}, exit: 2, stderr: []string{"at least one PATH"}},
		{name: "run unknown flag", args: []string{"run", "--bogus", "x"}, exit: 2},
		{name: "run unknown converter", args: []string{"run", "--converter", "nope", sample("session", "basic")}, exit: 2, stderr: []string{`unknown converter "nope" (convert list names them all)`}},
		{name: "run mistyped converter", args: []string{"run", "--converter", "sesion", sample("session", "basic")}, exit: 2, stderr: []string{`unknown converter "sesion"; did you mean session?`}},
		{name: "run mistyped flag", args: []string{"run", "--ouput", "x", sample("session", "basic")}, exit: 2, stderr: []string{"unknown flag --ouput; did you mean --out?"}},
		{name: "mistyped command", args: []string{"reprot"}, exit: 2, stderr: []string{`unknown command "reprot"; did you mean report?`}},
		{name: "run missing file", args: []string{"run", "no/such/file.jsonl"}, exit: 2, stderr: []string{"no/such/file.jsonl"}},
		{name: "run detects the kind", args: []string{"run", sample("mcp_tool_search", "basic")}, exit: 0,
			stderr: []string{"1 of 1 inputs converted"}, wantFiles: []string{outName("basic", ".receipt.ndjson"), outName("basic", ".otel.jsonl")}},
		{name: "run with skipped lines still succeeds", args: []string{"run", "--converter", "session", sample("session", "bad_junk_lines")}, exit: 0,
			stderr: []string{"bad_junk_lines.jsonl:2: session: skipped line: malformed_json"}, wantFiles: []string{outName("bad_junk_lines", ".receipt.ndjson")}},
		{name: "strict fails on a skipped line", args: []string{"run", "--strict", "--converter", "session", sample("session", "bad_junk_lines")}, exit: 1,
			stderr: []string{"bad_junk_lines.jsonl:2: session: malformed_json (--strict)"}, emptyOut: true},
		{name: "invariant failure writes nothing", args: []string{"run", sample("mcp_tool_search", "bad_definition_outside_index")}, exit: 1,
			stderr: []string{"bad_definition_outside_index.jsonl:3: mcp_tool_search:"}, emptyOut: true},
		{name: "leak writes nothing", args: []string{"run", "--converter", "test_leaky", leakyLog(t)}, exit: 3,
			stderr: []string{"leak check failed, nothing written", ".otel.jsonl"}, emptyOut: true},
		{name: "one bad input does not stop the others", args: []string{"run", sample("mcp_tool_search", "bad_definition_outside_index"), sample("session", "basic")}, exit: 1,
			wantFiles: []string{outName("basic", ".receipt.ndjson")}},
		{name: "unknown kind names the known ones", args: []string{"run", filepath.Join(repo, "go.mod")}, exit: 1, stderr: []string{"matches no known kind (convert list names every kind)"}},
		{name: "validate needs files", args: []string{"validate"}, exit: 2},
		{name: "leakcheck needs --input", args: []string{"leakcheck", "x"}, exit: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"convert"}, tt.args...)
			if len(tt.args) > 0 && tt.args[0] == "run" {
				args = append([]string{"convert", "run", "--out", out}, tt.args[1:]...)
			}
			var stdout, stderr bytes.Buffer
			code := run(args, &stdout, &stderr)
			if code != tt.exit {
				t.Errorf("exit = %d, want %d\nstdout: %s\nstderr: %s", code, tt.exit, stdout.String(), stderr.String())
			}
			for _, s := range tt.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout.String())
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
				}
			}
			for _, f := range tt.wantFiles {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("missing output %s", f)
				}
			}
			if tt.emptyOut {
				entries, _ := os.ReadDir(out)
				if len(entries) != 0 {
					t.Errorf("output dir holds %d entries, want none (no partial files)", len(entries))
				}
			}
			if strings.Contains(stdout.String()+stderr.String(), "CANARY") {
				t.Errorf("a canary reached stdout or stderr")
			}
		})
	}
}

// TestRunValidateLeakcheck is the user's round trip: convert a sample,
// validate and leak-check what was written, then show leakcheck fails on a
// file that carries a raw value of the input.
func TestRunValidateLeakcheck(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	in := filepath.Join(repo, "samples", "mcp_tool_search", "basic.jsonl")
	out := t.TempDir()
	var so, se bytes.Buffer
	if code := run([]string{"convert", "run", "--out", out, in}, &so, &se); code != 0 {
		t.Fatalf("run: exit %d: %s", code, se.String())
	}
	rec, trace := filepath.Join(out, outName("basic", ".receipt.ndjson")), filepath.Join(out, outName("basic", ".otel.jsonl"))
	so.Reset()
	se.Reset()
	if code := run([]string{"convert", "validate", rec, trace}, &so, &se); code != 0 || !strings.Contains(so.String(), "2 files valid") {
		t.Fatalf("validate: exit %d: %s %s", code, so.String(), se.String())
	}
	if code := run([]string{"convert", "leakcheck", "--input", in, rec, trace}, &so, &se); code != 0 {
		t.Fatalf("leakcheck on our outputs: exit %d: %s", code, se.String())
	}
	leaky := filepath.Join(out, "stderr.txt")
	os.WriteFile(leaky, []byte("debug: CANARY-query invoice failures for tenant acme after deploy 4f2e\n"), 0o644)
	se.Reset()
	if code := run([]string{"convert", "leakcheck", "--input", in, rec, leaky}, &so, &se); code != 3 {
		t.Fatalf("leakcheck on a leaky file: exit %d, want 3", code)
	}
	if !strings.Contains(se.String(), "stderr.txt line 1") || strings.Contains(se.String(), "CANARY") {
		t.Errorf("leakcheck must name the place and not repeat the content: %s", se.String())
	}
	// A saved stderr is what the program printed: its lines are read as
	// messages, so our own words in them ("input matches no known kind")
	// are not raw input, even where the input has such a key ("matches").
	cc := filepath.Join(repo, "samples", "claude_code", "basic", "-Users-alice-src-acme-ledger", "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl")
	saved := filepath.Join(out, "run.stderr")
	os.WriteFile(saved, []byte(filepath.Join(out, "notes.jsonl")+": input matches no known kind (known: claude_code, codex)\n"), 0o644)
	se.Reset()
	if code := run([]string{"convert", "leakcheck", "--converter", "claude_code", "--input", cc, saved}, &so, &se); code != 0 {
		t.Errorf("leakcheck on the program's own message: exit %d: %s", code, se.String())
	}
	os.WriteFile(saved, []byte("notes.jsonl: input matches no known kind (CANARY-answer Let me look at the ledger.)\n"), 0o644)
	se.Reset()
	if code := run([]string{"convert", "leakcheck", "--converter", "claude_code", "--input", cc, saved}, &so, &se); code != 3 {
		t.Errorf("leakcheck on a message carrying raw input: exit %d, want 3: %s", code, se.String())
	}
	bad := filepath.Join(out, "bad.receipt.ndjson")
	os.WriteFile(bad, []byte(`{"trace_id":"x","name":"mcp.tool_call.completed","attributes":{}}`+"\n"), 0o644)
	se.Reset()
	if code := run([]string{"convert", "validate", bad}, &so, &se); code != 4 || !strings.Contains(se.String(), "bad.receipt.ndjson:1:") {
		t.Errorf("validate on a bad receipt: exit %d, stderr %s", code, se.String())
	}
}
