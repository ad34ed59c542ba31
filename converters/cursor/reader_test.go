package cursor_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/testshared"

	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/internal/pipeline"
)

// TestCursorToolCalls: started/completed pairs join on call ids that hold a
// newline, parallel calls completing out of order each close their own
// span, a rejected MCP call and a failed read carry an error status, and a
// subagent nests under its task call.
func TestCursorToolCalls(t *testing.T) {
	testshared.InRepo(t)
	res := convtest.Convert(t, "samples/cursor/basic.jsonl", pipeline.Options{})[0]
	spans := convtest.Spans(res.Trace)
	var names []string
	status := map[string]string{}
	for id, s := range spans {
		if strings.HasPrefix(s.Name, "execute_tool") {
			names = append(names, s.Name)
			status[s.Name+"/"+s.Attr("cursor.tool_call.status")] = convtest.Chain(spans, id)
		}
	}
	sort.Strings(names)
	// Tools that are not built in are named by their digest (names unrevealed).
	for i, n := range names {
		if strings.HasPrefix(n, "execute_tool sha256:") && len(n) == len("execute_tool sha256:")+64 {
			names[i] = "execute_tool <digest>"
		}
	}
	sort.Strings(names)
	want := "execute_tool <digest>,execute_tool <digest>,execute_tool editToolCall,execute_tool readToolCall,execute_tool shellToolCall,execute_tool taskToolCall"
	if got := strings.Join(names, ","); got != want {
		t.Errorf("tool spans: %s, want %s", got, want)
	}
	for _, k := range []string{"execute_tool shellToolCall/success", "execute_tool readToolCall/success", "execute_tool editToolCall/success", "execute_tool taskToolCall/success"} {
		if status[k] == "" {
			t.Errorf("no span %s (have %v)", k, status)
		}
	}
	mcp := 0
	for _, l := range bytes.Split(res.Receipt, []byte{'\n'}) {
		e := gjson.ParseBytes(l)
		if e.Get("name").Str == "mcp.tool_call.completed" {
			mcp++
			st := e.Get(`attributes.mcp\.tool_call\.status`).Str
			if st != "success" && st != "rejected" {
				t.Errorf("mcp status %q", st)
			}
		}
	}
	if mcp != 2 {
		t.Errorf("%d MCP completions, want 2 (one approved, one rejected)", mcp)
	}
	ids := convtest.WithEvent(spans, "subagent.spawned")
	if len(ids) != 1 || convtest.Chain(spans, ids[0]) != "invoke_agent < execute_tool taskToolCall < invoke_agent cursor-agent" {
		t.Errorf("subagent: %v", ids)
	}
	if n := bytes.Count(res.Trace, []byte(`"code":2`)); n != 1 {
		t.Errorf("%d error spans, want 1 (the rejected MCP call)", n)
	}
	if got := fmt.Sprint(usageByModel(res.Receipt)); got != "map[gpt-5.3-codex:in=18234 cached=12000 cache_write=640 out=1502 reasoning=0]" {
		t.Errorf("usage %s", got)
	}
	feb := convtest.Convert(t, "samples/cursor/v2026_02_stream_no_usage.jsonl", pipeline.Options{})[0]
	if n := bytes.Count(feb.Trace, []byte(`"code":2`)); n != 2 {
		t.Errorf("%d error spans, want 2 (exit code 1 under success, fileNotFound)", n)
	}
	if bytes.Count(feb.Trace, []byte(`"name":"chat Auto"`)) != 2 {
		t.Error("partial-output assistant lines sharing a model_call_id must make one chat span")
	}
}

// TestCursorAuditGaps: what a format does not record is said with an
// explicit gap, never filled with invented values.
func TestCursorAuditGaps(t *testing.T) {
	testshared.InRepo(t)
	tests := []struct {
		sample string
		want   []string
	}{
		{"samples/cursor/basic.jsonl", []string{"instruction_loads_not_logged"}},
		{"samples/cursor/v2026_02_stream_no_usage.jsonl", []string{"instruction_loads_not_logged", "timestamps_not_logged", "token_usage_not_logged"}},
		{"samples/cursor/transcripts/projects/home-ivy-src-app/agent-transcripts/7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d/7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl",
			[]string{"instruction_loads_not_logged", "timestamps_not_logged", "token_usage_not_logged", "tool_results_not_logged"}},
		{"samples/cursor/transcripts/projects/home-ivy-src-app/agent-transcripts/9c3d4e5f-6a7b-4c8d-8e9f-1a2b3c4d5e6f/9c3d4e5f-6a7b-4c8d-8e9f-1a2b3c4d5e6f.jsonl",
			[]string{"instruction_loads_not_logged", "token_usage_not_logged"}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.sample), func(t *testing.T) {
			res := convtest.Convert(t, tt.sample, pipeline.Options{})[0]
			var got []string
			for _, l := range bytes.Split(res.Receipt, []byte{'\n'}) {
				e := gjson.ParseBytes(l)
				if e.Get("name").Str == "context.audit_gap.recorded" {
					got = append(got, e.Get(`attributes.context\.audit_gap`).Str)
				}
				if e.Get("name").Str == "gen_ai.token_usage.summarized" && tt.want[len(tt.want)-1] != "instruction_loads_not_logged" {
					t.Error("token usage written for a log that has none")
				}
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("gaps %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCursorHugeLines: a 4 MiB read result converts hashed; over a 1 MiB
// cap it is skipped and counted; nothing raw reaches an output.
func TestCursorHugeLines(t *testing.T) {
	big := strings.Repeat("CANARY file content line\n", (4<<20)/25)
	id := "call_CANARYbig\nfc_1"
	lines := []string{
		`{"type":"system","subtype":"init","session_id":"3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b","model":"gpt-5","cwd":"/CANARY"}`,
		fmt.Sprintf(`{"type":"tool_call","subtype":"started","call_id":%q,"tool_call":{"readToolCall":{"args":{"path":"/CANARY/big.log"}}},"session_id":"3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b"}`, id),
		fmt.Sprintf(`{"type":"tool_call","subtype":"completed","call_id":%q,"tool_call":{"readToolCall":{"args":{"path":"/CANARY/big.log"},"result":{"success":{"content":%q}}}},"session_id":"3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b"}`, id, big),
		`{"type":"result","subtype":"success","is_error":false,"result":"CANARY","session_id":"3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b"}`,
	}
	p := filepath.Join(t.TempDir(), "capture.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		max     int
		skipped int64
	}{{0, 0}, {1 << 20, 1}} {
		res := pipeline.Convert(pipeline.Input{Path: p, Rel: "capture.jsonl"}, pipeline.Options{MaxLine: tc.max})
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		if res.Stats.Skipped != tc.skipped || res.Converter != "cursor" {
			t.Errorf("cap %d: skipped %d (want %d), converter %s", tc.max, res.Stats.Skipped, tc.skipped, res.Converter)
		}
		for _, out := range [][]byte{res.Receipt, res.Trace, []byte(strings.Join(res.Diags, "\n"))} {
			if bytes.Contains(out, []byte("CANARY")) {
				t.Fatal("raw content reached an output")
			}
		}
	}
}

// TestCursorRevealNames: MCP names in clear only with --reveal names.
func TestCursorRevealNames(t *testing.T) {
	testshared.InRepo(t)
	plain := convtest.Convert(t, "samples/cursor/basic.jsonl", pipeline.Options{})[0]
	shown := convtest.Convert(t, "samples/cursor/basic.jsonl", pipeline.Options{Reveal: true})[0]
	if bytes.Contains(plain.Receipt, []byte("tax")) {
		t.Error("an MCP name is in clear without --reveal names")
	}
	for _, name := range []string{`"mcp.server.name":"CANARY-tax"`, `"mcp.tool.name":"CANARY_get_rates"`} {
		if !bytes.Contains(shown.Receipt, []byte(name)) {
			t.Errorf("with --reveal names the receipt lacks %s", name)
		}
	}
	for _, raw := range []string{"CANARY-EU", "CANARY rates", "CANARY check every"} {
		if bytes.Contains(shown.Receipt, []byte(raw)) || bytes.Contains(shown.Trace, []byte(raw)) {
			t.Errorf("--reveal names revealed content %s", raw)
		}
	}
}

// TestCursorSubagentTranscript: a transcript under subagents/, read as a
// companion of its session, nests under the session's task call.
func TestCursorSubagentTranscript(t *testing.T) {
	testshared.InRepo(t)
	dir := "samples/cursor/transcripts/projects/home-ivy-src-app/agent-transcripts/7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d/"
	in := pipeline.Input{Path: dir + "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl", Rel: "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl",
		Companions: []pipeline.Companion{{Path: dir + "subagents/8b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e.jsonl", Rel: "subagents/8b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e.jsonl"}}}
	res := pipeline.Convert(in, pipeline.Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	spans := convtest.Spans(res.Trace)
	found := false
	for id, s := range spans {
		if s.Name == "execute_tool Glob" {
			found = true
			if got := convtest.Chain(spans, id); got != "execute_tool Glob < invoke_agent < execute_tool Task < invoke_agent cursor-agent" {
				t.Errorf("subagent tool: %s", got)
			}
		}
	}
	if !found {
		t.Error("the subagent transcript's tool call is missing")
	}
	if n := len(convtest.WithEvent(spans, "subagent.spawned")); n != 1 {
		t.Errorf("%d subagent.spawned events, want 1 (the transcript joins the task call's subagent)", n)
	}
	if bytes.Contains(res.Receipt, []byte(convtest.Canary)) || bytes.Contains(res.Trace, []byte(convtest.Canary)) {
		t.Error("raw content reached an output")
	}
}

// usageByModel reads the token summaries of a receipt, by model.
func usageByModel(receipt []byte) map[string]string {
	got := map[string]string{}
	for _, e := range convtest.Events(receipt, "gen_ai.token_usage.summarized") {
		n := func(k string) int64 { return convtest.Attr(e, "gen_ai.usage."+k).Int() }
		got[convtest.Attr(e, "gen_ai.request.model").Str] = fmt.Sprintf("in=%d cached=%d cache_write=%d out=%d reasoning=%d",
			n("input_tokens"), n("cache_read.input_tokens"), n("cache_creation.input_tokens"), n("output_tokens"), n("reasoning.output_tokens"))
	}
	return got
}
