package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/jsonschema"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/schemas"
)

func copyTo(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestRunInputs: the inputs of issue 19 as people give them.
func TestRunInputs(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	sample := func(conv, name string) string { return filepath.Join(repo, "samples", conv, name+".jsonl") }
	basic, err := os.ReadFile(sample("session", "basic"))
	if err != nil {
		t.Fatal(err)
	}
	// a tree with an empty and a blank-only file beside a real log
	tree := t.TempDir()
	copyTo(t, sample("session", "basic"), filepath.Join(tree, "p", "real.jsonl"))
	os.WriteFile(filepath.Join(tree, "p", "empty.jsonl"), nil, 0o644)
	os.WriteFile(filepath.Join(tree, "p", "blank.jsonl"), []byte("\n  \n\t\n"), 0o644)
	// two directories whose files have the same names
	a, b := filepath.Join(t.TempDir(), "claude"), filepath.Join(t.TempDir(), "codex")
	copyTo(t, sample("session", "basic"), filepath.Join(a, "s.jsonl"))
	copyTo(t, sample("mcp_tool_search", "basic"), filepath.Join(b, "s.jsonl"))
	tests := []struct {
		name    string
		stdin   string
		piped   bool     // standard input is a pipe
		args    []string // after run --out OUT
		exit    int
		stderr  []string
		files   []string // must exist under OUT
		noFiles []string
	}{
		{name: "- reads standard input", stdin: string(basic), args: []string{"-"}, exit: 0,
			stderr: []string{"1 of 1 inputs converted", "session 1"}, files: []string{"stdin.receipt.ndjson", "stdin.otel.jsonl"}},
		{name: "standard input with a forced converter", stdin: string(basic), args: []string{"-c", "session", "-"}, exit: 0,
			files: []string{"stdin.receipt.ndjson"}},
		{name: "/dev/stdin is standard input", stdin: string(basic), args: []string{"/dev/stdin"}, exit: 0,
			files: []string{"stdin.receipt.ndjson"}},
		{name: "no PATH and a pipe on standard input", stdin: string(basic), piped: true, exit: 0,
			files: []string{"stdin.receipt.ndjson"}},
		{name: "a pipe given as a path", args: []string{"/dev/null"}, exit: 2, stderr: []string{"/dev/null: not a regular file (a pipe or a device, as <(...) gives): an input is read more than once, so pipe it to standard input instead (COMMAND | convert run -)"}},
		{name: "empty standard input is skipped", stdin: "", args: []string{"-"}, exit: 0,
			stderr: []string{"0 of 1 inputs converted", "empty files    1 (skipped)"}, noFiles: []string{"stdin.receipt.ndjson"}},
		{name: "empty files are skipped and counted, not failures", args: []string{tree}, exit: 0,
			stderr: []string{"1 of 3 inputs converted", "empty files    2 (skipped)"}, files: []string{pipeline.OutputName("p/real.jsonl", ".receipt.ndjson")}, noFiles: []string{pipeline.OutputName("p/empty.jsonl", ".receipt.ndjson")}},
		{name: "several directories keep their own subtrees", args: []string{a, b}, exit: 0,
			stderr: []string{"2 of 2 inputs converted", "mcp_tool_search 1, session 1"}, files: []string{pipeline.OutputName("claude/s.jsonl", ".receipt.ndjson"), pipeline.OutputName("codex/s.jsonl", ".receipt.ndjson")}},
		{name: "a forced agent reader refuses a log not in its shape", args: []string{"-c", "codex", sample("session", "basic")}, exit: 1,
			stderr: []string{"basic.jsonl: codex: not a codex log", "--converter auto detects the kind", "failed         1 (input 1; each shown above)"}, noFiles: []string{outName("basic", ".receipt.ndjson")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if slices.Contains(tt.args, "/dev/null") {
				requireDevNull(t)
			}
			out := t.TempDir()
			old := stdinPiped
			stdinPiped = func() bool { return tt.piped }
			defer func() { stdinPiped = old }()
			code, so, se := runCLI(t, tt.stdin, append([]string{"run", "--out", out}, tt.args...)...)
			if code != tt.exit {
				t.Errorf("exit %d, want %d\n%s", code, tt.exit, se)
			}
			if so != "" {
				t.Errorf("run printed on stdout: %q", so)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(se, s) {
					t.Errorf("stderr lacks %q:\n%s", s, se)
				}
			}
			for _, f := range tt.files {
				if !exists(filepath.Join(out, f)) {
					t.Errorf("missing %s", f)
				}
			}
			for _, f := range tt.noFiles {
				if exists(filepath.Join(out, f)) {
					t.Errorf("%s written", f)
				}
			}
		})
	}
}

// TestSameNameInSeparateRuns: the single-file lines of docs/usage.md into one
// --out replace each other's outputs; the second run says so.
func TestSameNameInSeparateRuns(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	out := t.TempDir()
	first := filepath.Join(repo, "samples", "session", "basic.jsonl")
	second := filepath.Join(repo, "samples", "mcp_tool_search", "basic.jsonl")
	if code, _, se := runCLI(t, "", "run", first, "--out", out); code != 0 || strings.Contains(se, "replaces") {
		t.Fatalf("first run: %d\n%s", code, se)
	}
	code, _, se := runCLI(t, "", "run", second, "--out", out)
	if code != 0 || !strings.Contains(se, "replaces "+outName("basic", ".receipt.ndjson")+" in "+out+", made from another input") || !strings.Contains(se, "use another --out") {
		t.Errorf("second run: exit %d, no word of the replaced outputs:\n%s", code, se)
	}
	if code, _, se := runCLI(t, "", "run", second, "--out", out); code != 0 || strings.Contains(se, "replaces") {
		t.Errorf("a rerun of the same input warns: %d\n%s", code, se)
	}
}

// TestRunOutput: each failure once, -q, the closing table, no colour off a
// terminal, and --json checked against its schema.
func TestRunOutput(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	dir := t.TempDir()
	copyTo(t, filepath.Join(repo, "samples", "mcp_tool_search", "bad_definition_outside_index.jsonl"), filepath.Join(dir, "bad.jsonl"))
	copyTo(t, filepath.Join(repo, "samples", "session", "bad_junk_lines.jsonl"), filepath.Join(dir, "junk.jsonl"))
	cc := filepath.Join(repo, "samples", "claude_code", "basic")

	out := t.TempDir()
	code, so, se := runCLI(t, "", "run", dir, "--out", out)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, se)
	}
	// A file a walk found, named by the user, is shown off a terminal as
	// its outputs are named.
	bad := pipeline.InputFileName(receipt.Hasher{}, "bad.jsonl")
	if n := strings.Count(se, bad+":3: mcp_tool_search:"); n != 1 {
		t.Errorf("the failure is printed %d times, want once:\n%s", n, se)
	}
	for _, s := range []string{"1 of 2 inputs converted in ", "lines skipped  ", "malformed_json", "failed         1 (input 1; each shown above)", "MiB/s"} {
		if !strings.Contains(se, s) {
			t.Errorf("stderr lacks %q:\n%s", s, se)
		}
	}
	if strings.Contains(se+so, "\033[") {
		t.Errorf("colour codes off a terminal:\n%q", se)
	}

	code, so, se = runCLI(t, "", "-q", "run", dir, "--out", t.TempDir())
	if code != 1 || so != "" || strings.Contains(se, "skipped line") || strings.Contains(se, "inputs converted") || !strings.Contains(se, bad+":3:") {
		t.Errorf("-q: exit %d, want errors only; stdout %q stderr:\n%s", code, so, se)
	}

	code, so, se = runCLI(t, "", "run", cc, "--json", "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("--json: exit %d\n%s", code, se)
	}
	if strings.Contains(se, "inputs converted") {
		t.Errorf("--json also printed the table:\n%s", se)
	}
	validateSummary(t, so)
	var sum summary
	if err := json.Unmarshal([]byte(so), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Converted != 1 || sum.Converters["claude_code"] != 1 || sum.Tokens.Input == 0 || sum.Tokens.Output == 0 || sum.Status != "ok" || sum.Export != nil {
		t.Errorf("summary %+v", sum)
	}
	code, so, _ = runCLI(t, "", "run", dir, "--json", "-q", "--out", t.TempDir())
	validateSummary(t, so)
	if err := json.Unmarshal([]byte(so), &sum); err != nil || code != 1 || sum.ExitCode != 1 || sum.Failed.Input != 1 || len(sum.Failures) != 1 {
		t.Errorf("failing --json -q: exit %d, %+v", code, sum)
	}
}

func validateSummary(t *testing.T, doc string) {
	t.Helper()
	b, err := schemas.FS.ReadFile("run-summary.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource("run-summary.schema.json", bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("run-summary.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, doc)
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("the summary breaks its schema: %v\n%s", err, doc)
	}
}

// TestInterrupt: a cancelled run exits 130 with one paragraph, whatever the
// number of inputs, and writes nothing.
func TestInterrupt(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := t.TempDir()
	var so, se bytes.Buffer
	code := runContext(ctx, []string{"convert", "run", "--out", out, filepath.Join(repo, "samples")}, &so, &se)
	if code != exitInterrupted {
		t.Errorf("exit %d, want 130", code)
	}
	msg := strings.TrimSpace(se.String())
	if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "interrupted after") || !strings.Contains(msg, "nothing partial was written") {
		t.Errorf("want one paragraph, got:\n%s", msg)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
}

// TestConsole: colour only on a terminal and never with NO_COLOR; a message
// clears the progress line first.
func TestConsole(t *testing.T) {
	var out, errb bytes.Buffer
	c := &console{out: &out, err: &errb, tty: true, color: true}
	c.Progress("convert: 1/2 files")
	c.Error("boom")
	if got := errb.String(); got != "\r\033[Kconvert: 1/2 files\r\033[K\033[31mboom\033[0m\n" {
		t.Errorf("got %q", got)
	}
	t.Setenv("NO_COLOR", "1")
	if newConsole(&out, &errb).color {
		t.Error("colour with NO_COLOR")
	}
	c = &console{out: &out, err: &errb, quiet: true}
	errb.Reset()
	c.Info("table")
	c.Warn("skipped")
	c.Progress("x")
	c.Error("failure")
	if errb.String() != "failure\n" {
		t.Errorf("-q: %q", errb.String())
	}
}

// TestStderrScreensSecrets: whatever a message says, a secret-shaped token
// never reaches stderr (here: a token in the endpoint URL's path).
func TestStderrScreensSecrets(t *testing.T) {
	var out, errb bytes.Buffer
	c := newConsole(&out, &errb)
	c.Error("convert: otlp export: https://collector.example/v1/ghp_0123456789abcdefABCDEF0123456789abcd/traces: refused")
	c.Error("convert: an honest message")
	c.Data("stdout is data: ghp_0123456789abcdefABCDEF0123456789abcd")
	if strings.Contains(errb.String(), "ghp_") || !strings.Contains(errb.String(), "withheld") || !strings.Contains(errb.String(), "an honest message") {
		t.Fatalf("stderr:\n%s", errb.String())
	}
	if !strings.Contains(out.String(), "ghp_") {
		t.Fatal("stdout is the command's data and is not rewritten")
	}
}
