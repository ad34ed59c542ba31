package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/gate"
	"github.com/contextreceipts/convert/internal/otlp"
)

const prepQuery = "Why did we choose SQLite for the payments ledger? CANARYQ"

func prepStore(t *testing.T) (string, string) {
	t.Helper()
	repo, _ := filepath.Abs("../..")
	sample := filepath.Join(repo, "samples", "prepare", "artifacts.jsonl")
	db := filepath.Join(t.TempDir(), "store.db")
	var out, errb bytes.Buffer
	if code := run([]string{"convert", "prepare", "load", "--store", db, sample}, &out, &errb); code != 0 {
		t.Fatalf("load: %d %s", code, errb.String())
	}
	return db, sample
}

func TestPrepareCLI(t *testing.T) {
	db, sample := prepStore(t)
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	q, _ := json.Marshal(prepQuery)
	reqNull := write("null.json", `{"scope_id":"project:payments","query":`+string(q)+`,"include_receipt":null}`)
	reqFalse := write("false.json", `{"scope_id":"project:payments","query":`+string(q)+`,"include_receipt":false}`)
	reqAbsent := write("absent.json", `{"scope_id":"project:payments","query":`+string(q)+`}`)
	reqTrue := write("true.json", `{"scope_ids":["project:payments","project:shared"],"query":`+string(q)+`,"max_bytes":4000,"include_receipt":true,"assembly":{"sections":[{"family":"memory","limit":4},{"family":"code"}]}}`)
	reqBad := write("bad.json", `{"scope_id":"project:payments","query":`+string(q)+`,"extra":1}`)
	otel := filepath.Join(dir, "trace.json")
	effort := filepath.Join(dir, "effort.json")
	four := []string{"content", "content_bytes", "schema", "status"}
	five := []string{"content", "content_bytes", "receipt", "schema", "status"}
	tests := []struct {
		name   string
		args   []string
		exit   int
		keys   []string
		stderr string
	}{
		{"flags, no receipt", []string{"--store", db, "--scope", "project:payments", "--query", prepQuery}, 0, four, ""},
		{"request include_receipt null", []string{"--store", db, "--request", reqNull}, 0, four, ""},
		{"request include_receipt false", []string{"--store", db, "--request", reqFalse}, 0, four, ""},
		{"request include_receipt absent", []string{"--store", db, "--request", reqAbsent}, 0, four, ""},
		{"request with receipt and sections", []string{"--store", db, "--request", reqTrue}, 0, five, ""},
		{"everything on", []string{"--store", db, "--scope", "project:payments", "--scope", "project:shared", "--query", prepQuery, "--include-receipt",
			"--recall-gate", "--recall-effort", effort, "--rerank", "lexical", "--vector", "--otel", otel, "--max-bytes", "2000", "--sections", "memory:8,topic-memory,experience,profile,code:2"}, 0, five, ""},
		{"unknown request field", []string{"--store", db, "--request", reqBad}, 2, nil, "not a prepare request"},
		{"request plus flags", []string{"--store", db, "--request", reqTrue, "--scope", "x"}, 2, nil, "cannot be combined"},
		{"max bytes too small", []string{"--store", db, "--scope", "project:payments", "--query", prepQuery, "--max-bytes", "100"}, 2, nil, "max_bytes must be 512-32768"},
		{"no query", []string{"--store", db, "--scope", "project:payments"}, 2, nil, "exactly one of --query"},
		{"bad sections", []string{"--store", db, "--scope", "project:payments", "--query", prepQuery, "--sections", "memory:9"}, 2, nil, "limit must be 1-8"},
		{"missing store", []string{"--store", filepath.Join(dir, "nope.db"), "--scope", "project:payments", "--query", prepQuery}, 2, nil, "no store"},
		{"effort without gate", []string{"--store", db, "--scope", "project:payments", "--query", prepQuery, "--recall-effort", effort}, 2, nil, "need --recall-gate"},
		{"bad rerank", []string{"--store", db, "--scope", "project:payments", "--query", prepQuery, "--rerank", "gpt"}, 2, nil, "none or lexical"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(append([]string{"convert", "prepare"}, tt.args...), &out, &errb)
			if code != tt.exit {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.exit, errb.String())
			}
			if strings.Contains(errb.String(), "CANARY") {
				t.Fatal("CANARY on stderr")
			}
			if tt.stderr != "" && !strings.Contains(errb.String(), tt.stderr) {
				t.Fatalf("stderr %q lacks %q", errb.String(), tt.stderr)
			}
			if tt.keys == nil {
				if out.Len() != 0 {
					t.Fatal("no output expected")
				}
				return
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(out.Bytes(), &m); err != nil {
				t.Fatal(err)
			}
			var got []string
			for k := range m {
				got = append(got, k)
			}
			sort.Strings(got)
			if strings.Join(got, ",") != strings.Join(tt.keys, ",") {
				t.Fatalf("keys %v, want %v", got, tt.keys)
			}
			if err := gate.ValidateDocument(out.Bytes()); err != nil {
				t.Fatal(err)
			}
			if r, ok := m["receipt"]; ok && bytes.Contains(r, []byte("CANARY")) {
				t.Fatal("CANARY in receipt")
			}
		})
	}
	tr, err := os.ReadFile(otel)
	if err != nil {
		t.Fatal(err)
	}
	if p := otlp.Validate(tr); len(p) > 0 || !bytes.Contains(tr, []byte("context.prepare.stage.recall")) || bytes.Contains(tr, []byte("CANARY")) {
		t.Fatalf("trace: %v", p)
	}
	ef, err := os.ReadFile(effort)
	if err != nil || gate.ValidateDocument(ef) != nil || bytes.Contains(ef, []byte("CANARY")) {
		t.Fatalf("effort file: %v", err)
	}
	// convert validate and convert leakcheck check what prepare wrote.
	var out, errb bytes.Buffer
	ctx := filepath.Join(dir, "ctx.json")
	run([]string{"convert", "prepare", "--store", db, "--request", reqTrue}, &out, &errb)
	os.WriteFile(ctx, out.Bytes(), 0o644)
	for _, args := range [][]string{
		{"validate", ctx, effort},
		{"leakcheck", "--artifacts", sample, "--query", prepQuery, ctx, effort, otel},
	} {
		out.Reset()
		errb.Reset()
		if code := run(append([]string{"convert"}, args...), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, errb.String())
		}
	}
	planted := write("planted.json", `{"note":"we chose SQLite for the payments ledger because"}`)
	if code := run([]string{"convert", "leakcheck", "--artifacts", sample, "--query", prepQuery, planted}, &out, &errb); code != 3 {
		t.Fatalf("a planted body must be a leak, exit %d", code)
	}
	// A PreparedContext is checked by its receipt: its content is raw by design.
	body := "we chose SQLite for the payments ledger because"
	for _, tt := range []struct {
		name, doc string
		code      int
	}{
		{"content holds a body", `{"schema":"powercontext.prepared-context.v1","status":"ready","content":"` + body + `","content_bytes":1}`, 0},
		{"receipt holds a body", `{"schema":"powercontext.prepared-context.v1","status":"ready","content":"x","content_bytes":1,"receipt":{"note":"` + body + `"}}`, 3},
	} {
		f := write("context-"+strings.ReplaceAll(tt.name, " ", "-")+".json", tt.doc)
		if code := run([]string{"convert", "leakcheck", "--artifacts", sample, "--query", prepQuery, f}, &out, &errb); code != tt.code {
			t.Fatalf("%s: exit %d, want %d", tt.name, code, tt.code)
		}
	}
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--artifacts", sample, "--input", sample, "--query", prepQuery, ctx}, "not both"},
		{[]string{"--input", sample, "--query", prepQuery, ctx}, "--query and --query-file go with --artifacts"},
		{[]string{"--artifacts", sample, ctx}, "leakcheck --artifacts needs exactly one of --query and --query-file"},
		{[]string{"--artifacts", filepath.Join(dir, "none.jsonl"), "--query", prepQuery, ctx}, "none.jsonl: no such file"},
	} {
		out.Reset()
		errb.Reset()
		if code := run(append([]string{"convert", "leakcheck"}, tt.args...), &out, &errb); code != 2 || !strings.Contains(errb.String(), tt.msg) {
			t.Fatalf("%v: exit %d %q, want 2 and %q", tt.args, code, errb.String(), tt.msg)
		}
	}
	broken := write("broken.json", `{"schema":"powercontext.prepared-context.v1","status":"ready","content":"x","content_bytes":1,"receipt":null}`)
	if code := run([]string{"convert", "validate", broken}, &out, &errb); code != 4 {
		t.Fatalf("receipt null must break the schema, exit %d", code)
	}
}

func TestPrepareLoadAndRead(t *testing.T) {
	db, _ := prepStore(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"kind":"topic-memory","scope_id":"s","artifact_id":"t","revision":1,"body":"CANARY fine"}`+"\n"+`{"kind":"topic-memory","scope_id":"s","artifact_id":"has space CANARY","revision":1,"body":"CANARY x"}`+"\n"), 0o644)
	tests := []struct {
		name   string
		args   []string
		exit   int
		stdout string
		stderr string
	}{
		{"bad line names path:line, not content", []string{"prepare", "load", "--store", filepath.Join(dir, "n.db"), bad}, 1, "", bad + ":2: artifact_id must be a token"},
		{"exact read of a forgotten artifact", []string{"prepare", "read", "--store", db, "--scope", "project:payments", "--family", "atomic-memory", "--artifact", "mem-old-postgres", "--revision", "1"}, 0, `"head_state":"forgotten"`, ""},
		{"historical revision, newer head not followed", []string{"prepare", "read", "--store", db, "--scope", "project:payments", "--family", "atomic-memory", "--artifact", "mem-storage", "--revision", "1"}, 0, `"entry_version_id":"e1.v1"`, ""},
		{"unknown revision", []string{"prepare", "read", "--store", db, "--scope", "project:payments", "--family", "atomic-memory", "--artifact", "mem-storage", "--revision", "9"}, 1, "", "no such revision"},
		{"load needs a file", []string{"prepare", "load", "--store", db}, 2, "", "at least one FILE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(append([]string{"convert"}, tt.args...), &out, &errb); code != tt.exit {
				t.Fatalf("exit %d, want %d: %s", code, tt.exit, errb.String())
			}
			if !strings.Contains(out.String(), tt.stdout) || !strings.Contains(errb.String(), tt.stderr) || strings.Contains(errb.String(), "CANARY") {
				t.Fatalf("stdout %q stderr %q", out.String(), errb.String())
			}
		})
	}
}

// TestPrepareDiagnosticsFailOpen: a secret-shaped scope id would reach the
// recall effort (admission counts name scopes): the effort file is withheld
// with a content-free message, the injection is still printed, and the
// receipt, which names the scope too, is dropped the same way.
func TestPrepareDiagnosticsFailOpen(t *testing.T) {
	dir := t.TempDir()
	arts := filepath.Join(dir, "a.jsonl")
	scope := "ghp_CANARYabcdefghijklmnopqrstuvwxyz0123"
	os.WriteFile(arts, []byte(`{"kind":"topic-memory","scope_id":"`+scope+`","artifact_id":"t1","revision":1,"body":"CANARY ledger notes"}`+"\n"), 0o644)
	db := filepath.Join(dir, "s.db")
	var out, errb bytes.Buffer
	if code := run([]string{"convert", "prepare", "load", "--store", db, arts}, &out, &errb); code != 0 {
		t.Fatal(errb.String())
	}
	base := []string{"convert", "prepare", "--store", db, "--scope", scope, "--query", "ledger CANARYQ"}
	out.Reset()
	if code := run(base, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	plain := out.String()
	out.Reset()
	errb.Reset()
	effort, otel := filepath.Join(dir, "e.json"), filepath.Join(dir, "t.json")
	code := run(append(base, "--include-receipt", "--recall-gate", "--recall-effort", effort, "--otel", otel), &out, &errb)
	if code != 0 || out.String() != plain || strings.Contains(errb.String(), "CANARY") ||
		!strings.Contains(errb.String(), "receipt omitted: leak check") || !strings.Contains(errb.String(), "recall effort omitted: leak check") {
		t.Fatalf("exit %d, same stdout %v, stderr %q", code, out.String() == plain, errb.String())
	}
	if _, err := os.Stat(effort); err == nil {
		t.Fatal("a leaking recall effort must not be written")
	}
	if tr, err := os.ReadFile(otel); err != nil || bytes.Contains(tr, []byte("CANARY")) {
		t.Fatal("the trace (scope-free) is still written, without the scope")
	}
}

// TestPrepareInterrupted: Ctrl-C (a cancelled context, as run's signal
// handler makes it) stops convert prepare with exit 130 and nothing
// written: no PreparedContext on stdout, no trace or recall effort file.
func TestPrepareInterrupted(t *testing.T) {
	db, _ := prepStore(t)
	dir := t.TempDir()
	otel, effort := filepath.Join(dir, "p.otel.json"), filepath.Join(dir, "effort.json")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := runContext(ctx, []string{"convert", "prepare", "--store", db, "--scope", "project:payments", "--query", prepQuery,
		"--include-receipt", "--recall-gate", "--recall-effort", effort, "--otel", otel}, &out, &errb)
	if code != exitInterrupted || out.Len() > 0 || !strings.Contains(errb.String(), "interrupted; nothing written") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	if strings.Contains(errb.String(), "CANARY") {
		t.Fatal("the query reached stderr")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) > 0 {
		t.Fatalf("an interrupted prepare wrote %v", entries)
	}
}

// TestPrepareStoreTimeout: a store whose queries pass --timeout fails the
// command with exit 1 and nothing written, prepare and prepare read alike
// (issue #49: a store built to stall must not hang the agent asking). A
// deadline of a nanosecond has passed before the first query.
func TestPrepareStoreTimeout(t *testing.T) {
	db, _ := prepStore(t)
	dir := t.TempDir()
	otel := filepath.Join(dir, "p.otel.json")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"prepare", []string{"prepare", "--store", db, "--scope", "project:payments", "--query", prepQuery, "--include-receipt", "--otel", otel}},
		{"prepare read", []string{"prepare", "read", "--store", db, "--scope", "project:payments", "--family", "atomic-memory", "--artifact", "mem-storage", "--revision", "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(append(append([]string{"convert"}, tc.args...), "--timeout", "1ns"), &out, &errb)
			if code != exitFailed || out.Len() > 0 || !strings.Contains(errb.String(), "took longer than 1ns (--timeout)") || strings.Contains(errb.String(), "CANARY") {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Fatalf("a timed-out prepare wrote %v", entries)
			}
			out.Reset()
			errb.Reset()
			if code := run(append(append([]string{"convert"}, tc.args...), "--timeout", "1m"), &out, &errb); code != 0 || out.Len() == 0 {
				t.Fatalf("with a minute: exit %d, stderr %q", code, errb.String())
			}
			os.Remove(otel)
		})
	}
}
