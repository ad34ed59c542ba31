package report

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared"
)

// TestCatalogPrices: the report prices from the model catalog (the
// genai-prices data, named with its version): every family the agents
// use, dated snapshots and provider prefixes included, at the data's
// price; a cache kind the data leaves out at its parent's; a name the
// catalog does not know has no price.
func TestCatalogPrices(t *testing.T) {
	p, source := Bundled()
	if !p.Catalog || len(p.Table) != 0 || !strings.HasPrefix(source, "@pydantic/genai-prices@") {
		t.Fatalf("Bundled() = %+v, %q", p, source)
	}
	for _, c := range []struct {
		model string
		want  Price
	}{
		{"claude-opus-4-7", Price{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25, CacheWrite1h: 10, Has1h: true}},
		{"claude-sonnet-4-5-20250929", Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75, CacheWrite1h: 6, Has1h: true}},
		{"anthropic/claude-haiku-4-5-20251001", Price{Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25, CacheWrite1h: 2, Has1h: true}},
		{"claude-opus-5", Price{Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25, CacheWrite1h: 10, Has1h: true}},
		// OpenAI and Google charge a cache write as input.
		{"gpt-5-codex", Price{Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25, CacheWrite1h: 1.25, Has1h: true}},
		{"gpt-5-2025-08-07", Price{Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25, CacheWrite1h: 1.25, Has1h: true}},
		{"gemini-2.5-pro", Price{Input: 1.25, Output: 10, CacheRead: 0.125, CacheWrite: 1.25, CacheWrite1h: 1.25, Has1h: true}},
	} {
		got, ok := p.lookup(c.model)
		got.Long = LongPrice{} // TestLongContext
		if !ok || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.model, got, ok, c.want)
		}
	}
	for _, m := range []string{"CANARY-model", "<synthetic>", ""} {
		if pr, ok := p.lookup(m); ok {
			t.Errorf("%q priced %+v: the catalog does not know it", m, pr)
		}
	}
}

// TestUnpricedShare: a model the catalog does not know is never priced
// at 0; the report lists it and says how much of the total it holds.
func TestUnpricedShare(t *testing.T) {
	l, _ := load(t, LoadOptions{}, filepath.Join(samples, "claude_code", "basic"))
	p, source := Bundled()
	// The table renames no model; without the catalog the haiku model
	// has no price, as a model the data does not know would.
	r := l.Report(Options{Prices: &Prices{Table: map[string]Price{"claude-opus-4-7": {Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}}}})
	if r.Prices.UnpricedTokens == 0 || len(r.Prices.Unpriced) != 1 {
		t.Fatalf("unpriced: %+v", r.Prices)
	}
	var total int64
	for _, m := range r.Total.Tokens {
		total += m.Total
		if m.Model == "claude-haiku-4-5" && (m.CostUSD != nil || m.Total != r.Prices.UnpricedTokens) {
			t.Errorf("haiku: cost %v, %d tokens; unpriced tokens %d", m.CostUSD, m.Total, r.Prices.UnpricedTokens)
		}
	}
	md := render(t, r, "markdown")
	want := "no price for 1 model, " + share(r.Prices.UnpricedTokens, total) + " of the tokens (" + num(r.Prices.UnpricedTokens) + " of " + num(total) + "): claude-haiku-4-5;"
	if !strings.Contains(md, want) || !strings.Contains(md, "≥") {
		t.Errorf("the markdown does not say %q (or shows no lower bound)", want)
	}
	r = l.Report(Options{Prices: p, Catalog: source})
	if len(r.Prices.Unpriced) != 0 || r.Prices.UnpricedTokens != 0 || strings.Contains(render(t, r, "markdown"), "no price for") {
		t.Errorf("with the catalog: unpriced %+v", r.Prices)
	}
	for _, c := range []struct {
		part, total int64
		want        string
	}{{0, 10, "0%"}, {1, 3, "33.3%"}, {1, 100000, "under 0.1%"}, {99999, 100000, "over 99.9%"}, {5, 5, "100%"}, {1, 0, "0%"}} {
		if got := share(c.part, c.total); got != c.want {
			t.Errorf("share(%d, %d) = %q, want %q", c.part, c.total, got, c.want)
		}
	}
}

func TestPrices(t *testing.T) {
	l, _ := load(t, LoadOptions{}, filepath.Join(samples, "claude_code", "basic"))
	r := l.Report(Options{Prices: &Prices{Table: map[string]Price{"claude-opus-4-7": {Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}}}})
	for _, m := range r.Total.Tokens {
		switch m.Model {
		case "claude-opus-4-7":
			want := (49*5 + 3011*25 + 174100*0.5 + 29560*6.25) / 1e6
			if m.CostUSD == nil || *m.CostUSD < want-1e-6 || *m.CostUSD > want+1e-6 {
				t.Errorf("opus cost %v, want %v", m.CostUSD, want)
			}
		default:
			if m.CostUSD != nil {
				t.Errorf("%s has a cost without a price", m.Model)
			}
		}
	}
	if r.Prices == nil || len(r.Prices.Unpriced) != 1 || r.Prices.Unpriced[0] != "claude-haiku-4-5" {
		t.Errorf("unpriced models: %+v", r.Prices)
	}
	// The sessions' costs add up to the total; a session with an unpriced
	// model says its cost is a lower bound.
	var sum float64
	lower := 0
	for _, s := range r.Sessions {
		if s.CostUSD == nil {
			t.Fatalf("session %s has no cost", s.ID)
		}
		sum += *s.CostUSD
		if s.Unpriced {
			lower++
		}
	}
	if d := sum - r.Prices.CostUSD; d > 1e-5 || d < -1e-5 || lower != 1 {
		t.Errorf("sessions cost %v (%d lower bounds), total %v", sum, lower, r.Prices.CostUSD)
	}
	if l.Report(Options{}).Total.Tokens[0].CostUSD != nil || l.Report(Options{}).Sessions[0].CostUSD != nil {
		t.Error("a cost without a price table")
	}
}

// TestPartialPricesRefused: an entry without a price for a kind its model
// has tokens of is refused, naming the model and the kind; without tokens
// of that kind it prices the rest.
func TestPartialPricesRefused(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "prices.json")
	l, _ := load(t, LoadOptions{}, filepath.Join(samples, "claude_code", "basic"))
	for _, tc := range []struct {
		name, doc string
		errs      []string
	}{
		{"no cache write price", `{"claude-opus-4-7": {"input": 5, "output": 25, "cache_read": 0.5}}`,
			[]string{"claude-opus-4-7 has no cache_write price, and the report has 29,560 cache write tokens of it"}},
		{"no input price", `{"claude-haiku-4-5": {"output": 5, "cache_read": 0.1, "cache_write": 1.25}}`,
			[]string{"claude-haiku-4-5 has no input price, and the report has 2,700 input tokens of it"}},
		{"kinds without tokens may be left out", `{"claude-haiku-4-5": {"input": 1, "output": 5}}`, nil},
		{"bundled form", `{"date": "2026-12-04", "models": {"claude-haiku-4-5": {"input": 1, "output": 5, "source": "anthropic", "aliases": ["haiku"]}}}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(file, []byte(tc.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := LoadPrices(file)
			if err != nil {
				t.Fatal(err)
			}
			r := l.Report(Options{Prices: &Prices{Table: p}})
			if got := r.PriceErrors(); strings.Join(got, "\n") != strings.Join(tc.errs, "\n") && !prefixes(got, tc.errs) {
				t.Errorf("errors %q, want %q", got, tc.errs)
			}
			for _, m := range r.Total.Tokens {
				if len(tc.errs) > 0 && strings.HasPrefix(tc.errs[0], m.Model+" ") && m.CostUSD != nil {
					t.Errorf("%s priced (%v) with a kind missing", m.Model, *m.CostUSD)
				}
			}
		})
	}
	for name, doc := range map[string]string{
		"negative":    `{"m": {"input": -1}}`,
		"unknown key": `{"m": {"inputs": 1}}`,
		"not a table": `[1, 2]`,
	} {
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadPrices(file); err == nil || !strings.Contains(err.Error(), file+":1:") {
			t.Errorf("%s: %v, want a refusal naming the file", name, err)
		}
	}
}

func prefixes(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !strings.HasPrefix(got[i], want[i]) {
			return false
		}
	}
	return true
}

// TestMergePrices: a --prices file's entry replaces the catalog's price
// for its model only, and its dated snapshots.
func TestMergePrices(t *testing.T) {
	b, _ := Bundled()
	m := b.Merge(map[string]Price{"gpt-5.5": {Input: 1, Output: 2, CacheRead: 0.1, CacheWrite: 1}})
	got, _ := m.lookup("gpt-5.5-2026-04-23")
	opus, _ := m.lookup("claude-opus-4-7")
	want, _ := b.lookup("claude-opus-4-7")
	if got.Input != 1 || opus != want || !m.Catalog || len(b.Table) != 0 {
		t.Errorf("merge: gpt-5.5 %+v, opus %+v (catalog %+v)", got, opus, want)
	}
}

// TestCostEqualsCcusage: with the catalog's prices, each model's cost in
// the bundled samples is ccusage's to the millionth of a dollar, where
// convert counts its tokens as ccusage does (ccusage 20.0.24, session
// --json --offline, per model, as tools/ccusage-figures.sh lays each
// sample out; samples whose token counts differ are left to the token
// tests). Claude Code's 1-hour cache writes at 2 x input (basic:
// 27,860 of opus's 29,560); Gemini's thoughts billed as output.
func TestCostEqualsCcusage(t *testing.T) {
	p, source := Bundled()
	for _, c := range []struct {
		sample string
		cost   map[string]float64
	}{
		{"claude_code/basic", map[string]float64{"claude-opus-4-7": 0.451795, "claude-haiku-4-5": 0.0047}},
		{"claude_code/v1_inline", map[string]float64{"claude-sonnet-4-20250514": 0.02214}},
		{"claude_code/v20_siblings", map[string]float64{"claude-haiku-4-5-20251001": 0.00115, "claude-sonnet-4-5-20250929": 0.02145}},
		{"claude_code/v21_227_advisor", map[string]float64{"claude-opus-4-6": 0.042, "claude-sonnet-4-6": 0.011856}},
		{"claude_code/v21_230_workflow", map[string]float64{"claude-haiku-4-5": 0.00204, "claude-sonnet-4-6": 0.036588 + 0.027495}},
		{"codex/v0150_codex_app", map[string]float64{"gpt-5.4": 0.01755}},
		{"codex/v058_envelope", map[string]float64{"gpt-5-codex": 0.018493}},
		{"codex/v077_agents_messages", map[string]float64{"gpt-5": 0.01275}},
		{"gemini_cli/basic", map[string]float64{"gemini-3-pro-preview": 0.04373, "gemini-2.5-flash": 0.0027975 + 0.00238408}},
		{"gemini_cli/legacy_pretty", map[string]float64{"gemini-2.5-pro": 0.0184, "gemini-2.5-flash": 0.00150806}},
		{"copilot_cli/basic", map[string]float64{"gpt-5-mini": 0.001355}},
		{"droid/compaction_skill", map[string]float64{"claude-sonnet-4-5-20250929": 0.08925}},
	} {
		l, _ := load(t, LoadOptions{}, filepath.Join(samples, filepath.FromSlash(c.sample)))
		r := l.Report(Options{Prices: p, Catalog: source})
		seen := 0
		for _, m := range r.Total.Tokens {
			want, ok := c.cost[m.Model]
			if !ok {
				continue
			}
			seen++
			if m.CostUSD == nil || *m.CostUSD < want-2e-6 || *m.CostUSD > want+2e-6 {
				t.Errorf("%s, %s: cost %v, ccusage says %v", c.sample, m.Model, m.CostUSD, want)
			}
		}
		if seen != len(c.cost) {
			t.Errorf("%s: %d of the %d models ccusage prices", c.sample, seen, len(c.cost))
		}
		if c.sample == "claude_code/basic" && r.Total.Tokens[1].CacheWrite1h != 27860 {
			t.Errorf("1-hour cache writes %d, want 27,860", r.Total.Tokens[1].CacheWrite1h)
		}
	}
}

// TestOneHourWritesAddUp: split by day, week or month, each model's
// 1-hour cache writes add up to the total's, never above a period's cache
// writes, so the periods' costs add up to the total cost.
func TestOneHourWritesAddUp(t *testing.T) {
	l, _ := load(t, LoadOptions{}, filepath.Join(samples, "claude_code"))
	p, _ := Bundled()
	for _, by := range []string{"day", "week", "month"} {
		r := l.Report(Options{By: by, Prices: p})
		total, sum := map[string]int64{}, map[string]int64{}
		var cost float64
		for _, m := range r.Total.Tokens {
			total[m.Model] = m.CacheWrite1h
		}
		for _, g := range r.Groups {
			for _, m := range g.Tokens {
				sum[m.Model] += m.CacheWrite1h
				if m.CacheWrite1h > m.CacheWrite {
					t.Errorf("by %s, %s %s: %d 1-hour writes of %d", by, g.Key, m.Model, m.CacheWrite1h, m.CacheWrite)
				}
				if m.CostUSD != nil {
					cost += *m.CostUSD
				}
			}
		}
		for m, n := range total {
			if sum[m] != n {
				t.Errorf("by %s, %s: periods hold %d 1-hour writes, the total %d", by, m, sum[m], n)
			}
		}
		if total["claude-opus-4-7"] == 0 {
			t.Fatal("no 1-hour writes in the samples: the test shows nothing")
		}
		if d := cost - r.Prices.CostUSD; d > 1e-5 || d < -1e-5 {
			t.Errorf("by %s: periods cost %v, total %v", by, cost, r.Prices.CostUSD)
		}
	}
}

// TestCostOverSeedsEqualsCcusage: on the real transcripts of the shared
// corpus, each model's cost is ccusage's (20.0.24, daily --json
// --offline over the Claude Code seeds, codex daily over the Codex
// ones, recorded here: ccusage does not run in CI), well within 1%.
func TestCostOverSeedsEqualsCcusage(t *testing.T) {
	p, source := Bundled()
	for _, c := range []struct {
		dir  string
		cost map[string]float64
	}{
		{"claude-code", map[string]float64{
			"claude-haiku-4-5-20251001":  0.2049799,
			"claude-opus-4-5-20251101":   18.085779,
			"claude-opus-4-6":            58.6788255,
			"claude-sonnet-4-5-20250929": 12.78121995,
			"claude-sonnet-4-6":          1.9843446,
		}},
		{"codex", map[string]float64{"gpt-5.5": 58.612693}},
	} {
		dir := testshared.Dir(t, "corpus-seed", c.dir)
		l, _ := load(t, LoadOptions{}, dir)
		r := l.Report(Options{By: "model", Prices: p, Catalog: source})
		seen := 0
		for _, m := range r.Total.Tokens {
			want, ok := c.cost[m.Model]
			if !ok {
				continue
			}
			seen++
			if m.CostUSD == nil || *m.CostUSD < want-1e-5 || *m.CostUSD > want+1e-5 {
				t.Errorf("%s, %s: cost %v, ccusage says %v", c.dir, m.Model, deref(m.CostUSD), want)
			}
		}
		if seen != len(c.cost) || len(r.Prices.Unpriced) != 0 {
			t.Errorf("%s: %d of the %d models ccusage prices; unpriced %v", c.dir, seen, len(c.cost), r.Prices.Unpriced)
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestLongContext: a Claude Code request above the catalog's long-context
// threshold costs the long price, every token of it (claude-sonnet-4-5:
// above 200K input tokens, the cache included, 2 x input, 1.5 x output);
// a smaller request of the same session the base price; a model whose
// newest price has no tier (claude-opus-4-6) the base price at any size.
// Split by day, the periods keep the long part of their requests.
func TestLongContext(t *testing.T) {
	cwd := filepath.ToSlash(filepath.Join(t.TempDir(), "app")) // the session's working folder, as Claude Code names its project folder
	dir := filepath.Join(t.TempDir(), strings.NewReplacer("/", "-", ":", "-").Replace(cwd))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const sid = "5b9d0c1e-2f3a-4b5c-8d6e-7f8a9b0c1d2e"
	line := func(typ, uuid, parent, at, body string) string {
		return `{"parentUuid":` + parent + `,"isSidechain":false,"type":"` + typ + `","uuid":"` + uuid + `","timestamp":"` + at + `","sessionId":"` + sid + `","version":"2.0.76","cwd":` + strconv.Quote(cwd) + `,"userType":"external",` + body + "}\n"
	}
	reply := func(n, model string, in, read, write, out int) string {
		return `"requestId":"req_` + n + `","message":{"id":"msg_` + n + `","type":"message","role":"assistant","model":"` + model + `","content":[{"type":"text","text":"CANARY-reply"}],"stop_reason":"end_turn","usage":{"input_tokens":` +
			strconv.Itoa(in) + `,"cache_creation_input_tokens":` + strconv.Itoa(write) + `,"cache_read_input_tokens":` + strconv.Itoa(read) + `,"output_tokens":` + strconv.Itoa(out) + `}}`
	}
	prompt := `"message":{"role":"user","content":"CANARY-prompt go on"}`
	log := line("user", "u1", "null", "2026-07-01T10:00:00.000Z", prompt) +
		line("assistant", "a1", `"u1"`, "2026-07-01T10:00:05.000Z", reply("1", "claude-sonnet-4-5-20250929", 10, 250000, 1000, 100)) +
		line("user", "u2", `"a1"`, "2026-07-01T10:01:00.000Z", prompt) +
		line("assistant", "a2", `"u2"`, "2026-07-01T10:01:05.000Z", reply("2", "claude-sonnet-4-5-20250929", 10, 5000, 0, 50)) +
		line("user", "u3", `"a2"`, "2026-07-01T10:02:00.000Z", prompt) +
		line("assistant", "a3", `"u3"`, "2026-07-01T10:02:05.000Z", reply("3", "claude-opus-4-6", 10, 300000, 0, 10))
	if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	l, stderr := load(t, LoadOptions{}, filepath.Dir(dir))
	p, source := Bundled()
	want := map[string]float64{
		"claude-sonnet-4-5-20250929": (10*6 + 100*22.5 + 250000*0.6 + 1000*7.5 + 10*3 + 50*15 + 5000*0.3) / 1e6,
		"claude-opus-4-6":            (10*5 + 10*25 + 300000*0.5) / 1e6,
	}
	for _, by := range []string{"session", "day"} {
		r := l.Report(Options{By: by, Prices: p, Catalog: source})
		if len(r.Total.Tokens) != 2 {
			t.Fatalf("by %s: %d models; stderr %q", by, len(r.Total.Tokens), stderr)
		}
		for _, m := range r.Total.Tokens {
			if m.CostUSD == nil || *m.CostUSD < want[m.Model]-1e-9 || *m.CostUSD > want[m.Model]+1e-9 {
				t.Errorf("by %s, %s: cost %v, want %v", by, m.Model, deref(m.CostUSD), want[m.Model])
			}
		}
		for _, g := range r.Groups {
			for _, m := range g.Tokens {
				if m.CostUSD == nil || *m.CostUSD < want[m.Model]-1e-9 || *m.CostUSD > want[m.Model]+1e-9 {
					t.Errorf("by %s, group %s, %s: cost %v, want %v", by, g.Key, m.Model, deref(m.CostUSD), want[m.Model])
				}
			}
		}
	}
}
