package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two runs of the same session: identical runs are equivalent; a planted
// drift in a copy of the log (a bigger delivered file, changed instructions,
// a dropped skill body) shows up as a bucket move, changes and a removal.
func TestDiffDrift(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "basic.jsonl")
	copyFile(t, "../../samples/session/basic.jsonl", src)
	convertTo := func(out string) string {
		if code, _, errs := call(t, nil, "run", "--out", filepath.Join(dir, out), src); code != 0 {
			t.Fatalf("run: %s", errs)
		}
		return filepath.Join(dir, out, outName("basic", ".receipt.ndjson"))
	}
	a := convertTo("a")
	again := convertTo("again")
	// The same work in another session: only run keys (ids, the input's
	// digests) differ.
	orig, _ := os.ReadFile(src)
	os.WriteFile(src, []byte(strings.ReplaceAll(string(orig), "sess-9c1e-payments-refactor", "sess-7d2f-payments-refactor")), 0o644)
	other := convertTo("other")
	os.WriteFile(src, orig, 0o644)

	b, _ := os.ReadFile(src)
	log := string(b)
	for old, new := range map[string]string{
		`"delivered_text":"CANARY-nested rules: ledger amounts are integers in cents, never floats."`: `"delivered_text":"CANARY-nested rules` + strings.Repeat(" CANARY-padding", 200) + `"`,
		`Use make check before pushing.`: `Use make check-all before pushing.`,
	} {
		if !strings.Contains(log, old) {
			t.Fatalf("sample lacks %q", old)
		}
		log = strings.Replace(log, old, new, 1)
	}
	var kept []string
	for _, l := range strings.Split(log, "\n") {
		if !strings.Contains(l, `"source_path":"CLAUDE.md"`) {
			kept = append(kept, l)
		}
	}
	os.WriteFile(src, []byte(strings.Join(kept, "\n")), 0o644)
	drift := convertTo("b")

	tests := []struct {
		name   string
		args   []string
		exit   int
		stdout []string
	}{
		{"same session twice", []string{"diff", a, again}, 0, []string{"equivalent"}},
		{"planted drift", []string{"diff", a, drift}, exitDiffer, []string{
			"bucket moved: context.input.delivered.size_bucket: \"under_1kib\" -> \"under_16kib\"",
			"- context.input.loaded [", "context.input.source.path=CLAUDE.md",
			"selected set - context.input.loaded",
			"context.input.source.bytes_hash: \"sha256:",
			"~ convert.summary", "convert.output.events: 5 -> 4",
			"0 added, 1 removed,",
		}},
		{"planted drift, every attribute", []string{"diff", "--no-ignore", a, drift}, exitDiffer, []string{"convert.input.sha256:"}},
		{"another session of the same work", []string{"diff", a, other}, 0, []string{"equivalent"}},
		{"another session, every attribute", []string{"diff", "--no-ignore", a, other}, exitDiffer, []string{"session.id"}},
		{"ignore one more key", []string{"diff", "--ignore", "context.input.delivered.size_bucket", a, drift}, exitDiffer, []string{"0 buckets moved"}},
		{"json", []string{"diff", "--format", "json", a, drift}, exitDiffer, []string{`"removed": [`, `"buckets_moved": [`}},
		{"usage", []string{"diff", a}, exitUsage, nil},
		{"bad format", []string{"diff", "--format", "xml", a, drift}, exitUsage, nil},
		{"not a receipt", []string{"diff", a, "../../samples/audit/good.json"}, exitNotReceipt, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := call(t, nil, tt.args...)
			if code != tt.exit {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.exit, out, errs)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			if tt.name == "json" {
				var r map[string]any
				if err := json.Unmarshal([]byte(out), &r); err != nil || r["equivalent"] != false {
					t.Errorf("json: %v %v", err, r["equivalent"])
				}
			}
		})
	}
}

// TestDiffHostileReceipts: a receipt from anywhere may carry anything in
// its names, attribute keys and values; diff prints only what passes the
// rules a written receipt must, the rest as digests, in text and JSON.
func TestDiffHostileReceipts(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "basic.jsonl")
	copyFile(t, "../../samples/session/basic.jsonl", src)
	if code, _, errs := call(t, nil, "run", "--out", filepath.Join(dir, "a"), src); code != 0 {
		t.Fatalf("run: %s", errs)
	}
	a := filepath.Join(dir, "a", outName("basic", ".receipt.ndjson"))
	rec, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(rec), "\n"), "\n")
	hostile := []struct{ name, key, value string }{
		{"a prompt as a value", "context.input.source.path", `"CANARY-prompt total the invoices"`},
		{"a path as a value", "gen_ai.request.model", `"/Users/CANARYUSER/acme"`},
		{"a model of no family", "gen_ai.response.model", `"claude-CANARYUSER"`},
		{"a secret", "convert.input.agent_versions", `["AKIAIOSFODNN7CANARY1"]`},
		{"a card number", "gen_ai.usage.input_tokens", `4111111111111111`},
		{"an IP address", "convert.converter", `"10.11.12.13"`},
		{"a key", "CANARY-key", `"under_1kib"`},
	}
	var b []string
	for i, l := range lines {
		var doc map[string]any
		if err := json.Unmarshal([]byte(l), &doc); err != nil {
			t.Fatal(err)
		}
		attrs, _ := doc["attributes"].(map[string]any)
		if i == 0 {
			doc["name"] = "CANARY.event.name"
		}
		for _, h := range hostile {
			var v any
			json.Unmarshal([]byte(h.value), &v)
			attrs[h.key] = v
		}
		out, _ := json.Marshal(doc)
		b = append(b, string(out))
	}
	bad := filepath.Join(dir, "hostile.receipt.ndjson")
	os.WriteFile(bad, []byte(strings.Join(b, "\n")+"\n"), 0o644)
	for _, format := range []string{"text", "json"} {
		code, out, _ := call(t, nil, "diff", "--format", format, a, bad) // call fails on any CANARY
		if code != exitDiffer || !strings.Contains(out, "withheld") {
			t.Errorf("%s: exit %d, want %d and withheld values:\n%s", format, code, exitDiffer, out)
		}
		for _, s := range []string{"4111111111111111", "10.11.12.13", "AKIAIOSFODNN7"} {
			if strings.Contains(out, s) {
				t.Errorf("%s: diff printed %q:\n%s", format, s, out)
			}
		}
	}
}

// TestDiffFolders: a run's --out against its golden run. Receipts are
// paired by name; one missing, one added and one changed are each said,
// and a changed token count is printed as the count it is.
func TestDiffFolders(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "logs")
	copyTree(t, "../../samples/claude_code/basic", filepath.Join(in, "claude"))
	copyFile(t, "../../samples/session/basic.jsonl", filepath.Join(in, "basic.jsonl"))
	golden, again := filepath.Join(dir, "golden"), filepath.Join(dir, "again")
	for _, out := range []string{golden, again} {
		if code, _, errs := call(t, nil, "run", "--out", out, in); code != 0 {
			t.Fatalf("run: %s", errs)
		}
	}
	drift := filepath.Join(dir, "drift")
	copyTree(t, golden, drift)
	var claude, session string
	filepath.WalkDir(drift, func(p string, d fs.DirEntry, err error) error {
		switch {
		case strings.HasSuffix(p, "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.receipt.ndjson"):
			claude = p
		case strings.HasSuffix(p, ".receipt.ndjson") && !strings.Contains(p, "claude"):
			session = p
		}
		return nil
	})
	if claude == "" || session == "" {
		t.Fatalf("outputs not found: %q %q", claude, session)
	}
	b, _ := os.ReadFile(claude)
	if !strings.Contains(string(b), `"gen_ai.usage.input_tokens":2700`) {
		t.Fatal("the claude receipt lacks its token count")
	}
	os.WriteFile(claude, []byte(strings.Replace(string(b), `"gen_ai.usage.input_tokens":2700`, `"gen_ai.usage.input_tokens":28249720`, 1)), 0o644)
	os.Rename(session, filepath.Join(filepath.Dir(session), "input-0123456789ab.receipt.ndjson"))

	tests := []struct {
		name   string
		args   []string
		exit   int
		stdout []string
	}{
		{"a run against its golden run", []string{"diff", golden, again}, 0, []string{"2 receipts: 2 equivalent, 0 changed, 0 missing, 0 added"}},
		{"drift", []string{"diff", golden, drift}, exitDiffer, []string{
			"changed dir-", "gen_ai.usage.input_tokens: 2700 -> 28249720", // a folder inside the one named: its digest (issue #49)
			"missing " + filepath.Base(session), "added input-0123456789ab.receipt.ndjson",
			"3 receipts: 0 equivalent, 1 changed, 1 missing, 1 added",
		}},
		{"json", []string{"diff", "--format", "json", golden, drift}, exitDiffer, []string{`"status": "changed"`, `"to": "28249720"`, `"status": "missing"`}},
		{"ignore the count", []string{"diff", "--ignore", "gen_ai.usage.input_tokens", golden, drift}, exitDiffer, []string{"3 receipts: 1 equivalent, 0 changed"}},
		{"a folder and a file", []string{"diff", golden, claude}, exitUsage, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := call(t, nil, tt.args...)
			if code != tt.exit {
				t.Errorf("exit %d, want %d\n%s%s", code, tt.exit, out, errs)
			}
			for _, s := range tt.stdout {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			if strings.Contains(out, "withheld") {
				t.Errorf("a value of our own receipts withheld:\n%s", out)
			}
		})
	}
}
