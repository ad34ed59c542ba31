package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAudit(t *testing.T) {
	s := func(name string) string { return filepath.Join("../../samples/audit", name) }
	tests := []struct {
		name   string
		args   []string
		exit   int
		stdout []string
	}{
		{"good receipts", []string{"audit", s("good.json"), s("good_merged_conflict.json"), s("pc_good.json"), "../../golden/session/basic.receipt.ndjson"}, 0, []string{"4 files audited, no finding"}},
		{"prepared context", []string{"audit", s("pc_bad.json")}, exitFindings, []string{"pc_bad.json:1: pc.rerank_config: ", "pc_bad.json:1: pc.content_digest: "}},
		{"stale fact", []string{"audit", s("bad_stale_fact.json")}, exitFindings, []string{"bad_stale_fact.json:30: sa.stale_fact: selected_entries[1]"}},
		{"superseded", []string{"audit", s("bad_superseded.json")}, exitFindings, []string{"bad_superseded.json:14: sa.superseded_included: "}},
		{"tombstoned", []string{"audit", s("bad_tombstoned.json")}, exitFindings, []string{"bad_tombstoned.json:30: sa.tombstoned_resurrected: "}},
		{"conflict", []string{"audit", s("bad_unflagged_conflict.json")}, exitFindings, []string{"bad_unflagged_conflict.json:54: sa.unflagged_conflict: selected_entries [0], [3]"}},
		{"as-of fallback", []string{"audit", s("bad_as_of_fallback.json")}, exitFindings, []string{"bad_as_of_fallback.json:1: sa.as_of_fallback: "}},
		{"byte tampering", []string{"audit", s("bad_context_hash.json")}, exitFindings, []string{"bad_context_hash.json:1: sa.context_hash_mismatch: "}},
		{"--as-of", []string{"audit", "--as-of", "2026-06-02T00:00:00Z", s("good.json")}, exitFindings, []string{"sa.as_of_fallback"}},
		{"--context", []string{"audit", "--context", "../../samples/session/basic.jsonl", s("good.json")}, exitFindings, []string{"sa.context_hash_mismatch"}},
		{"missing file", []string{"audit", s("nope.json")}, exitUsage, nil},
		{"no files", []string{"audit"}, exitUsage, nil},
		{"bad format", []string{"audit", "--format", "xml", s("good.json")}, exitUsage, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := call(t, nil, tt.args...)
			if code != tt.exit {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.exit, out, errs)
			}
			for _, w := range tt.stdout {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestAuditJSON(t *testing.T) {
	files, _ := filepath.Glob("../../samples/audit/bad_*.json")
	code, out, _ := call(t, nil, append([]string{"audit", "--format", "json"}, files...)...)
	var doc struct {
		Files    int
		Findings []struct{ Path, Rule, Message string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != exitFindings {
		t.Fatalf("exit %d, %v:\n%s", code, err, out)
	}
	rules := map[string]bool{}
	for _, f := range doc.Findings {
		rules[f.Rule] = true
	}
	for _, r := range []string{"sa.stale_fact", "sa.superseded_included", "sa.tombstoned_resurrected", "sa.unflagged_conflict", "sa.as_of_fallback", "sa.context_hash_mismatch"} {
		if !rules[r] {
			t.Errorf("no %s finding in %v", r, rules)
		}
	}
	if doc.Files != 6 {
		t.Errorf("files = %d", doc.Files)
	}
}

// TestAuditHostileReceipts: a receipt from anywhere may put anything where
// audit quotes a value (a rank, a context hash, truncated, the summary's
// converter, the leak check's status); audit quotes only what a written
// receipt could hold, the rest by digest, in text and JSON.
func TestAuditHostileReceipts(t *testing.T) {
	dir := t.TempDir()
	mutate := func(from, to string, repl map[string]string) string {
		b, err := os.ReadFile(filepath.Join("../../samples/audit", from))
		if err != nil {
			b, err = os.ReadFile(from)
		}
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for old, new := range repl {
			if !strings.Contains(s, old) {
				t.Fatalf("%s lacks %q", from, old)
			}
			s = strings.ReplaceAll(s, old, new)
		}
		p := filepath.Join(dir, to)
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	files := []string{
		mutate("bad_stale_fact.json", "stale.json", map[string]string{`"rank": 2`: `"rank": "CANARY-rank /Users/CANARYUSER"`}),
		mutate("bad_context_hash.json", "hash.json", map[string]string{
			`"context_hash": "sha256:81e752a1de2dfa7ca6509c47ddcded195bcb20af48b8fe1290f0a26240446bac"`: `"context_hash": "CANARY-hash 4111111111111111"`}),
		mutate("pc_good.json", "pc.json", map[string]string{`"truncated": false,`: `"truncated": "CANARY-truncated AKIAIOSFODNN7EXAMPLE",`}),
		mutate("../../golden/session/basic.receipt.ndjson", "ours.receipt.ndjson", map[string]string{
			`"convert.converter":"session"`:        `"convert.converter":"CANARY-conv AKIAIOSFODNN7EXAMPLE"`,
			`"convert.leak_check.status":"passed"`: `"convert.leak_check.status":"canaryuser"`,
		}),
	}
	for _, format := range []string{"text", "json"} {
		code, out, _ := call(t, nil, append([]string{"audit", "--format", format}, files...)...) // call fails on any CANARY
		if code != exitFindings || !strings.Contains(out, "withheld") {
			t.Errorf("%s: exit %d, want %d and withheld values:\n%s", format, code, exitFindings, out)
		}
		for _, s := range []string{"4111111111111111", "AKIAIOSFODNN7", "canaryuser", "/Users/"} {
			if strings.Contains(out, s) {
				t.Errorf("%s: audit quoted %q:\n%s", format, s, out)
			}
		}
	}
}
