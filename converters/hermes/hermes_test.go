package hermes_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/tidwall/gjson"
	_ "modernc.org/sqlite"
)

// TestGolden holds every sample of samples/hermes to its goldens: receipts,
// traces and messages, with no canary in any (make golden rewrites them).
func TestGolden(t *testing.T) { convtest.Golden(t, "hermes") }

type figures struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
	Total      int64 `json:"total"`
}

// buildDB writes, at path, the sessions.db testdata/state.sql makes
// (the repository commits no binary input).
func buildDB(t *testing.T, path string) {
	t.Helper()
	script, err := os.ReadFile(filepath.Join("testdata", "state.sql"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(script)); err != nil {
		t.Fatal(err)
	}
}

// TestHermesDatabase: each session of a sessions.db is an input of its
// own, converted by the hermes reader, with the token totals ccusage
// 20.0.24 printed for the same database (testdata/ccusage.json); its
// tool calls are MCP calls; no canary reaches an output.
func TestHermesDatabase(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "ccusage.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Sessions []struct {
			Session string
			Ccusage figures
		}
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(t.TempDir(), "state.db")
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		t.Fatal(err)
	}
	buildDB(t, db)
	ins, err := pipeline.Expand([]string{db})
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != len(rec.Sessions) {
		t.Fatalf("%d inputs, want %d", len(ins), len(rec.Sessions))
	}
	mcp := 0
	for i, in := range ins {
		res := pipeline.Convert(in, pipeline.Options{})
		if res.Err != nil || res.Converter != "hermes" {
			t.Fatalf("%s: converted by %q (error %v)", in.Rel, res.Converter, res.Err)
		}
		convtest.NoCanary(t, res)
		var got figures
		var reasoning int64
		for _, l := range bytes.Split(res.Receipt, []byte{'\n'}) {
			e := gjson.ParseBytes(l)
			switch e.Get("name").Str {
			case "mcp.tool_call.completed":
				mcp++
			case "gen_ai.token_usage.summarized":
				a := e.Get("attributes")
				got.Input += a.Get(`gen_ai\.usage\.input_tokens`).Int()
				got.Output += a.Get(`gen_ai\.usage\.output_tokens`).Int()
				got.CacheRead += a.Get(`gen_ai\.usage\.cache_read\.input_tokens`).Int()
				got.CacheWrite += a.Get(`gen_ai\.usage\.cache_creation\.input_tokens`).Int()
				reasoning += a.Get(`gen_ai\.usage\.reasoning\.output_tokens`).Int()
			}
		}
		got.Total = got.Input + got.Output + got.CacheRead + got.CacheWrite + reasoning
		// Sessions come in creation order, as the record lists them (a
		// Goose id, <date>_<n>, is not of a shape outputs are named by).
		if s := rec.Sessions[i]; got != s.Ccusage {
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
