package amp

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
		Name:        "amp",
		Doc:         "Amp threads (threads/T-<id>.json, one JSON document each): tools, MCP, subagents, compaction, usage ledger tokens",
		SpanName:    "invoke_agent",
		Types:       ampTypes,
		OpenTypes:   true,
		PassThrough: ampPass,
		Labels:      ampLabels,
		Events: []string{
			"context.audit_gap.recorded", "context.input.loaded", "context.skill.invoked", "mcp.tool_call.completed",
			"subagent.spawned", "subagent.result.returned",
			"context.compaction.started", "context.compaction.summary_loaded", "gen_ai.token_usage.summarized",
		},
		New: func(env converters.Env) converters.State { return newAmp(env) },
		Native: &converters.Format{
			Type:       ampType,
			Time:       ampCreated,
			Layout:     ampLayout,
			DocumentAt: ampDocument,
			Locations:  ampLocations,
			Seeds:      []string{"samples/amp"},
			IDs:        ampIDs,
		},
	})
}

// ampTypes: a thread file is one record, the whole thread.
var ampTypes = []string{"thread"}

var ampThread = view.Parse(`"thread"`)

// ampType is "thread" for a document in Amp's thread shape, else none: its
// id is a thread id (Amp names every thread T-<uuid>, and the file after
// it), and it holds the thread's messages or its usage ledger. Nothing
// else Amp-like is claimed: a JSON document of another agent has neither.
func ampType(r converters.Record) view.Value {
	id := r.Top("id")
	if !id.IsString() || !id.Str().HasPrefix("T-") || id.Str().Len() < 3 {
		return view.Value{}
	}
	msgs, ledger := r.Top("messages"), r.Top("usageLedger")
	if !msgs.IsArray() && !ledger.IsObject() {
		return view.Value{}
	}
	if msgs.IsArray() {
		if m := msgs.Get("0"); m.Exists() && (!m.IsObject() || !m.Get("role").IsString()) {
			return view.Value{}
		}
	}
	return ampThread
}

// ampCreated is the thread's creation time (created, Unix milliseconds)
// as an RFC 3339 string; none when it has none.
func ampCreated(r converters.Record) view.Value {
	ns := epochMs(r.Top("created"))
	if ns == 0 {
		return view.Value{}
	}
	return view.Of(gjson.Result{Type: gjson.String, Str: formatNS(ns)})
}

// epochMs reads a Unix time in milliseconds (years 1970 to 2200) as Unix
// nanoseconds; 0 when it is none.
func epochMs(v view.Value) int64 {
	if !v.IsNumber() {
		return 0
	}
	ms := v.Float()
	if ms <= 0 || ms > 7258118400000 || math.IsNaN(ms) {
		return 0
	}
	return int64(math.Round(ms)) * int64(time.Millisecond)
}

// formatNS is a time as the pipeline writes one.
func formatNS(ns int64) string {
	t := time.Unix(0, ns).UTC()
	if t.Nanosecond()%int(time.Millisecond) == 0 {
		return t.Format("2006-01-02T15:04:05.000Z")
	}
	return t.Format(time.RFC3339Nano)
}

// ampDocument: Amp keeps a thread as one JSON document,
// threads/T-<uuid>.json under its data directory.
func ampDocument(p string) bool {
	base := filepath.Base(p)
	return strings.HasPrefix(base, "T-") && strings.HasSuffix(base, ".json") && filepath.Base(filepath.Dir(p)) == "threads"
}

// ampLayout: a thread is one file, named by its thread id.
var ampLayout = converters.Layout{
	SessionID: func(base string) string {
		if !strings.HasPrefix(base, "T-") || !strings.HasSuffix(base, ".json") {
			return ""
		}
		return strings.TrimSuffix(base, ".json")
	},
}

// ampLocations: every thread under ~/.local/share/amp/threads, which
// AMP_DATA_DIR moves (ccusage 20.0.24's adapter/amp/paths.rs).
var ampLocations = []converters.Location{{Env: "AMP_DATA_DIR", Default: ".local/share/amp", Below: "threads"}}

// ampPass are the structural fields whose token values may appear in
// output: ids, enums, model names, built-in tool names, token counts.
var ampPass = leak.Paths{
	"id": leak.IDOrUUID, "v": leak.Count, "created": leak.EpochMs, "agentMode": leak.Label,
	"messages.#.role": leak.Label, "messages.#.messageId": leak.Count, "messages.#.meta.sentAt": leak.EpochMs,
	"messages.#.parentToolUseId": leak.ID, "messages.#.discoveredGuidanceFiles.#.lineCount": leak.Count,
	"messages.#.content.#.run.result.discoveredGuidanceFiles.#.lineCount": leak.Count,
	"messages.#.state.type": leak.Label, "messages.#.state.stopReason": leak.Label,
	"messages.#.content.#.type": leak.Label, "messages.#.content.#.id": leak.ID, "messages.#.content.#.toolUseID": leak.ID,
	"messages.#.content.#.tool_use_id": leak.ID,
	"messages.#.content.#.run.status":  leak.Label, "messages.#.content.#.summary.type": leak.Label,
	"messages.#.usage.model": leak.Model, "messages.#.usage.timestamp": leak.Time,
	"messages.#.usage.inputTokens": leak.Count, "messages.#.usage.outputTokens": leak.Count,
	"messages.#.usage.cacheCreationInputTokens": leak.Count, "messages.#.usage.cacheReadInputTokens": leak.Count,
	"messages.#.usage.totalInputTokens": leak.Count, "messages.#.usage.maxInputTokens": leak.Count,
	"messages.#.usage.totalTokens": leak.Count,
	"usageLedger.events.#.id":      leak.IDOrUUID, "usageLedger.events.#.timestamp": leak.Time, "usageLedger.events.#.model": leak.Model,
	"usageLedger.events.#.tokens.input": leak.Count, "usageLedger.events.#.tokens.output": leak.Count,
	"usageLedger.events.#.tokens.total": leak.Count, "usageLedger.events.#.operationType": leak.Label,
	"usageLedger.events.#.fromMessageId": leak.Count, "usageLedger.events.#.toMessageId": leak.Count,
	"env.initial.platform.clientVersion": leak.Version, "env.initial.platform.client": leak.Label,
	"env.initial.platform.os": leak.Label,
	// Names that --reveal names writes in clear; without it they are hashed.
	"messages.#.content.#.name": leak.Name, "messages.#.content.#.input.name": leak.Name,
}

// ampLabels are the values of its label fields the reader knows, written
// in clear; any other value of a label field is written as its digest.
var ampLabels = []string{
	"user", "assistant", "info", "text", "thinking", "redacted_thinking", "tool_use", "tool_result", "summary", "image",
	"complete", "cancelled", "running", "error", "end_turn", "max_tokens",
	"done", "rejected-by-user", "in-progress", "blocked-on-user", "inference", "message", "thread",
	"smart", "rush", "free", "CLI", "vscode",
}

// ampBuiltinTools are Amp's own tool names (its manual's list of tools,
// ampcode.com/manual): public, so they pass through. Any other name (MCP
// servers' mcp__server__tool, toolbox tools) is hashed unless --reveal
// names.
var ampBuiltinTools = map[string]bool{
	"Bash": true, "Read": true, "Grep": true, "glob": true, "create_file": true, "edit_file": true, "undo_edit": true,
	"format_file": true, "get_diagnostics": true, "finder": true, "codebase_search_agent": true, "oracle": true,
	"librarian": true, "Task": true, "mermaid": true, "web_search": true, "read_web_page": true, "todo_write": true,
	"todo_read": true, "read_mcp_resource": true, "look_at": true, "handoff": true, "skill": true, "read_thread": true,
	"find_thread": true, "list_directory": true,
}

// ampSubagentTools run a subagent: Task (a subagent with the thread's
// tools), and the built-in subagents the manual names (oracle, librarian,
// and the codebase search agent, finder).
var ampSubagentTools = map[string]bool{
	"Task": true, "oracle": true, "librarian": true, "finder": true, "codebase_search_agent": true,
}
