package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileNamesAndNumbers (issue #40, item 5), through the CLI: a log
// named after its user, one named by a phone number, and a scenario log
// whose ids are a card and a phone number, converted plain and keyed with
// --json. No canary, name or number reaches an output, an output name, the
// manifest, stdout or stderr (call checks stdout and stderr for CANARY).
func TestHostileNamesAndNumbers(t *testing.T) {
	raw, err := os.ReadFile("../../samples/session/basic.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	numeric := `{"type":"session.start","time":"2026-06-02T09:15:00.000Z","session_id":4111111111111111,"conversation_id":5551234567,"agent":5551234567,"model":"claude-sonnet-4.5"}
{"type":"session.end","time":"2026-06-02T09:16:00.000Z","status":"completed"}
`
	key := filepath.Join(t.TempDir(), "hash.key")
	if err := os.WriteFile(key, []byte("a12dd3a7fd3203a452eb34d91a9be20569d5e337a3384347068895c07f3e0c5a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, keyed := range []bool{false, true} {
		src := t.TempDir()
		for name, body := range map[string]string{"CANARY-alice-payroll.jsonl": string(raw), "5551234567.jsonl": string(raw), "numbers.jsonl": numeric} {
			if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out := t.TempDir()
		args := []string{"run", "--json", "--converter", "session", "--out", out, src}
		if keyed {
			args = append(args, "--hash-key-file", key)
		}
		code, stdout, stderr := call(t, []string{"alice", "payroll", "4111111111111111", "5551234567"}, args...)
		if code != 0 {
			t.Fatalf("keyed %v: exit %d: %s", keyed, code, stderr)
		}
		all := stdout + stderr
		files := 0
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(out, p)
			all += rel + "\n"
			if !d.IsDir() {
				files++
				b, _ := os.ReadFile(p)
				all += string(b)
			}
			return nil
		})
		if files != 7 { // three receipts, three traces, the manifest
			t.Errorf("keyed %v: %d files written, want 7", keyed, files)
		}
		for _, bad := range []string{"CANARY", "canary", "alice", "payroll", "4111111111111111", "5551234567"} {
			if strings.Contains(all, bad) {
				t.Errorf("keyed %v: %q reached an output, an output name, the manifest, stdout or stderr", keyed, bad)
			}
		}
	}
}
