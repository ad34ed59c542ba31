package opencode

import (
	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
)

// opencode reads the session documents `opencode export <session id>`
// writes (sst/opencode, packages/opencode/src/cli/cmd/export.ts): one JSON
// document, pretty-printed, {info: Session.Info, messages: [{info: Message,
// parts: [Part]}]} in the shapes of session/message-v2.ts. The pipeline
// reads such a file as one record (Format.Document for the names a session
// id gives, and any file given by path whose first line opens a document
// and nothing else); this reader walks its messages and parts.
//
// It writes a trace in the GenAI shape (an invoke_agent root, a chat span
// per assistant message, an execute_tool span per tool part), the tokens of
// every assistant message as ccusage counts them, MCP calls, skill loads
// (the skill tool), subagents (the task tool, whose child runs as a session
// of its own; a child session's document names its parent), compaction
// (compaction parts and the summary message that follows) and audit gaps:
// AGENTS.md and configured instructions always (they load without a
// record), and tokens when no assistant message carries them.
//
// Prompts, reasoning, tool inputs and outputs, paths, titles and the
// project id are raw: hashed or measured, never copied. Built-in tool
// names pass through; MCP server and tool names (OpenCode names an MCP
// tool <server>_<tool>), skill names and subagent types are hashed unless
// --reveal names. This file is the glue (registration, record typing);
// layout.go says which files are documents; records.go maps the records.
func init() {
	converters.RegisterBuiltin(converters.Converter{
		Name:        "opencode",
		Doc:         "OpenCode session documents (opencode export): tools, MCP, skills, subagents, compaction, tokens",
		SpanName:    "invoke_agent",
		Types:       opencodeTypes,
		OpenTypes:   true,
		PassThrough: opencodePass,
		Events: []string{
			"context.audit_gap.recorded", "context.skill.invoked", "mcp.tool_call.completed",
			"context.compaction.started", "context.compaction.summary_loaded", "subagent.spawned",
			"subagent.result.returned", "gen_ai.token_usage.summarized",
		},
		New: func(env converters.Env) converters.State { return newOpencode(env) },
		Native: &converters.Format{
			Type:     opencodeRecordType,
			Time:     opencodeTime,
			Document: opencodeDocument,
			Seeds:    []string{"samples/opencode"},
		},
	})
}

// opencodeTypes are the record types this converter knows: an export
// document is one record.
var opencodeTypes = []string{"export_document"}

var opencodeDocumentType = view.Parse(`"export_document"`)

// opencodeRecordType names a record by its shape: an export document has
// info (a Session.Info: an id, a time object with created in milliseconds,
// and a project id or directory) and messages, an array. No other agent's
// log has this pair at its top.
func opencodeRecordType(r converters.Record) view.Value {
	if !r.JSON.IsObject() {
		return view.Value{}
	}
	info, msgs := r.Top("info"), r.Top("messages")
	if !info.IsObject() || !msgs.IsArray() {
		return view.Value{}
	}
	if !info.Get("id").IsString() || !info.Get("time.created").IsNumber() {
		return view.Value{}
	}
	if !info.Get("projectID").IsString() && !info.Get("directory").IsString() {
		return view.Value{}
	}
	return opencodeDocumentType
}

// opencodeTime: times are Unix milliseconds, not RFC 3339 strings; the
// reader reads them itself, message by message.
func opencodeTime(converters.Record) view.Value { return view.Value{} }

// opencodePass are the structural fields whose token values may appear in
// output: ids, enums, versions, model names, built-in tool names.
var opencodePass = leak.Paths{
	"info.id": leak.ID, "info.version": leak.Version, "info.parentID": leak.ID,
	"messages.#.info.id": leak.ID, "messages.#.info.role": leak.Label, "messages.#.info.modelID": leak.Model,
	"messages.#.info.providerID": leak.Label, "messages.#.info.finish": leak.Label,
	"messages.#.info.error.name": leak.Label, "messages.#.info.mode": leak.Label,
	"messages.#.info.tokens.input": leak.Count, "messages.#.info.tokens.output": leak.Count,
	"messages.#.info.tokens.reasoning": leak.Count, "messages.#.info.tokens.total": leak.Count,
	"messages.#.info.tokens.cache.read": leak.Count, "messages.#.info.tokens.cache.write": leak.Count,
	"messages.#.parts.#.type": leak.Label, "messages.#.parts.#.tool": leak.Name,
	"messages.#.parts.#.callID": leak.ID, "messages.#.parts.#.state.status": leak.Label,
	"messages.#.parts.#.state.metadata.sessionId": leak.ID,
	// Names that --reveal names writes in clear; without it they are hashed.
	"messages.#.parts.#.state.input.name": leak.Name, "messages.#.parts.#.state.input.subagent_type": leak.Name,
}

// opencodeBuiltinTools are OpenCode's own tools (packages/opencode/src/
// tool/registry.ts): public, so their names pass through. Any other name
// is an MCP tool (<server>_<tool>) or a custom or plugin tool, hashed
// unless --reveal names.
var opencodeBuiltinTools = map[string]bool{
	"bash": true, "read": true, "write": true, "edit": true, "multiedit": true, "patch": true, "apply_patch": true,
	"glob": true, "grep": true, "list": true, "ls": true, "lsp": true, "todowrite": true, "todoread": true,
	"webfetch": true, "websearch": true, "codesearch": true, "task": true, "skill": true, "batch": true,
	"question": true, "invalid": true, "plan_enter": true, "plan_exit": true,
}
