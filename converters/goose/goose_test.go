package goose_test

import (
	"path/filepath"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	_ "modernc.org/sqlite"
)

// TestGolden holds every sample of samples/goose to its goldens: receipts,
// traces and messages, with no canary in any (make golden rewrites them).
func TestGolden(t *testing.T) { convtest.Golden(t, "goose") }

// TestGooseDatabase: each session of a sessions.db is an input of its
// own, converted by the goose reader, with the token totals ccusage
// 20.0.24 printed for the same database (testdata/ccusage.json); its
// tool calls are MCP calls; no canary reaches an output.
func TestGooseDatabase(t *testing.T) {
	recorded := convtest.RecordedBeside(t)
	db := filepath.Join(t.TempDir(), "data", "sessions", "sessions.db")
	convtest.SQLiteFrom(t, "sessions.sql", db)
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
		if res.Err != nil || res.Converter != "goose" {
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
	if mcp != 2 {
		t.Errorf("%d MCP calls, want 2 (developer__shell and the failed lookup)", mcp)
	}
}

// TestLocations: ccusage's default places, and GOOSE_PATH_ROOT's
// data/sessions only when it is set: unset, no place is made of the home
// directory itself (HOME/data/sessions).
func TestLocations(t *testing.T) {
	others := []string{"HOME/.local/share/goose/sessions/sessions.db", "HOME/.local/share/Block/goose/sessions/sessions.db",
		"HOME/Library/Application Support/goose/sessions/sessions.db"}
	convtest.Locations(t, "goose", "GOOSE_PATH_ROOT", others,
		append([]string{"ENV/data/sessions/sessions.db"}, others...))
}
