package antigravity_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	_ "modernc.org/sqlite"
)

// TestGolden holds every sample of samples/antigravity to its goldens:
// receipts, traces and messages, with no canary in any (make golden
// rewrites them).
func TestGolden(t *testing.T) { convtest.Golden(t, "antigravity") }

// TestConversations: each conversation database under conversations/ is
// an input of its own, converted by the antigravity reader, with the
// token totals ccusage 20.0.24 printed for the same databases
// (testdata/ccusage.json); no canary reaches an output.
func TestConversations(t *testing.T) {
	recorded := convtest.RecordedBeside(t)
	ins, err := pipeline.Expand([]string{layout(t, t.TempDir())})
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != len(recorded) {
		t.Fatalf("%d inputs, want %d", len(ins), len(recorded))
	}
	for i, in := range ins {
		res := pipeline.Convert(in, pipeline.Options{})
		if res.Err != nil || res.Converter != "antigravity" {
			t.Fatalf("%s: converted by %q (error %v)", in.Rel, res.Converter, res.Err)
		}
		convtest.NoCanary(t, res)
		// Databases come by name, as the record lists them.
		if s := recorded[i]; !strings.HasPrefix(in.Rel, s.Session+".db/") {
			t.Errorf("input %s, want conversation %s", in.Rel, s.Session)
		} else if got := convtest.ReceiptTotals(res.Receipt); got != s.Ccusage {
			t.Errorf("%s: ours %+v, ccusage's %+v", in.Rel, got, s.Ccusage)
		}
	}
}

// TestSamples: the samples are what the store writes of the test
// databases (-update rewrites them), so the goldens are the conversions
// of those databases.
func TestSamples(t *testing.T) {
	conv := layout(t, t.TempDir())
	for _, tc := range []struct{ db, sample string }{
		{conversations[0].file, "basic.jsonl"},
		{conversations[1].file, "generations_only.jsonl"},
	} {
		got := storeLines(t, filepath.Join(conv, tc.db))
		path := filepath.Join("..", "..", "samples", "antigravity", tc.sample)
		if convtest.Updating() {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if want, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
			t.Errorf("samples/antigravity/%s is not what the store writes of %s (-update rewrites it)", tc.sample, tc.db)
		}
	}
}

// storeLines is what the store writes of the database at p.
func storeLines(t *testing.T, p string) []byte {
	t.Helper()
	c, ok := converters.Lookup("antigravity")
	if !ok || c.Native == nil || c.Native.Store == nil {
		t.Fatal("antigravity is not registered with its store")
	}
	db, err := sql.Open("sqlite", "file:"+p+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := c.Native.Store
	ctx := context.Background()
	if !st.Claim(ctx, db) {
		t.Fatalf("%s: not claimed", p)
	}
	sessions, err := st.Sessions(ctx, db)
	if err != nil || len(sessions) != 1 || sessions[0].ID != strings.TrimSuffix(filepath.Base(p), ".db") {
		t.Fatalf("%s: sessions %+v (%v), want one, named by the file", p, sessions, err)
	}
	var b bytes.Buffer
	if err := st.Lines(ctx, db, sessions[0].ID, func(line []byte) error {
		b.Write(line)
		b.WriteByte('\n')
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestBrokenBlob: a blob that is not protobuf fails the conversation,
// naming the row, as it fails ccusage's report; nothing of it is quoted.
func TestBrokenBlob(t *testing.T) {
	conv := layout(t, t.TempDir())
	p := filepath.Join(conv, conversations[0].file)
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(context.Background(), "UPDATE steps SET metadata = X'FFFF' WHERE idx = 1"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ins, err := pipeline.Expand([]string{p})
	if err != nil || len(ins) != 1 {
		t.Fatalf("%d inputs (%v)", len(ins), err)
	}
	res := pipeline.Convert(ins[0], pipeline.Options{})
	if res.Err == nil || !strings.Contains(res.Err.Error(), "steps row 1: metadata") {
		t.Errorf("error %v, want the steps row named", res.Err)
	}
}

// TestForeignDB: a walked folder's database of other tables, one with
// a gen_metadata table alone, are not Antigravity's: skipped.
func TestForeignDB(t *testing.T) {
	dir := t.TempDir()
	for name, schema := range map[string]string{
		"11111111-2222-4333-8444-555555555555.db": "CREATE TABLE steps (idx INTEGER, metadata BLOB)",
		"other.db": "CREATE TABLE gen_metadata (idx INTEGER, data BLOB)",
	} {
		db, err := sql.Open("sqlite", filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(context.Background(), schema); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	ins, err := pipeline.Expand([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 0 {
		t.Errorf("%d inputs, want none: the databases are not Antigravity's", len(ins))
	}
}

// TestLocations: ccusage's five roots' conversations folders;
// ANTIGRAVITY_DATA_DIR moves the first.
func TestLocations(t *testing.T) {
	others := []string{"HOME/.gemini/antigravity-cli/conversations", "HOME/.gemini/antigravity-ide/conversations",
		"HOME/.gemini/antigravity-backup/conversations", "HOME/.config/antigravity/conversations"}
	convtest.Locations(t, "antigravity", "ANTIGRAVITY_DATA_DIR",
		append([]string{"HOME/.gemini/antigravity/conversations"}, others...),
		append([]string{"ENV/conversations"}, others...))
}
