package kilo_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/contextreceipts/convert/converters/all"
	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared/ocdb"
	"github.com/tidwall/gjson"
)

type figures struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
	Total      int64 `json:"total"`
}

// TestKiloDatabase: each session of a kilo.db is an input of its own,
// converted by the kilo reader (the receipts name Kilo, not OpenCode),
// with the token totals ccusage 20.0.24 printed for the same database
// (testdata/ccusage.json); the same database named opencode.db is
// OpenCode's, and no canary reaches an output.
func TestKiloDatabase(t *testing.T) {
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
	want := map[string]figures{}
	for _, s := range rec.Sessions {
		want[s.Session] = s.Ccusage
	}
	for _, tc := range []struct{ file, converter, agent string }{
		{"kilo.db", "kilo", "kilo"}, {"opencode.db", "opencode", "opencode"},
		// A database of another name is probed for its tables: OpenCode's
		// schema is OpenCode's, never Kilo's (Store.NameOnly).
		{"backup-CANARY.db", "opencode", "opencode"},
	} {
		dir := t.TempDir()
		db := filepath.Join(dir, tc.file)
		ocdb.Build(t, db, nil)
		ins, err := pipeline.Expand([]string{db})
		if err != nil {
			t.Fatal(err)
		}
		if len(ins) != len(want) {
			t.Fatalf("%s: %d inputs, want %d", tc.file, len(ins), len(want))
		}
		for _, in := range ins {
			res := pipeline.Convert(in, pipeline.Options{})
			if res.Err != nil || res.Converter != tc.converter {
				t.Fatalf("%s: converted by %q (error %v), want %s", in.Rel, res.Converter, res.Err, tc.converter)
			}
			if bytes.Contains(res.Receipt, []byte("CANARY")) || bytes.Contains(res.Trace, []byte("CANARY")) {
				t.Errorf("%s: a canary in the outputs", in.Rel)
			}
			if !bytes.Contains(res.Trace, []byte(`"stringValue":"`+tc.agent+`"`)) {
				t.Errorf("%s: the trace does not name the agent %s", in.Rel, tc.agent)
			}
			var got figures
			var reasoning int64
			for _, l := range bytes.Split(res.Receipt, []byte{'\n'}) {
				e := gjson.ParseBytes(l)
				if e.Get("name").Str != "gen_ai.token_usage.summarized" {
					continue
				}
				a := e.Get("attributes")
				got.Input += a.Get(`gen_ai\.usage\.input_tokens`).Int()
				got.Output += a.Get(`gen_ai\.usage\.output_tokens`).Int()
				got.CacheRead += a.Get(`gen_ai\.usage\.cache_read\.input_tokens`).Int()
				got.CacheWrite += a.Get(`gen_ai\.usage\.cache_creation\.input_tokens`).Int()
				reasoning += a.Get(`gen_ai\.usage\.reasoning\.output_tokens`).Int()
			}
			got.Total = got.Input + got.Output + got.CacheRead + got.CacheWrite + reasoning
			id := strings.TrimSuffix(filepath.Base(in.Rel), ".jsonl")
			if w, ok := want[id]; !ok || got != w {
				t.Errorf("%s %s: ours %+v, ccusage %+v", tc.file, id, got, w)
			}
		}
	}
}

// TestLocations: ~/.local/share/kilo/kilo.db, or kilo.db under
// KILO_DATA_DIR.
func TestLocations(t *testing.T) {
	convtest.Locations(t, "kilo", "KILO_DATA_DIR", []string{"HOME/.local/share/kilo/kilo.db"}, []string{"ENV/kilo.db"})
}
