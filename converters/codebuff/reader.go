package codebuff

import (
	"math"
	"path/filepath"
	"time"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/tidwall/gjson"
)

func init() {
	converters.RegisterBuiltin(converters.Converter{
		Name:        "codebuff",
		Doc:         "Codebuff chats (manicode/projects/<p>/chats/<id>/chat-messages.json): tools, subagents, knowledge files, tokens",
		SpanName:    "invoke_agent",
		Types:       codebuffTypes,
		OpenTypes:   true,
		PassThrough: codebuffPass,
		Labels:      codebuffLabels,
		Events: []string{
			"context.audit_gap.recorded", "context.input.loaded", "context.skill.invoked",
			"subagent.spawned", "subagent.result.returned", "gen_ai.token_usage.summarized",
			"mcp.tool_call.completed", // a tool named mcp__<server>__<tool> (native.DescribeTool)
		},
		New: func(env converters.Env) converters.State { return newCodebuff(env) },
		Native: &converters.Format{
			Type:      codebuffType,
			Time:      codebuffTime,
			Layout:    codebuffLayout,
			Document:  codebuffDocument,
			Locations: codebuffLocations,
			Seeds:     []string{"samples/codebuff"},
			IDs:       codebuffIDs,
		},
	})
}

// codebuffVariants are ChatMessage's variants (cli/src/types/chat.ts).
var codebuffVariants = []string{"ai", "user", "agent", "error"}

// codebuffTypes are the record types detection scores inputs by: the
// variants, and assistant for a message that names its role instead
// (ccusage reads role when there is no variant).
var codebuffTypes = append([]string{"assistant", "run_state"}, codebuffVariants...)

// codebuffType is a message's type when it is in Codebuff's shape, else
// none. A ChatMessage {id, variant, content, blocks, timestamp, ...} is
// typed by its variant; a variant Codebuff does not name yet only when the
// message has the whole shape (id, content and timestamp). A message that
// names a role instead of a variant is typed only when it carries what
// only Codebuff writes: credits, or Codebuff's usage or run state in its
// metadata; {role, content} alone is every chat log's shape. In the
// chat's run-state.json, read with it as a companion (never alone), the
// RunState {sessionState, output} is typed run_state.
func codebuffType(r converters.Record) view.Value {
	if r.File > 0 {
		if r.Top("sessionState").IsObject() {
			return codebuffRunStateType
		}
		return view.Value{}
	}
	if v := r.Top("variant"); v.IsString() {
		if _, known := v.Str().Word(codebuffVariants...); known {
			if r.Top("id").IsString() || r.Top("content").IsString() || r.Top("blocks").IsArray() || r.Top("metadata").IsObject() {
				return v
			}
			return view.Value{}
		}
		if !v.Str().Empty() && r.Top("id").IsString() && r.Top("content").IsString() && r.Top("timestamp").IsString() {
			return v // a new variant, counted by digest
		}
		return view.Value{}
	}
	role := r.Top("role")
	if !role.IsString() {
		return view.Value{}
	}
	if _, ok := role.Str().Word("assistant", "ai", "agent", "user"); !ok {
		return view.Value{}
	}
	md := r.Top("metadata")
	if r.Top("credits").IsNumber() || md.Get("codebuff").IsObject() || md.Get("runState").IsObject() {
		if role.Str().Is("user") {
			return codebuffUserType
		}
		return codebuffAssistantType
	}
	return view.Value{}
}

// The role types, as JSON strings of their own.
var (
	codebuffAssistantType = view.Parse(`"assistant"`)
	codebuffUserType      = view.Parse(`"user"`)
	codebuffRunStateType  = view.Parse(`"run_state"`)
)

// codebuffTime is a message's time as ccusage reads it: timestamp, else
// createdAt, else metadata.timestamp; an RFC 3339 string, or Unix seconds
// or milliseconds. The CLI's display times (12:00) are no time: none.
func codebuffTime(r converters.Record) view.Value {
	for _, v := range []view.Value{r.Top("timestamp"), r.Top("createdAt"), r.Top("metadata").Get("timestamp")} {
		switch {
		case v.IsString() && v.Str().Check(isTime):
			return v
		case v.IsNumber():
			if t, ok := epochTime(v.Float()); ok {
				// A document of its own: the formatted time is no view of the line.
				return view.Of(gjson.Result{Type: gjson.String, Str: t})
			}
		}
	}
	return view.Value{}
}

func isTime(s string) bool {
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// epochTime reads Unix seconds, or milliseconds from 10^10 on, as ccusage
// does.
func epochTime(n float64) (string, bool) {
	if n <= 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return "", false
	}
	ms := n
	if n < 10_000_000_000 {
		ms = n * 1000
	}
	if ms > 7258118400000 { // after 2200: not a time
		return "", false
	}
	return time.UnixMilli(int64(ms)).UTC().Format(time.RFC3339Nano), true
}

// codebuffDocument: a chat's messages are one JSON array, written whole
// (pretty-printed) at each save (cli/src/utils/run-state-storage.ts).
func codebuffDocument(base string) bool { return base == "chat-messages.json" }

// codebuffLayout: a chat is its folder, chats/<chat id>/; its
// chat-messages.json is the session, and run-state.json beside it (the
// SDK's RunState, one JSON document: Gemini CLI's Format.DocumentAt reads
// chats/<id>/*.json so) is read with it for its knowledge files; ccusage
// reads no run-state.json.
var codebuffLayout = converters.Layout{
	Session: func(p string, _ func(string) string) ([]string, bool) {
		if filepath.Base(p) != "chat-messages.json" || filepath.Base(filepath.Dir(filepath.Dir(p))) != "chats" {
			return nil, false
		}
		return []string{filepath.Dir(p)}, true
	},
}

// codebuffLocations: every project's chats under ~/.config/manicode (and
// the -dev and -staging channels'), which CODEBUFF_DATA_DIR moves, as
// ccusage 20.0.24 reads them (adapter/codebuff/paths.ts).
var codebuffLocations = []converters.Location{
	{Env: "CODEBUFF_DATA_DIR", Default: ".config/manicode", Below: "projects"},
	{Default: ".config/manicode-dev", Below: "projects"},
	{Default: ".config/manicode-staging", Below: "projects"},
}

// codebuffPass are the structural fields whose token values may appear in
// output: ids, enums, model names, token counts, built-in tool names.
var codebuffPass = leak.Paths{
	// Token counts, under every name ccusage reads (doc.go).
	"*.inputTokens": leak.Count, "*.input_tokens": leak.Count, "*.promptTokens": leak.Count, "*.prompt_tokens": leak.Count,
	"*.outputTokens": leak.Count, "*.output_tokens": leak.Count, "*.completionTokens": leak.Count,
	"*.completion_tokens": leak.Count, "*.cacheReadInputTokens": leak.Count, "*.cache_read_input_tokens": leak.Count,
	"*.cachedTokens": leak.Count, "*.cached_tokens": leak.Count, "*.cacheCreationInputTokens": leak.Count,
	"*.cache_creation_input_tokens": leak.Count, "*.cacheCreationTokens": leak.Count, "*.cache_creation_tokens": leak.Count,
	"*.cachedTokensCreated": leak.Count, "*.cached_tokens_created": leak.Count,
	"variant": leak.Label, "role": leak.Label, "timestamp": leak.Time, "createdAt": leak.Time,
	"metadata.model": leak.Model, "metadata.usage.model": leak.Model, "metadata.codebuff.usage.model": leak.Model,
	"metadata.runState.sessionState.mainAgentState.messageHistory.#.providerOptions.codebuff.model":       leak.Model,
	"metadata.runState.sessionState.mainAgentState.messageHistory.#.providerOptions.usage.model":          leak.Model,
	"metadata.runState.sessionState.mainAgentState.messageHistory.#.providerOptions.codebuff.usage.model": leak.Model,
	"blocks.#.type": leak.Label, "blocks.#.status": leak.Label, "blocks.#.textType": leak.Label,
	"blocks.#.toolCallId": leak.ID, "blocks.#.blocks.#.type": leak.Label, "blocks.#.blocks.#.status": leak.Label,
	"blocks.#.blocks.#.textType": leak.Label, "blocks.#.blocks.#.toolCallId": leak.ID,
	// Names that --reveal names writes in clear (built-in tools always);
	// without it they are hashed.
	"blocks.#.toolName": leak.Name, "blocks.#.blocks.#.toolName": leak.Name,
	"blocks.#.agentType": leak.Name, "blocks.#.blocks.#.agentType": leak.Name,
	// the skill tool's name (input.name, or input.skill), at either depth
	"blocks.#.input.name": leak.Name, "blocks.#.input.skill": leak.Name,
	"blocks.#.blocks.#.input.name": leak.Name, "blocks.#.blocks.#.input.skill": leak.Name,
}

// codebuffLabels are the values of its label fields the reader knows,
// written in clear; any other value of a label field is written as its
// digest.
var codebuffLabels = []string{
	"ai", "agent", "assistant", "tool", "text", "reasoning", "agent-list", "mode-divider", "plan", "gate-state",
	"ask-user", "image", "html", "running", "complete", "failed", "cancelled",
}

// codebuffBuiltinTools are Codebuff's own tool names (common/src/tools/
// constants.ts, toolNames): public, so they pass through. Any other name
// (an MCP server's tool, a custom tool of an agent template) is hashed
// unless --reveal names.
var codebuffBuiltinTools = map[string]bool{
	"apply_patch": true, "apply_smart_patch": true, "add_subgoal": true, "add_message": true, "ask_user": true,
	"browser_logs": true, "check_job": true, "code_search": true, "create_plan": true, "end_turn": true,
	"edit_transaction": true, "find_files": true, "find_files_matching_content": true, "git_status": true,
	"glob": true, "kill_job": true, "list_directory": true, "lookup_agent_info": true,
	"propose_edit_transaction": true, "propose_str_replace": true, "propose_write_file": true, "query_index": true,
	"read_docs": true, "read_files": true, "read_image": true, "read_logs": true, "read_outline": true,
	"read_slices": true, "read_proposal_workspace": true, "read_subtree": true, "replace_range": true,
	"rewrite_symbol": true, "render_ui": true, "run_file_change_hooks": true, "run_terminal_command": true,
	"set_messages": true, "set_output": true, "skill": true, "spawn_agents": true, "spawn_agent_inline": true,
	"str_replace": true, "suggest_followups": true, "task_completed": true, "think_deeply": true,
	"update_plan_status": true, "update_subgoal": true, "web_search": true, "write_file": true, "write_todos": true,
}
