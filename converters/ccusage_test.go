package converters_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/usage"
	"github.com/tidwall/gjson"
)

// figures are token counts in ccusage's terms (testdata/ccusage.json).
type figures struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
}

// TestTokenTotalsAgainstCcusage compares each native sample session's
// gen_ai.token_usage.summarized totals with the figures ccusage printed for
// the same files (recorded in testdata/ccusage.json by
// tools/ccusage-figures.sh: ccusage does not run in CI). They must be equal,
// except where the record says why they differ; there ours must be the
// recorded figures, and still differ from ccusage's.
func TestTokenTotalsAgainstCcusage(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "ccusage.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Sessions []struct {
			Sample, Input, Why string
			Ccusage            struct {
				figures
				Cost *float64 // ccusage --offline, checked by cmd/convert's TestCostAgainstCcusage
			}
			Ours *figures
		}
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	testshared.InRepo(t)
	// Every sample of every reader ccusage reads has its sessions recorded
	// (Cursor has no ccusage command).
	recorded := map[string]bool{}
	for _, s := range rec.Sessions {
		recorded[s.Sample] = true
		if s.Ccusage.Cost == nil {
			t.Errorf("%s %s: no cost recorded", s.Sample, s.Input)
		}
	}
	for _, reader := range []string{"claude_code", "codex", "gemini_cli", "copilot_cli", "pi_agent", "opencode", "droid"} {
		samples, err := filepath.Glob(filepath.Join("samples", reader, "*"))
		if err != nil || len(samples) == 0 {
			t.Fatalf("samples of %s: %v", reader, err)
		}
		for _, p := range samples {
			if name := "samples/" + reader + "/" + filepath.Base(p); !recorded[name] && filepath.Ext(p) != ".md" {
				t.Errorf("%s: no ccusage figures recorded (make ccusage-figures)", name)
			}
		}
	}
	converted := map[string]map[string][]byte{} // sample -> input base name -> receipt
	equal, differ := 0, 0
	for _, s := range rec.Sessions {
		if converted[s.Sample] == nil {
			converted[s.Sample] = map[string][]byte{}
			for _, r := range convertDir(t, s.Sample, pipeline.Options{}) {
				// An input is named by its base name, or by its path in
				// the sample where base names repeat (Copilot's
				// session-state/<id>/events.jsonl).
				// A JSONL input's name is recorded without its extension, a
				// document's (OpenCode's ses_<id>.json) with it.
				for _, name := range []string{filepath.Base(r.Path), filepath.ToSlash(r.Rel)} {
					converted[s.Sample][name] = r.Receipt
					converted[s.Sample][strings.TrimSuffix(strings.TrimSuffix(name, ".jsonl"), ".json")] = r.Receipt
				}
			}
		}
		receipt, ok := converted[s.Sample][s.Input]
		if !ok {
			t.Errorf("%s: no input %s", s.Sample, s.Input)
			continue
		}
		got := ccusageTerms(receipt)
		want := s.Ccusage.figures
		if s.Ours != nil {
			want = *s.Ours
			if s.Why == "" || *s.Ours == s.Ccusage.figures {
				t.Errorf("%s %s: a difference with ccusage needs figures that differ and a why", s.Sample, s.Input)
			}
			differ++
		} else {
			equal++
		}
		if got != want {
			t.Errorf("%s %s: ours %+v, want %+v (ccusage %+v)", s.Sample, s.Input, got, want, s.Ccusage.figures)
		}
	}
	t.Logf("%d sessions equal to ccusage, %d differ as recorded", equal, differ)
}

// ccusageTerms sums a receipt's token usage in the one token model that
// convert run and convert report count with (usage.Summary: input without
// cache reads and writes, for every agent), which is ccusage's.
func ccusageTerms(receipt []byte) figures {
	var f figures
	for _, l := range bytes.Split(receipt, []byte{'\n'}) {
		e := gjson.ParseBytes(l)
		if e.Get("name").Str != "gen_ai.token_usage.summarized" {
			continue
		}
		a := e.Get("attributes")
		_, u := usage.Summary(func(k string) gjson.Result { return a.Get(gjson.Escape(k)) })
		f.Input += u.Input
		f.Output += u.Output
		f.CacheRead += u.CacheRead
		f.CacheWrite += u.CacheWrite
	}
	return f
}
