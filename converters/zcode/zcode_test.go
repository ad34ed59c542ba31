package zcode_test

import (
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
