package convtest

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Totals are a session's token counts as ccusage 20.0.24 prints them for
// a reader that keeps its figures beside its tests
// (converters/<reader>/testdata/ccusage.json): the four counts, and
// ccusage's total, which adds reasoning.
type Totals struct {
	Figures
	Total int64 `json:"total"`
}

// ReceiptTotals sums a receipt's gen_ai.token_usage.summarized events as
// written (no token model applied) into Totals: total is the four counts
// and the reasoning tokens.
func ReceiptTotals(receipt []byte) Totals {
	var s Totals
	var reasoning int64
	for _, e := range Events(receipt, "gen_ai.token_usage.summarized") {
		s.Input += Attr(e, "gen_ai.usage.input_tokens").Int()
		s.Output += Attr(e, "gen_ai.usage.output_tokens").Int()
		s.CacheRead += Attr(e, "gen_ai.usage.cache_read.input_tokens").Int()
		s.CacheWrite += Attr(e, "gen_ai.usage.cache_creation.input_tokens").Int()
		reasoning += Attr(e, "gen_ai.usage.reasoning.output_tokens").Int()
	}
	s.Total = s.Input + s.Output + s.CacheRead + s.CacheWrite + reasoning
	return s
}

// Recorded is one session of a reader's testdata/ccusage.json: the sample
// and input it was read from (a log's), or the session id ccusage printed
// (a store's), and ccusage's figures.
type Recorded struct {
	Sample, Input, Session string
	Ccusage                Totals
}

// RecordedBeside reads the sessions of testdata/ccusage.json in the test's
// own folder (call it before InRepo moves to the repository's root); a
// file that records none fails t.
func RecordedBeside(t *testing.T) []Recorded {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "ccusage.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct{ Sessions []Recorded }
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatalf("testdata/ccusage.json: %v", err)
	}
	if len(rec.Sessions) == 0 {
		t.Fatal("testdata/ccusage.json records no session")
	}
	return rec.Sessions
}

// SQLiteFrom writes at path the database the SQL script in testdata makes
// (a store reader's test input: no binary file is committed).
func SQLiteFrom(t *testing.T, script, path string) {
	t.Helper()
	SQLiteFromFile(t, filepath.Join("testdata", script), path)
}

// SQLiteFromFile is SQLiteFrom of a script anywhere (another reader's
// testdata, from a test outside its folder).
func SQLiteFromFile(t *testing.T, script, path string) {
	t.Helper()
	src, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(string(src)); err != nil {
		t.Fatalf("%s: %v", filepath.ToSlash(script), err)
	}
}
