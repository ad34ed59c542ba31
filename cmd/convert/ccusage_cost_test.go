package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestCostAgainstCcusage converts every sample recorded in
// converters/testdata/ccusage.json (every sample of every reader ccusage
// reads) with `convert run --json`, reports it with `convert report
// --format json` (the bundled prices), and holds both to the record:
//
//   - run and report count the same tokens, and, where no response was
//     folded as a copy of another session's, they are the sum of the
//     sample's recorded sessions (ours where the record says why ours
//     differ, else ccusage's);
//   - the report's cost is ccusage's (--offline) within 1% where the
//     tokens are ccusage's, unless a session of the sample says why the
//     costs differ (cost_why); a sample whose tokens are not priced at all
//     is never priced at 0.
func TestCostAgainstCcusage(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "converters", "testdata", "ccusage.json"))
	if err != nil {
		t.Fatal(err)
	}
	type figures struct {
		Input      int64   `json:"input"`
		Output     int64   `json:"output"`
		CacheRead  int64   `json:"cache_read"`
		CacheWrite int64   `json:"cache_write"`
		Cost       float64 `json:"cost"`
	}
	var rec struct {
		Sessions []struct {
			Sample  string
			Ccusage figures
			Ours    *figures
			CostWhy string `json:"cost_why"`
		}
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	type sample struct {
		want            figures // recorded tokens, ours where they differ
		ccusageCost     float64
		tokensAsCcusage bool
		costWhy         []string
	}
	var order []string
	samples := map[string]*sample{}
	for _, s := range rec.Sessions {
		sm := samples[s.Sample]
		if sm == nil {
			sm = &sample{tokensAsCcusage: true}
			samples[s.Sample] = sm
			order = append(order, s.Sample)
		}
		f := s.Ccusage
		if s.Ours != nil {
			f = *s.Ours
			sm.tokensAsCcusage = false
		}
		sm.want.Input += f.Input
		sm.want.Output += f.Output
		sm.want.CacheRead += f.CacheRead
		sm.want.CacheWrite += f.CacheWrite
		sm.ccusageCost += s.Ccusage.Cost
		if s.CostWhy != "" {
			sm.costWhy = append(sm.costWhy, s.CostWhy)
		}
	}
	for _, name := range order {
		sm := samples[name]
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			code, so, se := runCLI(t, "", "run", filepath.Join("..", "..", filepath.FromSlash(name)), "--out", out, "--json", "-q")
			if code != 0 && code != 1 { // 1: a sample with bad lines
				t.Fatalf("run: exit %d\n%s", code, se)
			}
			if strings.Contains(strings.ToUpper(so+se), "CANARY") {
				t.Fatal("a canary reached the output")
			}
			run := gjson.Get(so, "tokens")
			code, rj, se := runCLI(t, "", "report", "--format", "json", "--by", "agent", out)
			if code != 0 {
				t.Fatalf("report: exit %d\n%s", code, se)
			}
			var got figures
			var cost float64
			priced := false
			for _, m := range gjson.Get(rj, "total.tokens").Array() {
				got.Input += m.Get("input").Int()
				got.Output += m.Get("output").Int()
				got.CacheRead += m.Get("cache_read").Int()
				got.CacheWrite += m.Get("cache_write").Int()
				if c := m.Get("cost_usd"); c.Exists() {
					cost += c.Float()
					priced = true
				}
			}
			if r := (figures{Input: run.Get("input").Int(), Output: run.Get("output").Int(), CacheRead: run.Get("cache_read").Int(), CacheWrite: run.Get("cache_write").Int()}); r != got {
				t.Errorf("run --json %+v, report %+v", r, got)
			}
			if run.Get("duplicate_responses").Int() == 0 && got != sm.want {
				t.Errorf("tokens %+v, recorded %+v", got, sm.want)
			}
			unpriced := gjson.Get(rj, "prices.unpriced_models.#").Int()
			tokens := got.Input + got.Output + got.CacheRead + got.CacheWrite
			if tokens > 0 && !priced && unpriced == 0 {
				t.Errorf("%d tokens, no cost and no unpriced model", tokens)
			}
			if !sm.tokensAsCcusage {
				t.Logf("cost %.6f, ccusage %.6f (tokens differ as recorded)", cost, sm.ccusageCost)
				return
			}
			close := math.Abs(cost-sm.ccusageCost) <= max(0.01*sm.ccusageCost, 0.00001) // 1%, or a thousandth of a cent
			switch {
			case len(sm.costWhy) == 0 && !close:
				t.Errorf("cost %.6f, ccusage %.6f (%d unpriced models)", cost, sm.ccusageCost, unpriced)
			case len(sm.costWhy) > 0 && close:
				t.Errorf("cost %.6f equals ccusage's %.6f now: the recorded cost_why is stale; delete it", cost, sm.ccusageCost)
			case len(sm.costWhy) > 0:
				t.Logf("cost %.6f, ccusage %.6f: %s", cost, sm.ccusageCost, strings.Join(sm.costWhy, "; "))
			}
		})
	}
}
