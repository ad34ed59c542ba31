package piagent

import (
	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
)

// pi_agent reads the session files of the pi coding agent
// (badlogic/pi-mono, packages/coding-agent/src/core/session-manager.ts,
// session format v3): a header line {type: "session", version, id,
// timestamp, cwd}, then entries of a tree, each {type, id, parentId,
// timestamp, ...}: message (an AgentMessage: role user, assistant,
// toolResult, bashExecution, custom; assistant content blocks text,
// thinking and toolCall, and usage {input, output, cacheRead, cacheWrite,
// totalTokens, cost}), model_change, thinking_level_change, compaction,
// branch_summary, custom (extension state), custom_message (extension text
// sent to the model), label and session_info. Entries of abandoned branches
// stay in the file: every entry is read, as ccusage reads them.
//
// OpenClaw keeps its agents' sessions in the same format
// (~/.openclaw/agents/<agent>/sessions/<session id>.jsonl): this reader
// reads them too, and names the agent openclaw when a log carries an entry
// only OpenClaw writes (its model-snapshot and openclaw.* custom entries).
// A session of either agent that carries none is the same bytes: there is
// nothing to tell them apart by.
//
// A subagent extension's call of the subagent tool starts runs that are
// sessions of their own: a pi session, or the transcript pi-subagents
// writes (piRunType), read here as one; OpenClaw's reset and deleted
// transcript archives are read in their session (layout.go).
//
// It writes a trace in the GenAI shape (an invoke_agent root, a chat span
// per assistant message, an execute_tool span per tool call), MCP calls
// (mcp__server__tool names), skills expanded by /skill:name, compaction and
// branch summaries, extension messages and user shell commands as context
// loads, token usage per model, and an audit gap: AGENTS.md and the system
// prompt load without a record.
//
// Prompts, thinking, tool arguments and results, summaries, paths and cwd
// are raw: hashed or measured, never copied. Built-in tool names pass
// through; other tool names, MCP server and tool names, skill names and
// extension types are hashed unless --reveal names. This file is the glue
// (registration, record typing); layout.go says where sessions are;
// records.go maps the entries.
func init() {
	converters.RegisterBuiltin(converters.Converter{
		Name:        "pi_agent",
		Doc:         "pi coding agent and OpenClaw sessions (format v3 JSONL): tools, MCP, skills, compaction, tokens",
		SpanName:    "invoke_agent",
		TypeField:   "type",
		TimeField:   "timestamp",
		Types:       piTypes,
		OpenTypes:   true,
		PassThrough: piPass,
		Labels:      piLabels,
		Events: []string{
			"context.audit_gap.recorded", "context.input.loaded", "context.skill.invoked", "mcp.tool_call.completed",
			"subagent.spawned", "subagent.result.returned",
			"context.compaction.started", "context.compaction.summary_loaded", "gen_ai.token_usage.summarized",
		},
		New: func(env converters.Env) converters.State { return newPi(env) },
		Native: &converters.Format{
			Type:       piType,
			Time:       piTime,
			Layout:     piLayout,
			Locations:  piLocations,
			DocumentAt: piArchive,
			Seeds:      []string{"samples/pi_agent"},
			Store:      clawStore,
			IDs:        piIDs,
		},
	})
}

// piTypes are the entry types of session format v3; detection scores
// inputs by them.
var piTypes = []string{
	"session", "message", "model_change", "thinking_level_change", "compaction", "branch_summary", "custom",
	"custom_message", "label", "session_info", "tool_start", "tool_end", "stdout", "store",
	// OpenClaw's trajectory events (trajectory.go).
	"session.started", "trace.metadata", "context.compiled", "prompt.submitted", "tool.call", "tool.result",
	"model.completed", "trace.artifacts", "session.ended", "trace.truncated",
}

// piType is a record's type when the record is in pi's shape, else none:
// the header (type session with id and cwd), a message entry whose message
// has a role and the time in milliseconds every pi-ai message carries, or
// another entry of the tree (id, parentId, even null, and an ISO
// timestamp). Other agents' lines that share a type name (Factory Droid's
// message records have no parentId on their first and no message time)
// get none, so detection never hands their logs to this reader.
func piType(r converters.Record) view.Value {
	if r.Top("openclaw_store").IsObject() {
		return clawStoreType
	}
	if t, ok := clawTrajectoryType(r); ok {
		return t
	}
	if rt := r.Top("recordType"); rt.IsString() && !r.Top("type").Exists() {
		return piRunType(r, rt)
	}
	t := r.Top("type")
	if !t.IsString() || !r.Top("timestamp").IsString() {
		return view.Value{}
	}
	if !r.Top("id").IsString() && !t.Str().Is("message") {
		return view.Value{}
	}
	if t.Str().Is("session") {
		if r.Top("cwd").IsString() {
			return t
		}
		return view.Value{}
	}
	if t.Str().Is("message") {
		// Version 1 wrote messages without id and parentId; the message's
		// role and millisecond time are pi's all the same.
		if m := r.Top("message"); m.Get("role").IsString() && m.Get("timestamp").IsNumber() {
			return t
		}
		return view.Value{}
	}
	if p := r.Top("parentId"); !p.Exists() || !p.IsString() && p.Type() != view.Null {
		return view.Value{}
	}
	return t
}

// clawStoreType is the first line OpenClaw's database writes for a
// session (store.go).
var clawStoreType = view.Parse(`"store"`)

// piRunType is the type of a record of a subagent run's transcript, as
// the pi-subagents extension writes it
// (<session folder>/subagent-artifacts/<runId>_<agent>[_<index>]_transcript.jsonl):
// {version, recordType, source, runId, agent, childIndex, cwd, ts,
// timestamp, ...}, a message record carrying the child's AgentMessage
// (message) as pi's sessions do. A record without its run id, agent and
// ISO time is no such record.
func piRunType(r converters.Record, rt view.Value) view.Value {
	if !r.Top("runId").IsString() || !r.Top("agent").IsString() || !r.Top("timestamp").IsString() {
		return view.Value{}
	}
	if rt.Str().Is("message") && !r.Top("message").Get("role").IsString() {
		return view.Value{}
	}
	return rt
}

// piPass are the structural fields whose token values may appear in
// output: ids, enums, model names, built-in tool names, token counts.
var piPass = leak.Paths{
	// Token counts: numbers the reader sums or buckets.
	"message.usage.input": leak.Count, "message.usage.output": leak.Count, "message.usage.cacheRead": leak.Count,
	"message.usage.cacheWrite": leak.Count, "message.usage.totalTokens": leak.Count, "tokensBefore": leak.Count,
	"type": leak.Label, "id": leak.IDOrUUID, "parentId": leak.ID, "timestamp": leak.Time, "version": leak.Count,
	"provider": leak.Label, "modelId": leak.Model, "thinkingLevel": leak.Label, "firstKeptEntryId": leak.ID,
	"fromId": leak.ID, "targetId": leak.ID,
	"message.role": leak.Label, "message.model": leak.Model, "message.provider": leak.Label, "message.api": leak.Label,
	"message.stopReason": leak.Label, "message.content.#.type": leak.Label, "message.content.#.id": leak.ID,
	"message.toolCallId": leak.ID, "data.modelId": leak.Model, "data.provider": leak.Label,
	// Names that --reveal names writes in clear; without it they are hashed.
	"message.content.#.name": leak.Name, "message.toolName": leak.Name, "customType": leak.Name,
	"message.content.#.arguments.agent": leak.Name, "message.content.#.arguments.tasks.#.agent": leak.Name,
	"message.content.#.arguments.chain.#.agent": leak.Name,
	"message.customType":                        leak.Name,
	// A subagent run's transcript (piRunType).
	"recordType": leak.Label, "runId": leak.IDOrUUID, "childIndex": leak.Count, "source": leak.Label,
	"sourceEventType": leak.Label, "ts": leak.EpochMs, "agent": leak.Name, "role": leak.Label, "model": leak.Model,
	"stopReason": leak.Label, "usage.input": leak.Count, "usage.output": leak.Count, "usage.cacheRead": leak.Count,
	"usage.cacheWrite": leak.Count, "usage.totalTokens": leak.Count, "usage.cost": leak.Count,
	// The first line of a session of OpenClaw's database (store.go).
	"openclaw_store.rows": leak.Count,
	// OpenClaw's trajectory events (trajectory.go).
	"schemaVersion": leak.Count, "traceId": leak.IDOrUUID, "sessionId": leak.IDOrUUID,
	"seq": leak.Count, "sourceSeq": leak.Count, "modelApi": leak.Label, "entryId": leak.ID, "parentEntryId": leak.ID,
	"data.usage.input": leak.Count, "data.usage.output": leak.Count, "data.usage.cacheRead": leak.Count,
	"data.usage.cacheWrite": leak.Count, "data.usage.total": leak.Count, "data.toolCallId": leak.ID,
	"data.name": leak.Name, "data.status": leak.Label, "data.imagesCount": leak.Count,
}

// piLabels are the values of its label fields the reader knows, written
// in clear; any other value of a label field is written as its digest.
var piLabels = []string{
	"foreground", "background", "initial_prompt", "message_start", "message_end", "tool_execution_start", "tool_execution_end",
	"tool_result_end",
	"anthropic-messages", "off", "openai-codex", "openai-codex-responses", "openai-responses",
	"runtime", "transcript", "export", "success", "error", "aborted", "timeout", "cancelled",
}

// piBuiltinTools are the tools pi and OpenClaw ship (pi's read, bash,
// edit, write, grep, find, ls; OpenClaw's own): public, so their names
// pass through. Any other name (an extension's, MCP) is hashed unless
// --reveal names.
var piBuiltinTools = map[string]bool{
	"read": true, "bash": true, "edit": true, "write": true, "grep": true, "find": true, "ls": true,
	"exec": true, "process": true, "apply_patch": true, "web_search": true, "web_fetch": true, "browser": true,
	"canvas": true, "nodes": true, "cron": true, "message": true, "gateway": true, "image": true,
	"sessions_list": true, "sessions_history": true, "sessions_send": true, "sessions_spawn": true,
	"session_status": true, "agents_list": true, "memory_search": true, "memory_get": true,
}
