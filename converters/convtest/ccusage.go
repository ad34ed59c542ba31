package convtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
	"github.com/contextreceipts/convert/internal/usage"
)

// Figures are token counts in ccusage's terms (converters/testdata/ccusage.json).
type Figures struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
}

// Terms sums a receipt's token usage in the one token model that convert
// run and convert report count with (usage.Summary: input without cache
// reads and writes, for every agent), which is ccusage's.
func Terms(receipt []byte) Figures {
	var f Figures
	for _, e := range Events(receipt, "gen_ai.token_usage.summarized") {
		a := e.Get("attributes")
		_, u := usage.Summary(func(k string) gjson.Result { return a.Get(gjson.Escape(k)) })
		f.Input += u.Input
		f.Output += u.Output
		f.CacheRead += u.CacheRead
		f.CacheWrite += u.CacheWrite
	}
	return f
}

// Ccusage holds each session of samples/<converter>/ recorded in
// converters/testdata/ccusage.json (by tools/ccusage-figures.sh: ccusage
// does not run in CI) to the figures ccusage printed for the same files,
// in Terms. They must be equal, except where the record says why they
// differ; there ours must be the recorded figures, and still differ from
// ccusage's. Every sample of the converter must have its sessions
// recorded, each with ccusage's cost (which cmd/convert's
// TestCostAgainstCcusage checks).
func Ccusage(t *testing.T, converter string) {
	t.Helper()
	testshared.InRepo(t)
	raw, err := os.ReadFile(filepath.Join("converters", "testdata", "ccusage.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Sessions []struct {
			Sample, Input, Why string
			Ccusage            struct {
				Figures
				Cost *float64 // ccusage --offline
			}
			Ours *Figures
		}
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatalf("converters/testdata/ccusage.json: %v", err)
	}
	recorded := map[string]bool{}
	for _, s := range rec.Sessions {
		recorded[s.Sample] = true
		if strings.HasPrefix(s.Sample, "samples/"+converter+"/") && s.Ccusage.Cost == nil {
			t.Errorf("%s %s: no cost recorded", s.Sample, s.Input)
		}
	}
	samples, err := filepath.Glob(filepath.Join("samples", converter, "*"))
	if err != nil || len(samples) == 0 {
		t.Fatalf("samples of %s: %v", converter, err)
	}
	for _, p := range samples {
		if name := "samples/" + converter + "/" + filepath.Base(p); !recorded[name] && filepath.Ext(p) != ".md" {
			t.Errorf("%s: no ccusage figures recorded (make ccusage-figures)", name)
		}
	}
	converted := map[string]map[string][]byte{} // sample -> input name -> receipt
	equal, differ := 0, 0
	for _, s := range rec.Sessions {
		if !strings.HasPrefix(s.Sample, "samples/"+converter+"/") {
			continue
		}
		if converted[s.Sample] == nil {
			converted[s.Sample] = receiptsByName(t, s.Sample)
		}
		receipt, ok := converted[s.Sample][s.Input]
		if !ok {
			t.Errorf("%s: no input %s", s.Sample, s.Input)
			continue
		}
		got, want := Terms(receipt), s.Ccusage.Figures
		if s.Ours != nil {
			want = *s.Ours
			if s.Why == "" || *s.Ours == s.Ccusage.Figures {
				t.Errorf("%s %s: a difference with ccusage needs figures that differ and a why", s.Sample, s.Input)
			}
			differ++
		} else {
			equal++
		}
		if got != want {
			t.Errorf("%s %s: ours %+v, want %+v (ccusage %+v)", s.Sample, s.Input, got, want, s.Ccusage.Figures)
		}
	}
	if equal+differ == 0 {
		t.Fatalf("converters/testdata/ccusage.json records no session of samples/%s: run make ccusage-figures", converter)
	}
	t.Logf("%d sessions equal to ccusage, %d differ as recorded", equal, differ)
}

// receiptsByName converts a sample and names each receipt by its input's
// base name and its path in the sample (where base names repeat, as
// Copilot's session-state/<id>/events.jsonl), each with and without its
// extension (a JSONL input's name is recorded without it, a document's,
// OpenCode's ses_<id>.json, with it).
func receiptsByName(t *testing.T, sample string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, r := range Convert(t, sample, pipeline.Options{}) {
		for _, name := range []string{filepath.Base(r.Path), filepath.ToSlash(r.Rel)} {
			out[name] = r.Receipt
			out[strings.TrimSuffix(strings.TrimSuffix(name, ".jsonl"), ".json")] = r.Receipt
		}
	}
	return out
}
