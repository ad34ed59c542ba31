package convtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
)

// Figures are token counts in ccusage's terms (converters/testdata/ccusage.json).
type Figures struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
}

// CachedIn says that a format's input tokens count its cached tokens in
// (Codex, Gemini CLI, Copilot CLI), which ccusage leaves out.
const CachedIn = true

// Terms sums a receipt's token usage as ccusage counts it: with cachedIn,
// the input less its cache reads and writes; Claude Code's, pi's and
// Droid's input leaves them out already.
func Terms(receipt []byte, cachedIn bool) Figures {
	var f Figures
	for _, e := range Events(receipt, "gen_ai.token_usage.summarized") {
		f.Input += Attr(e, "gen_ai.usage.input_tokens").Int()
		f.Output += Attr(e, "gen_ai.usage.output_tokens").Int()
		f.CacheRead += Attr(e, "gen_ai.usage.cache_read.input_tokens").Int()
		f.CacheWrite += Attr(e, "gen_ai.usage.cache_creation.input_tokens").Int()
	}
	if cachedIn {
		f.Input -= f.CacheRead + f.CacheWrite
	}
	return f
}

// Ccusage holds each session of samples/<converter>/ recorded in
// converters/testdata/ccusage.json (by tools/ccusage-figures.sh: ccusage
// does not run in CI) to the figures ccusage printed for the same files,
// in Terms(receipt, cachedIn). They must be equal, except where the record
// says why they differ; there ours must be the recorded figures, and still
// differ from ccusage's. A converter with no recorded session fails.
func Ccusage(t *testing.T, converter string, cachedIn bool) {
	t.Helper()
	testshared.InRepo(t)
	raw, err := os.ReadFile(filepath.Join("converters", "testdata", "ccusage.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Sessions []struct {
			Sample, Input, Why string
			Ccusage            Figures
			Ours               *Figures
		}
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatalf("converters/testdata/ccusage.json: %v", err)
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
		got, want := Terms(receipt, cachedIn), s.Ccusage
		if s.Ours != nil {
			want = *s.Ours
			if s.Why == "" || *s.Ours == s.Ccusage {
				t.Errorf("%s %s: a difference with ccusage needs figures that differ and a why", s.Sample, s.Input)
			}
			differ++
		} else {
			equal++
		}
		if got != want {
			t.Errorf("%s %s: ours %+v, want %+v (ccusage %+v)", s.Sample, s.Input, got, want, s.Ccusage)
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
