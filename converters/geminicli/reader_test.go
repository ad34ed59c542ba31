package geminicli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/testshared"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/pipeline"
)

const (
	gmHeader = `{"sessionId":"1b2c3d4e-5f60-4a71-8b92-a3b4c5d6e7f8","projectHash":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","startTime":"2026-03-20T10:00:00.000Z","lastUpdated":"2026-03-20T10:00:00.000Z","kind":"main"}`
	gmUser   = `{"id":"0a9b8c7d-0001-4e5f-8a6b-7c8d9e0f1a01","timestamp":"2026-03-20T10:00:05.000Z","type":"user","content":[{"text":"CANARY-prompt"}]}`
)

// gmModel is a model message with id n, optional tokens and tool calls.
func gmModel(n, tokens, calls string) string {
	s := `{"id":"0a9b8c7d-01` + n + `-4e5f-8a6b-7c8d9e0f1b00","timestamp":"2026-03-20T10:00:1` + n[1:] + `.000Z","type":"gemini","content":"CANARY-answer","thoughts":[],"model":"gemini-2.5-pro"`
	if tokens != "" {
		s += `,"tokens":` + tokens
	}
	if calls != "" {
		s += `,"toolCalls":[` + calls + `]`
	}
	return s + "}"
}

func gmCall(id, name, status, extra string) string {
	return `{"id":"` + id + `","name":"` + name + `","args":{"name":"CANARY-skill","CANARY-arg":"CANARY"},"status":"` + status + `","timestamp":"2026-03-20T10:00:30.000Z","result":[{"functionResponse":{"response":{"output":"CANARY-result"}}}]` + extra + `}`
}

const gmTokens = `{"input":1175,"output":30,"cached":800,"thoughts":7,"tool":25,"total":1237}`

// TestGeminiMapping maps every record type of both versions: messages
// written again with tokens or later tool statuses, $set patches,
// $rewindTo, legacy one-document sessions, MCP names of both eras, skill
// activation, unknown kinds, and the audit gaps.
func TestGeminiMapping(t *testing.T) {
	cases := []struct {
		name  string
		lines []string
		want  [][]string // each: parts one outline line must hold
		not   []string   // parts no outline line may hold
	}{
		{"a message written again gets its tokens once",
			[]string{gmHeader, gmUser, gmModel("01", "", gmCall("read_file-1-0", "read_file", "success", "")), gmModel("01", gmTokens, gmCall("read_file-1-0", "read_file", "success", ""))},
			[][]string{
				{"event gen_ai.token_usage.summarized", "input_tokens=1200", "output_tokens=30", "cache_read.input_tokens=800", "reasoning.output_tokens=7", "dedupe=message_id_last_record"},
				{"span execute_tool read_file < chat gemini-2.5-pro < invoke_agent gemini-cli", "gemini_cli.tool_call.status=success"},
				{"event context.audit_gap.recorded", "detail=gemini_md_context_files_load_without_a_record"},
				{`summary types=["gemini=2","session_metadata=1","user=1"]`},
			}, []string{"token_usage_not_logged"}},
		{"a tool call finishes when a later copy gives its final status",
			[]string{gmHeader, gmModel("01", gmTokens, gmCall("c1", "run_shell_command", "awaiting_approval", "")), gmModel("01", gmTokens, gmCall("c1", "run_shell_command", "error", ""))},
			[][]string{{"span execute_tool run_shell_command", "[error]", "gemini_cli.tool_call.status=error"}},
			[]string{"status=awaiting_approval"}},
		{"an unfinished call has no status",
			[]string{gmHeader, gmModel("01", gmTokens, gmCall("c1", "web_fetch", "awaiting_approval", ""))},
			[][]string{{"span execute_tool web_fetch < chat"}},
			[]string{"gemini_cli.tool_call.status"}},
		{"$rewindTo keeps the rewound turns' tokens and marks them",
			[]string{gmHeader, gmUser, gmModel("01", gmTokens, ""), `{"$rewindTo":"0a9b8c7d-0001-4e5f-8a6b-7c8d9e0f1a01"}`, gmModel("02", gmTokens, "")},
			[][]string{
				{"span chat gemini-2.5-pro < invoke_agent gemini-cli", "gemini_cli.rewound=true"},
				{"event gen_ai.token_usage.summarized", "input_tokens=2400"},
				{`"rewind_to=1"`},
			}, nil},
		{"$set patches and a history rewrite are counted, not read again",
			[]string{gmHeader, gmModel("01", gmTokens, ""), `{"$set":{"lastUpdated":"2026-03-20T10:00:20.000Z"}}`,
				`{"$set":{"messages":[` + gmModel("01", gmTokens, "") + `],"summary":"CANARY-summary"}}`},
			[][]string{{`"metadata_set=2"`}, {"event gen_ai.token_usage.summarized", "input_tokens=1200"}}, nil},
		{"MCP server__tool (older) and mcp_server_tool (newer) names",
			[]string{gmHeader, gmModel("01", gmTokens, gmCall("ledger__query-1", "CANARYledger__query", "success", "")+","+gmCall("mcp_CANARYdb_find-2", "mcp_CANARYdb_find", "error", ""))},
			[][]string{
				{"event mcp.tool_call.completed", "mcp.tool_call.status=success"},
				{"event mcp.tool_call.completed", "mcp.tool_call.status=error"},
				{"span execute_tool sha256:", "[error]", "gen_ai.tool.type=extension"},
			}, nil},
		{"activate_skill writes the skill load, a second one as a duplicate",
			[]string{gmHeader, gmModel("01", gmTokens, gmCall("a1", "activate_skill", "success", "")), gmModel("02", gmTokens, gmCall("a2", "activate_skill", "success", ""))},
			[][]string{
				{"event context.skill.invoked", "context.input.kind=skill", "duplicate.role=selected"},
				{"event context.skill.invoked", "duplicate.role=duplicate"},
			}, nil},
		{"a message kind this reader does not know is counted by digest",
			[]string{gmHeader, `{"id":"0a9b8c7d-0301-4e5f-8a6b-7c8d9e0f1c01","timestamp":"2026-03-20T10:02:12.000Z","type":"compression_notice","content":"CANARY"}`, gmModel("01", gmTokens, "")},
			[][]string{{`summary types=["gemini=1","session_metadata=1","sha256:`}}, nil},
		{"no token counts anywhere is an audit gap, and no zero totals",
			[]string{gmHeader, gmUser, gmModel("01", "null", "")},
			[][]string{{"event context.audit_gap.recorded", "context.audit_gap=token_usage_not_logged", "detail=gemini_messages_have_no_token_counts"}},
			[]string{"input_tokens=", "event gen_ai.token_usage.summarized"}},
		{"user messages that are tool responses, slash commands or injected context are not prompts",
			[]string{gmHeader,
				`{"$set":{"messages":[{"id":"4f9c2a7e1b3d5f6a8c0e2b4d6f8a1c3e","timestamp":"2026-03-20T10:00:01.000Z","type":"user","content":[{"text":"<session_context>CANARY-env</session_context>"}]}]}}`,
				gmUser, gmModel("01", gmTokens, gmCall("read_file-1-0", "read_file", "success", "")),
				`{"id":"0a9b8c7d-0201-4e5f-8a6b-7c8d9e0f1e01","timestamp":"2026-03-20T10:00:12.000Z","type":"user","content":[{"functionResponse":{"id":"read_file-1-0","name":"read_file","response":{"output":"CANARY"}}}]}`,
				`{"id":"0a9b8c7d-0202-4e5f-8a6b-7c8d9e0f1e02","timestamp":"2026-03-20T10:00:13.000Z","type":"user","content":"/stats CANARY"}`,
				`{"$set":{"messages":[{"id":"4f9c2a7e1b3d5f6a8c0e2b4d6f8a1c3e","timestamp":"2026-03-20T10:00:01.000Z","type":"user","content":[{"text":"<session_context>CANARY-env</session_context>"}]}]}}`},
			[][]string{
				{"event context.input.loaded", "context.input.kind=environment_context"},
				{"span invoke_agent gemini-cli", "user_prompts.count=1", "tool_responses.count=1", "slash_commands.count=1"},
			}, nil},
		{"a shell command that exits non-zero is a failed call though recorded as a success",
			[]string{gmHeader, gmModel("01", gmTokens, `{"id":"run_shell_command-1-0","name":"run_shell_command","args":{"command":"CANARY"},"status":"success","timestamp":"2026-03-20T10:00:30.000Z",`+
				`"result":[{"functionResponse":{"response":{"output":"Output: CANARY\nExit Code: 1\nProcess Group PGID: 7"}}}]}`)},
			[][]string{{"span execute_tool run_shell_command", "[error]", "gemini_cli.tool_call.status=success", "exit_nonzero=true"}}, nil},
		{"a legacy one-line session document",
			[]string{`{"sessionId":"3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b","projectHash":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","startTime":"2025-09-02T14:04:00.000Z","lastUpdated":"2025-09-02T14:06:00.000Z","messages":[` +
				gmUser + `,` + gmModel("01", gmTokens, gmCall("write_file-1", "write_file", "error", "")) + `]}`},
			[][]string{
				{`summary types=["session_document=1"]`},
				{"span execute_tool write_file < chat gemini-2.5-pro < invoke_agent gemini-cli", "[error]"},
				{"event gen_ai.token_usage.summarized", "input_tokens=1200"},
			}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := convtest.ConvertLines(t, "", "session-2026-03-20T10-00-1b2c3d4e.jsonl", tc.lines...)
			convtest.ExpectOutline(t, res, "gemini_cli", tc.want, tc.not)
		})
	}
}

// TestGeminiCallIDs: a call id embeds the tool name (<name>-<ms>-<n>), so
// the id of a call to a tool that is not built in is hashed, and a
// built-in tool's passes through.
func TestGeminiCallIDs(t *testing.T) {
	res := convtest.ConvertLines(t, "gemini_cli", "s.jsonl", gmHeader,
		gmModel("01", gmTokens, gmCall("mcp_acmeledger_query-1774000008000-1", "mcp_acmeledger_query", "success", "")+","+gmCall("read_file-1774000008000-2", "read_file", "success", "")))
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if bytes.Contains(res.Trace, []byte("acmeledger")) || bytes.Contains(res.Receipt, []byte("acmeledger")) {
		t.Error("an MCP tool's name reached the output through its call id")
	}
	if !bytes.Contains(res.Trace, []byte(`"read_file-1774000008000-2"`)) {
		t.Error("a built-in tool's call id should pass through")
	}
}

// TestGeminiSubagentChat: a subagent chat (chats/<session id>/<id>.jsonl)
// is grouped with its session and nests under the call naming its agent
// id; without that id it takes the oldest call to a built-in agent.
func TestGeminiSubagentChat(t *testing.T) {
	testshared.InRepo(t)
	res := convtest.Convert(t, "samples/gemini_cli/basic", pipeline.Options{})
	if len(res) != 1 || len(res[0].Files) != 2 {
		t.Fatalf("%d inputs (want 1 of 2 files)", len(res))
	}
	got := convtest.Outline(t, res[0])
	for _, w := range [][]string{
		{"span invoke_agent < execute_tool codebase_investigator < chat gemini-3-pro-preview < invoke_agent gemini-cli", "subagent.link=tool_call_agent_id"},
		{"span execute_tool glob < chat gemini-2.5-flash < invoke_agent < execute_tool codebase_investigator"},
		{"event subagent.result.returned", "subagent.result.status=success"},
	} {
		if !convtest.Has(got, w...) {
			t.Errorf("no line with %q in\n%s", w, strings.Join(got, "\n"))
		}
	}

	dir := filepath.Join(t.TempDir(), "chats")
	sid := "1b2c3d4e-5f60-4a71-8b92-a3b4c5d6e7f8"
	write := func(p string, lines ...string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "session-2026-03-20T10-00-1b2c3d4e.jsonl"), gmHeader, gmModel("01", gmTokens, gmCall("c1", "codebase_investigator", "success", "")))
	write(filepath.Join(dir, sid, "7c8d9e0f-1a2b-4c3d-9e4f-5a6b7c8d9e0f.jsonl"),
		`{"sessionId":"7c8d9e0f-1a2b-4c3d-9e4f-5a6b7c8d9e0f","projectHash":"9f86","startTime":"2026-03-20T10:00:31.000Z","lastUpdated":"2026-03-20T10:00:31.000Z","kind":"subagent"}`,
		gmModel("02", gmTokens, ""))
	res = convtest.Convert(t, dir, pipeline.Options{})
	if len(res) != 1 {
		t.Fatalf("%d inputs, want the session and its subagent chat as one", len(res))
	}
	if got := convtest.Outline(t, res[0]); !convtest.Has(got, "span invoke_agent < execute_tool codebase_investigator", "subagent.link=inline_order") {
		t.Errorf("subagent not tied to the agent call:\n%s", strings.Join(got, "\n"))
	}
}

// TestGeminiPrettyPrintedDocument: a legacy session file as the CLI wrote
// it (session-*.json, one JSON document over many lines) is read as one
// record (Format.Document): detected, converted like its compacted copy,
// and nothing of its content reaches a message. A torn document is read
// line by line instead, and its lines are bad lines like any.
func TestGeminiPrettyPrintedDocument(t *testing.T) {
	var v any
	if err := json.Unmarshal([]byte(`{"sessionId":"3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b","projectHash":"9f86","startTime":"2025-09-02T14:04:00.000Z",`+
		`"lastUpdated":"2025-09-02T14:06:00.000Z","messages":[`+gmUser+`,`+gmModel("01", gmTokens, gmCall("c1", "read_file", "success", ""))+`]}`), &v); err != nil {
		t.Fatal(err)
	}
	pretty, _ := json.MarshalIndent(v, "", "  ") // as the CLI wrote it: JSON.stringify(conversation, null, 2)
	var compact bytes.Buffer
	if err := json.Compact(&compact, pretty); err != nil {
		t.Fatal(err)
	}
	doc := convtest.ConvertLines(t, "", "session-2025-09-02T14-04-3e4f5a6b.json", string(pretty))
	if doc.Err != nil || doc.Converter != "gemini_cli" || doc.Stats.Lines != 1 || doc.Stats.Known != 1 {
		t.Fatalf("pretty-printed document: %s %v, %d lines, %d records", doc.Converter, doc.Err, doc.Stats.Lines, doc.Stats.Known)
	}
	one := convtest.ConvertLines(t, "", "session-2025-09-02T14-04-3e4f5a6b.jsonl", compact.String())
	if one.Err != nil || !bytes.Equal(doc.Receipt, one.Receipt) && !convtest.SameButInput(doc.Receipt, one.Receipt) {
		t.Errorf("the document and its compacted copy convert differently: %v", one.Err)
	}
	torn := string(pretty[:len(pretty)/2])
	res := convtest.ConvertLines(t, "gemini_cli", "session-2025-09-02T14-04-3e4f5a6b.json", torn)
	if res.Stats.Known != 0 || res.Stats.SkipReasons["malformed_json"] != res.Stats.Lines {
		t.Errorf("torn: %d records, skipped %v of %d lines", res.Stats.Known, res.Stats.SkipReasons, res.Stats.Lines)
	}
	for _, r := range []pipeline.Result{doc, res} {
		if msg := fmt.Sprint(r.Err) + strings.Join(r.Diags, "\n") + string(r.Receipt) + string(r.Trace); strings.Contains(msg, convtest.Canary) {
			t.Errorf("the file's content reached an output or a message")
		}
	}
}

// TestDetectNeverClaimsAnotherFormat: each native sample is detected as
// its own format; with its reader taken away, no reader claims a Gemini
// CLI or Copilot CLI log (a Gemini chat was detected as Cursor), and
// neither of those readers claims a Claude Code, Codex or Cursor log.
func TestDetectNeverClaimsAnotherFormat(t *testing.T) {
	testshared.InRepo(t)
	var files []string
	for _, name := range []string{"claude_code", "codex", "cursor", "gemini_cli", "copilot_cli"} {
		ins, err := pipeline.Expand([]string{filepath.Join("samples", name)})
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range ins {
			files = append(files, in.Path) // main files: companions are read with them
		}
	}
	if len(files) < 10 {
		t.Fatalf("only %d native samples found", len(files))
	}
	for _, p := range files {
		own := strings.Split(filepath.ToSlash(p), "/")[1]
		types, keys := peek(t, p, converters.All())
		if c, err := converters.Detect(types, keys); err != nil || c.Name != own {
			t.Errorf("%s: detected %q (%v), want %s", p, c.Name, err, own)
		}
		var others []converters.Converter
		for _, c := range converters.All() {
			if c.Name != own {
				others = append(others, c)
			}
		}
		types, keys = peek(t, p, others) // as a build without that reader sees it
		c, err := converters.DetectAmong(others, types, keys)
		switch {
		case err == nil && (own == "gemini_cli" || own == "copilot_cli"):
			t.Errorf("%s: without %s, detection claims it for %s", p, own, c.Name)
		case err == nil && (c.Name == "gemini_cli" || c.Name == "copilot_cli"):
			t.Errorf("%s: without %s, detection claims it for %s", p, own, c.Name)
		}
	}
}

// peek reads p as detection does, seeing only the types convs find.
func peek(t *testing.T, p string, convs []converters.Converter) (map[string]map[string]int, map[string]bool) {
	t.Helper()
	types, keys, err := pipeline.PeekTypes(p, converters.TypersOf(convs))
	if err != nil {
		t.Fatal(err)
	}
	return types, keys
}

// TestGeminiSubagentDocuments: a subagent chat kept as one document
// (chats/<session id>/<id>.json, the older format) is a session of its
// own, as ccusage reports it, whether a walk finds it or it is given
// alone; a .json file anywhere else (a project's other files) is not read
// by a walk.
func TestGeminiSubagentDocuments(t *testing.T) {
	testshared.InRepo(t)
	chats := filepath.Join("samples", "gemini_cli", "legacy_pretty", "tmp", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "chats")
	sub := filepath.Join(chats, "3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b", "4f5a6b7c-8d9e-4f0a-9b1c-2d3e4f5a6b7c.json")
	const subTotals = "in=6500 out=125 cache_read=3072 cache_write=0 responses=2"
	for _, tc := range []struct {
		name, path string
		want       map[string]string // input base name -> totals
	}{
		{"walk", filepath.Join("samples", "gemini_cli", "legacy_pretty"), map[string]string{
			"session-2025-09-02T14-04-3e4f5a6b.json":    "in=16600 out=240 cache_read=6000 cache_write=0 responses=2",
			"4f5a6b7c-8d9e-4f0a-9b1c-2d3e4f5a6b7c.json": subTotals}},
		{"alone", sub, map[string]string{"4f5a6b7c-8d9e-4f0a-9b1c-2d3e4f5a6b7c.json": subTotals}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := map[string]string{}
			for _, r := range convtest.Convert(t, tc.path, pipeline.Options{}) {
				if r.Converter != "gemini_cli" {
					t.Errorf("%s read by %q", r.Path, r.Converter)
				}
				if strings.Contains(string(r.Receipt)+string(r.Trace), convtest.Canary) {
					t.Errorf("%s: canary in an output", r.Path)
				}
				got[filepath.Base(r.Path)] = convtest.Usage(r.Receipt)[""]
			}
			if len(got) != len(tc.want) {
				t.Errorf("inputs %v, want %v", got, tc.want)
			}
			for in, w := range tc.want {
				if got[in] != w {
					t.Errorf("%s: %s, want %s", in, got[in], w)
				}
			}
		})
	}
	// A .json file that is not a chat's is no input of a walk.
	dir := t.TempDir()
	other := filepath.Join(dir, "tmp", "p", "chats", "s", "x.json")
	stray := filepath.Join(dir, "tmp", "p", "notes", "s", "x.json")
	for _, p := range []string{other, stray} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(`{"CANARY":1}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ins, err := pipeline.Expand([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 1 || filepath.Base(filepath.Dir(filepath.Dir(ins[0].Path))) != "chats" {
		t.Errorf("walk inputs %v, want only the chat's document", ins)
	}
}
