package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	ccSession = "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b"
	cxThread  = "019a93b9-1111-7222-8333-444455556666"
)

// hookHome lays out a Claude Code project folder whose name (the encoded
// working directory) carries CANARY, holding the basic sample session and
// its subagent, and a CODEX_HOME with the v058 sample rollout.
func hookHome(t *testing.T) (home, transcript string) {
	t.Helper()
	repo, _ := filepath.Abs("../..")
	home = t.TempDir()
	proj := filepath.Join(home, ".claude", "projects", "-Users-CANARY-alice-src-acme-ledger")
	copyTree(t, filepath.Join(repo, "samples/claude_code/basic/-Users-alice-src-acme-ledger"), proj)
	copyTree(t, filepath.Join(repo, "samples/codex/v058_envelope/sessions"), filepath.Join(home, ".codex", "sessions"))
	copyTree(t, filepath.Join(repo, "samples/codex/basic/sessions"), filepath.Join(home, ".codex", "sessions"))
	t.Setenv("CODEX_HOME", filepath.Join(home, ".codex"))
	t.Setenv("CONVERT_DATA_DIR", filepath.Join(home, "data"))
	for _, v := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS", "CONVERT_HASH_KEY_FILE", "CONVERT_LEGACY_GENAI_NAMES"} {
		t.Setenv(v, "")
	}
	return home, filepath.Join(proj, ccSession+".jsonl")
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func claudePayload(transcript string) string {
	b, _ := json.Marshal(map[string]any{
		"session_id": ccSession, "transcript_path": transcript, "cwd": "/Users/CANARY-alice/src/acme-ledger",
		"hook_event_name": "SessionEnd", "reason": "CANARY-reason", "permission_mode": "default",
	})
	return string(b)
}

func codexPayload(thread string) string {
	b, _ := json.Marshal(map[string]any{
		"type": "agent-turn-complete", "thread-id": thread, "turn-id": "7", "cwd": "/Users/CANARY-alice/src",
		"input-messages": []string{"CANARY-prompt: rename the ledger"}, "last-assistant-message": "CANARY-answer: done",
	})
	return string(b)
}

// runHook runs the CLI in process with stdin; it returns the exit code,
// stdout and stderr.
func runHook(t *testing.T, stdin io.Reader, args ...string) (int, string, string) {
	t.Helper()
	old := hookStdin
	hookStdin = stdin
	defer func() { hookStdin = old }()
	var out, errb bytes.Buffer
	code := run(append([]string{"convert"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// noCanary fails when CANARY is in any file's name or content under dir.
func noCanary(t *testing.T, dir string) (files int) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.Contains(rel, "CANARY") {
			t.Errorf("a file name holds the canary: %s", rel)
		}
		if !d.IsDir() {
			files++
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("CANARY")) {
				t.Errorf("%s holds the canary", rel)
			}
		}
		return nil
	})
	return files
}

// waitFor polls until the file holds want, or fails after a minute.
func waitFor(t *testing.T, file, want string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(file)
		if strings.Contains(string(b), want) {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held %q:\n%s", file, want, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestHookClaudeCode(t *testing.T) {
	for _, mode := range []string{"worker", "foreground"} {
		t.Run(mode, func(t *testing.T) {
			home, transcript := hookHome(t)
			data := filepath.Join(home, "data")
			args := []string{"hook", "claude-code"}
			if mode == "foreground" {
				args = append(args, "--foreground")
			}
			code, stdout, stderr := runHook(t, strings.NewReader(claudePayload(transcript)), args...)
			if code != 0 || stdout != "" || stderr != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			logf := filepath.Join(data, "hook.log")
			log := waitFor(t, logf, "converted")
			if !strings.Contains(log, "hook claude-code SessionEnd "+ccSession+".jsonl: converted, 2 files,") {
				t.Errorf("log:\n%s", log)
			}
			out := filepath.Join(data, "receipts", "claude-code")
			for _, f := range []string{ccSession + ".receipt.ndjson", ccSession + ".otel.jsonl", ".convert-manifest.json"} {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("missing %s", f)
				}
			}
			// The subagent is in the receipt (one input, two transcripts).
			if b, _ := os.ReadFile(filepath.Join(out, ccSession+".otel.jsonl")); bytes.Count(b, []byte(`"invoke_agent"`)) < 2 {
				t.Errorf("the trace has no subagent span")
			}
			// Incremental: the same session again is not converted again.
			code, stdout, stderr = runHook(t, strings.NewReader(claudePayload(transcript)), args...)
			if code != 0 || stdout+stderr != "" {
				t.Fatalf("second run: exit %d, %q %q", code, stdout, stderr)
			}
			waitFor(t, logf, "unchanged since the last run")
			if n := noCanary(t, data); n < 4 {
				t.Errorf("only %d files under the data directory", n)
			}
		})
	}
}

func TestHookCodex(t *testing.T) {
	home, _ := hookHome(t)
	data := filepath.Join(home, "data")
	code, stdout, stderr := runHook(t, strings.NewReader(""), "hook", "codex", codexPayload(cxThread))
	if code != 0 || stdout+stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	log := waitFor(t, filepath.Join(data, "hook.log"), "converted")
	rollout := "rollout-2025-11-17T20-00-00-" + cxThread
	if !strings.Contains(log, "hook codex agent-turn-complete "+rollout+".jsonl: converted, 1 files,") {
		t.Errorf("log:\n%s", log)
	}
	if _, err := os.Stat(filepath.Join(data, "receipts", "codex", rollout+".receipt.ndjson")); err != nil {
		t.Error(err)
	}
	// A thread that spawned a subagent: its rollout is converted too (the
	// fork beside it is not a subagent).
	parent := "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
	if code, stdout, stderr := runHook(t, strings.NewReader(""), "hook", "codex", "--foreground", codexPayload(parent)); code != 0 || stdout+stderr != "" {
		t.Fatalf("exit %d, %q %q", code, stdout, stderr)
	}
	log = waitFor(t, filepath.Join(data, "hook.log"), "subagent threads")
	if !strings.Contains(log, "rollout-2026-03-14T09-12-03-"+parent+".jsonl: the thread and 1 subagent threads: 2 converted, 0 unchanged since the last run, 0 failed") {
		t.Errorf("log:\n%s", log)
	}
	for _, f := range []string{"rollout-2026-03-14T09-12-03-" + parent, "rollout-2026-03-14T09-12-12-0199a1b2-c3d4-7e5f-8a9b-cccccccccccc"} {
		if _, err := os.Stat(filepath.Join(data, "receipts", "codex", f+".receipt.ndjson")); err != nil {
			t.Error(err)
		}
	}
	noCanary(t, data)
}

// TestHookNeverFails: whatever the hook is given, it exits 0, prints
// nothing, and logs no raw content.
func TestHookNeverFails(t *testing.T) {
	home, transcript := hookHome(t)
	data := filepath.Join(home, "data")
	never, _ := io.Pipe() // stdin an agent never closes nor writes
	defer never.Close()
	dir := filepath.Dir(transcript)
	for _, tc := range []struct {
		name  string
		stdin io.Reader
		args  []string
		log   string
	}{
		{"empty stdin", strings.NewReader(""), []string{"hook", "claude-code"}, "stdin holds no JSON payload"},
		{"garbage", strings.NewReader("CANARY \x00\xff garbage"), []string{"hook", "claude-code"}, "stdin holds no JSON payload"},
		// Past MaxPayload, or past the wait on a slow machine: either way, no payload.
		{"huge stdin", strings.NewReader(`"` + strings.Repeat("CANARY", 2<<20)), []string{"hook", "claude-code"}, "payload"},
		{"stdin never closed", never, []string{"hook", "claude-code", "--budget", "400ms"}, "no payload on stdin within 200ms"},
		{"an array", strings.NewReader(`["CANARY"]`), []string{"hook", "claude-code"}, "not a JSON object"},
		{"no transcript", strings.NewReader(`{"session_id":"x","cwd":"/CANARY-cwd"}`), []string{"hook", "claude-code"}, "no transcript_path"},
		{"a missing file", strings.NewReader(claudePayload(filepath.Join(dir, "00000000-0000-4000-8000-000000000000.jsonl"))), []string{"hook", "claude-code"}, "the session file is not there"},
		{"a folder", strings.NewReader(claudePayload(filepath.Join(dir, "CANARY-folder.jsonl"))), []string{"hook", "claude-code"}, "the session file is not there"},
		{"not a transcript", strings.NewReader(claudePayload(filepath.Join(dir, ccSession, "subagents", "agent-a52886dc180afb356.meta.json"))), []string{"hook", "claude-code"}, "absolute path to a .jsonl"},
		{"a bad flag", strings.NewReader(claudePayload(transcript)), []string{"hook", "claude-code", "--CANARY"}, "usage: a flag is not defined"},
		{"a bad header", strings.NewReader(claudePayload(transcript)), []string{"hook", "claude-code", "--otlp-endpoint", "http://127.0.0.1:1", "--otlp-header", "CANARY"}, "--otlp-header (occurrence 1)"},
		{"a bad endpoint", strings.NewReader(claudePayload(transcript)), []string{"hook", "claude-code", "--foreground", "--otlp-endpoint", "ftp://CANARY"}, "absolute http"},
		{"codex without payload", strings.NewReader(""), []string{"hook", "codex"}, "stdin holds no JSON payload"},
		{"codex garbage", strings.NewReader(""), []string{"hook", "codex", "CANARY{"}, "not a JSON object"},
		{"codex other notification", strings.NewReader(""), []string{"hook", "codex", `{"type":"approval-requested","thread-id":"` + cxThread + `"}`}, "names no finished turn"},
		{"codex unknown thread", strings.NewReader(""), []string{"hook", "codex", `{"type":"agent-turn-complete","thread-id":"019a93b9-0000-7222-8333-444455556666","cwd":"/CANARY"}`}, "no rollout file"},
		{"a worker without a job", strings.NewReader("CANARY"), []string{"hook", "worker"}, "no job on stdin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(filepath.Join(data, "hook.log"))
			os.WriteFile(filepath.Join(dir, "CANARY-folder.jsonl"), nil, 0o644)
			os.Remove(filepath.Join(dir, "CANARY-folder.jsonl"))
			os.Mkdir(filepath.Join(dir, "CANARY-folder.jsonl"), 0o755)
			start := time.Now()
			code, stdout, stderr := runHook(t, tc.stdin, tc.args...)
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("took %s", took)
			}
			if code != 0 || stdout != "" || stderr != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			b, _ := os.ReadFile(filepath.Join(data, "hook.log"))
			if !strings.Contains(string(b), tc.log) {
				t.Errorf("log %q, want %q", b, tc.log)
			}
			noCanary(t, data)
		})
	}
}

// TestHookExport: with an endpoint (flag or OTEL_EXPORTER_OTLP_ENDPOINT),
// the trace goes to the Collector as written (http/protobuf, the default); an export that
// fails is retried on the next run.
func TestHookExport(t *testing.T) {
	ok := answer{status: 200, body: `{"partialSuccess":{}}`}
	for _, how := range []string{"flag", "env"} {
		t.Run(how, func(t *testing.T) {
			home, transcript := hookHome(t)
			data := filepath.Join(home, "data")
			srv := newOTLPServer(t, answer{status: 400, body: "CANARY-body"}, ok)
			args := []string{"hook", "claude-code"}
			if how == "flag" {
				args = append(args, "--otlp-endpoint", srv.URL, "--otlp-header", "Authorization=Bearer CANARY-token", "--foreground")
			} else {
				t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
				t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20CANARY-token")
				t.Setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "CANARY-not-a-number") // a warning in the log, the default used
			}
			for i, want := range []string{"failed", "exported"} {
				code, stdout, stderr := runHook(t, strings.NewReader(claudePayload(transcript)), args...)
				if code != 0 || stdout+stderr != "" {
					t.Fatalf("run %d: exit %d, %q %q", i, code, stdout, stderr)
				}
				waitFor(t, filepath.Join(data, "hook.log"), want)
			}
			srv.mu.Lock()
			defer srv.mu.Unlock()
			if len(srv.requests) != 2 {
				t.Fatalf("%d requests, want 2 (the failed one, then its retry on the next run)", len(srv.requests))
			}
			if got := srv.requests[1].Header.Get("Authorization"); got != "Bearer CANARY-token" {
				t.Errorf("Authorization %q", got)
			}
			if log, _ := os.ReadFile(filepath.Join(data, "hook.log")); how == "env" && !strings.Contains(string(log), "warning: OTEL_EXPORTER_OTLP_TIMEOUT: not a number of milliseconds") {
				t.Errorf("the log does not warn of the bad timeout variable:\n%s", log)
			}
			trace, _ := os.ReadFile(filepath.Join(data, "receipts", "claude-code", ccSession+".otel.jsonl"))
			if got, want := canonicalTrace(t, "the export", srv.bodies[1], srv.requests[1].Header.Get("Content-Type"), "", nil, nil),
				canonicalTrace(t, "the file", trace, "application/json", "", nil, nil); got != want {
				t.Errorf("the exported trace is not the file written")
			}
			noCanary(t, data)
		})
	}
}

// TestHookBudget: a session too big for the budget returns to the agent
// in time, and is finished in the background.
func TestHookBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a big transcript")
	}
	home, transcript := hookHome(t)
	data := filepath.Join(home, "data")
	f, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("CANARY-bulk tool output, line after line of it. ", 400) // ~20 KB per line
	var size int
	for i := 0; size < 48<<20; i++ {
		line := fmt.Sprintf(`{"parentUuid":"g-%d","isSidechain":false,"type":"user","uuid":"g-%d","timestamp":"2026-07-01T11:%02d:%02d.000Z","sessionId":"%s","version":"2.1.114","cwd":"/Users/CANARY-alice/src/acme-ledger","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_g%d","content":%q}]}}`+"\n",
			i, i+1, i/60%60, i%60, ccSession, i, text)
		n, err := f.WriteString(line)
		if err != nil {
			t.Fatal(err)
		}
		size += n
	}
	f.Close()
	start := time.Now()
	code, stdout, stderr := runHook(t, strings.NewReader(claudePayload(transcript)), "hook", "claude-code", "--budget", "50ms")
	took := time.Since(start)
	if code != 0 || stdout+stderr != "" {
		t.Fatalf("exit %d, %q %q", code, stdout, stderr)
	}
	if took > 1500*time.Millisecond {
		t.Errorf("the hook took %s with a 50ms budget", took)
	}
	log := waitFor(t, filepath.Join(data, "hook.log"), "converted")
	if !strings.Contains(log, "continues in the background") {
		t.Errorf("the conversion finished within the budget (%s): make the transcript bigger\n%s", took, log)
	}
	t.Logf("hook returned after %s; %d MB converted in the background: %s", took.Round(time.Millisecond), size>>20, strings.TrimSpace(log[strings.LastIndex(strings.TrimSpace(log), "\n")+1:]))
	noCanary(t, data)
}

// TestHookLogsSkippedLines: the pipeline's messages reach the log named by
// the session file, never by its directory, and never with the line.
func TestHookLogsSkippedLines(t *testing.T) {
	home, transcript := hookHome(t)
	f, _ := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{\"type\":\"user\",CANARY-broken\n")
	f.Close()
	code, stdout, stderr := runHook(t, strings.NewReader(claudePayload(transcript)), "hook", "claude-code", "--foreground")
	if code != 0 || stdout+stderr != "" {
		t.Fatalf("exit %d, %q %q", code, stdout, stderr)
	}
	log, _ := os.ReadFile(filepath.Join(home, "data", "hook.log"))
	if !strings.Contains(string(log), ": "+ccSession+".jsonl:") || !strings.Contains(string(log), "skipped line: malformed_json") {
		t.Errorf("log:\n%s", log)
	}
	noCanary(t, filepath.Join(home, "data"))
}

// TestHookRelativePaths: --out and --log relative to where the hook runs,
// though the worker converts from the session's directory.
func TestHookRelativePaths(t *testing.T) {
	_, transcript := hookHome(t)
	wd := t.TempDir()
	t.Chdir(wd)
	code, stdout, stderr := runHook(t, strings.NewReader(claudePayload(transcript)), "hook", "claude-code", "--out", "r", "--log", "l/hook.log")
	if code != 0 || stdout+stderr != "" {
		t.Fatalf("exit %d, %q %q", code, stdout, stderr)
	}
	waitFor(t, filepath.Join(wd, "l", "hook.log"), "converted")
	if _, err := os.Stat(filepath.Join(wd, "r", ccSession+".receipt.ndjson")); err != nil {
		t.Error(err)
	}
}

// TestHookConcurrent: two hooks of one session at once (Stop, then
// SessionEnd) take turns on the receipts directory: one converts, the
// other finds it unchanged.
func TestHookConcurrent(t *testing.T) {
	home, transcript := hookHome(t)
	logf := filepath.Join(home, "data", "hook.log")
	exe, _ := os.Executable() // the test binary, as the CLI (TestMain)
	var cmds []*exec.Cmd
	for range 2 {
		cmd := exec.Command(exe, "hook", "claude-code")
		cmd.Stdin = strings.NewReader(claudePayload(transcript))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("hook: %v", err)
		}
	}
	log := waitFor(t, logf, "unchanged since the last run")
	if n := strings.Count(log, ": converted, "); n != 1 {
		t.Errorf("%d conversions, want 1:\n%s", n, log)
	}
	if _, err := os.Stat(filepath.Join(home, "data", "receipts", "claude-code", ".hook.lock")); !os.IsNotExist(err) {
		t.Errorf("the lock is left behind: %v", err)
	}
}
