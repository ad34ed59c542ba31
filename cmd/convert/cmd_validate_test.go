package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateNotAnOutput: a file that is no output of convert at all (a
// package.json, a JSON Lines file of something else) is said to be so,
// with exit 1 (it failed) and not 4 (a schema violation of an output), its
// content never quoted; the other files are still checked.
func TestValidateNotAnOutput(t *testing.T) {
	dir := t.TempDir()
	pkg := filepath.Join(dir, "package.json")
	other := filepath.Join(dir, "events.ndjson")
	os.WriteFile(pkg, []byte(`{"name":"CANARYPKG","version":"1.0.0"}`), 0o644)
	os.WriteFile(other, []byte(`{"CANARYKEY":1}`+"\n"+`{"b":2}`+"\n"), 0o644)
	_, out := convertSample(t, "session", "basic.jsonl")
	for _, tc := range []struct {
		args []string
		exit int
		says []string
	}{
		{[]string{pkg}, 1, []string{"package.json: not an output of convert"}},
		{[]string{other}, 1, []string{"events.ndjson: not an output of convert"}},
		{[]string{pkg, out}, 1, []string{"package.json: not an output of convert"}},
		{[]string{out}, 0, nil},
	} {
		code, stdout, stderr := runCLI(t, "", append([]string{"validate"}, tc.args...)...)
		if code != tc.exit {
			t.Errorf("validate %v: exit %d, want %d\n%s", tc.args, code, tc.exit, stderr)
		}
		for _, s := range tc.says {
			if !strings.Contains(stderr, s) {
				t.Errorf("validate %v: stderr lacks %q:\n%s", tc.args, s, stderr)
			}
		}
		if strings.Contains(stdout+stderr, "CANARY") {
			t.Errorf("validate %v quoted the file:\n%s%s", tc.args, stdout, stderr)
		}
	}
}

// TestLeakcheckInputFolder: --input takes a folder (a session with its
// subagent transcripts and sidecars): its logs are the raw input, a
// sidecar never the one the kind is detected from, and a leak planted in an
// output is still found.
func TestLeakcheckInputFolder(t *testing.T) {
	session, out := convertSample(t, "claude_code", "basic")
	code, stdout, stderr := runCLI(t, "", "leakcheck", "--input", session, out)
	if code != 0 || !strings.Contains(stdout, "no leak: 2 files checked against "+session) {
		t.Fatalf("leakcheck --input DIR: exit %d\n%s%s", code, stdout, stderr)
	}
	var receipt string
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".receipt.ndjson") {
			receipt = p
		}
		return nil
	})
	b, err := os.ReadFile(receipt)
	if err != nil {
		t.Fatal(err)
	}
	// A raw string only the subagent transcript holds, pasted into the
	// receipt: found only if the folder's companions are read as input.
	leaky := strings.Replace(string(b), `"name":"`, `"name":"CANARY-grep applyRefund `, 1)
	os.WriteFile(receipt, []byte(leaky), 0o644)
	if code, _, stderr := runCLI(t, "", "leakcheck", "--input", session, receipt); code != exitLeak {
		t.Fatalf("a planted leak: exit %d\n%s", code, stderr)
	}
}

// TestLeakcheckInputFolderSettings: a Droid sessions folder's
// .settings.json sidecars are raw input too: a string only a sidecar
// holds, planted in a receipt, is found.
func TestLeakcheckInputFolderSettings(t *testing.T) {
	session, out := convertSample(t, "droid", "basic")
	code, stdout, stderr := runCLI(t, "", "leakcheck", "--input", session, out)
	if code != 0 || !strings.Contains(stdout, "no leak: 4 files checked") {
		t.Fatalf("leakcheck --input DIR: exit %d\n%s%s", code, stdout, stderr)
	}
	var receipt string
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".receipt.ndjson") && receipt == "" {
			receipt = p
		}
		return nil
	})
	b, err := os.ReadFile(receipt)
	if err != nil {
		t.Fatal(err)
	}
	leaky := strings.Replace(string(b), `"gen_ai.usage.scope":"session"`, `"gen_ai.usage.scope":"CANARY-mission-7"`, 1)
	if leaky == string(b) {
		t.Fatal("nothing planted")
	}
	os.WriteFile(receipt, []byte(leaky), 0o644)
	if code, _, stderr := runCLI(t, "", "leakcheck", "--input", session, receipt); code != exitLeak {
		t.Fatalf("a planted leak: exit %d\n%s", code, stderr)
	}
}

// TestLeakcheckInputFolderArchives: an OpenClaw sessions folder's archived
// transcripts (<id>.jsonl.deleted.<time>), which run reads in a walk, are
// raw input too: a string only an archive holds, planted in a receipt, is
// found.
func TestLeakcheckInputFolderArchives(t *testing.T) {
	session, out := convertSample(t, "pi_agent", "openclaw_archives")
	code, stdout, stderr := runCLI(t, "", "leakcheck", "--input", session, out)
	if code != 0 || !strings.Contains(stdout, "no leak: 6 files checked") {
		t.Fatalf("leakcheck --input DIR: exit %d\n%s%s", code, stdout, stderr)
	}
	var receipts []string
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".receipt.ndjson") {
			receipts = append(receipts, p)
		}
		return nil
	})
	if len(receipts) == 0 {
		t.Fatal("no receipt")
	}
	b, err := os.ReadFile(receipts[0])
	if err != nil {
		t.Fatal(err)
	}
	// Only the deleted session's archive holds this query.
	leaky := strings.Replace(string(b), `"gen_ai.usage.scope":"session"`, `"gen_ai.usage.scope":"CANARY-query match score"`, 1)
	if leaky == string(b) {
		t.Fatal("nothing planted")
	}
	os.WriteFile(receipts[0], []byte(leaky), 0o644)
	if code, _, stderr := runCLI(t, "", "leakcheck", "--input", session, receipts[0]); code != exitLeak {
		t.Fatalf("a planted leak: exit %d\n%s", code, stderr)
	}
}

// TestJSONAnswers: list, validate and leakcheck answer with one JSON object
// on stdout under --json, with the same verdict (and exit) as their text.
func TestJSONAnswers(t *testing.T) {
	sample, out := convertSample(t, "session", "basic.jsonl")
	dir := t.TempDir()
	pkg := filepath.Join(dir, "package.json")
	os.WriteFile(pkg, []byte(`{"name":"x"}`), 0o644)
	for _, tc := range []struct {
		args []string
		exit int
		want map[string]any
	}{
		{[]string{"list", "--json"}, 0, nil},
		{[]string{"validate", "--json", out}, 0, map[string]any{"files": 2.0, "valid": true}},
		{[]string{"validate", "--json", out, pkg}, 1, map[string]any{"files": 3.0, "valid": false}},
		{[]string{"leakcheck", "--json", "--input", sample, out}, 0, map[string]any{"files": 2.0, "leak": false}},
	} {
		code, stdout, stderr := runCLI(t, "", tc.args...)
		if code != tc.exit {
			t.Fatalf("%v: exit %d, want %d: %s", tc.args, code, tc.exit, stderr)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("%v: stdout is not one JSON object: %v\n%s", tc.args, err, stdout)
		}
		for k, v := range tc.want {
			if doc[k] != v {
				t.Errorf("%v: %s = %v, want %v", tc.args, k, doc[k], v)
			}
		}
		if tc.args[0] == "list" {
			if cs, _ := doc["converters"].([]any); len(cs) < 25 {
				t.Errorf("list --json: %d converters", len(cs))
			}
		}
	}
}

// convertSample converts samples/<parts...> into a new folder and returns
// the sample's path and that folder.
func convertSample(t *testing.T, parts ...string) (sample, out string) {
	t.Helper()
	sample = filepath.Join(append([]string{"..", "..", "samples"}, parts...)...)
	out = filepath.Join(t.TempDir(), "out")
	if code, _, errs := runCLI(t, "", "run", "-q", "--out", out, sample); code != 0 {
		t.Fatalf("run %s: exit %d: %s", sample, code, errs)
	}
	return sample, out
}

// TestValidateHostileReceipt: the validator quotes keys, values and event
// names of the file it checks; a file from anywhere gets them shown only
// when a written receipt could hold them, else by digest.
func TestValidateHostileReceipt(t *testing.T) {
	b, err := os.ReadFile("../../golden/session/basic.receipt.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	edits := []func(map[string]any){
		func(d map[string]any) { d["CANARY-top /Users/CANARYUSER"] = 1 },
		func(d map[string]any) { d["attributes"].(map[string]any)["CANARY-key AKIAIOSFODNN7EXAMPLE"] = "x" },
		func(d map[string]any) { d["time"] = "CANARY-time 4111111111111111" },
		func(d map[string]any) { d["name"] = "CANARY.event" },
		func(d map[string]any) { d["attributes"].(map[string]any)["convert.output.events"] = "CANARY-count" },
	}
	for i, edit := range edits {
		var d map[string]any
		if err := json.Unmarshal([]byte(lines[i%len(lines)]), &d); err != nil {
			t.Fatal(err)
		}
		edit(d)
		out, _ := json.Marshal(d)
		lines[i%len(lines)] = string(out)
	}
	p := filepath.Join(t.TempDir(), "hostile.receipt.ndjson")
	os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	for _, args := range [][]string{{"validate", p}, {"validate", "--json", p}} {
		code, out, errs := call(t, nil, args...) // call fails on any CANARY
		if code != exitSchema || !strings.Contains(out+errs, "withheld") {
			t.Errorf("%v: exit %d, want %d and withheld words:\n%s%s", args, code, exitSchema, out, errs)
		}
		for _, s := range []string{"4111111111111111", "AKIAIOSFODNN7", "/Users/"} {
			if strings.Contains(out+errs, s) {
				t.Errorf("%v: validate quoted %q:\n%s%s", args, s, out, errs)
			}
		}
	}
}

// TestLeakcheckPassesEverySample: what run writes for every bundled sample
// passes the standalone leak check (convert leakcheck --input) too, which
// knows only the reader's declared fields, not the run's provenance: a
// field whose declaration stops admitting its values (a shape made
// stricter) shows here as a leak, as it would in the user's own check
// before sharing.
func TestLeakcheckPassesEverySample(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("..", "..", "samples", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, sample := range cases {
		conv := filepath.Base(filepath.Dir(sample))
		name := filepath.Base(sample)
		if strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".md") {
			continue
		}
		t.Run(conv+"/"+name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			runCLI(t, "", "run", "-q", "--converter", conv, "--out", out, sample) // bad samples may fail; what is written is checked
			var outs []string
			filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".receipt.ndjson") || strings.HasSuffix(p, ".otel.jsonl")) {
					outs = append(outs, p)
				}
				return nil
			})
			if len(outs) == 0 {
				return
			}
			args := append([]string{"leakcheck", "--converter", conv, "--input", sample}, outs...)
			if code, stdout, stderr := runCLI(t, "", args...); code != 0 {
				t.Errorf("leakcheck of what run wrote: exit %d\n%s%s", code, stdout, stderr)
			}
			checked++
		})
	}
	if checked < 100 {
		t.Fatalf("only %d samples checked", checked)
	}
}

// TestLeakcheckMixedAgentsFolder: a folder holding several agents' logs
// (a home's history, copied aside before sharing) is checked with each
// log read by its own kind's fields, as run read it: no false leak from
// one agent's fields applied to another's log, and a raw string planted in
// an output is still found.
func TestLeakcheckMixedAgentsFolder(t *testing.T) {
	logs := t.TempDir()
	for src, dst := range map[string]string{
		"../../samples/claude_code/basic/-Users-alice-src-acme-ledger/7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl":          "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl",
		"../../samples/opencode/basic/ses_4f1e2d3c5ffeA1b2C3d4E5f6G7.json":                                                 "ses_4f1e2d3c5ffeA1b2C3d4E5f6G7.json",
		"../../samples/droid/basic/sessions/-Users-dana-src-CANARY-app/9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.jsonl":         "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.jsonl",
		"../../samples/droid/basic/sessions/-Users-dana-src-CANARY-app/9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.settings.json": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.settings.json",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(logs, dst), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := runCLI(t, "", "run", "-q", "--out", out, logs); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	var outs []string
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".receipt.ndjson") || strings.HasSuffix(p, ".otel.jsonl")) {
			outs = append(outs, p)
		}
		return nil
	})
	if len(outs) != 6 {
		t.Fatalf("%d outputs, want 6 (3 sessions)", len(outs))
	}
	if code, stdout, stderr := runCLI(t, "", append([]string{"leakcheck", "--input", logs}, outs...)...); code != 0 {
		t.Fatalf("leakcheck of a mixed folder: exit %d\n%s%s", code, stdout, stderr)
	}
	// The same check still finds a prompt's words planted in an output.
	raw, err := os.ReadFile(filepath.Join(logs, "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(raw), `"CANARY-prompt `)
	if i < 0 {
		t.Fatal("no prompt in the Claude Code sample")
	}
	words := string(raw[i+1 : i+25])
	planted := filepath.Join(t.TempDir(), "planted.receipt.ndjson")
	if err := os.WriteFile(planted, []byte(`{"note":"`+words+`"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runCLI(t, "", "leakcheck", "--input", logs, planted); code != exitLeak {
		t.Fatalf("a planted prompt passed the check: exit %d", code)
	}
}
