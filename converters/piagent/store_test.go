package piagent_test

import (
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"
	_ "modernc.org/sqlite"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
)

// TestOpenClawDatabase: each session of an OpenClaw agent's database
// (agents/<agent>/agent/openclaw-agent.sqlite) is an input of its own,
// converted by pi_agent as OpenClaw's, with the token totals ccusage
// 20.0.24 printed for the same database (testdata/ccusage.json: a response
// written twice counts once, a row that is not JSON is skipped, a response
// without a time is dated by its row); no canary reaches an output.
func TestOpenClawDatabase(t *testing.T) {
	recorded := convtest.RecordedBeside(t)
	db := filepath.Join(t.TempDir(), "agents", "main", "agent", "openclaw-agent.sqlite")
	convtest.SQLiteFrom(t, "openclaw-agent.sql", db)
	ins, err := pipeline.Expand([]string{db})
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != len(recorded) {
		t.Fatalf("%d inputs, want %d", len(ins), len(recorded))
	}
	tools := 0
	for i, in := range ins {
		res := pipeline.Convert(in, pipeline.Options{})
		if res.Err != nil || res.Converter != "pi_agent" {
			t.Fatalf("%s: converted by %q (error %v)", in.Rel, res.Converter, res.Err)
		}
		convtest.NoCanary(t, res)
		if agent := gjson.GetBytes(res.Trace, `resourceSpans.0.scopeSpans.0.spans.0.attributes.#(key=="gen_ai.agent.name").value.stringValue`).Str; agent != "openclaw" {
			t.Errorf("%s: agent %q, want openclaw", in.Rel, agent)
		}
		tools += len(convtest.Events(res.Receipt, "mcp.tool_call.completed"))
		got := convtest.ReceiptTotals(res.Receipt)
		if s := recorded[i]; got != s.Ccusage {
			t.Errorf("%s: ours %+v, ccusage's %s %+v", in.Rel, got, s.Session, s.Ccusage)
		}
	}
	if tools != 0 {
		t.Errorf("%d MCP calls, want 0 (exec is OpenClaw's own tool)", tools)
	}
}
