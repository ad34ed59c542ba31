package opencode_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
)

// ocDoc is an `opencode export` document (message-v2.ts shapes) holding
// the given messages, every raw value carrying the canary; extra adds
// fields to its info.
func ocDoc(t *testing.T, extra string, messages ...string) []byte {
	t.Helper()
	doc := `{"info":{"id":"ses_4f1e0000aaffeQw1Er2Ty3Ui9","slug":"CANARY-slug","version":"1.2.27","projectID":"9f86d081884c",` +
		`"directory":"/Users/CANARY-user/p","title":"CANARY-title","time":{"created":1795168800000,"updated":1795168900000}` + extra +
		`},"messages":[` + strings.Join(messages, ",") + `]}`
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("%v in %s", err, doc)
	}
	pretty, _ := json.MarshalIndent(v, "", "  ") // as export prints it: JSON.stringify(data, null, 2)
	return pretty
}

const ocUser = `{"info":{"id":"msg_u1","sessionID":"ses_4f1e0000aaffeQw1Er2Ty3Ui9","role":"user","time":{"created":1795168801000},"agent":"build",` +
	`"model":{"providerID":"anthropic","modelID":"claude-sonnet-4-5"}},"parts":[{"id":"prt_u1","sessionID":"s","messageID":"msg_u1","type":"text","text":"CANARY-prompt"}]}`

// ocAssistant is an assistant message with tokens and parts.
func ocAssistant(id, model, tokens string, parts ...string) string {
	return `{"info":{"id":"` + id + `","sessionID":"ses_4f1e0000aaffeQw1Er2Ty3Ui9","role":"assistant","time":{"created":1795168802000,"completed":1795168809000},` +
		`"parentID":"msg_u1","modelID":"` + model + `","providerID":"anthropic","mode":"build","agent":"build",` +
		`"path":{"cwd":"/Users/CANARY-user/p","root":"/Users/CANARY-user/p"},"cost":0.01,"tokens":` + tokens + `},"parts":[` + strings.Join(parts, ",") + `]}`
}

// ocTool is a tool part in a final state.
func ocTool(call, name, status, input, result string) string {
	st := `"status":"` + status + `","input":` + input + `,"time":{"start":1795168803000,"end":1795168804000}`
	switch status {
	case "completed":
		st += `,"output":` + result + `,"title":"CANARY-title","metadata":{"sessionId":"ses_4f1e0000bbffeChild0001xy"}`
	case "error":
		st += `,"error":` + result
	}
	return `{"id":"prt_` + call + `","sessionID":"s","messageID":"m","type":"tool","callID":"` + call + `","tool":"` + name + `","state":{` + st + `}}`
}

const ocTokens = `{"input":100,"output":20,"reasoning":7,"cache":{"read":300,"write":40}}`

// TestOpencodeMapping: each part and message of an export document maps
// to its events and spans, read from a pretty-printed document under a
// name of the user's choosing; no canary reaches any output or message.
func TestOpencodeMapping(t *testing.T) {
	cases := []struct {
		name     string
		extra    string
		messages []string
		want     [][]string
		not      []string
	}{
		{"tools and tokens", "", []string{ocUser, ocAssistant("msg_a1", "claude-sonnet-4-5", ocTokens,
			ocTool("toolu_01", "bash", "completed", `{"command":"CANARY-cmd"}`, `"CANARY-out"`),
			ocTool("toolu_02", "edit", "error", `{"filePath":"/CANARY/f"}`, `"CANARY-err"`))},
			[][]string{
				{"span execute_tool bash < chat claude-sonnet-4-5 < invoke_agent opencode"},
				{"span execute_tool edit", "[error]"},
				{"event gen_ai.token_usage.summarized", "gen_ai.request.model=claude-sonnet-4-5", "gen_ai.usage.input_tokens=100",
					"gen_ai.usage.output_tokens=20", "gen_ai.usage.cache_read.input_tokens=300", "gen_ai.usage.cache_creation.input_tokens=40",
					"gen_ai.usage.reasoning.output_tokens=7"},
				{"event context.audit_gap.recorded", "context.audit_gap=instruction_loads_not_logged"},
			}, []string{"token_usage_not_logged", "mcp.tool_call"}},
		{"mcp", "", []string{ocUser, ocAssistant("msg_a1", "claude-sonnet-4-5", ocTokens,
			ocTool("toolu_03", "CANARYsrv_lookup", "completed", `{"q":"CANARY-q"}`, `"CANARY-rows"`))},
			[][]string{{"event mcp.tool_call.completed", "mcp.tool_call.status=success"}}, nil},
		{"skill", "", []string{ocUser, ocAssistant("msg_a1", "claude-sonnet-4-5", ocTokens,
			ocTool("toolu_04", "skill", "completed", `{"name":"CANARY-skill"}`, `"CANARY-body"`),
			ocTool("toolu_05", "skill", "completed", `{"name":"CANARY-skill"}`, `"CANARY-body"`))},
			[][]string{{"event context.skill.invoked", "context.input.duplicate.role=selected"},
				{"event context.skill.invoked", "context.input.duplicate.role=duplicate"}}, nil},
		{"task subagent", "", []string{ocUser, ocAssistant("msg_a1", "claude-sonnet-4-5", ocTokens,
			ocTool("toolu_06", "task", "completed", `{"description":"CANARY-d","prompt":"CANARY-p","subagent_type":"general"}`, `"CANARY-result"`))},
			[][]string{{"event subagent.spawned", "subagent.link=task_tool_call"}, {"event subagent.result.returned", "subagent.result.status=success"}}, nil},
		// A provider that numbers each response's calls (call_0, call_1)
		// repeats a call id in every message; OpenCode 1.2.26's apply_patch
		// sessions did. Each call is its own span, under its own chat.
		{"call ids repeated across messages", "", []string{ocUser,
			ocAssistant("msg_a1", "gpt-5.1-codex", ocTokens, ocTool("call_0", "apply_patch", "completed", `{"patchText":"CANARY-patch"}`, `"CANARY-out"`)),
			strings.Replace(ocAssistant("msg_a2", "gpt-5.1-codex", ocTokens, ocTool("call_0", "apply_patch", "completed", `{"patchText":"CANARY-patch2"}`, `"CANARY-out2"`)),
				`"prt_call_0"`, `"prt_call_0b"`, 1),
			strings.Replace(ocAssistant("msg_a3", "gpt-5.1-codex", ocTokens, ocTool("", "apply_patch", "error", `{"patchText":"CANARY-patch3"}`, `"CANARY-err"`),
				ocTool("", "apply_patch", "error", `{"patchText":"CANARY-patch4"}`, `"CANARY-err"`)), `"prt_"`, `"prt_x1"`, 1)},
			[][]string{{"span execute_tool apply_patch < chat gpt-5.1-codex"}, {"span execute_tool apply_patch < chat gpt-5.1-codex"},
				{"span execute_tool apply_patch", "[error]"}, {"span execute_tool apply_patch", "[error]"}}, nil},
		{"child session", `,"parentID":"ses_4f1e0000ccffeParent00001z"`, []string{ocUser, ocAssistant("msg_a1", "claude-haiku-4-5", ocTokens)},
			[][]string{{"event subagent.spawned", "subagent.link=parent_thread_id"}}, nil},
		{"a total alone is output less reasoning", "", []string{ocUser,
			ocAssistant("msg_a1", "claude-sonnet-4-5", `{"input":0,"output":0,"reasoning":40,"cache":{"read":0,"write":0},"total":640}`)},
			[][]string{{"event gen_ai.token_usage.summarized", "gen_ai.usage.output_tokens=600", "gen_ai.usage.input_tokens=0"}}, nil},
		{"no model, no tokens counted", "", []string{ocUser, ocAssistant("msg_a1", "", ocTokens)},
			[][]string{{"event context.audit_gap.recorded", "context.audit_gap=token_usage_not_logged"}},
			[]string{"event gen_ai.token_usage.summarized"}},
		{"compaction", "", []string{ocUser,
			`{"info":{"id":"msg_u2","sessionID":"s","role":"user","time":{"created":1795168805000},"agent":"compaction","model":{"providerID":"anthropic","modelID":"m"}},` +
				`"parts":[{"id":"prt_c","sessionID":"s","messageID":"msg_u2","type":"compaction","auto":true}]}`,
			strings.Replace(ocAssistant("msg_a2", "claude-sonnet-4-5", ocTokens,
				`{"id":"prt_s","sessionID":"s","messageID":"msg_a2","type":"text","text":"CANARY-summary"}`), `"cost"`, `"summary":true,"cost"`, 1)},
			[][]string{{"event context.compaction.started"}, {"event context.compaction.summary_loaded"}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := convtest.ConvertLines(t, "", "my-export.json", string(ocDoc(t, tc.extra, tc.messages...)))
			if res.Stats.Lines != 1 || res.Stats.Known != 1 {
				t.Errorf("%d lines, %d records: the document was not read as one record", res.Stats.Lines, res.Stats.Known)
			}
			convtest.ExpectOutline(t, res, "opencode", tc.want, tc.not)
		})
	}
}

// TestOpencodeDocumentReading: an export document is the same input
// pretty-printed (any name), compacted onto one line, or under the name a
// session id gives it; one torn or cut short fails at the line where it
// breaks, naming the file and nothing of its content; a pretty-printed
// document of no known agent is still refused.
func TestOpencodeDocumentReading(t *testing.T) {
	pretty := ocDoc(t, "", ocUser, ocAssistant("msg_a1", "claude-sonnet-4-5", ocTokens,
		ocTool("toolu_01", "bash", "completed", `{"command":"CANARY-cmd"}`, `"CANARY-out"`)))
	var compact bytes.Buffer
	if err := json.Compact(&compact, pretty); err != nil {
		t.Fatal(err)
	}
	doc := convtest.ConvertLines(t, "", "export.json", string(pretty))
	for _, alt := range []pipeline.Result{
		convtest.ConvertLines(t, "", "export.jsonl", compact.String()),
		convtest.ConvertLines(t, "", "ses_4f1e0000aaffeQw1Er2Ty3Ui9.json", string(pretty)),
	} {
		if doc.Err != nil || alt.Err != nil || doc.Converter != "opencode" || !convtest.SameButInput(doc.Receipt, alt.Receipt) {
			t.Errorf("the document and its copy convert differently: %s %v / %s %v", doc.Converter, doc.Err, alt.Converter, alt.Err)
		}
	}
	lines := bytes.Split(pretty, []byte("\n"))
	torn := string(bytes.Join(lines[:len(lines)/2], []byte("\n")))
	stray := strings.Replace(string(pretty), `"CANARY-out"`, `"CANARY-out" x`, 1)
	wantLine := 1 + strings.Count(stray[:strings.Index(stray, " x")], "\n")
	for _, tc := range []struct {
		name, body string
		line       int
	}{{"cut short", torn, len(lines) / 2}, {"a stray character", stray, wantLine}} {
		res := convtest.ConvertLines(t, "", "export.json", tc.body)
		msg := fmt.Sprint(res.Err) + strings.Join(res.Diags, "\n")
		if res.Err == nil || res.Receipt != nil || !strings.Contains(msg, fmt.Sprintf("export.json:%d:", tc.line)) {
			t.Errorf("%s: %q, want a failure at export.json:%d", tc.name, msg, tc.line)
		}
		if strings.Contains(msg, convtest.Canary) {
			t.Errorf("%s: the document's content reached a message", tc.name)
		}
	}
	unknown := `{
  "conversation": {"id": "CANARY-id", "turns": [{"role": "user", "text": "CANARY-prompt"}]}
}`
	if res := convtest.ConvertLines(t, "", "other.json", unknown); res.Err == nil || !strings.Contains(res.Err.Error(), "no known kind") {
		t.Errorf("another agent's document: %v", res.Err)
	}
}

// TestOpencodeStorage: a session of the storage/ tree, walked or given
// as its session file alone, becomes one input with its messages and
// parts, and writes the same events as the export document of the same
// session; a part whose message is not there is counted, not mapped.
func TestOpencodeStorage(t *testing.T) {
	testshared.InRepo(t)
	const sid = "ses_4f1e2d3c5ffeA1b2C3d4E5f6G7"
	events := func(rs []pipeline.Result, name string) []string {
		t.Helper()
		for _, r := range rs {
			if filepath.Base(r.Path) != name {
				continue
			}
			var out []string
			for _, l := range bytes.Split(bytes.TrimSpace(r.Receipt), []byte("\n")) {
				e := gjson.ParseBytes(l)
				if e.Get("name").Str != "convert.summary" {
					out = append(out, e.Get("name").Str+" "+e.Get("time").Str+" "+e.Get("attributes").Raw)
				}
			}
			if strings.Contains(string(r.Receipt)+string(r.Trace), convtest.Canary) {
				t.Errorf("%s: canary reached the output", name)
			}
			return out
		}
		t.Fatalf("no input %s", name)
		return nil
	}
	export := events(convtest.Convert(t, "samples/opencode/basic", pipeline.Options{}), sid+".json")
	walked := convtest.Convert(t, "samples/opencode/storage", pipeline.Options{})
	if len(walked) != 2 {
		t.Errorf("%d inputs from the storage tree, want its 2 sessions", len(walked))
	}
	alone := convtest.Convert(t, filepath.Join("samples/opencode/storage/session/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b", sid+".json"), pipeline.Options{})
	for name, got := range map[string][]string{"walked": events(walked, sid+".json"), "alone": events(alone, sid+".json")} {
		if strings.Join(got, "\n") != strings.Join(export, "\n") {
			t.Errorf("storage session (%s) and its export write different events:\n%s\n---\n%s", name, strings.Join(got, "\n"), strings.Join(export, "\n"))
		}
	}
	if len(alone) != 1 || alone[0].Stats.Lines < 30 {
		t.Errorf("the session file alone read %d inputs, %d lines: its messages and parts were not found", len(alone), alone[0].Stats.Lines)
	}
	orphan := convtest.ConvertLines(t, "", "prt_orphan.json", `{
  "id": "prt_orphan",
  "sessionID": "ses_4f1e0000aaffeQw1Er2Ty3Ui9",
  "messageID": "msg_missing",
  "type": "tool",
  "callID": "toolu_01",
  "tool": "bash",
  "state": {"status": "completed", "input": {"command": "CANARY-cmd"}, "output": "CANARY-out", "title": "CANARY", "metadata": {}, "time": {"start": 1795168803000, "end": 1795168804000}}
}`)
	if orphan.Err != nil || orphan.Converter != "opencode" || bytes.Contains(orphan.Trace, []byte("execute_tool")) || strings.Contains(string(orphan.Receipt)+string(orphan.Trace), convtest.Canary) {
		t.Errorf("a part without its message: %s %v", orphan.Converter, orphan.Err)
	}
}
