package kilo_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/contextreceipts/convert/converters/all"
	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared/ocdb"
)

// TestKiloDatabase: each session of a kilo.db is an input of its own,
// converted by the kilo reader (the receipts name Kilo, not OpenCode),
// with the token totals ccusage 20.0.24 printed for the same database
// (testdata/ccusage.json); the same database named opencode.db is
// OpenCode's, and no canary reaches an output.
func TestKiloDatabase(t *testing.T) {
	recorded := convtest.RecordedBeside(t)
	want := map[string]convtest.Totals{}
	for _, s := range recorded {
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
			got := convtest.ReceiptTotals(res.Receipt)
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
