package hermes_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	_ "modernc.org/sqlite"
)

// TestGolden holds every sample of samples/hermes to its goldens: receipts,
// traces and messages, with no canary in any (make golden rewrites them).
func TestGolden(t *testing.T) { convtest.Golden(t, "hermes") }

// TestHermesDatabase: each session of a sessions.db is an input of its
// own, converted by the hermes reader, with the token totals ccusage
// 20.0.24 printed for the same database (testdata/ccusage.json); its
// tool calls are MCP calls; no canary reaches an output.
func TestHermesDatabase(t *testing.T) {
	recorded := convtest.RecordedBeside(t)
	db := filepath.Join(t.TempDir(), "state.db")
	convtest.SQLiteFrom(t, "state.sql", db)
	ins, err := pipeline.Expand([]string{db})
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != len(recorded) {
		t.Fatalf("%d inputs, want %d", len(ins), len(recorded))
	}
	mcp := 0
	for i, in := range ins {
		res := pipeline.Convert(in, pipeline.Options{})
		if res.Err != nil || res.Converter != "hermes" {
			t.Fatalf("%s: converted by %q (error %v)", in.Rel, res.Converter, res.Err)
		}
		convtest.NoCanary(t, res)
		mcp += len(convtest.Events(res.Receipt, "mcp.tool_call.completed"))
		got := convtest.ReceiptTotals(res.Receipt)
		// Sessions come in creation order, as the record lists them (a
		// Goose id, <date>_<n>, is not of a shape outputs are named by).
		if s := recorded[i]; got != s.Ccusage {
			t.Errorf("%s: ours %+v, ccusage's %s %+v", in.Rel, got, s.Session, s.Ccusage)
		}
	}
	if mcp != 0 {
		t.Errorf("%d MCP calls: Hermes names no MCP tool apart", mcp)
	}
}

// TestLocations: ~/.hermes/state.db, or state.db under HERMES_HOME.
func TestLocations(t *testing.T) {
	convtest.Locations(t, "hermes", "HERMES_HOME", []string{"HOME/.hermes/state.db"}, []string{"ENV/state.db"})
}

// TestForeignStateDB: a folder walked with another program's state.db in
// it converts its logs and skips the database (a common name is no claim).
func TestForeignStateDB(t *testing.T) {
	dir := t.TempDir()
	db, err := sql.Open("sqlite", filepath.Join(dir, "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE kv (k TEXT, v TEXT)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ins, err := pipeline.Expand([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ins {
		if res := pipeline.Convert(in, pipeline.Options{}); res.Err != nil {
			t.Errorf("%s: %v", in.Rel, res.Err)
		}
	}
	if len(ins) != 0 {
		t.Errorf("%d inputs, want none: the database is another program's", len(ins))
	}
}
