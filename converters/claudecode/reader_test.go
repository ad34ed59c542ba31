package claudecode_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/testshared"

	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/internal/pipeline"
)

// TestClaudeCodeSpanNesting: subagents nest under the tool call that spawned
// them, in each of the three transcript layouts; chat and tool spans hang
// from their agent; a failed tool call carries an error status.
func TestClaudeCodeSpanNesting(t *testing.T) {
	testshared.InRepo(t)
	tests := []struct {
		dir      string
		subagent string // chain of the subagent.spawned span
		link     string
		extra    map[string]string // span name -> chain
	}{
		{"samples/claude_code/basic", "invoke_agent < execute_tool Agent < invoke_agent claude-code", "sidecar_tool_use_id",
			map[string]string{"execute_tool Grep": "execute_tool Grep < invoke_agent < execute_tool Agent < invoke_agent claude-code",
				"chat claude-haiku-4-5": "chat claude-haiku-4-5 < invoke_agent < execute_tool Agent < invoke_agent claude-code",
				"execute_tool Bash":     "execute_tool Bash < invoke_agent claude-code"}},
		{"samples/claude_code/v1_inline", "invoke_agent < execute_tool Task < invoke_agent claude-code", "prompt_digest",
			map[string]string{"execute_tool Grep": "execute_tool Grep < invoke_agent < execute_tool Task < invoke_agent claude-code"}},
		{"samples/claude_code/v20_siblings", "invoke_agent < execute_tool Task < invoke_agent claude-code", "prompt_digest",
			map[string]string{"chat claude-haiku-4-5-20251001": "chat claude-haiku-4-5-20251001 < invoke_agent < execute_tool Task < invoke_agent claude-code"}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.dir), func(t *testing.T) {
			res := convtest.Convert(t, tt.dir, pipeline.Options{})
			if len(res) != 1 {
				t.Fatalf("%d inputs, want one session (companions must join it)", len(res))
			}
			spans := convtest.Spans(res[0].Trace)
			spawned := convtest.WithEvent(spans, "subagent.spawned")
			if len(spawned) == 0 {
				t.Fatal("no subagent span")
			}
			linked := false
			for _, id := range spawned {
				if convtest.Chain(spans, id) == tt.subagent && spans[id].Attr("subagent.link") == tt.link {
					linked = true
				}
			}
			if !linked {
				for _, id := range spawned {
					t.Errorf("subagent span: %s (link %s), want %s (link %s)", convtest.Chain(spans, id), spans[id].Attr("subagent.link"), tt.subagent, tt.link)
				}
			}
			for name, want := range tt.extra {
				found := false
				for id, s := range spans {
					if s.Name == name {
						found = true
						if got := convtest.Chain(spans, id); got != want {
							t.Errorf("%s: %s, want %s", name, got, want)
						}
					}
				}
				if !found {
					t.Errorf("no span %q", name)
				}
			}
		})
	}
	res := convtest.Convert(t, "samples/claude_code/basic", pipeline.Options{})
	if !bytes.Contains(res[0].Trace, []byte(`"status":{"code":2`)) {
		t.Error("the failed Bash call has no error status")
	}
}

// TestClaudeCodeTokenTotals: each API response is counted once (lines that
// repeat its usage, and the streaming snapshot with a smaller output count,
// are not added again), per model, subagent files included. The figures are
// worked out by hand from samples/claude_code/basic.
func TestClaudeCodeTokenTotals(t *testing.T) {
	testshared.InRepo(t)
	res := convtest.Convert(t, "samples/claude_code/basic", pipeline.Options{})
	want := map[string]string{
		"claude-opus-4-7":  "in=49 out=3011 cache_read=174100 cache_write=29560 responses=7",
		"claude-haiku-4-5": "in=2700 out=400 cache_read=0 cache_write=0 responses=2",
	}
	got := map[string]string{}
	for _, l := range bytes.Split(res[0].Receipt, []byte{'\n'}) {
		e := gjson.ParseBytes(l)
		if e.Get("name").Str != "gen_ai.token_usage.summarized" {
			continue
		}
		a := e.Get("attributes")
		got[a.Get(`gen_ai\.request\.model`).Str] = fmt.Sprintf("in=%d out=%d cache_read=%d cache_write=%d responses=%d",
			a.Get(`gen_ai\.usage\.input_tokens`).Int(), a.Get(`gen_ai\.usage\.output_tokens`).Int(),
			a.Get(`gen_ai\.usage\.cache_read\.input_tokens`).Int(), a.Get(`gen_ai\.usage\.cache_creation\.input_tokens`).Int(),
			a.Get(`gen_ai\.usage\.responses`).Int())
	}
	for m, w := range want {
		if got[m] != w {
			t.Errorf("%s: %s, want %s", m, got[m], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("models: %v", got)
	}
}

// TestClaudeCodeSessionFileAlone: given only the session file, its subagent
// transcripts (session directory, sibling agent files) are still found.
func TestClaudeCodeSessionFileAlone(t *testing.T) {
	testshared.InRepo(t)
	for _, f := range []string{
		"samples/claude_code/basic/-Users-alice-src-acme-ledger/7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl",
		"samples/claude_code/v20_siblings/-home-carol-app/9e8d7c6b-2222-4333-8444-555566667777.jsonl",
	} {
		ins, err := pipeline.Expand([]string{f})
		if err != nil || len(ins) != 1 {
			t.Fatalf("%s: %v %v", f, ins, err)
		}
		if len(ins[0].Companions) == 0 {
			t.Errorf("%s: no companion transcripts found", f)
		}
		whole := convtest.Convert(t, filepath.Dir(filepath.Dir(f)), pipeline.Options{})
		alone := pipeline.Convert(ins[0], pipeline.Options{})
		if alone.Err != nil || !bytes.Equal(alone.Trace, whole[0].Trace) {
			t.Errorf("%s: converting the file alone differs from converting its project folder (%v)", f, alone.Err)
		}
	}
}

// TestClaudeCodeHugeLines: a 12 MiB pasted screenshot and a 5 MiB tool
// result convert, hashed, within the line cap; over a smaller cap they are
// skipped and counted. Nothing raw reaches an output either way.
func TestClaudeCodeHugeLines(t *testing.T) {
	dir := t.TempDir()
	sid := "55555555-6666-4777-8888-999999999999"
	img := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("CANARY-pixels "), (9<<20)/14))
	big := strings.Repeat("CANARY build log line\n", (5<<20)/22)
	lines := []string{
		fmt.Sprintf(`{"type":"user","uuid":"h1","parentUuid":null,"sessionId":%q,"version":"2.1.114","timestamp":"2026-03-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"CANARY what is in this screenshot"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":%q}}]}}`, sid, img),
		fmt.Sprintf(`{"type":"assistant","uuid":"h2","parentUuid":"h1","sessionId":%q,"version":"2.1.114","timestamp":"2026-03-01T00:00:02.000Z","requestId":"req_H","message":{"id":"msg_H","model":"claude-opus-4-7","content":[{"type":"tool_use","id":"toolu_H","name":"Bash","input":{"command":"CANARY make build"}}],"usage":{"input_tokens":5,"output_tokens":7}}}`, sid),
		fmt.Sprintf(`{"type":"user","uuid":"h3","parentUuid":"h2","sessionId":%q,"version":"2.1.114","timestamp":"2026-03-01T00:01:00.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_H","content":%q}]},"toolUseResult":{"stdout":%q,"stderr":""}}`, sid, big, big),
	}
	p := filepath.Join(dir, sid+".jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		max     int
		skipped int64
	}{{0, 0}, {1 << 20, 2}} {
		res := pipeline.Convert(pipeline.Input{Path: p, Rel: sid + ".jsonl"}, pipeline.Options{MaxLine: tc.max})
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		if res.Stats.Skipped != tc.skipped || res.Converter != "claude_code" {
			t.Errorf("cap %d: skipped %d (want %d), converter %s", tc.max, res.Stats.Skipped, tc.skipped, res.Converter)
		}
		for _, out := range [][]byte{res.Receipt, res.Trace, []byte(strings.Join(res.Diags, "\n"))} {
			if bytes.Contains(out, []byte("CANARY")) || bytes.Contains(out, []byte(img[:64])) {
				t.Fatal("raw content reached an output")
			}
		}
	}
}

// TestClaudeCodeRevealNames: names stay digests by default and appear in
// clear only with --reveal names; content never does.
func TestClaudeCodeRevealNames(t *testing.T) {
	testshared.InRepo(t)
	plain := convtest.Convert(t, "samples/claude_code/basic", pipeline.Options{})[0]
	shown := convtest.Convert(t, "samples/claude_code/basic", pipeline.Options{Reveal: true})[0]
	if bytes.Contains(plain.Receipt, []byte("jira-acme")) {
		t.Error("an MCP server name is in clear without --reveal names")
	}
	for _, name := range []string{`"mcp.server.name":"CANARY-jira-acme"`, `"mcp.tool.name":"search_issues"`, `"context.skill.name":"CANARY-refund-audit"`} {
		if !bytes.Contains(shown.Receipt, []byte(name)) {
			t.Errorf("with --reveal names the receipt lacks %s", name)
		}
	}
	for _, raw := range []string{"CANARY-jql", "CANARY-result", "CANARY-skillbody", "CANARY-subprompt", "CANARY-prompt"} {
		if bytes.Contains(shown.Receipt, []byte(raw)) || bytes.Contains(shown.Trace, []byte(raw)) {
			t.Errorf("--reveal names revealed content %s", raw)
		}
	}
}

// TestClaudeCodeKeepsNoViewOfALine: what the reader writes after a line is
// gone (events, span names, state it compares later) is the program's own
// word or a copy, never a view of the line: a view would read the bytes
// that poisoning writes over each line once it is converted, or another
// line's. Each site of issue #33 is exercised with strings that have no
// escapes (an escaped string is decoded into a string of its own, which
// hides the bug), with --reveal names on: the skill name of a Skill call,
// a built-in command's name (both spellings) and the /init a later write
// of CLAUDE.md is told by, the tool names of a ToolSearch result, and a
// nested CLAUDE.md's public path.
func TestClaudeCodeKeepsNoViewOfALine(t *testing.T) {
	sid := "77777777-8888-4999-8aaa-bbbbbbbbbbbb"
	head := `"sessionId":"` + sid + `","version":"2.1.114","timestamp":"2026-03-01T00:00:0`
	lines := []string{
		`{"type":"user","uuid":"k1","parentUuid":null,` + head + `0.000Z","message":{"role":"user","content":"CANARY please audit"}}`,
		`{"type":"assistant","uuid":"k2","parentUuid":"k1",` + head + `1.000Z","requestId":"req_K","message":{"id":"msg_K","model":"claude-opus-4-7","content":[` +
			`{"type":"tool_use","id":"toolu_S","name":"Skill","input":{"skill":"pdfkit"}},` +
			`{"type":"tool_use","id":"toolu_T","name":"ToolSearch","input":{"query":"CANARY find reader"}}],"usage":{"input_tokens":5,"output_tokens":7}}}`,
		`{"type":"user","uuid":"k3","parentUuid":"k2",` + head + `2.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_T","content":[` +
			`{"type":"tool_reference","tool_name":"Read"},{"type":"tool_reference","tool_name":"mcp__jira__search_issues"}]}]},"toolUseResult":{"total_deferred_tools":12}}`,
		`{"type":"user","uuid":"k4","parentUuid":"k3",` + head + `3.000Z","message":{"role":"user","content":"<command-name>clear</command-name>"}}`,
		`{"type":"user","uuid":"k5","parentUuid":"k4",` + head + `4.000Z","message":{"role":"user","content":"<command-name>/init</command-name>"}}`,
		`{"type":"attachment","uuid":"k6","parentUuid":"k5",` + head + `5.000Z","attachment":{"type":"nested_memory","path":"CLAUDE.md","content":{"content":"CANARY house rules"}}}`,
		`{"type":"assistant","uuid":"k7","parentUuid":"k6",` + head + `6.000Z","requestId":"req_L","message":{"id":"msg_L","model":"claude-opus-4-7","content":[` +
			`{"type":"tool_use","id":"toolu_W","name":"Write","input":{"file_path":"CLAUDE.md","content":"CANARY new rules"}}],"usage":{"input_tokens":5,"output_tokens":7}}}`,
		`{"type":"user","uuid":"k8","parentUuid":"k7",` + head + `7.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_W","content":"CANARY written"}]}}`,
	}
	p := filepath.Join(t.TempDir(), sid+".jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var receipts [][]byte
	for _, poison := range []bool{false, true} {
		res := pipeline.Convert(pipeline.Input{Path: p, Rel: sid + ".jsonl"}, pipeline.Options{Reveal: true, PoisonLines: poison})
		if res.Err != nil {
			t.Fatalf("poison %v: %v", poison, res.Err)
		}
		receipts = append(receipts, res.Receipt)
		str := func(e gjson.Result, key string) string {
			return e.Get("attributes." + strings.ReplaceAll(key, ".", `\.`)).Str
		}
		var got []string
		for _, e := range convtest.Events(res.Receipt, "context.skill.invoked") {
			got = append(got, "skill "+str(e, "context.skill.name"))
		}
		for _, e := range convtest.Events(res.Receipt, "context.input.loaded") {
			switch str(e, "context.input.kind") {
			case "builtin_command_prompt":
				got = append(got, "command "+str(e, "context.input.command.name"))
			case "nested_instructions":
				got = append(got, "path "+str(e, "context.input.source.path"))
			}
		}
		for _, e := range convtest.Events(res.Receipt, "mcp.tool_definition.loaded") {
			got = append(got, "tool "+str(e, "gen_ai.tool.name")+str(e, "mcp.server.name")+"/"+str(e, "mcp.tool.name"))
		}
		for _, e := range convtest.Events(res.Receipt, "context.memory_file.accessed") {
			got = append(got, "write "+str(e, "context.memory_file.trigger")) // the /init kept for the write
		}
		want := "skill pdfkit, command /clear, command /init, path CLAUDE.md, tool Read/, tool jira/search_issues, write init_command"
		if g := strings.Join(got, ", "); g != want {
			t.Errorf("poison %v: %s\nwant %s", poison, g, want)
		}
		if bytes.Contains(res.Receipt, []byte("CANARY")) || bytes.Contains(res.Trace, []byte("CANARY")) {
			t.Errorf("poison %v: raw content reached an output", poison)
		}
	}
	if !bytes.Equal(receipts[0], receipts[1]) {
		t.Error("poisoning each line once it is read changes the receipt: a view of a line was kept")
	}
}
