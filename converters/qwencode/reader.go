package qwencode

import (
	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/native"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
)

func init() {
	converters.RegisterBuiltin(converters.Converter{
		Name:        "qwen_code",
		Doc:         "Qwen Code chats (projects/<cwd>/chats/<session>.jsonl): tools, MCP, skills, subagents, compression, tokens",
		SpanName:    "invoke_agent",
		TimeField:   "timestamp",
		Types:       qwenTypes,
		OpenTypes:   true,
		PassThrough: qwenPass,
		Labels:      qwenLabels,
		Events: []string{
			"context.audit_gap.recorded", "context.input.loaded", "context.skill.invoked", "mcp.tool_call.completed",
			"subagent.spawned", "subagent.result.returned",
			"context.compaction.started", "context.compaction.summary_loaded", "gen_ai.token_usage.summarized",
		},
		New: func(env converters.Env) converters.State { return newQwen(env) },
		Native: &converters.Format{
			Type:      qwenType,
			Layout:    qwenLayout,
			Locations: qwenLocations,
			Seeds:     []string{"samples/qwen_code"},
			IDs:       qwenIDs,
			Models:    qwenModels,
		},
	})
}

// qwenTypes are ChatRecord's types (chatRecordingService.ts); detection
// scores inputs by them.
var qwenTypes = []string{"user", "assistant", "tool_result", "system"}

// qwenType is a record's type when the record is in Qwen Code's shape,
// else none: a ChatRecord names its uuid, session and time, and carries
// what only Qwen's records carry: a Gemini API Content (message.parts),
// a system payload, usage metadata or a tool call's result. Claude Code's
// records share the type names, uuid and sessionId, but their message
// holds content, never parts: they get no type here, and Qwen's none in
// the Claude Code reader (claudeType).
func qwenType(r converters.Record) view.Value {
	t := r.Top("type")
	if !t.IsString() || t.Str().Empty() || !r.Top("uuid").IsString() || !r.Top("sessionId").IsString() || !r.Top("timestamp").IsString() {
		return view.Value{}
	}
	if IsRecord(r.Top("message"), r.Top("systemPayload"), r.Top("usageMetadata"), r.Top("toolCallResult")) {
		return t
	}
	return view.Value{}
}

// IsRecord reports whether a record with these top-level fields is one
// only Qwen Code writes: its message is a Gemini API Content (parts, no
// content), or it carries a system payload, usage metadata or a tool
// call's result. The Claude Code reader's claudeType holds the same
// rule (a reader imports no other reader).
func IsRecord(message, systemPayload, usageMetadata, toolCallResult view.Value) bool {
	if message.IsObject() && message.Get("parts").IsArray() && !message.Get("content").Exists() {
		return true
	}
	return systemPayload.IsObject() || usageMetadata.IsObject() || toolCallResult.IsObject()
}

// qwenLayout: a session is one file, named by its session id.
var qwenLayout = converters.Layout{
	SessionID: func(base string) string {
		id, _ := native.SessionFileID(base)
		return id
	},
}

// qwenLocations: every project's chats under ~/.qwen, which QWEN_DATA_DIR
// moves (ccusage's adapter/qwen/paths.ts reads projects/<p>/chats/*.jsonl).
var qwenLocations = []converters.Location{{Env: "QWEN_DATA_DIR", Default: ".qwen", Below: "projects/*/chats"}}

// qwenPass are the structural fields whose token values may appear in
// output: ids, enums, model names, built-in tool names, token counts.
var qwenPass = leak.Paths{
	"usageMetadata.promptTokenCount": leak.Count, "usageMetadata.candidatesTokenCount": leak.Count,
	"usageMetadata.thoughtsTokenCount": leak.Count, "usageMetadata.cachedContentTokenCount": leak.Count,
	"usageMetadata.totalTokenCount": leak.Count, "usageMetadata.toolUsePromptTokenCount": leak.Count,
	"systemPayload.info.originalTokenCount": leak.Count, "systemPayload.info.newTokenCount": leak.Count,
	"contextWindowSize": leak.Count,
	"type":              leak.Label, "subtype": leak.Label, "uuid": leak.UUID, "parentUuid": leak.UUID, "sessionId": leak.IDOrUUID,
	"timestamp": leak.Time, "version": leak.Version, "model": leak.Model, "message.role": leak.Label,
	"message.parts.#.functionCall.id": leak.ID, "message.parts.#.functionResponse.id": leak.ID,
	"toolCallResult.callId": leak.ID, "toolCallResult.status": leak.Label, "systemPayload.mode": leak.Label,
	"systemPayload.phase": leak.Label, "systemPayload.status": leak.Label,
	// Names that --reveal names writes in clear; without it they are hashed.
	"message.parts.#.functionCall.name": leak.Name, "message.parts.#.functionResponse.name": leak.Name,
	"message.parts.#.functionCall.args.skill": leak.Name, "message.parts.#.functionCall.args.subagent_type": leak.Name,
}

// qwenLabels are the values of its label fields the reader knows, written
// in clear; any other value of a label field is written as its digest.
var qwenLabels = []string{
	"tool_result", "model", "cancelled", "invocation", "result",
	"session_notes", "chat_compression", "slash_command", "ui_telemetry", "at_command", "attribution_snapshot",
	"notification", "custom_title", "session_model", "session_approval_mode", "rewind",
	"default", "plan", "auto-edit", "yolo",
}

// qwenBuiltinTools are Qwen Code's own tool names (tools/tool-names.ts,
// and the legacy names it migrates): public, so they pass through. Any
// other name (MCP, extensions, discovered tools) is hashed unless
// --reveal names.
var qwenBuiltinTools = map[string]bool{
	"edit": true, "write_file": true, "read_file": true, "grep_search": true, "glob": true, "run_shell_command": true,
	"task_create": true, "task_get": true, "task_list": true, "task_update": true, "task_stop": true, "task_output": true,
	"save_memory": true, "agent": true, "skill": true, "exit_plan_mode": true, "web_fetch": true, "web_search": true,
	"list_directory": true, "lsp": true, "ask_user_question": true, "read_many_files": true,
	"search_file_content": true, "replace": true, "task": true, "todo_write": true,
}
