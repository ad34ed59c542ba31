package converters_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
)

// TestWrongReaderMatrix: every sample of every agent's reader, converted
// with every other agent's reader asked for by name, is refused: nothing
// written, a message naming the reader asked for and no raw value. A log
// read by the wrong reader is worse than a refusal.
func TestWrongReaderMatrix(t *testing.T) {
	testshared.InRepo(t)
	natives := converters.Natives()
	isNative := map[string]bool{}
	for _, c := range natives {
		isNative[c.Name] = true
	}
	refused := 0
	for _, c := range samples(t) {
		if !isNative[c.Converter] {
			continue
		}
		for _, in := range caseInputs(t, c) {
			for _, other := range natives {
				if other.Name == c.Converter {
					continue
				}
				res := pipeline.Convert(in, pipeline.Options{Converter: other.Name})
				if res.Err == nil || res.Receipt != nil || res.Trace != nil {
					t.Errorf("%s (a %s sample) was converted by %s", in.Path, c.Converter, other.Name)
					continue
				}
				msg := strings.ReplaceAll(res.Err.Error(), in.Path, "") // the path is the user's own
				if !strings.Contains(msg, "not a "+other.Name+" log") || strings.Contains(msg, canary) {
					t.Errorf("%s forced to %s: message %q", in.Path, other.Name, msg)
				}
				refused++
			}
		}
	}
	if refused < 4*len(natives) {
		t.Fatalf("only %d refusals: the matrix lost its samples", refused)
	}
	t.Logf("%d conversions by another agent's reader, each refused", refused)
}

// unknownAgentLogs are logs of other agents in their real shapes (pi
// coding agent session v3, OpenClaw's agents/<agent>/sessions, Factory
// Droid's sessions store and its exec stream-json), every raw value
// carrying the canary. Each shares
// record type names with other readers ("message", "compaction",
// "session"): it goes to its own reader (want), or, for an agent no reader
// reads (want ""), matches no known kind.
var unknownAgentLogs = []struct{ name, want, rel, log string }{
	{"pi-agent session v3", "pi_agent", "pi/2026-11-20T10-00-00-000Z_0001.jsonl", `{"type":"session","version":3,"id":"CANARY-pi-0001","timestamp":"2026-11-20T10:00:00.000Z","cwd":"/CANARY/proj"}
{"type":"model_change","id":"a1000001","parentId":null,"timestamp":"2026-11-20T10:00:00.100Z","provider":"anthropic","modelId":"CANARY-model"}
{"type":"thinking_level_change","id":"a1000002","parentId":"a1000001","timestamp":"2026-11-20T10:00:00.200Z","thinkingLevel":"high"}
{"type":"message","id":"a1000003","parentId":"a1000002","timestamp":"2026-11-20T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"CANARY-prompt"}],"timestamp":1795168801000}}
{"type":"message","id":"a1000004","parentId":"a1000003","timestamp":"2026-11-20T10:00:03.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"CANARY-thought"},{"type":"toolCall","id":"CANARY-call","name":"bash","arguments":{"command":"CANARY-cmd"}}],"api":"anthropic-messages","provider":"anthropic","model":"CANARY-model","usage":{"input":120,"output":40,"cacheRead":0,"cacheWrite":300,"totalTokens":460},"stopReason":"toolUse","timestamp":1795168803000}}
{"type":"message","id":"a1000005","parentId":"a1000004","timestamp":"2026-11-20T10:00:04.000Z","message":{"role":"toolResult","toolCallId":"CANARY-call","toolName":"bash","content":[{"type":"text","text":"CANARY-output"}],"isError":false,"timestamp":1795168804000}}
{"type":"compaction","id":"a1000006","parentId":"a1000005","timestamp":"2026-11-20T10:00:05.000Z","summary":"CANARY-summary","firstKeptEntryId":"a1000004","tokensBefore":50000}
{"type":"message","id":"a1000007","parentId":"a1000006","timestamp":"2026-11-20T10:00:06.000Z","message":{"role":"assistant","content":[{"type":"text","text":"CANARY-answer"}],"provider":"anthropic","model":"CANARY-model","usage":{"input":10,"output":5,"cacheRead":300,"cacheWrite":0,"totalTokens":315},"stopReason":"stop","timestamp":1795168806000}}`},
	{"pi-agent session, messages only", "pi_agent", "pi/messages.jsonl", `{"type":"message","id":"a2000001","parentId":null,"timestamp":"2026-11-20T10:00:01.000Z","message":{"role":"user","content":"CANARY-prompt","timestamp":1795168801000}}
{"type":"message","id":"a2000002","parentId":"a2000001","timestamp":"2026-11-20T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"CANARY-answer"}],"provider":"openai","model":"CANARY-model","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3},"stopReason":"stop","timestamp":1795168802000}}
{"type":"compaction","id":"a2000003","parentId":"a2000002","timestamp":"2026-11-20T10:00:03.000Z","summary":"CANARY-summary","firstKeptEntryId":"a2000001","tokensBefore":900}`},
	{"OpenClaw agent session", "pi_agent", "agents/main/sessions/claw.jsonl", `{"type":"session","version":3,"id":"CANARY-claw-0001","timestamp":"2026-11-20T10:00:00.000Z","cwd":"/CANARY/workspace"}
{"type":"model_change","id":"b1000001","parentId":null,"timestamp":"2026-11-20T10:00:00.100Z","provider":"openai-codex","modelId":"CANARY-model"}
{"type":"custom","customType":"model-snapshot","data":{"timestamp":1795168800300,"provider":"openai-codex","modelId":"CANARY-model"},"id":"b1000003","parentId":"b1000001","timestamp":"2026-11-20T10:00:00.300Z"}
{"type":"message","id":"b1000004","parentId":"b1000003","timestamp":"2026-11-20T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"CANARY-prompt"}],"timestamp":1795168801000}}
{"type":"message","id":"b1000005","parentId":"b1000004","timestamp":"2026-11-20T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"CANARY-call","name":"exec","arguments":{"command":"CANARY-cmd"}}],"provider":"openai-codex","model":"CANARY-model","usage":{"input":200,"output":20,"cacheRead":100,"cacheWrite":0,"totalTokens":320},"stopReason":"toolUse","timestamp":1795168802000}}
{"type":"message","id":"b1000006","parentId":"b1000005","timestamp":"2026-11-20T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"CANARY-call","toolName":"exec","content":[{"type":"text","text":"CANARY-out"}],"isError":false,"timestamp":1795168803000}}
{"type":"message","id":"b1000007","parentId":"b1000006","timestamp":"2026-11-20T10:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"CANARY-answer"}],"provider":"openai-codex","model":"CANARY-model","usage":{"input":20,"output":2,"cacheRead":300,"cacheWrite":0,"totalTokens":322},"stopReason":"stop","timestamp":1795168804000}}`},
	{"OpenClaw trajectory", "pi_agent", "agents/main/sessions/claw.trajectory.jsonl", `{"traceSchema":"openclaw-trajectory","schemaVersion":1,"traceId":"CANARY-claw-0002","source":"runtime","type":"session.started","ts":"2026-11-20T10:00:00.000Z","seq":1,"sessionId":"CANARY-claw-0002","sessionKey":"agent:main:CANARY","workspaceDir":"/CANARY/workspace","provider":"anthropic","modelId":"CANARY-model","data":{"trigger":"CANARY"}}
{"traceSchema":"openclaw-trajectory","schemaVersion":1,"traceId":"CANARY-claw-0002","source":"runtime","type":"prompt.submitted","ts":"2026-11-20T10:00:00.100Z","seq":2,"sessionId":"CANARY-claw-0002","data":{"prompt":"CANARY-prompt","systemPrompt":"CANARY-system"}}
{"traceSchema":"openclaw-trajectory","schemaVersion":1,"traceId":"CANARY-claw-0002","source":"runtime","type":"model.completed","ts":"2026-11-20T10:00:02.000Z","seq":3,"sessionId":"CANARY-claw-0002","data":{"usage":{"input":10,"output":2,"total":12},"assistantTexts":["CANARY-answer"]}}`},
	{"Run-event trajectory without OpenClaw's traceSchema", "", "runs/claw.trajectory.jsonl", `{"type":"session.started","ts":"2026-11-20T10:00:00.000Z","runId":"CANARY-run","data":{"toolCount":4}}
{"type":"model.completed","ts":"2026-11-20T10:00:02.000Z","runId":"CANARY-run","data":{"usage":{"input":100,"output":10,"total":110},"text":"CANARY-answer"}}
{"type":"session.ended","ts":"2026-11-20T10:00:03.000Z","runId":"CANARY-run","data":{}}`},
	{"Factory Droid session", "droid", "sessions/-proj/droid.jsonl", `{"type":"session_start","id":"CANARY-droid-0001","title":"CANARY-title","sessionTitle":"CANARY-title","owner":"CANARY-owner","version":2,"cwd":"/CANARY/proj"}
{"type":"message","id":"c1000001","timestamp":"2026-11-20T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"CANARY-prompt"}]}}
{"type":"message","id":"c1000002","timestamp":"2026-11-20T10:00:02.000Z","parentId":"c1000001","message":{"role":"assistant","content":[{"type":"text","text":"CANARY-reply"},{"type":"tool_use","id":"CANARY-tool","name":"Execute","input":{"command":"CANARY-cmd"}}]}}
{"type":"message","id":"c1000003","timestamp":"2026-11-20T10:00:03.000Z","parentId":"c1000002","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"CANARY-tool","content":"CANARY-result"}]}}
{"type":"todo_state","id":"c1000004","timestamp":"2026-11-20T10:00:04.000Z","todos":"CANARY-todo"}`},
	{"Qwen Code chat (user and assistant records only)", "qwen_code", "projects/-w/chats/5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b.jsonl", `{"uuid":"c3000001-0000-4000-8000-000000000001","parentUuid":null,"sessionId":"5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b","timestamp":"2026-11-22T08:00:00.000Z","type":"user","cwd":"/CANARY/w","version":"0.0.9","message":{"role":"user","parts":[{"text":"CANARY-prompt"}]}}
{"uuid":"c3000001-0000-4000-8000-000000000002","parentUuid":"c3000001-0000-4000-8000-000000000001","sessionId":"5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b","timestamp":"2026-11-22T08:00:02.000Z","type":"assistant","cwd":"/CANARY/w","version":"0.0.9","model":"qwen3-coder-plus","message":{"role":"model","parts":[{"text":"CANARY-answer"}]}}`},
	{"Kimi CLI wire", "kimi_cli", "sessions/h/s/wire.jsonl", `{"type":"metadata","protocol_version":"1.3"}
{"timestamp":1795168801.0,"message":{"type":"TurnBegin","payload":{"user_input":"CANARY-prompt"}}}
{"timestamp":1795168801.1,"message":{"type":"StepBegin","payload":{"n":1}}}
{"timestamp":1795168802.5,"message":{"type":"ContentPart","payload":{"type":"text","text":"CANARY-text"}}}`},
	{"Kimi CLI context history given alone", "", "context.jsonl", `{"role":"_checkpoint","id":0}
{"role":"user","content":"CANARY-prompt"}
{"role":"assistant","content":[{"type":"text","text":"CANARY-text"}]}
{"role":"_usage","token_count":5580}`},
	{"Kimi Code wire (usage.record)", "kimi_cli", "agents/main/wire.jsonl", `{"type":"metadata","protocolVersion":2,"createdAt":"2026-11-20T10:00:00.000Z","timestamp":"2026-11-20T10:00:00.000Z"}
{"type":"turn.prompt","turnId":"CANARY-turn","timestamp":"2026-11-20T10:00:01.000Z","prompt":"CANARY-prompt"}
{"type":"usage.record","model":"kimi-code/CANARY","usageScope":"turn","timestamp":"2026-11-20T10:00:02.000Z","usage":{"inputOther":10,"output":2,"inputCacheRead":4,"inputCacheCreation":1}}`},
	{"Copilot CLI session in the older flat layout", "copilot_cli", "session-state/6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c.jsonl", `{"type":"session.start","data":{"sessionId":"6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c","version":1,"producer":"copilot-agent","copilotVersion":"0.0.330","startTime":"2025-10-02T09:00:00.000Z","context":{"cwd":"/CANARY/app"}},"id":"023525e5-0000-4000-8000-000000000001","timestamp":"2025-10-02T09:00:00.000Z","parentId":null}
{"type":"user.message","data":{"content":"CANARY-prompt","source":"user"},"id":"023525e5-0000-4000-8000-000000000002","timestamp":"2025-10-02T09:00:01.000Z","parentId":"023525e5-0000-4000-8000-000000000001"}
{"type":"assistant.message","data":{"messageId":"023525e5-0000-4000-8000-0000000000a1","content":"CANARY-answer","toolRequests":[]},"id":"023525e5-0000-4000-8000-000000000003","timestamp":"2025-10-02T09:00:02.000Z","parentId":"023525e5-0000-4000-8000-000000000002"}`},
	{"Factory Droid stream-json", "", "droid-exec.jsonl", `{"type":"system","subtype":"init","cwd":"/CANARY/proj","session_id":"CANARY-s1","tools":["Read"],"model":"CANARY-model"}
{"type":"message","role":"user","id":"d1","text":"CANARY-prompt","timestamp":1795168801000,"session_id":"CANARY-s1"}
{"type":"tool_call","id":"d2","messageId":"d1","toolId":"Read","toolName":"Read","parameters":{"file_path":"CANARY-file"},"timestamp":1795168802000,"session_id":"CANARY-s1"}
{"type":"tool_result","id":"d3","messageId":"d1","toolId":"Read","isError":false,"value":"CANARY-out","timestamp":1795168803000,"session_id":"CANARY-s1"}
{"type":"message","role":"assistant","id":"d4","text":"CANARY-answer","timestamp":1795168804000,"session_id":"CANARY-s1"}
{"type":"completion","finalText":"CANARY-answer","numTurns":1,"durationMs":3000,"session_id":"CANARY-s1","timestamp":1795168805000}`},
	{"Amp thread saved under another name, on one line", "amp", "export/thread.json", `{"v":5,"id":"T-4e5f6071-8293-4eaf-8b1c-3d4e5f607182","created":1795168800000,"title":"CANARY-title","messages":[{"role":"user","messageId":0,"content":[{"type":"text","text":"CANARY-prompt"}],"meta":{"sentAt":1795168801000}},{"role":"assistant","messageId":1,"content":[{"type":"text","text":"CANARY-answer"}],"usage":{"model":"claude-sonnet-4-5-20250929","inputTokens":3,"outputTokens":4,"cacheReadInputTokens":5,"timestamp":"2026-11-20T10:00:02.000Z"}}]}`},
	{"a thread-like document with no Amp thread id (ccusage's test fixture)", "", "threads/thread.json", `{"id":"thread-a","messages":[{"role":"assistant","messageId":2,"content":"CANARY-text","usage":{"cacheCreationInputTokens":20,"cacheReadInputTokens":10}}],"usageLedger":{"events":[{"timestamp":"2026-05-01T01:02:03.000Z","model":"CANARY-model","credits":1.25,"tokens":{"input":100,"output":50},"toMessageId":2}]}}`},
}

// TestUnknownAgentsMatchNoKind: the logs of agents no reader reads are
// "input matches no known kind" when detected; the others are detected as
// their own reader's. Every other agent's reader asked for by name refuses
// them, with nothing written and no raw value in a message.
func TestUnknownAgentsMatchNoKind(t *testing.T) {
	for _, tc := range unknownAgentLogs {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), filepath.FromSlash(tc.rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(tc.log+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			in := pipeline.Input{Path: p, Rel: filepath.Base(p)}
			res := pipeline.Convert(in, pipeline.Options{Converter: "auto"})
			switch {
			case tc.want != "":
				if res.Err != nil || res.Converter != tc.want || res.Receipt == nil {
					t.Fatalf("detected as %q (error %v), want %s", res.Converter, res.Err, tc.want)
				}
			case res.Err == nil || res.Receipt != nil:
				t.Fatalf("claimed by %s", res.Converter)
			default:
				if msg := res.Err.Error(); !strings.Contains(msg, converters.ErrNoKind.Error()) || strings.Contains(msg, canary) {
					t.Errorf("detected: message %q", msg)
				}
			}
			for _, c := range converters.Natives() {
				if c.Name == tc.want {
					continue
				}
				res := pipeline.Convert(in, pipeline.Options{Converter: c.Name})
				if res.Err != nil && strings.Contains(res.Err.Error(), "CANARY") && strings.Contains(in.Path, "CANARY") {
					t.Fatal("the test's folder names the canary")
				}
				if res.Err == nil || res.Receipt != nil || res.Trace != nil {
					t.Errorf("converted by %s asked for by name", c.Name)
					continue
				}
				if msg := res.Err.Error(); !strings.Contains(msg, "not a "+c.Name+" log") || strings.Contains(msg, canary) {
					t.Errorf("%s: message %q", c.Name, msg)
				}
			}
		})
	}
}
