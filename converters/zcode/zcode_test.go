package zcode_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	_ "modernc.org/sqlite"
)

// TestGolden holds every sample of samples/zcode to its goldens: receipts,
// traces and messages, with no canary in any (make golden rewrites them).
func TestGolden(t *testing.T) { convtest.Golden(t, "zcode") }

// TestZcodeDatabase: each session of a ZCode db.sqlite is an input of its
// own, converted by the zcode reader, with the token totals ccusage
// 20.0.24 printed for the same database (testdata/ccusage.json); no
// canary reaches an output.
func TestZcodeDatabase(t *testing.T) {
	recorded := convtest.RecordedBeside(t)
	db := filepath.Join(t.TempDir(), "cli", "db", "db.sqlite")
	convtest.SQLiteFrom(t, "db.sql", db)
	ins, err := pipeline.Expand([]string{db})
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != len(recorded) {
		t.Fatalf("%d inputs, want %d", len(ins), len(recorded))
	}
	for i, in := range ins {
		res := pipeline.Convert(in, pipeline.Options{})
		if res.Err != nil || res.Converter != "zcode" {
			t.Fatalf("%s: converted by %q (error %v)", in.Rel, res.Converter, res.Err)
		}
		convtest.NoCanary(t, res)
		// Sessions come in order of their first call, as the record lists them.
		s := recorded[i]
		if got := convtest.ReceiptTotals(res.Receipt); got != s.Ccusage {
			t.Errorf("%s: ours %+v, ccusage's %s %+v", in.Rel, got, s.Session, s.Ccusage)
		}
	}
}

// TestLocations: ~/.zcode/cli/db/db.sqlite, or the same below ZCODE_HOME.
func TestLocations(t *testing.T) {
	convtest.Locations(t, "zcode", "ZCODE_HOME", []string{"HOME/.zcode/cli/db/db.sqlite"}, []string{"ENV/cli/db/db.sqlite"})
}

// TestZcodeWithoutSessionTable: a model_usage table without ZCode's
// session table beside it is not ZCode's ledger as ccusage 20.0.24 reads
// it (it prints no session for it): the database is not converted as
// ZCode's.
func TestZcodeWithoutSessionTable(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db.sqlite")
	sqlDB, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sqlDB.Exec(`CREATE TABLE model_usage (id TEXT PRIMARY KEY, session_id TEXT, started_at INTEGER, model_id TEXT,
		status TEXT, input_tokens INTEGER, output_tokens INTEGER);
		INSERT INTO model_usage VALUES ('a', 's', 1795168801000, 'glm-4.6', 'completed', 10, 2)`)
	sqlDB.Close()
	if err != nil {
		t.Fatal(err)
	}
	ins, err := pipeline.Expand([]string{db})
	if err != nil {
		return // refused outright
	}
	for _, in := range ins {
		res := pipeline.Convert(in, pipeline.Options{})
		if res.Converter == "zcode" && res.Err == nil {
			t.Errorf("%s: converted as ZCode's", in.Rel)
		}
	}
}

// TestZcodeHomeWalked: a folder given to a run, ZCode's home, is walked
// down to its cli/db/db.sqlite, each session an input of its own.
func TestZcodeHomeWalked(t *testing.T) {
	home := t.TempDir()
	convtest.SQLiteFrom(t, "db.sql", filepath.Join(home, "cli", "db", "db.sqlite"))
	ins, err := pipeline.Expand([]string{home})
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 2 {
		t.Fatalf("%d inputs, want the ledger's 2 sessions", len(ins))
	}
	for _, in := range ins {
		if res := pipeline.Convert(in, pipeline.Options{}); res.Err != nil || res.Converter != "zcode" {
			t.Errorf("%s: converted by %q (error %v)", in.Rel, res.Converter, res.Err)
		}
	}
}
