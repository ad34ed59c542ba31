package amp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/contextreceipts/convert/converters/all"
	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
)

// convert converts every input of a sample folder, by the name of its
// thread file without .json.
func convert(t *testing.T, sample string, opt pipeline.Options) map[string]pipeline.Result {
	t.Helper()
	ins, err := pipeline.Expand([]string{sample})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]pipeline.Result{}
	for _, in := range ins {
		res := pipeline.Convert(in, opt)
		if res.Err != nil {
			t.Fatalf("%s: %v", in.Path, res.Err)
		}
		convtest.NoCanary(t, res)
		out[strings.TrimSuffix(filepath.Base(in.Path), ".json")] = res
	}
	return out
}

// TestTokenTotalsAgainstCcusage: each sample thread's token totals, in
// ccusage's terms, are the figures ccusage 20.0.24 printed for it
// (testdata/ccusage.json).
func TestTokenTotalsAgainstCcusage(t *testing.T) {
	recorded := convtest.RecordedBeside(t)
	testshared.InRepo(t)
	if len(recorded) < 4 {
		t.Fatal("sessions missing from testdata/ccusage.json")
	}
	for _, s := range recorded {
		res, ok := convert(t, s.Sample, pipeline.Options{})[s.Input]
		if !ok || res.Converter != "amp" {
			t.Errorf("%s: no input %s read by amp", s.Sample, s.Input)
			continue
		}
		if got := convtest.ReceiptTotals(res.Receipt); got != s.Ccusage {
			t.Errorf("%s %s: ours %+v, ccusage %+v", s.Sample, s.Input, got, s.Ccusage)
		}
	}
}

// TestMapping: the tools sample's calls, subagents, MCP call, skill,
// rejected call, guidance files and compaction are written as the shared
// events; the subagent's own response sits under the Task call.
func TestMapping(t *testing.T) {
	testshared.InRepo(t)
	res := convert(t, "samples/amp/tools_subagent", pipeline.Options{})["T-1b2c3d4e-5f60-4b7c-9d8e-0f1a2b3c4d5e"]
	for name, want := range map[string]int{
		"subagent.spawned": 2, "subagent.result.returned": 2, "mcp.tool_call.completed": 1,
		"context.skill.invoked": 1, "context.compaction.started": 1, "context.compaction.summary_loaded": 1,
		"gen_ai.token_usage.summarized": 3, "context.input.loaded": 2,
	} {
		if got := len(convtest.Events(res.Receipt, name)); got != want {
			t.Errorf("%s: %d events, want %d", name, got, want)
		}
	}
	mcp := convtest.Events(res.Receipt, "mcp.tool_call.completed")
	if len(mcp) == 1 && convtest.Attr(mcp[0], "mcp.tool_call.status").String() != "error" {
		t.Errorf("the failed MCP call is written %s", convtest.Attr(mcp[0], "mcp.tool_call.status"))
	}
	chats, tools, task, underTask := 0, 0, "", 0
	spans := convtest.Spans(res.Trace)
	for _, s := range spans {
		switch {
		case s.Name == "chat":
			chats++
		case strings.HasPrefix(s.Name, "execute_tool"):
			tools++
			if s.Name == "execute_tool Task" {
				task = s.ID
			}
		}
	}
	for _, s := range spans {
		if s.Name == "chat" && task != "" && s.Parent == task {
			underTask++
		}
	}
	if chats != 4 || tools != 6 || underTask != 1 {
		t.Errorf("%d chat spans and %d tool spans, %d chat spans under Task; want 4, 6 and 1", chats, tools, underTask)
	}
}

// notAmp are JSON documents in threads/ that are not Amp's: no thread id
// of Amp's form, or no messages nor ledger. None is claimed.
var notAmp = []struct{ name, doc string }{
	{"ccusage's test thread id", `{"id":"thread-a","messages":[{"role":"assistant","messageId":1,"content":"CANARY"}],"usageLedger":{"events":[]}}`},
	{"a T- id with nothing of a thread", `{"id":"T-CANARY","title":"CANARY-title"}`},
	{"a T- id whose messages are no messages", `{"id":"T-CANARY","messages":["CANARY-text"]}`},
	{"an OpenCode export", `{"info":{"id":"ses_4f1e2d3c5ffeA1b2C3d4E5f6G7","title":"CANARY"},"messages":[{"info":{"role":"user"},"parts":[{"type":"text","text":"CANARY"}]}]}`},
}

// TestNotAmp: a JSON document that is not an Amp thread is not claimed,
// even under threads/T-<uuid>.json: it matches no known kind.
func TestNotAmp(t *testing.T) {
	for _, tc := range notAmp {
		dir := filepath.Join(t.TempDir(), "threads")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "T-0f0e0d0c-0b0a-4909-8807-060504030201.json")
		if err := os.WriteFile(p, []byte(tc.doc), 0o644); err != nil {
			t.Fatal(err)
		}
		in := pipeline.Input{Path: p, Rel: filepath.Base(p)}
		res := pipeline.Convert(in, pipeline.Options{Converter: "auto"})
		if res.Err == nil || res.Receipt != nil {
			t.Errorf("%s: converted by %q", tc.name, res.Converter)
			continue
		}
		if msg := res.Err.Error(); strings.Contains(msg, "CANARY") {
			t.Errorf("%s: message %q", tc.name, msg)
		}
		if forced := pipeline.Convert(in, pipeline.Options{Converter: "amp"}); forced.Err == nil || forced.Receipt != nil {
			t.Errorf("%s: converted when amp is asked for", tc.name)
		}
	}
}

// TestLocations: a run given no path reads ~/.local/share/amp/threads, or
// the threads under AMP_DATA_DIR when it is set, as ccusage does.
func TestLocations(t *testing.T) {
	convtest.Locations(t, "amp", "AMP_DATA_DIR", []string{"HOME/.local/share/amp/threads"}, []string{"ENV/threads"})
}

// TestResultStatus: a tool_result names its call by toolUseID or by the
// API's tool_use_id; run.status done succeeds, error, cancelled and
// rejected-by-user fail, and so does is_error.
func TestResultStatus(t *testing.T) {
	for _, tc := range []struct {
		name, block string
		failed      bool
		open        bool // not finished when the thread was saved: no completion
	}{
		{"done", `{"type":"tool_result","toolUseID":"toolu_09X","run":{"status":"done","result":"CANARY"}}`, false, false},
		{"error", `{"type":"tool_result","toolUseID":"toolu_09X","run":{"status":"error","error":"CANARY"}}`, true, false},
		{"cancelled", `{"type":"tool_result","toolUseID":"toolu_09X","run":{"status":"cancelled"}}`, true, false},
		{"rejected", `{"type":"tool_result","toolUseID":"toolu_09X","run":{"status":"rejected-by-user"}}`, true, false},
		{"tool_use_id and is_error", `{"type":"tool_result","tool_use_id":"toolu_09X","is_error":true,"content":"CANARY"}`, true, false},
		{"tool_use_id", `{"type":"tool_result","tool_use_id":"toolu_09X","run":{"status":"done"}}`, false, false},
		{"in progress", `{"type":"tool_result","toolUseID":"toolu_09X","run":{"status":"in-progress"}}`, false, true},
		{"waiting for the user", `{"type":"tool_result","toolUseID":"toolu_09X","run":{"status":"blocked-on-user"}}`, false, true},
	} {
		doc := `{"id":"T-5f607182-93a4-4bc5-8d6e-7f8091a2b3c4","created":1795168800000,"messages":[` +
			`{"role":"assistant","messageId":1,"content":[{"type":"tool_use","id":"toolu_09X","name":"mcp__CANARYsrv__CANARYtool","input":{"q":"CANARY"}}]},` +
			`{"role":"user","messageId":2,"content":[` + tc.block + `],"meta":{"sentAt":1795168802000}}]}`
		res := convtest.ConvertLines(t, "amp", "T-5f607182-93a4-4bc5-8d6e-7f8091a2b3c4.json", doc)
		if res.Err != nil {
			t.Fatalf("%s: %v", tc.name, res.Err)
		}
		convtest.NoCanary(t, res)
		mcp := convtest.Events(res.Receipt, "mcp.tool_call.completed")
		if tc.open {
			if len(mcp) != 0 || !strings.Contains(string(res.Trace), "amp.tool_calls.without_result") {
				t.Errorf("%s: %d MCP calls completed, want the call left open (tool_calls.without_result)", tc.name, len(mcp))
			}
			continue
		}
		if len(mcp) != 1 {
			t.Errorf("%s: %d MCP calls completed, want 1", tc.name, len(mcp))
			continue
		}
		want := map[bool]string{false: "success", true: "error"}[tc.failed]
		if got := convtest.Attr(mcp[0], "mcp.tool_call.status").String(); got != want {
			t.Errorf("%s: status %s, want %s", tc.name, got, want)
		}
	}
}
