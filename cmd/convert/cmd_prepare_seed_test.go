package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/prepare"
	"github.com/contextreceipts/convert/internal/receipt"
)

// prep runs one convert command and returns exit code, stdout and stderr.
func prep(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"convert"}, args...), &out, &errb)
	if strings.Contains(errb.String(), "CANARY") {
		t.Fatalf("CANARY on stderr: %s", errb.String())
	}
	return code, out.String(), errb.String()
}

func loadStore(t *testing.T, files ...string) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "store.db")
	if code, _, stderr := prep(t, append([]string{"prepare", "load", "--store", db}, files...)...); code != 0 {
		t.Fatalf("load: %d %s", code, stderr)
	}
	return db
}

func writeTemp(t *testing.T, name, s string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

type ctxDoc struct {
	Status  string           `json:"status"`
	Content *string          `json:"content"`
	Receipt *prepare.Receipt `json:"receipt"`
}

func parseCtx(t *testing.T, s string) ctxDoc {
	t.Helper()
	var d ctxDoc
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		t.Fatalf("not a PreparedContext: %v: %q", err, s)
	}
	return d
}

// TestPrepareHeadlineExample: the first example of `convert prepare` in
// docs/usage.md returns the cited decision, not only the team profile,
// without any extra flag.
func TestPrepareHeadlineExample(t *testing.T) {
	_, sample := prepStore(t)
	db := loadStore(t, sample)
	code, out, stderr := prep(t, "prepare", "--store", db, "--scope", "project:payments", "--query", "Why did we choose SQLite?")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	d := parseCtx(t, out)
	if d.Status != "ready" || d.Content == nil || !strings.Contains(*d.Content, "mem-storage@2#e1") || !strings.Contains(*d.Content, "we chose SQLite") {
		t.Fatalf("the headline example must return the decision memory:\n%s", out)
	}
}

// TestPrepareReceiptFailOpen: a receipt request never suppresses the
// injection. A program constant in the query keeps the receipt; a receipt
// that would really leak is dropped with a content-free message and the
// output is byte-identical to the run without --include-receipt.
func TestPrepareReceiptFailOpen(t *testing.T) {
	_, sample := prepStore(t)
	db := loadStore(t, sample)
	code, out, stderr := prep(t, "prepare", "--store", db, "--scope", "project:payments", "--query", "lexical-coverage for the sqlite payments ledger",
		"--rerank", "lexical", "--sections", "memory", "--include-receipt")
	if code != 0 || parseCtx(t, out).Receipt == nil {
		t.Fatalf("a query naming our reranker must keep its receipt: exit %d %s", code, stderr)
	}
	arts := writeTemp(t, "a.jsonl", `{"kind":"topic-memory","scope_id":"s1","artifact_id":"ghp_CANARYabcdefghijklmnopqrstuvwxyz0123","revision":1,"body":"CANARY ledger notes"}`+"\n")
	db2 := loadStore(t, arts)
	otel := filepath.Join(t.TempDir(), "t.json")
	_, plain, _ := prep(t, "prepare", "--store", db2, "--scope", "s1", "--query", "ledger CANARYQ")
	code, out, stderr = prep(t, "prepare", "--store", db2, "--scope", "s1", "--query", "ledger CANARYQ", "--include-receipt", "--otel", otel)
	if code != 0 || out != plain || !strings.Contains(stderr, "receipt omitted") {
		t.Fatalf("exit %d, stderr %q; stdout equal to the run without the flag: %v", code, stderr, out == plain)
	}
	if _, err := os.Stat(otel); err != nil {
		t.Fatal("the trace must still be written")
	}
}

// TestPrepareKeyed: with --hash-key-file (or CONVERT_HASH_KEY_FILE) every
// digest prepare derives from the input is an HMAC under that key.
func TestPrepareKeyed(t *testing.T) {
	_, sample := prepStore(t)
	db := loadStore(t, sample)
	key := "11261636966b9247d3fc7345a64b49307a5c525c962085c12814e2994fccc20d"
	kf := writeTemp(t, "key", key+"\n")
	h, _ := receipt.NewKeyed([]byte(key))
	q := "Why did we choose SQLite for the payments ledger?"
	otel := filepath.Join(t.TempDir(), "t.json")
	args := []string{"prepare", "--store", db, "--scope", "project:payments", "--query", q, "--include-receipt", "--sections", "memory,code", "--otel", otel}
	code, out, stderr := prep(t, append(args, "--hash-key-file", kf)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	d := parseCtx(t, out)
	r := d.Receipt
	if r == nil || r.QueryDigest != h.Text(prepare.NormalizeQuery(q)) || r.ContentDigest == nil || *r.ContentDigest != h.Text(*d.Content) {
		t.Fatalf("query and content digests must be keyed: %s", out)
	}
	codeItems := 0
	for _, s := range r.Selected {
		if c := s.CodeEvidence; c != nil {
			codeItems++
			if !strings.HasPrefix(c.SnippetSHA256, "hmac-sha256:") || !strings.HasPrefix(c.FileSHA256, "hmac-sha256:") {
				t.Fatalf("code digests must be keyed: %+v", c)
			}
		}
	}
	if codeItems == 0 {
		t.Fatal("fixture: want a code item")
	}
	tr, _ := os.ReadFile(otel)
	if bytes.Contains(tr, []byte(prepare.QueryDigest(q))) || !bytes.Contains(tr, []byte(r.QueryDigest)) || bytes.Contains(tr, []byte(key)) {
		t.Fatal("the trace must carry the keyed query digest only")
	}
	if strings.Contains(out, prepare.QueryDigest(q)) || strings.Contains(out, key) {
		t.Fatal("the plain query digest or the key in the output")
	}
	t.Setenv("CONVERT_HASH_KEY_FILE", kf)
	if _, out2, _ := prep(t, args...); parseCtx(t, out2).Receipt.QueryDigest != r.QueryDigest {
		t.Fatal("CONVERT_HASH_KEY_FILE must select the same key")
	}
	t.Setenv("CONVERT_HASH_KEY_FILE", "")
	weak := writeTemp(t, "weak", "short\n")
	if code, _, stderr := prep(t, append(args, "--hash-key-file", weak)...); code != 2 || !strings.Contains(stderr, "hash-key-file") {
		t.Fatalf("a weak key is a usage error: exit %d %s", code, stderr)
	}
}

// TestPrepareAuthorization: grants per scope for a named caller. A denied
// scope is never searched and leaves no trace in the receipt; a denied exact
// read fails exactly like an unavailable revision.
func TestPrepareAuthorization(t *testing.T) {
	_, sample := prepStore(t)
	grants := writeTemp(t, "grants.jsonl", `{"kind":"grant","caller":"alice","scope_id":"project:payments"}`+"\n"+
		`{"kind":"grant","caller":"carol","scope_id":"project:payments"}`+"\n"+`{"kind":"grant","caller":"carol","scope_id":"project:shared"}`+"\n")
	db := loadStore(t, sample, grants)
	q := "Why did we choose SQLite for the payments ledger?"
	base := []string{"prepare", "--store", db, "--query", q, "--include-receipt", "--scope", "project:payments"}
	code, both, stderr := prep(t, append(base, "--caller", "alice", "--scope", "project:shared")...)
	if code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	_, only, _ := prep(t, append(base, "--caller", "alice")...)
	a, b := parseCtx(t, both), parseCtx(t, only)
	if *a.Content != *b.Content || a.Receipt == nil {
		t.Fatal("a denied referenced scope must not change the result")
	}
	ra, _ := json.Marshal(a.Receipt.Retrieval)
	rb, _ := json.Marshal(b.Receipt.Retrieval)
	if strings.Contains(both, "project:shared") || !bytes.Equal(ra, rb) || len(a.Receipt.Selected) != len(b.Receipt.Selected) {
		t.Fatalf("the receipt reveals the denied scope:\n%s\n%s", ra, rb)
	}
	if _, all, _ := prep(t, append(base, "--caller", "carol", "--scope", "project:shared")...); !strings.Contains(all, "project:shared") {
		t.Fatal("a granted referenced scope is searched")
	}
	if code, out, stderr := prep(t, append(base, "--caller", "bob")...); code != 1 || out != "" || !strings.Contains(stderr, "not authorized") {
		t.Fatalf("a caller without a grant for the current scope: exit %d %q", code, stderr)
	}
	if code, _, stderr := prep(t, base...); code != 2 || !strings.Contains(stderr, "--caller") {
		t.Fatalf("a store with grants needs --caller: exit %d %q", code, stderr)
	}
	read := func(caller, scope, artifact, rev string) (int, string, string) {
		return prep(t, "prepare", "read", "--store", db, "--caller", caller, "--scope", scope, "--family", "atomic-memory", "--artifact", artifact, "--revision", rev)
	}
	if code, out, _ := read("carol", "project:shared", "mem-storage", "1"); code != 0 || !strings.Contains(out, "CANARY") {
		t.Fatal("a granted exact read works")
	}
	dc, dout, derr := read("alice", "project:shared", "mem-storage", "1")
	uc, uout, uerr := read("alice", "project:payments", "mem-storage", "9")
	if dc != 1 || dc != uc || dout != uout || strings.ReplaceAll(derr, "project:shared", "S") != strings.ReplaceAll(uerr, "project:payments", "S") {
		t.Fatalf("a denied read must fail like an unavailable revision:\n%d %q\n%d %q", dc, derr, uc, uerr)
	}
}

// TestPrepareCodeRead: two files of one repository with ranges starting on
// the same line load and are both selected; the exact code read goes by
// scope, fingerprint, path, file hash, line range and snippet hash, and
// serves a truncated range too.
func TestPrepareCodeRead(t *testing.T) {
	var lines []string // 120 lines, over the 2000-byte item limit: cut to a final range
	for i := range 120 {
		lines = append(lines, "\tledgerStep() // step "+strings.Repeat("s", i%7))
	}
	long := strings.Join(lines, "\n") + "\n"
	arts := writeTemp(t, "code.jsonl",
		`{"kind":"code","scope_id":"s1","fingerprint":"repo-1","path":"internal/a.go","start_line":10,"body":"// CANARY ledgerStep a\nfunc a() {}\n"}`+"\n"+
			`{"kind":"code","scope_id":"s1","fingerprint":"repo-1","path":"internal/b.go","start_line":10,"body":`+mustJSON(long)+`}`+"\n")
	db := loadStore(t, arts)
	code, out, stderr := prep(t, "prepare", "--store", db, "--scope", "s1", "--query", "ledgerStep", "--include-receipt", "--sections", "code")
	if code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	d := parseCtx(t, out)
	if len(d.Receipt.Selected) != 2 || !d.Receipt.Selected[0].Truncated {
		t.Fatalf("want both files, the long one truncated: %s", out)
	}
	for _, s := range d.Receipt.Selected {
		c := s.CodeEvidence
		args := []string{"prepare", "read", "--store", db, "--scope", c.ScopeID, "--family", "code", "--fingerprint", c.Fingerprint, "--path", c.Path,
			"--file-sha256", c.FileSHA256, "--start-line", itoa(c.StartLine), "--end-line", itoa(c.EndLine), "--snippet-sha256", c.SnippetSHA256}
		code, rout, rerr := prep(t, args...)
		if code != 0 {
			t.Fatalf("exact code read: exit %d %s", code, rerr)
		}
		var doc struct {
			Snippet string `json:"snippet"`
		}
		json.Unmarshal([]byte(rout), &doc)
		if !strings.Contains(*d.Content, doc.Snippet) || prepare.QueryDigest(doc.Snippet) == "" {
			t.Fatalf("the read serves the recorded snippet: %q", rout)
		}
		args[len(args)-1] = strings.Replace(c.SnippetSHA256, c.SnippetSHA256[len(c.SnippetSHA256)-4:], "0000", 1)
		if code, _, rerr := prep(t, args...); code != 1 || !strings.Contains(rerr, "no such revision") {
			t.Fatalf("a wrong snippet hash is an unavailable revision: %d %s", code, rerr)
		}
	}
}

// TestPrepareRecallPolicy: the gate's thresholds and floors are a versioned
// policy from configuration, named in the recall effort and the trace.
func TestPrepareRecallPolicy(t *testing.T) {
	db, _ := prepStore(t)
	dir := t.TempDir()
	pol := writeTemp(t, "policy.json", `{"id":"acme.recall-gate.v7","min_candidates":99,"min_top1":0.5,"min_unused_bytes":256,"max_expansions":1,
 "allow_rerank_calls":false,"floors":[{"action":"admission","relax":1,"min_similarity":0.2}]}`)
	effort, otel := filepath.Join(dir, "e.json"), filepath.Join(dir, "t.json")
	code, _, stderr := prep(t, "prepare", "--store", db, "--scope", "project:payments", "--query", "sqlite ledger", "--recall-gate", "--recall-policy", pol,
		"--recall-effort", effort, "--otel", otel)
	if code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	e, _ := os.ReadFile(effort)
	tr, _ := os.ReadFile(otel)
	if !bytes.Contains(e, []byte(`"policy":"acme.recall-gate.v7"`)) || !bytes.Contains(e, []byte(`"rounds":2`)) || !bytes.Contains(tr, []byte("acme.recall-gate.v7")) {
		t.Fatalf("policy not applied or not named:\n%s", e)
	}
	// A bad policy turns the gate off (001-17): see
	// TestPrepareInvalidPolicyMeansNoExpansion.
	bad := writeTemp(t, "bad.json", `{"id":"x y","max_expansions":5}`)
	if code, _, stderr := prep(t, "prepare", "--store", db, "--scope", "project:payments", "--query", "q", "--recall-gate", "--recall-policy", bad); code != 0 || !strings.Contains(stderr, "recall gate off: --recall-policy") {
		t.Fatalf("a bad policy means no expansion: %d %s", code, stderr)
	}
}

// TestPrepareIsReadOnly: prepare writes nothing to the store (no receipt, no
// recall effort, no telemetry is persisted there).
func TestPrepareIsReadOnly(t *testing.T) {
	db, _ := prepStore(t)
	before, _ := os.ReadFile(db)
	if code, _, stderr := prep(t, "prepare", "--store", db, "--scope", "project:payments", "--scope", "project:shared", "--query", "sqlite ledger",
		"--include-receipt", "--recall-gate", "--rerank", "lexical", "--vector"); code != 0 {
		t.Fatal(stderr)
	}
	after, _ := os.ReadFile(db)
	if !bytes.Equal(before, after) {
		t.Fatal("prepare changed the store")
	}
}

func mustJSON(s string) string { b, _ := json.Marshal(s); return string(b) }

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
