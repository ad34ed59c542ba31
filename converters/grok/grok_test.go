package grok_test

import (
	"path/filepath"
	"testing"

	_ "github.com/contextreceipts/convert/converters/all"
	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
)

// TestGolden holds every sample of samples/grok to its goldens: receipts,
// traces and messages, with no canary in any (make golden rewrites them).
func TestGolden(t *testing.T) { convtest.Golden(t, "grok") }

// TestTokenTotalsAgainstCcusage: each sample's token totals are the
// figures ccusage 20.0.24 printed for it (testdata/ccusage.json), and its
// MCP call, subagent and tool calls are read; no canary reaches an output.
func TestTokenTotalsAgainstCcusage(t *testing.T) {
	recorded := convtest.RecordedBeside(t)
	testshared.InRepo(t)
	for _, s := range recorded {
		ins, err := pipeline.Expand([]string{s.Sample})
		if err != nil {
			t.Fatal(err)
		}
		if len(ins) != 1 {
			t.Fatalf("%s: %d inputs, want 1", s.Sample, len(ins))
		}
		res := pipeline.Convert(ins[0], pipeline.Options{})
		if res.Err != nil || res.Converter != "grok" {
			t.Fatalf("%s: converted by %q (error %v)", s.Sample, res.Converter, res.Err)
		}
		convtest.NoCanary(t, res)
		if got := convtest.ReceiptTotals(res.Receipt); got != s.Ccusage {
			t.Errorf("%s: ours %+v, ccusage's %+v", s.Sample, got, s.Ccusage)
		}
		if filepath.Base(s.Sample) != "basic" {
			continue
		}
		for name, want := range map[string]int{"mcp.tool_call.completed": 1, "subagent.spawned": 1, "subagent.result.returned": 1} {
			if n := len(convtest.Events(res.Receipt, name)); n != want {
				t.Errorf("%s: %d %s, want %d", s.Sample, n, name, want)
			}
		}
	}
}

// TestLocations: ~/.grok/sessions, or the sessions under GROK_HOME.
func TestLocations(t *testing.T) {
	convtest.Locations(t, "grok", "GROK_HOME", []string{"HOME/.grok/sessions"}, []string{"ENV/sessions"})
}
