package geminicli

import (
	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/tidwall/gjson"
)

// gemini_cli reads Gemini CLI chat recordings (google-gemini/gemini-cli,
// packages/core/src/services/chatRecordingService.ts and
// chatRecordingTypes.ts): the JSONL files of v0.40 and newer
// (~/.gemini/tmp/<project-hash>/chats/session-<time>-<id8>.jsonl, a
// metadata line, then message records that are appended again, whole,
// each time they change, `$set` metadata patches and `$rewindTo`
// records), subagent chats (chats/<parent-session-id>/<id>.jsonl, kind
// "subagent"), and the older session files that hold the whole
// conversation in one JSON document ({sessionId, projectHash, startTime,
// lastUpdated, messages: [...]}), pretty-printed or not: Format.Document
// has the pipeline read such a file as one record (the Gemini CLI note
// in docs/converters.md).
//
// It writes the context the CLI injects into the history (the
// <session_context> environment message, hook context) as context loads;
// user messages that carry tool responses, slash commands or injections
// are not counted as prompts. It writes a trace in the GenAI shape (an invoke_agent root, a chat span
// per model message, an execute_tool span per tool call, subagents as
// invoke_agent spans under the call that started them), the tokens of
// every model message, MCP calls, skill activations, and explicit audit
// gaps: GEMINI.md context files always (they load without a record), and
// tokens when no message carries them.
//
// Prompts, thoughts, tool arguments and results, paths and the project
// hash are raw: hashed or measured, never copied. Built-in tool names pass
// through; MCP server and tool names and skill names are hashed unless
// --reveal names. This file is the glue (registration, record typing);
// layout.go says where chats are and how they group; records.go maps the records.
func init() {
	converters.RegisterBuiltin(converters.Converter{
		Name:        "gemini_cli",
		Doc:         "Gemini CLI chats (JSONL 0.40+, $set/$rewindTo, subagents; one-line legacy documents): tools, MCP, skills, tokens",
		SpanName:    "invoke_agent",
		Types:       geminiTypes,
		OpenTypes:   true,
		PassThrough: geminiPass,
		Labels:      geminiLabels,
		Events: []string{
			"context.audit_gap.recorded", "context.input.loaded", "context.skill.invoked", "mcp.tool_call.completed",
			"subagent.spawned", "subagent.result.returned", "gen_ai.token_usage.summarized",
		},
		New: func(env converters.Env) converters.State { return newGemini(env) },
		Native: &converters.Format{
			Type:       geminiRecordType,
			Time:       geminiTime,
			Layout:     geminiLayout,
			Document:   geminiDocument,
			DocumentAt: geminiSubagentDocument,
			Locations:  geminiLocations,
			Seeds:      []string{"samples/gemini_cli"},
			IDs:        geminiIDs,
		},
	})
}

// geminiRecordType is a record's type, named by its shape (geminiType).
func geminiRecordType(r converters.Record) view.Value {
	return geminiShape(r.JSON.IsObject(), r.Top)
}

// geminiTime is a record's time: messages carry timestamp, the metadata
// line and legacy documents startTime, $set and $rewindTo records none.
func geminiTime(r converters.Record) view.Value {
	if t := r.Get("timestamp"); t.Exists() {
		return t
	}
	if t := r.Get("startTime"); t.Exists() && r.Get("sessionId").Exists() {
		return t
	}
	return view.Value{}
}

// geminiMessageTypes are the message kinds of a chat recording.
var geminiMessageTypes = []string{"user", "gemini", "info", "error", "warning"}

// geminiTypes are the record types this converter knows; detection scores
// inputs by them. Records have no type field of their own: geminiType names
// them by shape ($set records metadata_set, $rewindTo records rewind_to).
var geminiTypes = append([]string{"session_metadata", "metadata_set", "rewind_to", "session_document"}, geminiMessageTypes...)

// geminiType names a record by its shape, as the chat recording service
// tells them apart: a rewind, a metadata patch, a message (id, type,
// content), the metadata line (sessionId and projectHash), or a legacy
// whole-session document (the same with messages[]). Anything else is not
// a Gemini record. The type is a JSON string (a message's own type field,
// borrowed like r, or one of the shape types); none when it does not exist.
func geminiType(r view.Value) view.Value {
	return geminiShape(r.IsObject(), func(key string) view.Value { return r.Get(gjson.Escape(key)) })
}

// The shape types, as JSON strings of their own.
var (
	geminiRewindType   = view.Parse(`"rewind_to"`)
	geminiSetType      = view.Parse(`"metadata_set"`)
	geminiDocumentType = view.Parse(`"session_document"`)
	geminiMetadataType = view.Parse(`"session_metadata"`)
)

// geminiShape is geminiType of an object whose top-level fields top reads
// (a record's index, so detection scans a line once, not once per field).
func geminiShape(object bool, top func(key string) view.Value) view.Value {
	if !object {
		return view.Value{}
	}
	switch {
	case top("$rewindTo").IsString():
		return geminiRewindType
	case top("$set").IsObject():
		return geminiSetType
	}
	id, typ := top("id"), top("type")
	if id.IsString() && typ.IsString() && top("timestamp").Exists() && (top("content").Exists() || top("toolCalls").Exists()) {
		if typ.Str().Empty() {
			return view.Value{}
		}
		return typ // a kind this reader does not know is counted by digest
	}
	if top("sessionId").IsString() && top("projectHash").IsString() {
		if top("messages").IsArray() {
			return geminiDocumentType
		}
		return geminiMetadataType
	}
	return view.Value{}
}

// geminiPass are the structural fields whose token values may appear in
// output: ids, enums, model names, built-in tool names.
var geminiPass = leak.Paths{
	// Token counts: numbers the reader sums.
	"*.input": leak.Count, "*.output": leak.Count, "*.cached": leak.Count, "*.thoughts": leak.Count,
	"*.tool": leak.Count, "*.total": leak.Count,
	// The older names ccusage also reads (tokensOf).
	"*.prompt": leak.Count, "*.candidates": leak.Count, "*.prompt_tokens": leak.Count, "*.candidates_tokens": leak.Count,
	"*.cached_tokens": leak.Count, "*.thoughts_tokens": leak.Count, "*.tool_tokens": leak.Count, "*.total_tokens": leak.Count,
	"id": leak.IDOrUUID, "type": leak.Label, "timestamp": leak.Time, "model": leak.Model, "sessionId": leak.IDOrUUID,
	"kind": leak.Label, "startTime": leak.Time, "lastUpdated": leak.Time, `$rewindTo`: leak.IDOrUUID,
	"toolCalls.#.id": leak.ID, "toolCalls.#.name": leak.Name, "toolCalls.#.status": leak.Label,
	"toolCalls.#.agentId": leak.ID, "toolCalls.#.timestamp": leak.Time,
	// A legacy document holds the same fields under messages[].
	"messages.#.id": leak.IDOrUUID, "messages.#.type": leak.Label, "messages.#.timestamp": leak.Time,
	"messages.#.model": leak.Model, "messages.#.toolCalls.#.id": leak.ID, "messages.#.toolCalls.#.name": leak.Name,
	"messages.#.toolCalls.#.status": leak.Label, "messages.#.toolCalls.#.agentId": leak.ID,
	"messages.#.toolCalls.#.timestamp": leak.Time,
	// A $set record rewrites the history: the same fields under $set.messages[].
	`$set.lastUpdated`: leak.Time, `$set.messages.#.id`: leak.IDOrUUID, `$set.messages.#.type`: leak.Label,
	`$set.messages.#.timestamp`: leak.Time, `$set.messages.#.model`: leak.Model,
	`$set.messages.#.toolCalls.#.id`: leak.ID, `$set.messages.#.toolCalls.#.name`: leak.Name,
	`$set.messages.#.toolCalls.#.status`: leak.Label, `$set.messages.#.toolCalls.#.agentId`: leak.ID,
	`$set.messages.#.toolCalls.#.timestamp`: leak.Time,
	// Names that --reveal names writes in clear; without it they are hashed.
	"toolCalls.#.args.name": leak.Name, "messages.#.toolCalls.#.args.name": leak.Name,
	`$set.messages.#.toolCalls.#.args.name`: leak.Name,
}

// geminiLabels are the values of its label fields the reader knows, written
// in clear; any other value of a label field is written as its digest.
var geminiLabels = []string{
	"main",
	"awaiting_approval", "compression_notice",
}

// geminiBuiltinTools are Gemini CLI's own tool names (packages/core/src/
// tools/tool-names.ts and the built-in agents): public, so they pass
// through. Any other tool name (MCP, extensions, discovered tools) is
// hashed unless --reveal names.
var geminiBuiltinTools = map[string]bool{
	"read_file": true, "write_file": true, "replace": true, "edit": true, "run_shell_command": true, "glob": true,
	"search_file_content": true, "grep_search": true, "list_directory": true, "read_many_files": true,
	"web_fetch": true, "google_web_search": true, "save_memory": true, "write_todos": true, "activate_skill": true,
	"codebase_investigator": true, "delegate_to_agent": true, "invoke_agent": true, "cli_help": true, "ask_user": true,
	"enter_plan_mode": true, "exit_plan_mode": true, "get_internal_docs": true, "complete_task": true,
}
