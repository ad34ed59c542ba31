package claudecode_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/testshared"

	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/internal/pipeline"
)

// TestClaudeCode21xFormat reads samples/claude_code/v21_2xx_control, a
// 2.1.2xx project written from public descriptions of today's format:
// sessions that open with control records (queue-operation, mode,
// permission-mode, bridge-session, custom-title, last-prompt, atis-latch
// and a type nobody knows), a response streamed as three rows with growing
// output_tokens (one row without requestId), thinking with a signature
// only, new usage fields, built-in and custom slash commands, a subagent
// whose records carry no agentId and which replays the parent's chain, and
// a --fork-session copy of the chain under a new sessionId. Each figure is
// worked out by hand from the sample.
func TestClaudeCode21xFormat(t *testing.T) {
	testshared.InRepo(t)
	res := convtest.Convert(t, "samples/claude_code/v21_2xx_control", pipeline.Options{})
	bySession := map[string]pipeline.Result{}
	for _, r := range res {
		bySession[strings.TrimSuffix(filepath.Base(r.Path), ".jsonl")] = r
	}
	main, fork := bySession["3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f"], bySession["8d9e0f1a-2b3c-4d4e-9f5a-6b7c8d9e0f1a"]
	if main.Receipt == nil || fork.Receipt == nil || len(res) != 2 {
		t.Fatalf("inputs: %d, want the session (with its subagent) and the fork", len(res))
	}
	for _, c := range []struct {
		name string
		r    pipeline.Result
		want string
	}{
		// msg_01 (final row: out 120, cache write 20000) + msg_02 + msg_03 +
		// the subagent's msg_11; its replay of msg_01 is not counted again.
		{"session", main, "in=913 out=430 cache_read=45500 cache_write=20600 responses=4"},
		// The fork re-writes msg_01 under its own sessionId with no back
		// pointer: read alone, its receipt counts it (see converters/testdata/ccusage.json).
		{"fork", fork, "in=11 out=180 cache_read=20000 cache_write=20300 responses=2"},
	} {
		if got := convtest.Usage(c.r.Receipt)[""]; got != c.want {
			t.Errorf("%s tokens: %s, want %s", c.name, got, c.want)
		}
	}
	root := gjson.GetBytes(main.Trace, "resourceSpans.0.scopeSpans.0.spans.0.attributes")
	for key, want := range map[string]string{
		"session.id":                          "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
		"claude_code.builtin_commands.count":  "2",
		"claude_code.replayed_records.count":  "6",
		"claude_code.subagents.count":         "1",
		"claude_code.user_prompts.count":      "0",
		"claude_code.replayed_messages.count": "",
	} {
		v := root.Get(`#(key=="` + key + `").value`)
		got := v.Get("stringValue").Str + v.Get("intValue").Str
		if got != want {
			t.Errorf("root %s = %q, want %q", key, got, want)
		}
	}
	var commands []string
	for _, e := range convtest.Events(main.Receipt, "context.input.loaded") {
		a := e.Get("attributes")
		if a.Get(`context\.input\.kind`).Str != "builtin_command_prompt" {
			continue
		}
		commands = append(commands, a.Get(`context\.input\.command\.name`).Str+" "+a.Get(`context\.input\.delivered\.hash`).Str[:7])
	}
	if got := strings.Join(commands, ", "); got != "/init sha256:, /review sha256:" {
		t.Errorf("built-in commands: %s, want /init and /review with the digests of their expansions", got)
	}
	if n := len(convtest.Events(main.Receipt, "context.skill.invoked")); n != 1 {
		t.Errorf("%d skill events, want 1: the custom command, by digest", n)
	}
	spans := convtest.Spans(main.Trace)
	agents := convtest.WithEvent(spans, "subagent.spawned")
	if len(agents) != 1 || convtest.Chain(spans, agents[0]) != "invoke_agent < execute_tool Agent < invoke_agent claude-code" {
		t.Errorf("subagent: %v", agents)
	}
	if id := spans[agents[0]].Attr("subagent.id"); id != "a1b2c3d4e5f6a7b8c" {
		t.Errorf("subagent.id %q, want the file name's id (records carry no agentId)", id)
	}
	sum := convtest.Events(main.Receipt, "convert.summary")[0].Get("attributes")
	if types := sum.Get(`convert\.input\.record_types`).Raw; !strings.Contains(types, `"sha256:`) || !strings.Contains(types, `"queue-operation=2"`) {
		t.Errorf("record types %s: the unknown type is not counted by digest", types)
	}
	if sum.Get(`convert\.input\.lines\.skipped`).Int() != 0 {
		t.Error("lines skipped")
	}
}
