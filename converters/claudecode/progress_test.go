package claudecode_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
)

// progressSession is a 2.1.4x Claude Code session whose Task call spawned a
// subagent: the parent's agent_progress records repeat the subagent's
// response (msg_01Sub1ProgressXyzABCDEFG, streamed as two rows) with its usage, as the seeds'
// 2.1.39-2.1.49 sessions do. The subagent's own transcript holds the same
// response once.
const progressSession = `{"parentUuid":null,"isSidechain":false,"cwd":"/Users/erin/CANARY-proj","sessionId":"5a6b7c8d-0000-4000-8000-00000000aaaa","version":"2.1.45","uuid":"10000000-0000-4000-8000-000000000001","timestamp":"2026-02-19T09:00:00.000Z","type":"user","message":{"role":"user","content":"CANARY-prompt explore the billing code"}}
{"parentUuid":"10000000-0000-4000-8000-000000000001","isSidechain":false,"sessionId":"5a6b7c8d-0000-4000-8000-00000000aaaa","version":"2.1.45","uuid":"10000000-0000-4000-8000-000000000002","timestamp":"2026-02-19T09:00:02.000Z","type":"assistant","requestId":"req_main1","message":{"id":"msg_main1","type":"message","role":"assistant","model":"claude-opus-4-6","content":[{"type":"tool_use","id":"toolu_task1","name":"Task","input":{"description":"CANARY-desc","prompt":"CANARY-subprompt explore","subagent_type":"Explore"}}],"usage":{"input_tokens":10,"output_tokens":20,"cache_read_input_tokens":300,"cache_creation_input_tokens":40}}}
{"parentUuid":"10000000-0000-4000-8000-000000000002","isSidechain":false,"sessionId":"5a6b7c8d-0000-4000-8000-00000000aaaa","version":"2.1.45","uuid":"10000000-0000-4000-8000-000000000003","timestamp":"2026-02-19T09:00:03.000Z","type":"progress","data":{"message":{"type":"user","message":{"role":"user","content":[{"type":"text","text":"CANARY-subprompt explore"}]},"uuid":"20000000-0000-4000-8000-000000000001","timestamp":"2026-02-19T09:00:03.000Z"},"normalizedMessages":[],"type":"agent_progress","prompt":"CANARY-subprompt explore","agentId":"a68e11c"},"toolUseID":"agent_msg_x1","parentToolUseID":"toolu_task1"}
{"parentUuid":"10000000-0000-4000-8000-000000000003","isSidechain":false,"sessionId":"5a6b7c8d-0000-4000-8000-00000000aaaa","version":"2.1.45","uuid":"10000000-0000-4000-8000-000000000004","timestamp":"2026-02-19T09:00:05.000Z","type":"progress","data":{"message":{"type":"assistant","timestamp":"2026-02-19T09:00:05.000Z","message":{"model":"claude-sonnet-4-6","id":"msg_01Sub1ProgressXyzABCDEFG","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_sub_glob","name":"Glob","input":{"pattern":"CANARY-src/**"}}],"usage":{"input_tokens":3,"output_tokens":5,"cache_read_input_tokens":9000,"cache_creation_input_tokens":1200}},"requestId":"req_sub1","uuid":"20000000-0000-4000-8000-000000000002"},"normalizedMessages":[],"type":"agent_progress","prompt":"CANARY-subprompt explore","agentId":"a68e11c"},"toolUseID":"agent_msg_x1","parentToolUseID":"toolu_task1"}
{"parentUuid":"10000000-0000-4000-8000-000000000004","isSidechain":false,"sessionId":"5a6b7c8d-0000-4000-8000-00000000aaaa","version":"2.1.45","uuid":"10000000-0000-4000-8000-000000000005","timestamp":"2026-02-19T09:00:06.000Z","type":"progress","data":{"message":{"type":"assistant","timestamp":"2026-02-19T09:00:06.000Z","message":{"model":"claude-sonnet-4-6","id":"msg_01Sub1ProgressXyzABCDEFG","type":"message","role":"assistant","content":[{"type":"text","text":"CANARY-subagent-answer"}],"usage":{"input_tokens":3,"output_tokens":70,"cache_read_input_tokens":9000,"cache_creation_input_tokens":1200}},"requestId":"req_sub1","uuid":"20000000-0000-4000-8000-000000000003"},"normalizedMessages":[],"type":"agent_progress","prompt":"CANARY-subprompt explore","agentId":"a68e11c"},"toolUseID":"agent_msg_x1","parentToolUseID":"toolu_task1"}
{"parentUuid":"10000000-0000-4000-8000-000000000005","isSidechain":false,"sessionId":"5a6b7c8d-0000-4000-8000-00000000aaaa","version":"2.1.45","uuid":"10000000-0000-4000-8000-000000000006","timestamp":"2026-02-19T09:00:07.000Z","type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_task1","content":[{"type":"text","text":"CANARY-subagent-answer"}]}],"toolUseResult":{"status":"completed","agentId":"a68e11c"}}}
`

// progressSubagent is the subagent's own transcript: msg_01Sub1ProgressXyzABCDEFG again, with
// the same id and final usage.
const progressSubagent = `{"parentUuid":null,"isSidechain":true,"sessionId":"5a6b7c8d-0000-4000-8000-00000000aaaa","agentId":"a68e11c","version":"2.1.45","uuid":"20000000-0000-4000-8000-000000000001","timestamp":"2026-02-19T09:00:03.000Z","type":"user","message":{"role":"user","content":"CANARY-subprompt explore"}}
{"parentUuid":"20000000-0000-4000-8000-000000000001","isSidechain":true,"sessionId":"5a6b7c8d-0000-4000-8000-00000000aaaa","agentId":"a68e11c","version":"2.1.45","uuid":"20000000-0000-4000-8000-000000000003","timestamp":"2026-02-19T09:00:06.000Z","type":"assistant","requestId":"req_sub1","message":{"model":"claude-sonnet-4-6","id":"msg_01Sub1ProgressXyzABCDEFG","type":"message","role":"assistant","content":[{"type":"text","text":"CANARY-subagent-answer"}],"usage":{"input_tokens":3,"output_tokens":70,"cache_read_input_tokens":9000,"cache_creation_input_tokens":1200}}}
`

// TestClaudeCodeAgentProgressUsage: a subagent's usage in its parent's
// agent_progress records is counted when its transcript is absent (once,
// the streamed rows' largest output), under a chat span below the Task
// call, and named by claude_code.agent_progress_responses.count; with the
// transcript present the same response counts once, from the transcript.
// The figures are worked out by hand from the fixture.
func TestClaudeCodeAgentProgressUsage(t *testing.T) {
	for _, tc := range []struct {
		name       string
		transcript bool
		want       string
		progress   string // the root's claude_code.agent_progress_responses.count ("" when absent)
		subParent  string // the chain above msg_01Sub1ProgressXyzABCDEFG's chat span
	}{
		{"transcript absent", false, "in=13 out=90 cache_read=9300 cache_write=1240 responses=2", "1", "execute_tool Task < invoke_agent claude-code"},
		{"transcript present", true, "in=13 out=90 cache_read=9300 cache_write=1240 responses=2", "", "invoke_agent < execute_tool Task < invoke_agent claude-code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "-Users-erin-CANARY-proj")
			sess := "5a6b7c8d-0000-4000-8000-00000000aaaa"
			write := func(rel, body string) {
				p := filepath.Join(dir, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(sess+".jsonl", progressSession)
			if tc.transcript {
				write(filepath.Join(sess, "subagents", "agent-a68e11c.jsonl"), progressSubagent)
			}
			res := convtest.Convert(t, dir, pipeline.Options{})
			if len(res) != 1 {
				t.Fatalf("%d inputs, want the session with its subagent", len(res))
			}
			r := res[0]
			for _, out := range [][]byte{r.Receipt, r.Trace} {
				if strings.Contains(string(out), "CANARY") {
					t.Fatal("canary in an output")
				}
			}
			if got := convtest.Usage(r.Receipt)[""]; got != tc.want {
				t.Errorf("tokens: %s, want %s", got, tc.want)
			}
			spans := convtest.Spans(r.Trace)
			var root, sub string
			for id, s := range spans {
				if s.Parent == "" {
					root = id
				}
				if s.Attrs.Get(`#(key=="gen_ai.response.id").value.stringValue`).Str == "msg_01Sub1ProgressXyzABCDEFG" {
					if sub != "" {
						t.Error("two chat spans for msg_01Sub1ProgressXyzABCDEFG")
					}
					sub = id
				}
			}
			if sub == "" {
				t.Fatal("no chat span for msg_01Sub1ProgressXyzABCDEFG")
			}
			if got := convtest.Chain(spans, spans[sub].Parent); got != tc.subParent {
				t.Errorf("msg_01Sub1ProgressXyzABCDEFG's chat span under %q, want %q", got, tc.subParent)
			}
			if got := spans[sub].Attrs.Get(`#(key=="gen_ai.usage.output_tokens").value.intValue`).Str; got != "70" {
				t.Errorf("msg_01Sub1ProgressXyzABCDEFG output %s, want the last streamed row's 70", got)
			}
			v := spans[root].Attrs.Get(`#(key=="claude_code.agent_progress_responses.count").value.intValue`).Str
			if v != tc.progress {
				t.Errorf("agent_progress_responses %q, want %q", v, tc.progress)
			}
		})
	}
}
