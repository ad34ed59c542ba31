package main

// Issue #38 at the command line: diagnostics sinks fail open, an invalid
// recall policy means no expansion, --max-bytes 0 is refused, and convert
// audit bounds a PreparedContext receipt as prepare does.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/prepare"
)

// TestPrepareSinksFailOpen: a recall effort or trace file that cannot be
// written (a directory, a path under a file, a read-only directory) never
// blocks the injection: stdout is what the run without that sink prints,
// the exit status is 0, and stderr says which sink failed, without content.
func TestPrepareSinksFailOpen(t *testing.T) {
	db, _ := prepStore(t)
	dir := t.TempDir()
	aFile := writeTemp(t, "plain.txt", "x")
	readOnly := filepath.Join(dir, "ro")
	os.Mkdir(readOnly, 0o555)
	base := []string{"prepare", "--store", db, "--scope", "project:payments", "--query", prepQuery, "--include-receipt", "--recall-gate"}
	code, want, stderr := prep(t, base...)
	if code != 0 || want == "" {
		t.Fatalf("baseline: %d %s", code, stderr)
	}
	tests := []struct {
		name, flag, path, msg string
	}{
		{"recall effort to a directory", "--recall-effort", dir, "recall effort not written"},
		{"recall effort under a file", "--recall-effort", filepath.Join(aFile, "e.json"), "recall effort not written"},
		{"trace to a directory", "--otel", dir, "trace not written"},
		{"trace under a file", "--otel", filepath.Join(aFile, "t.json"), "trace not written"},
	}
	if runtime.GOOS != "windows" && os.Getuid() != 0 {
		tests = append(tests, struct{ name, flag, path, msg string }{"recall effort in a read-only directory", "--recall-effort", filepath.Join(readOnly, "e.json"), "recall effort not written"})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := prep(t, append(base, tt.flag, tt.path)...)
			if code != 0 {
				t.Fatalf("exit %d, want 0 (the injection succeeded): %s", code, stderr)
			}
			if !sameContext(t, out, want) {
				t.Fatalf("stdout differs from the run without the sink:\n%s\n%s", out, want)
			}
			if !strings.Contains(stderr, tt.msg) || strings.Contains(stderr, "CANARY") {
				t.Fatalf("stderr %q lacks %q", stderr, tt.msg)
			}
		})
	}
}

// sameContext compares two PreparedContexts up to the receipt's id and
// stage timings (a fresh UUID and wall-clock durations per run).
func sameContext(t *testing.T, a, b string) bool {
	t.Helper()
	norm := func(s string) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatalf("not JSON: %q", s)
		}
		if r, ok := m["receipt"].(map[string]any); ok {
			delete(r, "receipt_id")
			delete(r, "stages")
		}
		out, _ := json.Marshal(m)
		return string(out)
	}
	return norm(a) == norm(b)
}

// TestPrepareInvalidPolicyMeansNoExpansion (001-17): an unreadable,
// malformed or invalid --recall-policy, or one that reuses the built-in id
// with other thresholds, turns the gate off for the run: the injection is
// the one without the gate, exit 0, no recall effort, and a content-free
// diagnostic.
func TestPrepareInvalidPolicyMeansNoExpansion(t *testing.T) {
	db, _ := prepStore(t)
	dir := t.TempDir()
	builtin, _ := json.Marshal(prepare.DefaultGatePolicy())
	reused := strings.Replace(string(builtin), `"min_candidates":3`, `"min_candidates":99`, 1)
	base := []string{"prepare", "--store", db, "--scope", "project:payments", "--query", "sqlite ledger", "--include-receipt"}
	_, want, _ := prep(t, base...)
	tests := []struct {
		name, doc, msg string
	}{
		{"not a policy document", `{"id":"x y","max_expansions":5,"extra":1}`, "not a recall policy document"},
		{"out of range", `{"id":"acme.v1","min_candidates":3,"min_top1":0.5,"min_unused_bytes":256,"max_expansions":5,"floors":[]}`, "max_expansions must be 0-2"},
		{"the built-in id with other thresholds", reused, "built-in"},
		{"unreadable", "", "cannot read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol := filepath.Join(dir, "missing.json")
			if tt.doc != "" {
				pol = writeTemp(t, "p.json", tt.doc)
			}
			effort := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".effort.json")
			code, out, stderr := prep(t, append(base, "--recall-gate", "--recall-policy", pol, "--recall-effort", effort)...)
			if code != 0 {
				t.Fatalf("exit %d, want 0: %s", code, stderr)
			}
			if !sameContext(t, out, want) {
				t.Fatalf("an invalid policy must mean no expansion:\n%s\n%s", out, want)
			}
			if !strings.Contains(stderr, "recall gate off") || !strings.Contains(stderr, tt.msg) {
				t.Fatalf("stderr %q", stderr)
			}
			if _, err := os.Stat(effort); err == nil {
				t.Fatal("no gate, no recall effort")
			}
		})
	}
	// The built-in thresholds under the built-in id are the built-in policy.
	same := writeTemp(t, "same.json", string(builtin))
	effort := filepath.Join(dir, "same.effort.json")
	if code, _, stderr := prep(t, append(base, "--recall-gate", "--recall-policy", same, "--recall-effort", effort)...); code != 0 || stderr != "" {
		t.Fatalf("the built-in policy as a file: %d %s", code, stderr)
	}
	if e, _ := os.ReadFile(effort); !strings.Contains(string(e), `"policy_digest":"`+prepare.DefaultGatePolicy().Digest()+`"`) {
		t.Fatalf("effort %s", e)
	}
}

// TestPrepareMaxBytesZero: --max-bytes 0 is refused like a request file's
// max_bytes: 0, never silently the default.
func TestPrepareMaxBytesZero(t *testing.T) {
	db, _ := prepStore(t)
	req := writeTemp(t, "r.json", `{"scope_id":"project:payments","query":"sqlite","max_bytes":0}`)
	for _, args := range [][]string{
		{"--scope", "project:payments", "--query", "sqlite", "--max-bytes", "0"},
		{"--request", req},
	} {
		code, out, stderr := prep(t, append([]string{"prepare", "--store", db}, args...)...)
		if code != 2 || out != "" || !strings.Contains(stderr, "max_bytes must be 512-32768") {
			t.Fatalf("%v: exit %d stdout %q stderr %q", args, code, out, stderr)
		}
	}
}

// TestPrepareAuditAgreesOnReceiptCap: a receipt prepare keeps (over seed
// 000's proposed 8,192 bytes, under the measured 16,384) passes convert
// audit's pc.bounds; one over prepare.ReceiptByteCap is flagged.
func TestPrepareAuditAgreesOnReceiptCap(t *testing.T) {
	dir := t.TempDir()
	var recs []string
	id := func(kind string, i int) string { return fmt.Sprintf("%s-%08d-0000-4000-8000-%012d", kind, i, i) }
	for i := range 8 {
		recs = append(recs, fmt.Sprintf(`{"kind":"atomic-memory","scope_id":"project:payments-ledger-service","artifact_id":%q,"revision":1,"entries":[{"entry_id":%q,"entry_version_id":%q,"body":"CANARY ledger note %d"}]}`,
			id("mem", i), id("entry", i), id("entryversion", i), i))
		recs = append(recs, fmt.Sprintf(`{"kind":"topic-memory","scope_id":"project:payments-ledger-service","artifact_id":%q,"revision":1,"body":"CANARY ledger topic %d"}`, id("topic", i), i))
		recs = append(recs, fmt.Sprintf(`{"kind":"profile","scope_id":"project:payments-ledger-service","artifact_id":%q,"revision":1,"body":"CANARY ledger profile %d"}`, id("profile", i), i))
	}
	for i := range 4 {
		recs = append(recs, fmt.Sprintf(`{"kind":"code","scope_id":"project:payments-ledger-service","fingerprint":"0123456789abcdef0123456789abcdef01234567","path":"internal/ledger/storage/file_%d.go","start_line":1,"body":"// CANARY ledger code %d\n"}`, i, i))
	}
	arts := filepath.Join(dir, "a.jsonl")
	os.WriteFile(arts, []byte(strings.Join(recs, "\n")+"\n"), 0o644)
	db := loadStore(t, arts)
	code, out, stderr := prep(t, "prepare", "--store", db, "--scope", "project:payments-ledger-service", "--query", "ledger", "--max-bytes", "32768",
		"--include-receipt", "--sections", "memory:8,topic-memory:8,profile:8,code:4")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d %s", code, stderr)
	}
	d := parseCtx(t, out)
	rb, _ := json.Marshal(d.Receipt)
	if d.Receipt == nil || len(rb) <= 8192 || len(rb) > prepare.ReceiptByteCap {
		t.Fatalf("fixture: a receipt between 8,192 and %d bytes is needed, got %d", prepare.ReceiptByteCap, len(rb))
	}
	ctx := writeTemp(t, "ctx.json", out)
	if code, aout, aerr := prep(t, "audit", ctx); code != 0 || strings.Contains(aout+aerr, "pc.bounds") {
		t.Fatalf("audit flags a receipt prepare keeps (%d bytes): exit %d %s %s", len(rb), code, aout, aerr)
	}
	var m map[string]any
	json.Unmarshal([]byte(out), &m)
	r := m["receipt"].(map[string]any)
	r["pad"] = strings.Repeat("x", prepare.ReceiptByteCap)
	big, _ := json.Marshal(m)
	if code, aout, aerr := prep(t, "audit", writeTemp(t, "big.json", string(big))); code != 1 || !strings.Contains(aout+aerr, "pc.bounds") {
		t.Fatalf("audit must flag a receipt over %d bytes: exit %d %s %s", prepare.ReceiptByteCap, code, aout, aerr)
	}
}
