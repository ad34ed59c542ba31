package piagent_test

import (
	"os"
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

// TestOpenClawDatabasePreferred: a session both the database and a
// transcript file hold (OpenClaw's doctor imports the files) is read once,
// from the database, as ccusage counts its entries once.
func TestOpenClawDatabasePreferred(t *testing.T) {
	state := t.TempDir()
	convtest.SQLiteFrom(t, "openclaw-agent.sql", filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite"))
	sessions := filepath.Join(state, "agents", "main", "sessions")
	if err := os.MkdirAll(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	line := `{"type":"session","version":3,"id":"7b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e","timestamp":"2026-11-21T10:00:00.000Z","cwd":"CANARY"}` + "\n"
	if err := os.WriteFile(filepath.Join(sessions, "7b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	ins, err := pipeline.Expand([]string{state})
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 2 {
		for _, in := range ins {
			t.Log(in.Path)
		}
		t.Fatalf("%d inputs, want the database's 2 sessions alone", len(ins))
	}
	for _, in := range ins {
		if filepath.Ext(in.Path) == ".jsonl" {
			t.Errorf("%s: the transcript file read beside the database's copy", in.Rel)
		}
	}
}
