package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared/ocdb"
)

// dbReceipts lists the receipts written under dir, slash-relative.
func dbReceipts(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(p, ".receipt.ndjson") {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// TestRunOpencodeDatabase: convert run reads an opencode.db given by path
// and, with no PATH, in OpenCode's data directory: one receipt per
// session, named by its id; a rerun skips the sessions whose rows did not
// change and converts the one that did; a database that cannot be read
// fails as any bad input does (exit 1), its folder untouched; no canary
// reaches stdout or stderr (runCLI).
func TestRunOpencodeDatabase(t *testing.T) {
	const parent, child = "ses_4f1e2d3c5ffeA1b2C3d4E5f6G7", "ses_4f1e2c8a1ffeH8i9J0k1L2m3N4"
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	clearLocationEnv(t)
	data := filepath.Join(home, ".local", "share", "opencode")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(data, "opencode.db")
	ocdb.Build(t, db, nil)

	out := t.TempDir()
	code, so, se := runCLI(t, "", "run", "--out", out, db)
	want := []string{"opencode.db/" + child + ".receipt.ndjson", "opencode.db/" + parent + ".receipt.ndjson"}
	if got := dbReceipts(t, out); code != 0 || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("by path: exit %d, receipts %q, want %q\n%s%s", code, got, want, so, se)
	}
	if !strings.Contains(se, "2 of 2 inputs converted") {
		t.Errorf("by path: stderr lacks the count:\n%s", se)
	}

	// leakcheck --input opencode.db checks against every session's rows:
	// a string only the database holds (a session's directory), planted
	// in a receipt, is found.
	if code, so, se := runCLI(t, "", "leakcheck", "--input", db, out); code != 0 || !strings.Contains(so, "no leak") {
		t.Fatalf("leakcheck --input opencode.db: exit %d\n%s%s", code, so, se)
	}
	planted := filepath.Join(out, "opencode.db", parent+".receipt.ndjson")
	b, err := os.ReadFile(planted)
	if err != nil {
		t.Fatal(err)
	}
	leaky := filepath.Join(t.TempDir(), "leaky.receipt.ndjson")
	os.WriteFile(leaky, []byte(strings.Replace(string(b), `"name":"`, `"name":"/Users/CANARY-user/projects/CANARY-ledger `, 1)), 0o644)
	if code, _, se := runCLI(t, "", "leakcheck", "--input", db, leaky); code != exitLeak {
		t.Errorf("a planted leak from the database: exit %d, want %d\n%s", code, exitLeak, se)
	}

	// One session by its path below the database: a signed receipt of it
	// verifies against it (re-converted byte-identical), and a change to
	// its rows is "source changed".
	one := t.TempDir()
	if code, _, se := runCLI(t, "", "run", "--out", one, filepath.Join(db, child)); code != 0 || len(dbReceipts(t, one)) != 1 {
		t.Fatalf("one session by path: exit %d, receipts %q\n%s", code, dbReceipts(t, one), se)
	}
	key := filepath.Join(t.TempDir(), "team.secret")
	os.WriteFile(key, []byte(testSecret+"\n"), 0o600)
	rec := filepath.Join(one, "opencode.db", child+".receipt.ndjson")
	if code, _, se := runCLI(t, "", "sign", "--key", key, rec); code != 0 {
		t.Fatalf("sign: exit %d\n%s", code, se)
	}
	if code, so, se := runCLI(t, "", "verify", "--key", key, "--source", filepath.Join(db, child), rec+sigSuffix); code != 0 || !strings.Contains(so, "re-converted byte-identical") {
		t.Errorf("verify a database session: exit %d\n%s%s", code, so, se)
	}

	// Unchanged: both skipped. A row of one session changes (OpenCode sets
	// its time_updated, and its message's when the turn ends, to the time of
	// the change): that session alone again.
	code, _, se = runCLI(t, "", "run", "--out", out, db)
	if code != 0 || !strings.Contains(se, "0 of 2 inputs converted") || !regexp.MustCompile(`unchanged +2 `).MatchString(se) {
		t.Errorf("rerun: exit %d, want both unchanged:\n%s", code, se)
	}
	w, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	// As OpenCode writes a turn: a part changes, then its message ends.
	if _, err := w.Exec(`UPDATE part SET time_updated = 1795169999000, data = json_set(data, '$.note', 'CANARY-edited')
		WHERE id = (SELECT id FROM part WHERE session_id = ?1 LIMIT 1);
		UPDATE message SET time_updated = 1795169999001 WHERE id = (SELECT message_id FROM part WHERE session_id = ?1 LIMIT 1)`, child); err != nil {
		t.Fatal(err)
	}
	w.Close()
	code, _, se = runCLI(t, "", "run", "--out", out, db)
	if code != 0 || !strings.Contains(se, "1 of 2 inputs converted") {
		t.Errorf("after one session changed: exit %d, want it alone converted:\n%s", code, se)
	}
	if code, so, se := runCLI(t, "", "verify", "--key", key, "--source", filepath.Join(db, child), rec+sigSuffix); code != exitSourceChanged {
		t.Errorf("verify a changed database session: exit %d, want %d\n%s%s", code, exitSourceChanged, so, se)
	}

	// No PATH: OpenCode's data directory, holding both the storage/ tree
	// OpenCode migrated and the database: each session read once, from
	// the database.
	if err := os.CopyFS(filepath.Join(data, "storage"), os.DirFS(filepath.Join("..", "..", filepath.FromSlash(ocdb.Storage)))); err != nil {
		t.Fatal(err)
	}
	old := stdinPiped
	stdinPiped = func() bool { return false }
	defer func() { stdinPiped = old }()
	auto := t.TempDir()
	code, _, se = runCLI(t, "", "run", "--out", auto)
	want = []string{"opencode/opencode.db/" + child + ".receipt.ndjson", "opencode/opencode.db/" + parent + ".receipt.ndjson"}
	if got := dbReceipts(t, auto); code != 0 || strings.Join(got, " ") != strings.Join(want, " ") || !strings.Contains(se, "opencode ~/.local/share/opencode/storage; opencode ~/.local/share/opencode/opencode*.db") {
		t.Errorf("no PATH: exit %d, receipts %q, want %q\n%s", code, got, want, se)
	}

	// A database that cannot be read.
	bad := filepath.Join(t.TempDir(), "opencode.db")
	os.WriteFile(bad, []byte("CANARY-not-sqlite"), 0o644)
	before, _ := os.ReadDir(filepath.Dir(bad))
	code, _, se = runCLI(t, "", "run", "--out", t.TempDir(), bad)
	if code != exitFailed || !strings.Contains(se, "opencode.db: not an SQLite database") {
		t.Errorf("not a database: exit %d, want %d:\n%s", code, exitFailed, se)
	}
	if after, _ := os.ReadDir(filepath.Dir(bad)); len(after) != len(before) {
		t.Errorf("the bad database's folder changed: %d files, was %d", len(after), len(before))
	}
}
