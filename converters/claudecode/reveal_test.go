package claudecode_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/pipeline"
)

// TestRevealNamesMCPProgress: Claude Code repeats an MCP call's server and
// tool in its progress records (data.serverName, data.toolName); with
// --reveal names the two halves of mcp__server__tool are written, so those
// fields must be declared names, not raw text, or every real session with
// an MCP call is refused. The prompt's canary still reaches no output.
func TestRevealNamesMCPProgress(t *testing.T) {
	const sid = "2095544c-fa50-4027-b664-c37e578957ce"
	head := `"isSidechain":false,"userType":"external","cwd":"/Users/CANARY-u/p","sessionId":"` + sid + `","version":"2.1.39"`
	lines := []string{
		`{"parentUuid":null,` + head + `,"type":"user","message":{"role":"user","content":"CANARY-prompt open the page"},"uuid":"a1b2c3d4-0000-4000-8000-000000000001","timestamp":"2026-02-13T02:00:40.000Z"}`,
		`{"parentUuid":"a1b2c3d4-0000-4000-8000-000000000001",` + head + `,"type":"assistant","requestId":"req_1","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-4-6","content":[{"type":"tool_use","id":"toolu_01Vop","name":"mcp__playwright__browser_navigate","input":{"url":"https://CANARY.example"}}],"usage":{"input_tokens":3,"output_tokens":5}},"uuid":"a1b2c3d4-0000-4000-8000-000000000002","timestamp":"2026-02-13T02:00:43.000Z"}`,
		`{"parentUuid":"a1b2c3d4-0000-4000-8000-000000000002",` + head + `,"type":"progress","data":{"type":"mcp_progress","status":"started","serverName":"playwright","toolName":"browser_navigate"},"toolUseID":"toolu_01Vop","parentToolUseID":"toolu_01Vop","uuid":"a1b2c3d4-0000-4000-8000-000000000003","timestamp":"2026-02-13T02:00:43.600Z"}`,
		`{"parentUuid":"a1b2c3d4-0000-4000-8000-000000000003",` + head + `,"type":"progress","data":{"type":"mcp_progress","status":"completed","serverName":"playwright","toolName":"browser_navigate","elapsedTimeMs":1201},"toolUseID":"toolu_01Vop","parentToolUseID":"toolu_01Vop","uuid":"a1b2c3d4-0000-4000-8000-000000000004","timestamp":"2026-02-13T02:00:44.800Z"}`,
		`{"parentUuid":"a1b2c3d4-0000-4000-8000-000000000004",` + head + `,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01Vop","content":"CANARY-result page text"}]},"uuid":"a1b2c3d4-0000-4000-8000-000000000005","timestamp":"2026-02-13T02:00:45.000Z"}`,
	}
	p := filepath.Join(t.TempDir(), sid+".jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := pipeline.Convert(pipeline.Input{Path: p, Rel: sid + ".jsonl"}, pipeline.Options{Converter: "claude_code", Reveal: true})
	if res.Err != nil {
		t.Fatalf("refused with --reveal names: %v", res.Err)
	}
	out := string(res.Receipt) + string(res.Trace)
	if !strings.Contains(out, `"playwright"`) || !strings.Contains(out, `"browser_navigate"`) {
		t.Error("the server and tool are not written in clear")
	}
	if strings.Contains(out, "CANARY") {
		t.Error("a canary reached an output")
	}
}

// TestRevealSkillNames: with --reveal names a skill's name is written in
// clear when it was read from a declared field (the Skill tool's input),
// and stays a digest when it was read from a prompt's text (a custom slash
// command: no pass-through declares it, and the session would be refused).
func TestRevealSkillNames(t *testing.T) {
	const sid = "2095544c-fa50-4027-b664-c37e578957cf"
	head := `"isSidechain":false,"userType":"external","cwd":"/Users/CANARY-u/p","sessionId":"` + sid + `","version":"2.1.39"`
	for _, tc := range []struct {
		name  string
		line  string
		clear bool
	}{
		{"skill tool", `{"parentUuid":null,` + head + `,"type":"assistant","requestId":"req_1","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-4-6","content":[{"type":"tool_use","id":"toolu_01Sk","name":"Skill","input":{"skill":"deploy-helper"}}],"usage":{"input_tokens":3,"output_tokens":5}},"uuid":"a1b2c3d4-0000-4000-8000-000000000002","timestamp":"2026-02-13T02:00:43.000Z"}`, true},
		{"slash command", `{"parentUuid":null,` + head + `,"type":"user","message":{"role":"user","content":"<command-name>/deploy-helper</command-name>\n<command-args>CANARY-args</command-args>"},"uuid":"a1b2c3d4-0000-4000-8000-000000000001","timestamp":"2026-02-13T02:00:40.000Z"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), sid+".jsonl")
			if err := os.WriteFile(p, []byte(tc.line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res := pipeline.Convert(pipeline.Input{Path: p, Rel: sid + ".jsonl"}, pipeline.Options{Converter: "claude_code", Reveal: true})
			if res.Err != nil {
				t.Fatalf("refused with --reveal names: %v", res.Err)
			}
			out := string(res.Receipt)
			if !strings.Contains(out, `"context.skill.invoked"`) {
				t.Fatalf("no skill event:\n%s", out)
			}
			if got := strings.Contains(out, `"deploy-helper"`); got != tc.clear {
				t.Errorf("name in clear: %v, want %v", got, tc.clear)
			}
			if strings.Contains(out+string(res.Trace), "CANARY") {
				t.Error("a canary reached an output")
			}
		})
	}
}
