package copilotcli

import (
	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/leak"
)

// copilot_cli reads GitHub Copilot CLI session event logs
// (~/.copilot/session-state/<session-id>/events.jsonl): one event a line,
// {type, data, id, parentId, timestamp, agentId?}, in the vocabulary of the
// session-events schema the Copilot SDK is generated from
// (github/copilot-sdk nodejs/src/generated/session-events.ts). Events the
// runtime marks ephemeral (assistant.usage, deltas) are not written to
// disk, so per-call input tokens are normally absent: the session's tokens
// come from session.shutdown's per-model metrics, and a session without a
// shutdown record (still running, or crashed) says so in an audit gap.
//
// It writes a trace in the GenAI shape (an invoke_agent root, a chat span
// per assistant turn, an execute_tool span per tool call, subagents as
// invoke_agent spans under the tool call that started them), MCP calls,
// skills, compaction, system messages as context loads, and audit gaps
// for what the log does not record.
//
// Prompts, reasoning, tool arguments and results, skill bodies, paths and
// cwd are raw: hashed or measured, never copied. Built-in tool names pass
// through; MCP server and tool names, skill names and custom agent names
// are hashed unless --reveal names. This file is the glue (registration,
// default location); records.go maps the events.
func init() {
	converters.RegisterBuiltin(converters.Converter{
		Name:        "copilot_cli",
		Doc:         "GitHub Copilot CLI session events (session-state/<id>/events.jsonl): tools, MCP, skills, subagents, tokens",
		SpanName:    "invoke_agent",
		TypeField:   "type",
		TimeField:   "timestamp",
		Types:       copilotTypes,
		Hints:       []string{"parentId", "data"},
		OpenTypes:   true,
		PassThrough: copilotPass,
		Labels:      copilotLabels,
		Events: []string{
			"context.audit_gap.recorded", "context.input.loaded", "context.skill.invoked", "mcp.tool_call.completed",
			"context.compaction.started", "context.compaction.summary_loaded", "subagent.spawned",
			"subagent.result.returned", "gen_ai.token_usage.summarized",
		},
		New: func(env converters.Env) converters.State { return newCopilot(env) },
		Native: &converters.Format{
			// ~/.copilot/session-state/<session id>/events.jsonl, or under
			// $COPILOT_HOME (the CLI's own config-directory override).
			Locations: []converters.Location{{Env: "COPILOT_HOME", Default: ".copilot", Below: "session-state"}},
			Seeds:     []string{"samples/copilot_cli"},
			IDs:       copilotIDs,
		},
	})
}

// copilotTypes are the event types this converter knows (the persisted
// ones of the session-events schema, and assistant.usage, which some
// builds write); detection scores inputs by them. Others are counted (by
// digest) and otherwise ignored.
var copilotTypes = []string{
	"session.start", "session.resume", "session.error", "session.idle", "session.title_changed", "session.info",
	"session.warning", "session.model_change", "session.mode_changed", "session.plan_changed", "session.todos_changed",
	"session.workspace_file_changed", "session.handoff", "session.truncation", "session.snapshot_rewind",
	"session.shutdown", "session.context_changed", "session.usage_info", "session.compaction_start",
	"session.compaction_complete", "session.task_complete", "session.tools_updated", "user.message",
	"pending_messages.modified", "assistant.turn_start", "assistant.intent", "assistant.reasoning", "assistant.message",
	"assistant.turn_end", "assistant.usage", "abort", "tool.user_requested", "tool.execution_start",
	"tool.execution_partial_result", "tool.execution_progress", "tool.execution_complete",
	"subagent.started", "subagent.completed", "subagent.failed", "subagent.selected", "subagent.deselected",
	"hook.start", "hook.end", "system.message", "system.notification", "permission.requested", "permission.completed",
	"session.usage_checkpoint",
}

// copilotUnlisted are event types the reader maps but does not list in
// Types: the scenario converter skill reads a log of the same type name,
// and a shared name would weaken its claim on its own logs in detection.
var copilotUnlisted = []string{"skill.invoked"}

// copilotPass are the structural fields whose token values may appear in
// output: ids, enums, versions, model names, built-in tool names.
var copilotPass = leak.Paths{
	// Token counts and durations: numbers the reader sums or buckets.
	"*.inputTokens": leak.Count, "*.outputTokens": leak.Count, "*.cacheReadTokens": leak.Count,
	"*.cacheWriteTokens": leak.Count, "*.reasoningTokens": leak.Count, "*.count": leak.Count,
	"*.preCompactionTokens": leak.Count, "*.postCompactionTokens": leak.Count, "*.totalApiDurationMs": leak.Count,
	"*.totalPremiumRequests": leak.Count, "*.duration": leak.Count,
	// AI credits in nano units (nanoAiu): a running total that passes
	// MaxCount in a healthy session.
	"*.totalNanoAiu": leak.Cumulative,
	"type":           leak.Label, "id": leak.IDOrUUID, "parentId": leak.IDOrUUID, "timestamp": leak.Time, "agentId": leak.ID,
	"data.sessionId": leak.IDOrUUID, "data.copilotVersion": leak.Version, "data.producer": leak.Label,
	"data.selectedModel": leak.Model, "data.newModel": leak.Model, "data.previousModel": leak.Model,
	"data.model": leak.Model, "data.currentModel": leak.Model, "data.toolCallId": leak.ID, "data.toolName": leak.Name,
	"data.parentToolCallId": leak.ID, "data.turnId": leak.IDOrUUID, "data.messageId": leak.IDOrUUID, "data.interactionId": leak.IDOrUUID,
	"data.reasoningId": leak.IDOrUUID, "data.toolRequests.#.toolCallId": leak.ID, "data.toolRequests.#.name": leak.Name,
	"data.toolRequests.#.type": leak.Label, "data.infoType": leak.Label, "data.errorType": leak.Label,
	"data.shutdownType": leak.Label, "data.trigger": leak.Label, "data.source": leak.Label, "data.role": leak.Label,
	"data.agentMode": leak.Label, "data.attachments.#.type": leak.Label, "data.error.code": leak.Label,
	// Names that --reveal names writes in clear; without it they are hashed.
	"data.mcpServerName": leak.Name, "data.mcpToolName": leak.Name, "data.agentName": leak.Name, "data.name": leak.Name,
}

// copilotLabels are the values of its label fields the reader knows, written
// in clear; any other value of a label field is written as its digest.
var copilotLabels = []string{
	"function",
	"copilot-agent", "folder_trust", "interactive", "routine",
}

// copilotBuiltinTools are Copilot CLI's own tool names: public, so they
// pass through. Any other tool name (MCP, extensions) is hashed unless
// --reveal names.
var copilotBuiltinTools = map[string]bool{
	"bash": true, "write_bash": true, "read_bash": true, "stop_bash": true, "list_bash": true, "powershell": true,
	"view": true, "create": true, "edit": true, "str_replace_editor": true, "apply_patch": true, "glob": true,
	"grep": true, "rg": true, "web_fetch": true, "web_search": true, "task": true, "read_agent": true,
	"list_agents": true, "report_intent": true, "update_todo": true, "think": true, "skill": true, "fetch_copilot_cli_documentation": true,
	"ask_user": true, "exit_plan_mode": true, "store_memory": true, "sql": true, "show_file": true,
}
