package copilotcli_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/testshared"

	"github.com/contextreceipts/convert/internal/pipeline"
)

// cpEvent is one events.jsonl line: the envelope around data, n its
// sequence (it makes the id, the parent and the time), agent the agentId
// of newer builds ("" for none).
func cpEvent(n int, typ, agent, data string) string {
	id := func(i int) string {
		return "5e6f7a8b-0000-4000-8000-" + strings.Repeat("0", 12-len(strconv.Itoa(i))) + strconv.Itoa(i)
	}
	parent := "null"
	if n > 1 {
		parent = `"` + id(n-1) + `"`
	}
	s := `{"type":"` + typ + `","data":` + data + `,"id":"` + id(n) + `","timestamp":"2026-03-25T09:00:` + strconv.Itoa(10+n) + `.000Z","parentId":` + parent
	if agent != "" {
		s += `,"agentId":"` + agent + `"`
	}
	return s + "}"
}

const cpStart = `{"sessionId":"5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b","version":1,"producer":"copilot-agent","copilotVersion":"1.0.68","startTime":"2026-03-25T09:00:00.000Z","selectedModel":"claude-sonnet-4.5","context":{"cwd":"/Users/alice/CANARY"}}`

// cpSession numbers the events of a session after its session.start.
func cpSession(evs ...[3]string) []string {
	out := []string{cpEvent(1, "session.start", "", cpStart)}
	for i, e := range evs {
		out = append(out, cpEvent(i+2, e[0], e[1], e[2]))
	}
	return out
}

func ev(typ, data string) [3]string             { return [3]string{typ, "", data} }
func agentEv(agent, typ, data string) [3]string { return [3]string{typ, agent, data} }

const cpShutdown = `{"shutdownType":"routine","totalPremiumRequests":2,"totalApiDurationMs":9000,"sessionStartTime":1774429200000,` +
	`"codeChanges":{"linesAdded":1,"linesRemoved":0,"filesModified":["/Users/alice/CANARY.go"]},` +
	`"modelMetrics":{"claude-sonnet-4.5":{"requests":{"count":2,"cost":2},"usage":{"inputTokens":30000,"outputTokens":120,"cacheReadTokens":20000,"cacheWriteTokens":4000}}},"currentModel":"claude-sonnet-4.5"}`

// TestCopilotMapping maps every event kind the reader reads, in the older
// (parentToolCallId, no shutdown metrics) and newer (agentId, shutdown
// metrics) shapes.
func TestCopilotMapping(t *testing.T) {
	req := func(id, name string) string {
		return `{"messageId":"msg_1","content":"CANARY","toolRequests":[{"toolCallId":"` + id + `","name":"` + name + `","arguments":{"x":"CANARY"},"type":"function"}],"outputTokens":50}`
	}
	start := func(id, name, extra string) string {
		return `{"toolCallId":"` + id + `","toolName":"` + name + `","arguments":{"x":"CANARY"}` + extra + `}`
	}
	done := func(id string, ok bool) string {
		if ok {
			return `{"toolCallId":"` + id + `","success":true,"result":{"content":"CANARY-result"}}`
		}
		return `{"toolCallId":"` + id + `","success":false,"error":{"message":"CANARY-error","code":"failure"}}`
	}
	cases := []struct {
		name  string
		lines []string
		want  [][]string
		not   []string
	}{
		{"a turn with a tool call and the shutdown totals",
			cpSession(ev("user.message", `{"content":"CANARY-p","source":"user","attachments":[]}`), ev("assistant.turn_start", `{"turnId":"0"}`),
				ev("assistant.message", req("toolu_1", "view")), ev("tool.execution_start", start("toolu_1", "view", "")),
				ev("tool.execution_complete", done("toolu_1", true)), ev("assistant.turn_end", `{"turnId":"0"}`), ev("session.shutdown", cpShutdown)),
			[][]string{
				{"span execute_tool view < chat claude-sonnet-4.5 < invoke_agent copilot-cli", "copilot_cli.tool_call.status=success"},
				{"span chat claude-sonnet-4.5 < invoke_agent copilot-cli", "gen_ai.usage.output_tokens=50"},
				{"event gen_ai.token_usage.summarized", "model=claude-sonnet-4.5", "input_tokens=30000", "output_tokens=120", "cache_read.input_tokens=20000", "cache_creation.input_tokens=4000", "dedupe=shutdown_model_metrics"},
				{"event context.audit_gap.recorded", "detail=copilot_instructions_and_agents_md_load_without_a_record"},
			}, []string{"token_usage_not_logged"}},
		{"a resumed session: the last shutdown's totals (ccusage's rule), all of them added written apart, calls after the last one are a gap",
			cpSession(ev("assistant.turn_start", `{"turnId":"0"}`), ev("session.shutdown", cpShutdown), ev("session.resume", `{"eventCount":3}`),
				ev("assistant.turn_start", `{"turnId":"1"}`), ev("session.shutdown", cpShutdown), ev("session.resume", `{"eventCount":6}`),
				ev("assistant.turn_start", `{"turnId":"2"}`)),
			[][]string{
				{"event gen_ai.token_usage.summarized", "input_tokens=30000", "output_tokens=120"},
				{"span invoke_agent copilot-cli", "copilot_cli.usage.all_shutdowns.input_tokens=60000", "copilot_cli.usage.all_shutdowns.output_tokens=240", "copilot_cli.usage.all_shutdowns.count=2"},
				{"event context.audit_gap.recorded", "detail=copilot_calls_after_last_shutdown_not_counted"},
			}, nil},
		{"no shutdown record: tokens are an audit gap, and no zero totals",
			cpSession(ev("assistant.turn_start", `{"turnId":"0"}`), ev("assistant.message", `{"messageId":"m","content":"CANARY","outputTokens":9}`)),
			[][]string{{"event context.audit_gap.recorded", "context.audit_gap=token_usage_not_logged", "detail=copilot_session_has_no_shutdown_metrics"}},
			[]string{"event gen_ai.token_usage.summarized", "invoke_agent copilot-cli gen_ai.usage"}},
		{"persisted assistant.usage records give per-call tokens; without a shutdown they are written apart, not summarized (ccusage's rule)",
			cpSession(ev("assistant.turn_start", `{"turnId":"0"}`), ev("assistant.usage", `{"model":"gpt-5","inputTokens":700,"outputTokens":20,"cacheReadTokens":100,"cacheWriteTokens":0}`)),
			[][]string{{"span chat", "gen_ai.usage.input_tokens=700"},
				{"span invoke_agent copilot-cli", "copilot_cli.usage.call_records.input_tokens=700", "copilot_cli.usage.call_records.output_tokens=20"},
				{"event context.audit_gap.recorded", "detail=copilot_session_has_no_shutdown_metrics"}},
			[]string{"event gen_ai.token_usage.summarized"}},
		{"usage checkpoints: the last running total of credits and premium requests",
			cpSession(ev("session.usage_checkpoint", `{"totalPremiumRequests":1,"totalNanoAiu":1000000}`), ev("session.usage_checkpoint", `{"totalPremiumRequests":3,"totalNanoAiu":2500000}`),
				ev("session.shutdown", cpShutdown)),
			[][]string{{"span invoke_agent copilot-cli", "copilot_cli.billing.nano_aiu=2500000", "copilot_cli.billing.premium_count=3"},
				{"event gen_ai.token_usage.summarized", "input_tokens=30000"}}, nil},
		{"an MCP call that fails",
			cpSession(ev("assistant.message", req("toolu_2", "CANARYgh-list_issues")),
				ev("tool.execution_start", start("toolu_2", "CANARYgh-list_issues", `,"mcpServerName":"CANARYgh","mcpToolName":"list_issues"`)),
				ev("tool.execution_complete", done("toolu_2", false))),
			[][]string{
				{"event mcp.tool_call.completed", "mcp.tool_call.status=error"},
				{"span execute_tool sha256:", "[error]", "gen_ai.tool.type=extension", "copilot_cli.tool_call.status=error"},
			}, nil},
		{"a subagent of a newer build (agentId on its events)",
			cpSession(ev("assistant.turn_start", `{"turnId":"0"}`), ev("assistant.message", req("toolu_3", "task")), ev("tool.execution_start", start("toolu_3", "task", "")),
				ev("subagent.started", `{"toolCallId":"toolu_3","agentName":"explore","agentDisplayName":"CANARY","agentDescription":"CANARY","model":"gpt-5-mini"}`),
				agentEv("agent-1", "assistant.turn_start", `{"turnId":"0"}`), agentEv("agent-1", "assistant.message", req("toolu_4", "grep")),
				agentEv("agent-1", "tool.execution_start", start("toolu_4", "grep", "")), agentEv("agent-1", "tool.execution_complete", done("toolu_4", true)),
				ev("subagent.completed", `{"toolCallId":"toolu_3","agentName":"explore"}`), ev("tool.execution_complete", done("toolu_3", true))),
			[][]string{
				{"span invoke_agent < execute_tool task < chat claude-sonnet-4.5 < invoke_agent copilot-cli", "subagent.link=spawn_call_id"},
				{"span execute_tool grep < chat gpt-5-mini < invoke_agent < execute_tool task"},
				{"event subagent.result.returned", "subagent.result.status=success"},
				{"event subagent.spawned", "subagent.link=spawn_call_id"},
			}, nil},
		{"a subagent of an older build (parentToolCallId) that fails",
			cpSession(ev("assistant.message", req("call_1", "task")), ev("tool.execution_start", start("call_1", "task", "")),
				ev("subagent.started", `{"toolCallId":"call_1","agentName":"CANARY-custom"}`),
				ev("tool.execution_start", start("call_2", "bash", `,"parentToolCallId":"call_1"`)),
				ev("tool.execution_complete", done("call_2", true)),
				ev("subagent.failed", `{"toolCallId":"call_1","agentName":"CANARY-custom","error":"CANARY"}`), ev("tool.execution_complete", done("call_1", false))),
			[][]string{
				{"span execute_tool bash < invoke_agent < execute_tool task"},
				{"span invoke_agent < execute_tool task", "[error]"},
				{"event subagent.result.returned", "subagent.result.status=error"},
			}, nil},
		{"skills, compaction and a system message",
			cpSession(ev("system.message", `{"content":"CANARY-system","role":"system"}`),
				ev("skill.invoked", `{"name":"CANARY-skill","path":"/Users/alice/CANARY/SKILL.md","content":"CANARY-body"}`),
				ev("skill.invoked", `{"name":"CANARY-skill","path":"/Users/alice/CANARY/SKILL.md","content":"CANARY-body"}`),
				ev("session.compaction_start", `{}`),
				ev("session.compaction_complete", `{"success":true,"preCompactionTokens":120000,"postCompactionTokens":8000,"summaryContent":"CANARY-summary"}`)),
			[][]string{
				{"event context.input.loaded", "context.input.kind=system_prompt"},
				{"event context.skill.invoked", "duplicate.role=selected"},
				{"event context.skill.invoked", "duplicate.role=duplicate"},
				{"event context.compaction.started"},
				{"event context.compaction.summary_loaded", "after_bucket="},
			}, []string{"instruction_loads_not_logged"}},
		{"only a person's messages are prompts",
			cpSession(ev("user.message", `{"content":"CANARY","source":"user"}`), ev("user.message", `{"content":"CANARY"}`),
				ev("user.message", `{"content":"CANARY","source":"schedule"}`)),
			[][]string{{"span invoke_agent copilot-cli", "copilot_cli.user_prompts.count=2"}}, nil},
		{"unknown event types are counted by digest",
			cpSession(ev("session.future_event", `{"CANARY":"CANARY"}`), ev("abort", `{"reason":"CANARY"}`)),
			[][]string{{`summary types=["abort=1","session.start=1","sha256:`}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := convtest.ConvertLines(t, "", "events.jsonl", tc.lines...)
			convtest.ExpectOutline(t, res, "copilot_cli", tc.want, tc.not)
		})
	}
}

// TestCopilotModelNames: a model named only as a modelMetrics key (an
// object key, which no pass-through field declares) is written as its
// digest; one a declared field also names passes through.
func TestCopilotModelNames(t *testing.T) {
	metrics := strings.Replace(cpShutdown, `"modelMetrics":{`, `"modelMetrics":{"acme-internal-7b":{"requests":{"count":1},"usage":{"inputTokens":5,"outputTokens":1}},`, 1)
	res := convtest.ConvertLines(t, "copilot_cli", "events.jsonl", cpSession(ev("session.shutdown", metrics))...)
	got := convtest.Outline(t, res)
	if !convtest.Has(got, "event gen_ai.token_usage.summarized", "model=claude-sonnet-4.5") || !convtest.Has(got, "event gen_ai.token_usage.summarized", "model=sha256:") {
		t.Errorf("model names:\n%s", strings.Join(got, "\n"))
	}
	if strings.Contains(string(res.Receipt)+string(res.Trace), "acme-internal-7b") {
		t.Error("a model name known only as an object key reached the output")
	}
}

// TestCopilotSamplesLayout: a session-state folder converts as one input
// per session, named after its folder.
func TestCopilotSamplesLayout(t *testing.T) {
	testshared.InRepo(t)
	res := convtest.Convert(t, "samples/copilot_cli/basic", pipeline.Options{})
	if len(res) != 1 || res[0].Converter != "copilot_cli" {
		t.Fatalf("%d inputs", len(res))
	}
	if !strings.HasSuffix(res[0].Rel, "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b/events.jsonl") {
		t.Errorf("rel %s", res[0].Rel)
	}
}
