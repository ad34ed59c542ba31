package prepare

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

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
