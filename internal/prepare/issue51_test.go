package prepare

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/gate"
	"github.com/contextreceipts/convert/internal/receipt"
)

// v1DDL is the schema of a store made before issue #51: one FTS index over
// every revision, no live index, user_version 0.
const v1DDL = `
CREATE TABLE artifacts(
  id INTEGER PRIMARY KEY,
  scope_id TEXT NOT NULL, family TEXT NOT NULL, artifact_id TEXT NOT NULL, revision INTEGER NOT NULL,
  entry_id TEXT NOT NULL DEFAULT '', entry_version_id TEXT NOT NULL DEFAULT '',
  fingerprint TEXT NOT NULL DEFAULT '', path TEXT NOT NULL DEFAULT '', file_sha256 TEXT NOT NULL DEFAULT '',
  start_line INTEGER NOT NULL DEFAULT 0,
  body TEXT NOT NULL, vec BLOB,
  UNIQUE(scope_id, family, artifact_id, revision, entry_id));
CREATE TABLE heads(scope_id TEXT NOT NULL, family TEXT NOT NULL, artifact_id TEXT NOT NULL,
  revision INTEGER NOT NULL, state TEXT NOT NULL, PRIMARY KEY(scope_id, family, artifact_id));
CREATE TABLE grants(caller TEXT NOT NULL, scope_id TEXT NOT NULL, PRIMARY KEY(caller, scope_id));
CREATE VIRTUAL TABLE artifacts_fts USING fts5(body, content='artifacts', content_rowid='id', tokenize='unicode61 remove_diacritics 0');
INSERT INTO artifacts(id, scope_id, family, artifact_id, revision, body) VALUES
  (1, 's', 'topic-memory', 't', 1, 'CANARY ledger first'), (2, 's', 'topic-memory', 't', 2, 'CANARY ledger second'),
  (3, 's', 'topic-memory', 'gone', 1, 'CANARY ledger forgotten');
INSERT INTO artifacts_fts(rowid, body) SELECT id, body FROM artifacts;
INSERT INTO heads VALUES('s', 'topic-memory', 't', 2, 'active'), ('s', 'topic-memory', 'gone', 1, 'forgotten');
`

// TestOldStoreIsBroughtUpToDate: prepare refuses a store made before the
// live index (and leaves it as it was); one load brings it up to date, and
// recall then finds exactly the active heads.
func TestOldStoreIsBroughtUpToDate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(v1DDL); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before, _ := os.ReadFile(path)
	if _, err := OpenReadOnly(path); !errors.Is(err, ErrOldStore) {
		t.Fatalf("got %v, want ErrOldStore", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("the refusal changed the store")
	}
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load(bytes.NewReader(nil), "empty.jsonl"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	res := doPrepare(t, ro, Options{}, Request{ScopeIDs: []string{"s"}, Query: "ledger", IncludeReceipt: true, Sections: []Section{{FamilyTopic, 8}}})
	sel := res.Context.Receipt.Selected
	if len(sel) != 1 || sel[0].ArtifactAddress.ArtifactID != "t" || sel[0].ArtifactAddress.Revision != 2 {
		t.Fatalf("want the active head t@2 only: %+v", sel)
	}
	if _, err := ro.Load(bytes.NewReader(nil), "x.jsonl"); err == nil {
		t.Fatal("a read-only store must refuse a load")
	}
}

// TestLiveIndexFollowsHeads: the live index holds exactly the active head
// rows through new revisions, an older revision loaded late, lifecycle
// actions and a revision that revives a forgotten artifact.
func TestLiveIndexFollowsHeads(t *testing.T) {
	st := openWith(t,
		art(FamilyTopic, "s", "a", 2, "CANARY ledger two"),
		art(FamilyTopic, "s", "a", 1, "CANARY ledger one (late, never the head)"),
		art(FamilyTopic, "s", "b", 1, "CANARY ledger b"),
		rec{"kind": "lifecycle", "scope_id": "s", "family": FamilyTopic, "artifact_id": "b", "action": "forget"},
		art(FamilyTopic, "s", "c", 1, "CANARY ledger c"),
		rec{"kind": "lifecycle", "scope_id": "s", "family": FamilyTopic, "artifact_id": "c", "action": "retire"},
		art(FamilyTopic, "s", "c", 2, "CANARY ledger c revived"),
		mem("s", "m", 1, "CANARY ledger m1", "CANARY ledger m2"),
		mem("s", "m", 2, "CANARY ledger m3"),
	)
	got := map[string]int{}
	for _, fam := range []string{FamilyTopic, FamilyMemory} {
		rs, err := st.searchFTS(context.Background(), receipt.Hasher{}, "s", fam, []string{"ledger"}, 64)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			got[fmt.Sprintf("%s@%d%s", r.cand.Addr.ArtifactID, r.cand.Addr.Revision, r.cand.EntryID)]++
		}
	}
	want := map[string]int{"a@2": 1, "c@2": 1, "m@2e1": 1}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// TestKeyedReceiptByteCap: the byte cap is checked on the receipt as it is
// printed, after keyed digests replace the ids (issue #51: a keyed receipt
// was printed at 16,479 bytes). Scope ids stay in clear and short ids grow
// to 76-byte digests; over a range of scope lengths, a keyed receipt is
// either printed within the cap or dropped for it with the injection kept,
// and at least one length keeps its plain receipt while the keyed one is
// dropped.
func TestKeyedReceiptByteCap(t *testing.T) {
	h, err := receipt.NewKeyed([]byte("45666d976bab316d970ec459afd866d9e9a0681ac510f0911f2ac33e9142e51b"))
	if err != nil {
		t.Fatal(err)
	}
	secs, _ := ParseSections("memory:8,topic-memory:8,profile:8,experience:2,code:4")
	dropped := 0
	for n := 96; n <= 128; n += 4 {
		cur := "p:" + strings.Repeat("c", n-2)
		ref := "r:" + strings.Repeat("r", n-2)
		var recs []rec
		for s, scope := range []string{cur, ref} {
			recs = append(recs, mem(scope, fmt.Sprint("m", s), 1, body(300, "ledger", "a"), body(300, "ledger", "b"), body(300, "ledger", "c"), body(300, "ledger", "d"),
				body(300, "ledger", "e"), body(300, "ledger", "f"), body(300, "ledger", "g"), body(300, "ledger", "h")))
			recs = append(recs, art(FamilyExperience, scope, fmt.Sprint("x", s), 1, body(300, "ledger")), art(FamilyExperience, scope, fmt.Sprint("y", s), 1, body(300, "ledger")))
		}
		for i := range 12 { // over the topic and profile ceilings: candidate_limit omissions
			recs = append(recs, art(FamilyTopic, cur, fmt.Sprint("t", i), 1, body(300, "ledger")), art(FamilyProfile, cur, fmt.Sprint("p", i), 1, body(200, "team")))
		}
		for i := range 4 {
			recs = append(recs, codeRec(cur, strings.Repeat("f", n), fmt.Sprintf("c%d.go", i), 1, "// CANARY ledger\nfunc f() {}\n"))
		}
		st := openWith(t, recs...)
		req := Request{ScopeIDs: []string{cur, ref}, Query: "ledger", MaxBytes: MaxMaxBytes, IncludeReceipt: true, Sections: secs}
		model := "acme:rerank-" + strings.Repeat("m", 116)
		rr := &scopedReranker{ev: map[string]*RerankEvidence{cur: modelEvidence(model, 0, cur, "c"), ref: modelEvidence(model, 0, ref, "c")}}
		plain := doPrepare(t, st, Options{Reranker: rr, Embedder: HashEmbedder{}}, req)
		keyed := doPrepare(t, st, Options{Hasher: h, Reranker: rr, Embedder: HashEmbedder{}}, req)
		out := render(t, st, keyed, req)
		var printed struct {
			Content *string         `json:"content"`
			Receipt json.RawMessage `json:"receipt"`
		}
		if err := json.Unmarshal(out.Context, &printed); err != nil {
			t.Fatal(err)
		}
		if printed.Content == nil || *printed.Content != *plain.Context.Content {
			t.Fatalf("scope length %d: the keyed injection differs", n)
		}
		pb, _ := json.Marshal(plain.Context.Receipt)
		t.Logf("scope length %d: plain %d bytes, keyed %d bytes printed (%s)", n, len(pb), len(printed.Receipt), keyed.Diagnostic)
		switch {
		case len(printed.Receipt) > ReceiptByteCap:
			t.Fatalf("scope length %d: a keyed receipt printed at %d bytes, over the %d-byte cap", n, len(printed.Receipt), ReceiptByteCap)
		case printed.Receipt == nil:
			if !strings.Contains(keyed.Diagnostic+out.Diagnostic, "over the byte cap") {
				t.Fatalf("scope length %d: receipt dropped without the byte-cap reason: %q", n, keyed.Diagnostic)
			}
			if plain.Context.Receipt != nil {
				dropped++
			}
		}
	}
	if dropped == 0 {
		t.Fatal("fixture: no scope length puts the keyed receipt over the cap while the plain one fits")
	}
}

// TestGateCountsFromTheirRound: the gate's counts describe the round they
// come from (issue #51). A round-0 item that a later round finds again is
// the same candidate, not a duplicate; and after a failed last round the
// admission counts of the searches it completed are that round's, while
// the scope it never measured keeps the last round that measured it.
func TestGateCountsFromTheirRound(t *testing.T) {
	entries := []string{body(120, "alpha", "bravo", "charlie", "delta", "echo", "foxtrot"),
		body(120, "alpha", "w1a"), body(120, "alpha", "w1b")}
	st := openWith(t, mem(scopeA, "m", 1, entries...), mem(scopeB, "m", 1, entries...))
	g := DefaultGatePolicy()
	req := Request{ScopeIDs: []string{scopeA, scopeB}, Query: gateQuery, IncludeReceipt: true, Sections: []Section{{FamilyMemory, 8}}}
	admitted := func(e *RecallEffort, scope string) int {
		for _, c := range e.AdmissionByFamily {
			if c.ScopeID == scope {
				return c.Admitted
			}
		}
		return -1
	}

	ok := doPrepare(t, st, Options{Gate: &g}, req)
	if ok.Effort.Rounds != 3 || len(ok.Effort.ExpansionActions) != 2 || !ok.Context.Receipt.Retrieval.Rounds[2].Retained {
		t.Fatalf("fixture: two kept expansions: %+v", ok.Effort)
	}
	if n := omitted(ok.Context.Receipt, FamilyMemory, OmitDuplicate); n != 0 {
		t.Fatalf("rounds 1 and 2 re-find round 0's items: %d counted as duplicates, want 0", n)
	}
	if admitted(ok.Effort, scopeA) != 3 || admitted(ok.Effort, scopeB) != 3 {
		t.Fatalf("fixture: round 2 admits all three entries of each scope: %+v", ok.Effort.AdmissionByFamily)
	}

	failed := doPrepare(t, st, Options{Gate: &g, searchFault: func(round int, fam, scope string) error {
		if round == 2 && scope == scopeB {
			return errors.New("backend down")
		}
		return nil
	}}, req)
	if failed.Effort.Rounds != 3 || len(failed.Effort.ExpansionActions) != 1 {
		t.Fatalf("fixture: round 2 fails: %+v", failed.Effort)
	}
	// Round 2 measured scope A (3 admitted) before scope B failed; B's last
	// measurement is round 1's (1 admitted: the floor of round 1 still
	// wants two terms).
	if a, b := admitted(failed.Effort, scopeA), admitted(failed.Effort, scopeB); a != 3 || b != 1 {
		t.Fatalf("admission after a failed last round: A %d (want round 2's 3), B %d (want round 1's 1)", a, b)
	}
}

// TestLeakCheckOverWhatWasRead: the bodies Render probes are the ones this
// prepare read (every candidate, selected or not), not every body of the
// scopes; the vector channel scores the bodies that share a query term.
func TestLeakCheckOverWhatWasRead(t *testing.T) {
	st := openWith(t,
		mem(scopeA, "m", 1, body(120, "ledger", "sqlite"), body(120, "ledger", "backup")),
		art(FamilyTopic, scopeA, "t", 1, body(120, "ledger")),
		art(FamilyTopic, scopeA, "other", 1, "CANARY unrelated words only"),
		art(FamilyProfile, scopeA, "p", 1, body(80, "team")))
	req := Request{ScopeIDs: []string{scopeA}, Query: "ledger sqlite", IncludeReceipt: true}
	res := doPrepare(t, st, Options{Embedder: HashEmbedder{}}, req)
	out := render(t, st, res, req)
	if out.Context == nil || res.Context.Receipt == nil {
		t.Fatal("fixture: want a receipt")
	}
	read := map[string]bool{}
	for _, b := range res.Bodies {
		read[b] = true
	}
	if !strings.Contains(*res.Context.Content, "filler") {
		t.Fatal("fixture: want content")
	}
	for _, b := range []string{body(120, "ledger", "sqlite"), body(120, "ledger", "backup"), body(120, "ledger"), body(80, "team")} {
		if !read[b] {
			t.Fatalf("a candidate's body is not probed: %q", b)
		}
	}
	if read["CANARY unrelated words only"] {
		t.Fatal("a body sharing no query term was read")
	}
	// A diagnostic that would quote a body read is still caught (the
	// check fails closed).
	bad := res
	bad.Diagnostic = "failed near " + body(120, "ledger", "backup")
	var le *gate.LeakError
	if _, err := Render(bad, req, res.Bodies, false); !errors.As(err, &le) {
		t.Fatalf("a diagnostic quoting a candidate body must fail the check: %v", err)
	}
}
