package report

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBundledPrices: the bundled table is dated, names its sources, and
// every entry prices all four kinds (a partial entry would be refused on
// the first report with tokens of the missing kind).
func TestBundledPrices(t *testing.T) {
	p, date, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^20[0-9]{2}-[0-9]{2}-[0-9]{2}$`).MatchString(date) {
		t.Errorf("table date %q", date)
	}
	if !strings.Contains(string(bundledPrices), `"sources"`) {
		t.Error("the table names no sources")
	}
	if len(p) < 20 {
		t.Fatalf("%d models", len(p))
	}
	for m, pr := range p {
		if pr.Unset != 0 || pr.Input <= 0 || pr.Output <= pr.Input || pr.CacheRead <= 0 || pr.CacheRead >= pr.Input || pr.CacheWrite < pr.Input {
			t.Errorf("%s: %+v: want all four kinds, output above input, cache reads below it, cache writes at least it", m, pr)
		}
	}
	// Each family the agents use has a price, dated snapshots included.
	for _, m := range []string{"claude-opus-4-7", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001", "claude-sonnet-4.5",
		"gpt-5.5", "gpt-5-codex", "gpt-5-2025-08-07", "gemini-2.5-pro", "gemini-3-pro-preview"} {
		if _, ok := p.lookup(m); !ok {
			t.Errorf("%s has no price", m)
		}
	}
	for m, pr := range p {
		if strings.HasPrefix(m, "claude-") != pr.Has1h || pr.Has1h && pr.CacheWrite1h != 2*pr.Input {
			t.Errorf("%s: 1-hour cache write %v (given: %v): Anthropic's models have one, at 2 x input; no other has", m, pr.CacheWrite1h, pr.Has1h)
		}
	}
	if _, ok := p.lookup("claude-opus-4-7-CANARY"); ok {
		t.Error("a price for a model the table does not name")
	}
}

func TestPrices(t *testing.T) {
	l, _ := load(t, LoadOptions{}, filepath.Join(samples, "claude_code", "basic"))
	r := l.Report(Options{Prices: Prices{"claude-opus-4-7": {Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}}})
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
			r := l.Report(Options{Prices: p})
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

// TestMergePrices: a --prices file's entry replaces the bundled one for
// its model only.
func TestMergePrices(t *testing.T) {
	b, _, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	m := b.Merge(Prices{"gpt-5.5": {Input: 1, Output: 2, CacheRead: 0.1, CacheWrite: 1}})
	if m["gpt-5.5"].Input != 1 || m["claude-opus-4-7"] != b["claude-opus-4-7"] || b["gpt-5.5"].Input == 1 {
		t.Errorf("merge: %+v %+v", m["gpt-5.5"], b["gpt-5.5"])
	}
}

// TestCostEqualsCcusage: with the bundled table, the cost of the bundled
// Claude Code sample is ccusage's to the millionth of a dollar (ccusage
// 20.0.24, session --json --offline: claude-opus-4-7 0.451795, whose
// 27,860 of 29,560 cache write tokens went to the 1-hour cache, priced at
// 2 x input; claude-haiku-4-5 0.0047).
func TestCostEqualsCcusage(t *testing.T) {
	l, _ := load(t, LoadOptions{}, filepath.Join(samples, "claude_code", "basic"))
	p, date, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	r := l.Report(Options{Prices: p, PriceDate: date})
	want := map[string]float64{"claude-opus-4-7": 0.451795, "claude-haiku-4-5": 0.0047}
	for _, m := range r.Total.Tokens {
		if m.CostUSD == nil || *m.CostUSD < want[m.Model]-1e-6 || *m.CostUSD > want[m.Model]+1e-6 {
			t.Errorf("%s: cost %v, ccusage says %v", m.Model, m.CostUSD, want[m.Model])
		}
	}
	if r.Total.Tokens[1].CacheWrite1h != 27860 {
		t.Errorf("1-hour cache writes %d, want 27,860", r.Total.Tokens[1].CacheWrite1h)
	}
}

// TestOneHourWritesAddUp: split by day, week or month, each model's
// 1-hour cache writes add up to the total's, never above a period's cache
// writes, so the periods' costs add up to the total cost.
func TestOneHourWritesAddUp(t *testing.T) {
	l, _ := load(t, LoadOptions{}, filepath.Join(samples, "claude_code"))
	p, _, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
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
