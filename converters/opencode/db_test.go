package opencode_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	_ "modernc.org/sqlite"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
	"github.com/contextreceipts/convert/internal/testshared/ocdb"
)

// ocEvents is a receipt's events but its summary, each as its name, time
// and attributes: what a session says, whatever file it was read from.
func ocEvents(receipt []byte) []string {
	var out []string
	for _, l := range bytes.Split(bytes.TrimSpace(receipt), []byte("\n")) {
		e := gjson.ParseBytes(l)
		if e.Get("name").Str != "convert.summary" {
			out = append(out, e.Get("name").Str+" "+e.Get("time").Str+" "+e.Get("attributes").Raw)
		}
	}
	return out
}

// listing is a folder's file names.
func listing(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

// TestOpencodeDatabase: each session of an opencode.db, given by path or
// found in a walk, is an input of its own, named by its session id, and
// writes the events the same session writes from the storage/ tree (its
// tokens, tools, its child session's subagent.spawned); no canary reaches
// an output or a message, and the database's folder is as it was (no
// journal or shared-memory file left beside it).
func TestOpencodeDatabase(t *testing.T) {
	testshared.InRepo(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "opencode.db")
	ocdb.Build(t, db, nil)
	before := listing(t, dir)
	storage := map[string][]string{}
	for _, r := range convtest.Convert(t, ocdb.Storage, pipeline.Options{}) {
		storage[strings.TrimSuffix(filepath.Base(r.Path), ".json")] = ocEvents(r.Receipt)
	}
	for _, arg := range []string{db, dir} {
		rs := convtest.Convert(t, arg, pipeline.Options{})
		if len(rs) != len(storage) {
			t.Fatalf("%s: %d inputs, want one per session (%d)", filepath.Base(arg), len(rs), len(storage))
		}
		for _, r := range rs {
			sid := filepath.Base(r.Path)
			want, ok := storage[sid]
			if !ok || filepath.Base(filepath.Dir(r.Path)) != "opencode.db" || r.Converter != "opencode" {
				t.Fatalf("input %s (%s) is no session of the database", r.Path, r.Converter)
			}
			got := ocEvents(r.Receipt)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: the database and the storage tree write different events:\n%s\n---\n%s", sid, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if all := string(r.Receipt) + string(r.Trace) + r.Path; strings.Contains(all, convtest.Canary) {
				t.Errorf("%s: a canary reached the output", sid)
			}
			if sid == "ses_4f1e2c8a1ffeH8i9J0k1L2m3N4" && !strings.Contains(strings.Join(got, "\n"), "subagent.spawned") {
				t.Errorf("the child session says nothing of its parent")
			}
			if !strings.Contains(string(r.Receipt), "gen_ai.token_usage.summarized") {
				t.Errorf("%s: no tokens", sid)
			}
		}
	}
	if after := listing(t, dir); after != before {
		t.Errorf("the database's folder changed: %q, was %q", after, before)
	}

	// While OpenCode has it open: its write-ahead log and shared memory
	// are beside it, and the sessions are read through them, the folder
	// still as it was.
	w, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	if _, err := w.Exec("UPDATE session SET time_updated = time_updated + 1"); err != nil {
		t.Fatal(err)
	}
	before = listing(t, dir)
	if !strings.Contains(before, "opencode.db-wal") {
		t.Fatalf("no write-ahead log while the database is open: %q", before)
	}
	if rs := convtest.Convert(t, db, pipeline.Options{}); len(rs) != len(storage) {
		t.Errorf("while open for writing: %d inputs, want %d", len(rs), len(storage))
	}
	if after := listing(t, dir); after != before {
		t.Errorf("the database's folder changed while it was open: %q, was %q", after, before)
	}
}

// TestOpencodeDatabaseRefusals: a database that cannot be read is an error
// of its own input, in words of convert's; a row whose data is no JSON
// object fails its session at that row; another program's SQLite file in
// a walked folder is passed over.
func TestOpencodeDatabaseRefusals(t *testing.T) {
	testshared.InRepo(t)
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk", "opencode.db")
	os.MkdirAll(filepath.Dir(junk), 0o755)
	os.WriteFile(junk, []byte("CANARY-not-a-database\n"), 0o644)
	other := filepath.Join(dir, "other", "opencode.db")
	os.MkdirAll(filepath.Dir(other), 0o755)
	foreign := filepath.Join(dir, "walk", "app.db")
	os.MkdirAll(filepath.Dir(foreign), 0o755)
	for _, p := range []string{other, foreign} {
		odb, err := sql.Open("sqlite", p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := odb.Exec("CREATE TABLE session (id text, title text); INSERT INTO session VALUES ('CANARY-id', 'CANARY-title')"); err != nil {
			t.Fatal(err)
		}
		odb.Close()
	}
	torn := filepath.Join(dir, "torn", "opencode.db")
	os.MkdirAll(filepath.Dir(torn), 0o755)
	ocdb.Build(t, torn, func(db *sql.DB) {
		if _, err := db.Exec("UPDATE message SET data = 'CANARY-torn {' WHERE id = 'msg_a10000000003ffeQw1Er2Ty3Ui'"); err != nil {
			t.Fatal(err)
		}
	})
	// A rollback-journal database a writer holds an exclusive lock on.
	locked := filepath.Join(dir, "locked", "opencode.db")
	os.MkdirAll(filepath.Dir(locked), 0o755)
	ocdb.Build(t, locked, func(db *sql.DB) {
		if _, err := db.Exec("PRAGMA journal_mode=DELETE"); err != nil {
			t.Fatal(err)
		}
	})
	lw, err := sql.Open("sqlite", locked)
	if err != nil {
		t.Fatal(err)
	}
	defer lw.Close()
	lw.SetMaxOpenConns(1)
	if _, err := lw.Exec("BEGIN EXCLUSIVE; UPDATE session SET title = 'CANARY-locked'"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		arg, want string
		inputs    int
	}{
		{junk, "opencode.db: not an SQLite database", 1},
		{other, "opencode.db: an SQLite database without the tables", 1},
		{torn, "opencode.db/ses_4f1e2d3c5ffeA1b2C3d4E5f6G7: message row msg_a10000000003ffeQw1Er2Ty3Ui: data is not a JSON object", 2},
		{filepath.Dir(foreign), "", 0},
		{locked, "opencode.db: the database is locked by another program", 1},
	}
	for _, c := range cases {
		ins, err := pipeline.Expand([]string{c.arg})
		if err != nil {
			t.Fatal(err)
		}
		if len(ins) != c.inputs {
			t.Errorf("%s: %d inputs, want %d", c.arg, len(ins), c.inputs)
		}
		var errs []string
		for _, in := range ins {
			res := pipeline.Convert(in, pipeline.Options{})
			if res.Err != nil {
				errs = append(errs, res.Err.Error())
			}
			if strings.Contains(string(res.Receipt)+string(res.Trace), convtest.Canary) {
				t.Errorf("%s: a canary reached the output", in.Path)
			}
		}
		all := strings.Join(errs, "\n")
		if c.want != "" && !strings.Contains(all, c.want) || c.want == "" && all != "" {
			t.Errorf("%s: errors %q, want %q", c.arg, all, c.want)
		}
		if strings.Contains(all, convtest.Canary) {
			t.Errorf("%s: a canary reached a message: %s", c.arg, all)
		}
	}
}

// TestOpencodeDatabaseAgainstCcusage: each session of the generated
// opencode.db has the token figures ccusage 20.0.24 prints for it. make
// ccusage-figures prints them for the database (made from the storage
// sample as here) and for the storage sample alike, so the storage
// sample's recorded figures (testdata/ccusage.json) are the database's.
func TestOpencodeDatabaseAgainstCcusage(t *testing.T) {
	raw, err := os.ReadFile(testshared.Repo(t, "converters", "testdata", "ccusage.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]convtest.Figures{}
	gjson.GetBytes(raw, "sessions").ForEach(func(_, s gjson.Result) bool {
		if s.Get("sample").Str == ocdb.Storage {
			var f convtest.Figures
			json.Unmarshal([]byte(s.Get("ccusage").Raw), &f)
			want[strings.TrimSuffix(s.Get("input").Str, ".json")] = f
		}
		return true
	})
	testshared.InRepo(t)
	db := filepath.Join(t.TempDir(), "opencode.db")
	ocdb.Build(t, db, nil)
	rs := convtest.Convert(t, db, pipeline.Options{})
	if len(rs) != len(want) || len(want) < 2 {
		t.Fatalf("%d sessions in the database, %d recorded for ccusage", len(rs), len(want))
	}
	for _, r := range rs {
		sid := filepath.Base(r.Path)
		if got := convtest.Terms(r.Receipt, false); got != want[sid] {
			t.Errorf("%s: ours %+v, ccusage %+v", sid, got, want[sid])
		}
	}
}

// TestOpencodeDatabaseCancel: a session of many rows is streamed from the
// database, so cancelling the run (Ctrl-C) stops its reading within a
// second, as an interruption, not a failure; read to the end, it converts,
// the leak check's second pass finding its records as the first read them.
func TestOpencodeDatabaseCancel(t *testing.T) {
	testshared.InRepo(t)
	db := filepath.Join(t.TempDir(), "opencode.db")
	const parts = 100000 // a count of six digits in the summary (text=100001)
	ocdb.Build(t, db, func(d *sql.DB) {
		// Made inside SQLite, one statement: 100,000 inserts from Go take
		// most of a minute under the race detector.
		if _, err := d.Exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
			INSERT INTO part (id, message_id, session_id, time_created, time_updated, data)
			SELECT printf('prt_zz%08d', i), 'msg_a10000000002ffeQw1Er2Ty3Ui', 'ses_4f1e2d3c5ffeA1b2C3d4E5f6G7', 1795168802000, 1795168802000,
				'{"type":"text","text":"CANARY-many ' || i || '"}' FROM n`, parts); err != nil {
			t.Fatal(err)
		}
	})
	ins, err := pipeline.Expand([]string{db})
	if err != nil {
		t.Fatal(err)
	}
	var big pipeline.Input
	for _, in := range ins {
		if filepath.Base(in.Path) == "ses_4f1e2d3c5ffeA1b2C3d4E5f6G7" {
			big = in
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan pipeline.Result, 1)
	go func() { done <- pipeline.ConvertContext(ctx, big, pipeline.Options{}) }()
	time.Sleep(300 * time.Millisecond)
	cancel()
	start := time.Now()
	select {
	case res := <-done:
		if took := time.Since(start); took > time.Second {
			t.Errorf("cancelled, yet it read on for %v", took)
		}
		if !errors.Is(res.Err, pipeline.ErrInterrupted) {
			t.Errorf("cancelled: %v, want an interruption (it read %d lines of %d)", res.Err, res.Stats.Lines, parts)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled, and still reading after 5s")
	}

	// Read to the end, its outputs hold a count of six digits (text=100001
	// parts), which sends the leak check back to the input for a second
	// pass: the same records, read again from the database, unchanged.
	res := pipeline.Convert(big, pipeline.Options{})
	if res.Err != nil || res.Stats.Lines < parts {
		t.Fatalf("read to the end: %v, %d lines", res.Err, res.Stats.Lines)
	}
	if strings.Contains(string(res.Receipt)+string(res.Trace), convtest.Canary) {
		t.Errorf("a canary reached the output")
	}
}

// TestOpencodeDatabaseGolden compares the receipts of the generated
// database's sessions with testdata/opencode_db/<session id>.receipt.ndjson
// (-update rewrites them): what the storage tree's goldens say, and a
// summary whose input is the session's rows as read.
func TestOpencodeDatabaseGolden(t *testing.T) {
	testshared.InRepo(t)
	db := filepath.Join(t.TempDir(), "opencode.db")
	ocdb.Build(t, db, nil)
	rs := convtest.Convert(t, db, pipeline.Options{})
	if len(rs) < 2 {
		t.Fatalf("%d sessions", len(rs))
	}
	for _, r := range rs {
		golden := filepath.Join("converters", "testdata", "opencode_db", filepath.Base(r.Path)+".receipt.ndjson")
		if bytes.Contains(r.Receipt, []byte(convtest.Canary)) {
			t.Fatalf("a canary reached %s", golden)
		}
		convtest.CompareGolden(t, golden, r.Receipt)
	}
}

// TestOpencodeDatabaseNames: in a data directory holding both the
// storage/ tree OpenCode migrated and the opencode.db it migrated into, a
// session is read once, from the database, as ccusage reads it; two
// databases of one name are named apart; a session whose id is not of
// OpenCode's shape is named by a digest of it, so no odd id (a path, a
// convtest.Canary) reaches a file name or a message.
func TestOpencodeDatabaseNames(t *testing.T) {
	testshared.InRepo(t)
	data := t.TempDir()
	if err := os.CopyFS(filepath.Join(data, "storage"), os.DirFS(ocdb.Storage)); err != nil {
		t.Fatal(err)
	}
	ocdb.Build(t, filepath.Join(data, "opencode.db"), nil)
	rs := convtest.Convert(t, data, pipeline.Options{})
	var names []string
	for _, r := range rs {
		names = append(names, filepath.ToSlash(r.Rel))
	}
	sort.Strings(names)
	if want := "opencode.db/ses_4f1e2c8a1ffeH8i9J0k1L2m3N4 opencode.db/ses_4f1e2d3c5ffeA1b2C3d4E5f6G7"; strings.Join(names, " ") != want {
		t.Errorf("the data directory gave %q, want each session once, from the database: %q", names, want)
	}

	// A folder whose name a URI would misread (space, #, ?, %).
	other := filepath.Join(t.TempDir(), "odd #1? 100% name", "opencode.db")
	if err := os.MkdirAll(filepath.Dir(other), 0o755); err != nil {
		t.Fatal(err)
	}
	built := filepath.Join(t.TempDir(), "opencode.db") // the driver's DSN would misread it too
	ocdb.Build(t, built, func(db *sql.DB) {
		if _, err := db.Exec(`INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
			VALUES ('CANARY-odd/../id', '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b', 's', '/CANARY', 'CANARY', '1.2.27', 1795168800000, 1795168800000)`); err != nil {
			t.Fatal(err)
		}
	})
	if err := os.Rename(built, other); err != nil {
		t.Fatal(err)
	}
	ins, err := pipeline.Expand([]string{filepath.Join(data, "opencode.db"), other})
	if err != nil {
		t.Fatal(err)
	}
	rels := map[string]bool{}
	odd := 0
	for _, in := range ins {
		if rels[in.Rel] {
			t.Errorf("two inputs named %s", in.Rel)
		}
		rels[in.Rel] = true
		if strings.Contains(in.Path+in.Rel, convtest.Canary) {
			t.Errorf("an odd session id reached an input's name: %s", in.Rel)
		}
		if strings.HasPrefix(filepath.Base(in.Path), "session-") {
			odd++
			res := pipeline.Convert(in, pipeline.Options{})
			if res.Err != nil || strings.Contains(string(res.Receipt)+string(res.Trace), convtest.Canary) {
				t.Errorf("the odd session: %v, or a canary in its outputs", res.Err)
			}
		}
	}
	if len(ins) != 5 || odd != 1 {
		t.Errorf("two databases gave %d inputs (%d of an odd id), want 5 (1)", len(ins), odd)
	}
}
