package droid

import (
	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
)

// droid reads Factory Droid's session files
// (~/.factory/sessions/<project>/<id>.jsonl): a session_start line {type,
// id, title, sessionTitle, owner, version, cwd, and callingSessionId for a
// subagent's session}, then message records {type: "message", id,
// timestamp, parentId, message: {role user or assistant, content blocks
// text, thinking, tool_use {id, name, input} and tool_result
// {tool_use_id, content, is_error}}}. The transcript holds no token usage:
// Droid keeps the session's totals in <id>.settings.json {model,
// providerLock, providerLockTimestamp, tokenUsage {inputTokens,
// outputTokens, cacheCreationTokens, cacheReadTokens, thinkingTokens},
// tags}, which the pipeline reads with the transcript (Layout.MainSidecar)
// and this reader counts as ccusage counts it.
//
// It writes a trace in the GenAI shape (an invoke_agent root, a chat span
// per assistant message, an execute_tool span per tool call), MCP calls
// (mcp__server__tool names), subagents started by the Task tool (their own
// sessions, converted on their own; a subagent's receipt names its calling
// session), token usage from the sidecar, and an audit gap: AGENTS.md and
// the system prompt load without a record.
//
// Prompts, titles, thinking, tool arguments and results, paths and cwd are
// raw: hashed or measured, never copied. Built-in tool names pass through;
// other tool names and MCP server and tool names are hashed unless
// --reveal names.
func init() {
	converters.RegisterBuiltin(converters.Converter{
		Name:        "droid",
		Doc:         "Factory Droid sessions (JSONL with their .settings.json): tools, MCP, subagents, tokens",
		SpanName:    "invoke_agent",
		TypeField:   "type",
		TimeField:   "timestamp",
		Types:       droidTypes,
		OpenTypes:   true,
		PassThrough: droidPass,
		Labels:      droidLabels,
		Events: []string{
			"context.audit_gap.recorded", "mcp.tool_call.completed", "subagent.spawned", "subagent.result.returned",
			"context.skill.invoked", "context.compaction.started", "context.compaction.summary_loaded",
			"gen_ai.token_usage.summarized",
		},
		New: func(env converters.Env) converters.State { return newDroid(env) },
		Native: &converters.Format{
			Type:       droidType,
			Layout:     droidLayout,
			Locations:  droidLocations,
			DocumentAt: droidOrphanSettings,
			Seeds:      []string{"samples/droid"},
			IDs:        droidIDs,
		},
	})
}

// droidTypes are the record types of a Droid session file, and settings:
// a session's <id>.settings.json read on its own, when its transcript is
// gone (droidOrphanSettings).
var droidTypes = []string{"session_start", "message", "settings", "compaction_state"}

// droidSettingsType is the type of a settings document read on its own:
// it has no type field, and is Droid's by its tokenUsage.
var droidSettingsType = view.Parse(`"settings"`)

// droidType is a record's type when the record is in Droid's shape, else
// none: a settings document (droidSettings), the session_start line (its own type name, with an id), a message
// record whose message has a role of user or assistant and an array of
// content blocks and, unlike pi's, no time of its own, or another record
// with an id and a time (todo_state: counted, not read). Other agents'
// lines that share the type name message get none, and their other types
// are not Droid's: detection, which claims an input for Droid only when
// most of its typed lines are session_start and message records, never
// hands their logs to this reader.
func droidType(r converters.Record) view.Value {
	t := r.Top("type")
	if !t.Exists() && droidSettings(r) {
		return droidSettingsType
	}
	if !t.IsString() || !r.Top("id").IsString() {
		return view.Value{}
	}
	switch {
	case t.Str().Is("session_start"):
		return t
	case t.Str().Is("message"):
		m := r.Top("message")
		if !r.Top("timestamp").IsString() || !m.Get("content").IsArray() || m.Get("timestamp").Exists() {
			return view.Value{}
		}
		if role := m.Get("role").Str(); role.Is("user") || role.Is("assistant") {
			return t
		}
	case r.Top("timestamp").IsString():
		return t
	}
	return view.Value{}
}

// droidPass are the structural fields whose token values may appear in
// output: ids, enums, model names, built-in tool names, and the settings
// sidecar's model, provider and counts.
var droidPass = leak.Paths{
	"type": leak.Label, "id": leak.IDOrUUID, "parentId": leak.IDOrUUID, "timestamp": leak.Time, "version": leak.Count,
	"callingSessionId": leak.IDOrUUID, "message.role": leak.Label, "message.content.#.type": leak.Label,
	"message.content.#.id": leak.ID, "message.content.#.tool_use_id": leak.ID,
	// Names that --reveal names writes in clear; without it they are hashed.
	"message.content.#.name": leak.Name, "message.content.#.input.subagent_type": leak.Name,
	"message.content.#.input.skill": leak.Name,
	// compaction_state: the kind of summary and its figures.
	"summaryKind": leak.Label, "summaryTokens": leak.Count, "removedCount": leak.Count,
	// The settings sidecar.
	"model": leak.Model, "providerLock": leak.Label, "apiProviderLock": leak.Label, "providerLockTimestamp": leak.Time,
	"reasoningEffort": leak.Label, "autonomyLevel": leak.Label, "tags.#.name": leak.Label,
	"tokenUsage.inputTokens": leak.Count, "tokenUsage.outputTokens": leak.Count, "tokenUsage.cacheCreationTokens": leak.Count,
	"tokenUsage.cacheReadTokens": leak.Count, "tokenUsage.thinkingTokens": leak.Count,
}

// droidLabels are the values of its label fields the reader knows, written
// in clear; any other value of a label field is written as its digest.
var droidLabels = []string{
	"auto-medium", "auto-high",
	"auto-low", "fireworks", "generic-chat-completion-api", "mission-session", "todo_state",
}

// droidBuiltinTools are the tools Droid ships: public, so their names pass
// through. Any other name (MCP, a custom droid's) is hashed unless
// --reveal names.
var droidBuiltinTools = map[string]bool{
	"Read": true, "LS": true, "Execute": true, "Edit": true, "MultiEdit": true, "Create": true, "Grep": true,
	"Glob": true, "ApplyPatch": true, "TodoWrite": true, "WebSearch": true, "FetchUrl": true, "Task": true,
	"ExitSpecMode": true, "GenerateDroid": true, "Skill": true,
}

// droidSettings reports a session's settings document read as a record of
// its own: an object with no type whose tokenUsage holds Droid's counts
// (inputTokens and outputTokens), or, before any usage was written, whose
// model comes with Droid's own settings (providerLock, reasoningEffort,
// autonomyLevel, assistantActiveTimeMs): shapes no other agent's log line
// has.
func droidSettings(r converters.Record) bool {
	if u := r.Top("tokenUsage"); u.IsObject() && u.Get("inputTokens").IsNumber() && u.Get("outputTokens").IsNumber() {
		return true
	}
	if !r.Top("model").IsString() {
		return false
	}
	return r.Top("providerLock").IsString() || r.Top("reasoningEffort").IsString() || r.Top("autonomyLevel").IsString() ||
		r.Top("assistantActiveTimeMs").IsNumber()
}
