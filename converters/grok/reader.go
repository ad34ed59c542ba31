package grok

import (
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/tidwall/gjson"
)

func init() {
	converters.RegisterBuiltin(converters.Converter{
		Name:        "grok",
		Doc:         "Grok Build CLI sessions (sessions/<cwd>/<id>/updates.jsonl with summary.json): tools, MCP calls, subagents, tokens",
		SpanName:    "invoke_agent",
		Types:       grokTypes,
		OpenTypes:   true,
		PassThrough: grokPass,
		Labels:      grokLabels,
		Events: []string{
			"context.audit_gap.recorded", "mcp.tool_call.completed", "subagent.spawned", "subagent.result.returned",
			"gen_ai.token_usage.summarized",
		},
		New: func(env converters.Env) converters.State { return newGrok(env) },
		Native: &converters.Format{
			Type:      grokType,
			Time:      grokTime,
			Layout:    grokLayout,
			Locations: grokLocations,
			Seeds:     []string{"samples/grok"},
			IDs:       grokIDs,
		},
	})
}

// grokTypes are the session updates this reader knows: the Agent Client
// Protocol's (user_message_chunk ... plan) and Grok's turn_completed; the
// other files of a session's folder are typed session_file_line.
var grokTypes = []string{
	"user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan",
	"available_commands_update", "current_mode_update", "turn_completed", "session_file_line",
}

var grokFileLine = view.Parse(`"session_file_line"`)

// grokType is a line's type when it is one of Grok's session updates, else
// none: {timestamp: a number or a string, params: {update: {sessionUpdate:
// a word}}}, the JSON-RPC notification Grok writes to updates.jsonl. A line
// of another file of the session's folder (events.jsonl, chat_history.jsonl),
// read only with its updates.jsonl, is counted, never read.
func grokType(r converters.Record) view.Value {
	if r.File != 0 {
		return grokFileLine
	}
	ts := r.Top("timestamp")
	if !ts.IsNumber() && !ts.IsString() {
		return view.Value{}
	}
	p := r.Top("params")
	if !p.IsObject() {
		return view.Value{}
	}
	if t := p.Get("update.sessionUpdate"); t.IsString() && !t.Str().Empty() {
		return t
	}
	return view.Value{}
}

// grokTime is a line's time: Unix seconds (as ccusage 20.0.24 reads every
// number), or an RFC 3339 string, as an RFC 3339 string.
func grokTime(r converters.Record) view.Value {
	ts := r.Top("timestamp")
	var t time.Time
	switch {
	case ts.IsNumber():
		s := ts.Float()
		if s <= 0 || s > 7258118400 || math.IsNaN(s) { // after 2200: not a time
			return view.Value{}
		}
		t = time.Unix(0, int64(math.Round(s*1e6))*1e3)
	case ts.IsString():
		ok := ts.Str().Check(func(v string) bool {
			p, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v))
			t = p
			return err == nil
		})
		if !ok {
			return view.Value{}
		}
	default:
		return view.Value{}
	}
	// A document of its own: the formatted time is no view of the line.
	return view.Of(gjson.Result{Type: gjson.String, Str: t.UTC().Format(time.RFC3339Nano)})
}

// grokLayout: a session is its folder, sessions/<url-encoded cwd>/<id>/;
// updates.jsonl is the main file, summary.json its sidecar (the model and
// working directory), and the folder's other .jsonl files are read with it.
var grokLayout = converters.Layout{
	Session: func(p string, _ func(string) string) ([]string, bool) {
		if filepath.Base(p) != "updates.jsonl" {
			return nil, false
		}
		return []string{filepath.Dir(p)}, true
	},
	MainSidecar: func(main string) string {
		if filepath.Base(main) != "updates.jsonl" {
			return ""
		}
		return filepath.Join(filepath.Dir(main), "summary.json")
	},
}

// grokLocations: every session under ~/.grok/sessions, which GROK_HOME
// moves (ccusage 20.0.24's places).
var grokLocations = []converters.Location{{Env: "GROK_HOME", Default: ".grok", Below: "sessions"}}

// grokPass are the structural fields whose values may appear in output:
// ids, enums, built-in tool names, model names, token counts.
var grokPass = leak.Paths{
	"params.sessionId": leak.IDOrUUID, "params._meta.eventId": leak.IDOrUUID, "params._meta.promptId": leak.IDOrUUID,
	"params.update._meta.modelId":     leak.Model,
	"params.update._meta.promptIndex": leak.Count,
	// summary.json, the sidecar.
	"current_model_id": leak.Model, "info.id": leak.IDOrUUID, "created_at": leak.Time, "last_active_at": leak.Time, "params.update.prompt_id": leak.IDOrUUID,
	"params.update.stop_reason": leak.Label, "params.update.toolCallId": leak.ID, "params.update.status": leak.Label,
	"params.update.kind": leak.Label, "params.update._meta.x.ai/tool.kind": leak.Label,
	"params.update._meta.x.ai/tool.namespace": leak.Label,
	"params.update.usage.inputTokens":         leak.Count, "params.update.usage.outputTokens": leak.Count,
	"params.update.usage.cachedReadTokens": leak.Count, "params.update.usage.cacheCreationTokens": leak.Count,
	"params.update.usage.reasoningTokens": leak.Count, "params.update.usage.totalTokens": leak.Count,
	// Names that --reveal names writes in clear; without it they are hashed.
	"params.update._meta.x.ai/tool.name": leak.Name,
}

// grokLabels are the values of its label fields the reader knows.
var grokLabels = []string{
	"pending", "in_progress", "completed", "failed", "Pending", "InProgress", "Completed", "Failed",
	"end_turn", "cancelled", "max_tokens", "refusal", "read", "edit", "delete", "move", "search", "execute",
	"think", "fetch", "switch_mode", "other", "task", "skill", "mcp", "grok_build",
}

// grokBuiltinTools are Grok Build's own tool names (xai-grok-tools, as
// its ACP tool metadata names them): public, so they pass through. Any
// other name is hashed unless --reveal names.
var grokBuiltinTools = map[string]bool{
	"read_file": true, "search_replace": true, "run_terminal_command": true, "grep": true, "list_dir": true,
	"todo_write": true, "write": true, "web_fetch": true, "web_search": true, "skill": true, "task": true,
	"task_output": true, "wait_tasks": true, "kill_task": true, "apply_patch": true, "memory_search": true,
	"memory_get": true, "enter_plan_mode": true, "exit_plan_mode": true, "ask_user_question": true, "lsp": true,
	"monitor": true, "image_gen": true, "search_tool": true, "use_tool": true,
}
