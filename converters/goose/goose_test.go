package goose_test

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

// TestGolden holds every sample of samples/goose to its goldens: receipts,
// traces and messages, with no canary in any (make golden rewrites them).
func TestGolden(t *testing.T) { convtest.Golden(t, "goose") }

type figures struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
	Total      int64 `json:"total"`
}

// buildDB writes, at path, the sessions.db testdata/sessions.sql makes
// (the repository commits no binary input).
func buildDB(t *testing.T, path string) {
	t.Helper()
	script, err := os.ReadFile(filepath.Join("testdata", "sessions.sql"))
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

// TestGooseDatabase: each session of a sessions.db is an input of its
// own, converted by the goose reader, with the token totals ccusage
// 20.0.24 printed for the same database (testdata/ccusage.json); its
// tool calls are MCP calls; no canary reaches an output.
func TestGooseDatabase(t *testing.T) {
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
	db := filepath.Join(t.TempDir(), "data", "sessions", "sessions.db")
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
		if res.Err != nil || res.Converter != "goose" {
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
	if mcp != 2 {
		t.Errorf("%d MCP calls, want 2 (developer__shell and the failed lookup)", mcp)
	}
}

// TestLocations: ccusage's default places, and GOOSE_PATH_ROOT's
// data/sessions.
func TestLocations(t *testing.T) {
	others := []string{"HOME/.local/share/goose/sessions/sessions.db", "HOME/.local/share/Block/goose/sessions/sessions.db",
		"HOME/Library/Application Support/goose/sessions/sessions.db"}
	convtest.Locations(t, "goose", "GOOSE_PATH_ROOT",
		append([]string{"HOME/data/sessions/sessions.db"}, others...),
		append([]string{"ENV/data/sessions/sessions.db"}, others...))
}
