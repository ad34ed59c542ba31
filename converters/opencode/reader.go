package opencode

import (
	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
)

// opencode reads OpenCode sessions (sst/opencode, in the shapes of
// packages/opencode/src/session/message-v2.ts): the documents
// `opencode export <session id>` writes (cli/cmd/export.ts: one JSON
// document, pretty-printed, {info: Session.Info, messages: [{info:
// Message, parts: [Part]}]}), and the storage/ tree older versions keep
// (a session file, then its message files and their part files, one
// document each: layout.go), and the SQLite database newer versions keep
// them all in (opencode.db, read session by session: store.go). The
// pipeline reads each such file as one
// record (Format.Document, and any file given by path whose first line
// opens a document and nothing else).
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
		Doc:         "OpenCode sessions (export documents, storage/ trees, opencode.db): tools, MCP, skills, subagents, compaction, tokens",
		SpanName:    "invoke_agent",
		Types:       opencodeTypes,
		OpenTypes:   true,
		PassThrough: opencodePass,
		Labels:      opencodeLabels,
		Events: []string{
			"context.audit_gap.recorded", "context.skill.invoked", "mcp.tool_call.completed",
			"context.compaction.started", "context.compaction.summary_loaded", "subagent.spawned",
			"subagent.result.returned", "gen_ai.token_usage.summarized",
		},
		New: func(env converters.Env) converters.State { return newOpencode(env) },
		Native: &converters.Format{
			Type:      opencodeRecordType,
			Time:      opencodeTime,
			Document:  opencodeDocument,
			Layout:    opencodeLayout,
			Locations: opencodeLocations,
			Seeds:     []string{"samples/opencode"},
			IDs:       opencodeIDs,
			Store:     opencodeStore,
		},
	})
}

// opencodeTypes are the record types this converter knows: an export
// document, and the storage tree's session, message and part files.
var opencodeTypes = []string{"export_document", "session_info", "message_info", "part"}

// The shape types, as JSON strings of their own.
var (
	opencodeDocumentType = view.Parse(`"export_document"`)
	opencodeSessionType  = view.Parse(`"session_info"`)
	opencodeMessageType  = view.Parse(`"message_info"`)
	opencodePartType     = view.Parse(`"part"`)
)

// opencodeRecordType names a record by its shape, in fields no other
// agent's log has together: an export document has info (a Session.Info:
// an id, a time object with created in milliseconds, a project id or
// directory) and messages, an array; a session file is such an info alone
// (with a project id); a message file has an id, a sessionID, a role and a
// time object, and names a model (modelID, or model {providerID,
// modelID}); a part file has an id, a sessionID, a messageID and a type.
func opencodeRecordType(r converters.Record) view.Value {
	if !r.JSON.IsObject() || r.Top(storeMark).Exists() {
		return view.Value{} // a kin's database session (Variant): its own reader's
	}
	return opencodeShape(r)
}

// opencodeShape is opencodeRecordType of a record of any store.
func opencodeShape(r converters.Record) view.Value {
	if !r.JSON.IsObject() {
		return view.Value{}
	}
	if info, msgs := r.Top("info"), r.Top("messages"); info.IsObject() && msgs.IsArray() {
		if sessionInfo(info) {
			return opencodeDocumentType
		}
		return view.Value{}
	}
	id, sid := r.Top("id"), r.Top("sessionID")
	switch {
	case !id.IsString():
		return view.Value{}
	case !sid.IsString():
		if r.Top("projectID").IsString() && sessionInfo(r.JSON) {
			return opencodeSessionType
		}
	case r.Top("messageID").IsString() && r.Top("type").IsString():
		return opencodePartType
	case r.Top("role").IsString() && r.Top("time").Get("created").IsNumber() &&
		(r.Top("modelID").IsString() || r.Top("model").Get("modelID").IsString()):
		return opencodeMessageType
	}
	return view.Value{}
}

// sessionInfo reports a Session.Info's shape.
func sessionInfo(info view.Value) bool {
	return info.Get("id").IsString() && info.Get("time.created").IsNumber() &&
		(info.Get("projectID").IsString() || info.Get("directory").IsString())
}

// opencodeTime is a record's time, written in Unix milliseconds: an
// export document's and a session's creation; for a message or part file
// the time OpenCode last wrote it, when it finished (a message's
// completion, a part's end, else their start), so that a storage
// session's trace spans all of it. It is made an RFC 3339 string, as the
// pipeline reads times; a part with none has none.
func opencodeTime(r converters.Record) view.Value {
	var ms view.Value
	if info := r.Top("info"); info.IsObject() {
		ms = info.Get("time.created")
	} else if t := r.Top("time"); t.IsObject() && !r.Top("sessionID").Exists() {
		ms = t.Get("created") // a session file
	} else {
		t = r.Top("state").Get("time")
		if !t.IsObject() {
			t = r.Top("time")
		}
		for _, k := range []string{"completed", "end", "created", "start"} {
			if ms = t.Get(k); ms.IsNumber() {
				break
			}
		}
	}
	if _, at := opencodeAt(ms); at != "" {
		return view.Parse(`"` + at + `"`)
	}
	return view.Value{}
}

// opencodePass are the structural fields whose token values may appear in
// output: ids, enums, versions, model names, built-in tool names.
var opencodePass = leak.Paths{
	"info.id": leak.ID, "info.version": leak.Version, "info.parentID": leak.ID,
	"messages.#.info.id": leak.ID, "messages.#.info.role": leak.Label, "messages.#.info.modelID": leak.Model,
	"messages.#.info.providerID": leak.Label, "messages.#.info.finish": leak.Label,
	"messages.#.info.mode":         leak.Label,
	"messages.#.info.tokens.input": leak.Count, "messages.#.info.tokens.output": leak.Count,
	"messages.#.info.tokens.reasoning": leak.Count, "messages.#.info.tokens.total": leak.Count,
	"messages.#.info.tokens.cache.read": leak.Count, "messages.#.info.tokens.cache.write": leak.Count,
	"messages.#.parts.#.type": leak.Label, "messages.#.parts.#.tool": leak.ServerToolName,
	"messages.#.parts.#.callID": leak.ID, "messages.#.parts.#.state.status": leak.Label,
	"messages.#.parts.#.state.metadata.sessionId": leak.ID,
	// The storage tree's files hold the same fields at their top.
	"id": leak.ID, "parentID": leak.ID, "version": leak.Version, "role": leak.Label, "modelID": leak.Model,
	"providerID": leak.Label, "finish": leak.Label, "mode": leak.Label,
	"tokens.input": leak.Count, "tokens.output": leak.Count, "tokens.reasoning": leak.Count, "tokens.total": leak.Count,
	"tokens.cache.read": leak.Count, "tokens.cache.write": leak.Count,
	"type": leak.Label, "tool": leak.ServerToolName, "callID": leak.ID, "state.status": leak.Label, "state.metadata.sessionId": leak.ID,
	"state.input.name": leak.Name, "state.input.subagent_type": leak.Name,
	// Names that --reveal names writes in clear; without it they are hashed.
	"messages.#.parts.#.state.input.name": leak.Name, "messages.#.parts.#.state.input.subagent_type": leak.Name,
}

// opencodeLabels are the values of its label fields the reader knows, written
// in clear; any other value of a label field is written as its digest.
var opencodeLabels = []string{
	"general", "tool-calls",
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
