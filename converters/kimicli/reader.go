package kimicli

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
		Name:        "kimi_cli",
		Doc:         "Kimi CLI sessions (sessions/<hash>/<id>/wire.jsonl with context.jsonl): tools, subagents, approvals, compaction, tokens",
		SpanName:    "invoke_agent",
		Types:       kimiTypes,
		OpenTypes:   true,
		PassThrough: kimiPass,
		Labels:      kimiLabels,
		Events: []string{
			"context.audit_gap.recorded", "subagent.spawned", "subagent.result.returned",
			"context.compaction.started", "gen_ai.token_usage.summarized",
			"mcp.tool_call.completed", // a tool named mcp__<server>__<tool> (native.DescribeTool)
		},
		New: func(env converters.Env) converters.State { return newKimi(env) },
		Native: &converters.Format{
			Type:      kimiType,
			Time:      kimiTime,
			Layout:    kimiLayout,
			Locations: kimiLocations,
			Seeds:     []string{"samples/kimi_cli"},
			IDs:       kimiIDs,
		},
	})
}

// kimiWireTypes are the wire messages' types (wire/types.py) this reader
// knows; the context's lines are typed by their role (kimiType).
var kimiWireTypes = []string{
	"metadata", "TurnBegin", "SteerInput", "TurnEnd", "StepBegin", "StepInterrupted", "HookTriggered", "HookResolved",
	"CompactionBegin", "CompactionEnd", "MCPLoadingBegin", "MCPLoadingEnd", "StatusUpdate", "Notification",
	"ContentPart", "ToolCall", "ToolCallPart", "ToolResult", "ApprovalResponse", "ApprovalRequestResolved",
	"SubagentEvent", "PlanDisplay", "ApprovalRequest", "ToolCallRequest", "QuestionRequest",
}

// kimiCodeTypes are the records of Kimi Code's newer wire
// (agents/<agent>/wire.jsonl, code.go) this reader knows.
var kimiCodeTypes = []string{"usage.record", "context.append_message"}

// kimiTypes are the record types detection scores inputs by.
var kimiTypes = append(append([]string{"context_message", "context_checkpoint", "context_usage"}, kimiWireTypes...), kimiCodeTypes...)

// The context's line types, as JSON strings of their own.
var (
	kimiContextMessage    = view.Parse(`"context_message"`)
	kimiContextCheckpoint = view.Parse(`"context_checkpoint"`)
	kimiContextUsage      = view.Parse(`"context_usage"`)
	kimiMetadata          = view.Parse(`"metadata"`)
)

// kimiType is a record's type when the record is in Kimi CLI's shape,
// else none: the wire's metadata line {type: metadata,
// protocol_version}, a wire message {timestamp: a number, message: {type,
// payload: an object}}, or, in a companion file only (the context.jsonl
// of the session's folder), a context line {role, ...}.
func kimiType(r converters.Record) view.Value {
	if t := r.Top("type"); t.Str().Is("metadata") && (r.Top("protocol_version").Exists() || r.Top("protocolVersion").Exists()) {
		return kimiMetadata
	}
	if t, ok := kimiCodeType(r); ok {
		return t
	}
	if m := r.Top("message"); m.IsObject() && r.Top("timestamp").IsNumber() {
		if t := m.Get("type"); t.IsString() && !t.Str().Empty() && m.Get("payload").IsObject() {
			return t
		}
		return view.Value{}
	}
	if r.File == 0 {
		return view.Value{}
	}
	switch role := r.Top("role"); {
	case role.Str().Is("_checkpoint"):
		return kimiContextCheckpoint
	case role.Str().Is("_usage"):
		return kimiContextUsage
	case role.IsString() && !role.Str().Empty():
		return kimiContextMessage
	}
	return view.Value{}
}

// kimiTime is a wire message's time, Unix seconds as a float, as an RFC
// 3339 string; the metadata line and the context's lines have none.
func kimiTime(r converters.Record) view.Value {
	ts := r.Top("timestamp")
	if !ts.IsNumber() {
		return kimiCodeTime(r)
	}
	s := ts.Float()
	if s <= 0 || s > 7258118400 || math.IsNaN(s) { // after 2200: not a time
		return view.Value{}
	}
	t := time.Unix(0, int64(math.Round(s*1e6))*1e3).UTC()
	// A document of its own: the formatted time is no view of the line.
	return view.Of(gjson.Result{Type: gjson.String, Str: t.Format(time.RFC3339Nano)})
}

// kimiLayout: a session is its folder; its wire.jsonl is the main file,
// and the other files there (context.jsonl) are read with it.
var kimiLayout = converters.Layout{
	Session: func(p string, _ func(string) string) ([]string, bool) {
		if filepath.Base(p) != "wire.jsonl" {
			return nil, false
		}
		return []string{filepath.Dir(p)}, true
	},
}

// kimiLocations: every session under ~/.kimi/sessions and Kimi Code's
// ~/.kimi-code/sessions, which KIMI_DATA_DIR moves (ccusage 20.0.24 reads
// both, and that variable instead of both).
var kimiLocations = []converters.Location{
	{Env: "KIMI_DATA_DIR", Default: ".kimi", Below: "sessions"},
	{Env: "KIMI_DATA_DIR", Default: ".kimi-code", Below: "sessions"},
}

// kimiPass are the structural fields whose token values may appear in
// output: ids, enums, built-in tool names, token counts.
var kimiPass = leak.Paths{
	"message.payload.token_usage.input_other": leak.Count, "message.payload.token_usage.output": leak.Count,
	"message.payload.token_usage.input_cache_read": leak.Count, "message.payload.token_usage.input_cache_creation": leak.Count,
	"message.payload.context_tokens": leak.Count, "message.payload.max_context_tokens": leak.Count,
	"message.payload.n": leak.Count, "token_count": leak.Count, "id": leak.Count,
	"type": leak.Label, "protocol_version": leak.Version, "message.type": leak.Label, "message.payload.type": leak.Label,
	"message.payload.id": leak.ID, "message.payload.tool_call_id": leak.ID, "message.payload.response": leak.Label,
	"message.payload.parent_tool_call_id": leak.ID, "role": leak.Label,
	// Kimi Code's wire (code.go).
	"protocolVersion": leak.Version, "usageScope": leak.Label, "model": leak.Model, "time": leak.Count,
	"createdAt": leak.Time, "timestamp": leak.Time,
	"usage.inputOther": leak.Count, "usage.output": leak.Count, "usage.inputCacheRead": leak.Count,
	"usage.inputCacheCreation": leak.Count, "message.role": leak.Label,
	// Names that --reveal names writes in clear; without it they are hashed.
	"message.payload.function.name": leak.Name, "message.payload.subagent_type": leak.Name,
}

// kimiLabels are the values of its label fields the reader knows, written
// in clear; any other value of a label field is written as its digest.
var kimiLabels = []string{
	"approve", "approve_for_session", "reject", "function", "think", "text",
	"_checkpoint", "_usage", "turn", "session", "user", "assistant",
}

// kimiBuiltinTools are Kimi CLI's own tool names (src/kimi_cli/tools):
// public, so they pass through. Any other name (MCP servers' tools) is
// hashed unless --reveal names.
var kimiBuiltinTools = map[string]bool{
	"Shell": true, "Bash": true, "ReadFile": true, "ReadMediaFile": true, "WriteFile": true, "StrReplaceFile": true,
	"Glob": true, "Grep": true, "SearchWeb": true, "FetchURL": true, "Task": true, "Agent": true, "CreateSubagent": true,
	"SetTodoList": true, "Think": true, "AskUserQuestion": true, "EnterPlanMode": true, "ExitPlanMode": true,
	"SendDMail": true,
}

// kimiSubagentTools run a subagent.
var kimiSubagentTools = map[string]bool{"Task": true, "Agent": true}
