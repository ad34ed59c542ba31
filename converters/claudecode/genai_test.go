package claudecode_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/internal/pipeline"
)

// claudeLine is one Claude Code transcript record of session s-genai.
func claudeLine(ts, rest string) string {
	return `{"sessionId":"5e551011-aaaa-4bbb-8ccc-000000000001","version":"2.1.114","timestamp":"2026-07-01T10:00:` + ts + `.000Z",` + rest + `}`
}

func claudeChat(ts, id string, in, cacheRead, cacheWrite int, content string) string {
	return claudeLine(ts, `"type":"assistant","uuid":"a-`+id+`","requestId":"req_`+id+`","message":{"id":"msg_`+id+`","role":"assistant","model":"claude-opus-4-7","content":[`+content+`],"usage":{"input_tokens":`+strconv.Itoa(in)+`,"cache_read_input_tokens":`+strconv.Itoa(cacheRead)+`,"cache_creation_input_tokens":`+strconv.Itoa(cacheWrite)+`,"output_tokens":7}}`)
}

// TestGenAISpanAttributes: the trace-only GenAI attributes of a Claude Code
// session: chat input counts cache reads and writes, a chat after a
// compaction says so, and gen_ai.skills follows each skill through
// compaction and re-injection, and the Skill call names its skill. Skill and
// MCP names stay digests.
func TestGenAISpanAttributes(t *testing.T) {
	prompt := claudeLine("01", `"type":"user","uuid":"u-1","message":{"role":"user","content":"CANARY-prompt fix it"}`)
	skill := claudeChat("02", "1", 6, 100, 50, `{"type":"tool_use","id":"toolu_s","name":"Skill","input":{"skill":"CANARY-refund-audit"}},{"type":"tool_use","id":"toolu_m","name":"mcp__CANARY-jira__search","input":{"q":"CANARY-q"}}`)
	results := claudeLine("03", `"type":"user","uuid":"u-2","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_s","content":"ok"},{"type":"tool_result","tool_use_id":"toolu_m","is_error":true,"content":"CANARY-boom"}]}`)
	compact := claudeLine("04", `"type":"system","subtype":"compact_boundary","uuid":"c-1","compactMetadata":{"trigger":"auto","preTokens":1000}`)
	micro := claudeLine("04", `"type":"system","subtype":"microcompact_boundary","uuid":"c-1","microcompactMetadata":{"trigger":"auto","preTokens":1000}`)
	reinject := claudeLine("05", `"type":"attachment","uuid":"at-1","attachment":{"type":"invoked_skills","skills":[{"name":"CANARY-refund-audit","content":"CANARY-body"}]}`)
	after := claudeChat("06", "2", 3, 10, 0, `{"type":"text","text":"CANARY-done"}`)
	tests := []struct {
		name          string
		lines         []string
		compacted     bool   // the second chat span's gen_ai.conversation.compacted
		skillCompacts string // gen_ai.skills' compacted entry
	}{
		{"no compaction", []string{prompt, skill, results, after}, false, "false"},
		{"compaction", []string{prompt, skill, results, compact, after}, true, "true"},
		{"compaction then re-injection", []string{prompt, skill, results, compact, reinject, after}, true, "false"},
		{"microcompaction", []string{prompt, skill, results, micro, after}, true, "false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "5e551011-aaaa-4bbb-8ccc-000000000001.jsonl")
			if err := os.WriteFile(p, []byte(strings.Join(tt.lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res := pipeline.Convert(pipeline.Input{Path: p, Rel: filepath.Base(p)}, pipeline.Options{})
			if res.Err != nil || res.Converter != "claude_code" {
				t.Fatalf("%v %s", res.Err, res.Converter)
			}
			if strings.Contains(string(res.Trace), "CANARY") {
				t.Fatal("a canary reached the trace")
			}
			spans := gjson.GetBytes(res.Trace, "resourceSpans.0.scopeSpans.0.spans").Array()
			attr := func(s gjson.Result, k string) gjson.Result {
				return s.Get(`attributes.#(key=="` + k + `").value`)
			}
			var chats, tools []gjson.Result
			root := spans[0]
			for _, s := range spans {
				switch attr(s, "gen_ai.operation.name").Get("stringValue").Str {
				case "chat":
					chats = append(chats, s)
				case "execute_tool":
					tools = append(tools, s)
				}
			}
			if len(chats) != 2 || len(tools) != 2 {
				t.Fatalf("%d chats, %d tools", len(chats), len(tools))
			}
			// Anthropic's input_tokens (6) leaves out the 100 read from and
			// the 50 written to the cache: the trace counts all 156.
			if got := attr(chats[0], "gen_ai.usage.input_tokens").Get("intValue").Str; got != "156" {
				t.Errorf("first chat input_tokens = %s, want 156", got)
			}
			if got := attr(chats[0], "gen_ai.usage.cache_write.input_tokens").Get("intValue").Str; got != "50" {
				t.Errorf("cache_write = %s, want 50", got)
			}
			if attr(chats[0], "gen_ai.conversation.compacted").Exists() {
				t.Error("the chat before any compaction says compacted")
			}
			if got := attr(chats[1], "gen_ai.conversation.compacted").Get("boolValue").Exists(); got != tt.compacted {
				t.Errorf("second chat compacted = %v, want %v", got, tt.compacted)
			}
			if got := attr(root, "gen_ai.usage.input_tokens").Get("intValue").Str; got != "169" {
				t.Errorf("root input_tokens = %s, want 169 (156 + 13)", got)
			}
			skills := attr(root, "gen_ai.skills").Get("arrayValue.values").Array()
			if len(skills) != 1 {
				t.Fatalf("gen_ai.skills = %v", skills)
			}
			name := skills[0].Get(`kvlistValue.values.#(key=="name").value.stringValue`).Str
			compacted := skills[0].Get(`kvlistValue.values.#(key=="compacted").value.boolValue`).Raw
			if !strings.HasPrefix(name, "sha256:") || compacted != tt.skillCompacts {
				t.Errorf("skill entry name=%s compacted=%s, want a digest and %s", name, compacted, tt.skillCompacts)
			}
			mcp := tools[1]
			for k, want := range map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.type": "extension", "error.type": "tool_error"} {
				if got := attr(mcp, k).Get("stringValue").Str; got != want {
					t.Errorf("MCP span %s = %q, want %q", k, got, want)
				}
			}
			if tn := attr(mcp, "gen_ai.tool.name").Get("stringValue").Str; !strings.HasPrefix(tn, "sha256:") || mcp.Get("name").Str != "execute_tool "+tn {
				t.Errorf("MCP tool named %q, span %q: want its digest in both", tn, mcp.Get("name").Str)
			}
			if got := attr(tools[0], "gen_ai.skill.name").Get("stringValue").Str; got != name {
				t.Errorf("the Skill call's gen_ai.skill.name = %q, want the skill's digest %q", got, name)
			}
			if attr(tools[0], "error.type").Exists() {
				t.Error("a successful tool call has error.type")
			}
		})
	}
}
