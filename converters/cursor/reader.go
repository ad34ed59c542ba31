package cursor

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"

	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// cursor reads Cursor agent logs in both shapes (docs/converters.md):
// `cursor-agent --output-format stream-json` captures (typed
// records with session_id, tool_call started/completed pairs, a terminal
// result) and the on-disk agent transcripts (~/.cursor/projects/<enc>/
// agent-transcripts/<uuid>/<uuid>.jsonl: role lines with no ids, times or
// usage). It writes tool calls (MCP ones as mcp.tool_call.completed),
// subagents (taskToolCall), the result's token usage, and an explicit
// audit gap for everything the format does not record: instruction loads
// always, timestamps, tokens and tool results where absent.
//
// Prompts, thinking, tool arguments and results, paths and cwd are raw:
// hashed or measured, never copied. Built-in tool names pass through; MCP
// server and tool names and subagent types are hashed unless --reveal names.
func init() {
	converters.RegisterBuiltin(converters.Converter{
		Name:      "cursor",
		Doc:       "Cursor agent stream-json captures and agent transcripts: tool calls, MCP, subagents, usage, audit gaps",
		SpanName:  "invoke_agent",
		Types:     cursorTypes,
		Hints:     []string{"session_id", "model_call_id", "call_id", "timestamp_ms", "apiKeySource", "request_id", "role"},
		OpenTypes: true,
		Labels:    cursorLabels,
		PassThrough: leak.Paths{
			// Token counts: numbers the reader sums.
			"*.inputTokens": leak.Count, "*.outputTokens": leak.Count, "*.cacheReadTokens": leak.Count,
			"*.cacheWriteTokens": leak.Count, "*.input_tokens": leak.Count, "*.output_tokens": leak.Count,
			"*.cache_read_input_tokens": leak.Count, "*.cache_creation_input_tokens": leak.Count,
			"type": leak.Label, "subtype": leak.Label, "role": leak.Label, "status": leak.Label, "session_id": leak.IDOrUUID, "model_call_id": leak.IDOrUUID,
			"call_id": leak.ID, "request_id": leak.IDOrUUID, "model": leak.Model, "permissionMode": leak.Label, "apiKeySource": leak.Label,
			"timestamp_ms": leak.EpochMs, "message.role": leak.Label, "message.content.#.type": leak.Label, "message.content.#.id": leak.ID,
			"message.content.#.tool_use_id": leak.ID, "message.content.#.name": leak.Name,
			"message.content.#.input.subagentType": leak.Name, // written in clear with --reveal names
			// Names that --reveal names writes in clear; without it they are hashed.
			"tool_call.mcpToolCall.args.toolName": leak.Name, "tool_call.mcpToolCall.args.providerIdentifier": leak.Name,
			"tool_call.taskToolCall.args.agentId": leak.ID, "tool_call.taskToolCall.args.model": leak.Name,
			"message.content.#.toolCallId": leak.Name, "tool_call.toolCallId": leak.Name,
			"tool_call.startedAtMs": leak.EpochMs, "tool_call.completedAtMs": leak.EpochMs, // epoch ms as strings
		},
		Events: []string{
			"context.audit_gap.recorded", "mcp.tool_call.completed", "subagent.spawned", "subagent.result.returned",
			"gen_ai.token_usage.summarized",
		},
		New: func(env converters.Env) converters.State { return newCursor(env) },
		Native: &converters.Format{
			Type:      cursorType,
			Time:      cursorTime,
			Layout:    cursorLayout,
			Locations: cursorLocations,
			Seeds:     []string{"samples/cursor"},
			IDs:       cursorIDs,
			Models:    cursorModels,
		},
	})
}

// cursorType is a record's type, for a record in one of Cursor's shapes:
// a stream-json line names its session_id or has a type only Cursor uses;
// a transcript line carries a role and a message object (or is a roleless
// turn_ended). Other agents' logs
// share the type names (Claude Code's carry uuid and sessionId, which
// Cursor never writes; chat logs have a role and a bare content; Gemini
// CLI's have type "user" and no session_id): those are not Cursor records,
// and detection must not claim them; nor a pi subagent run's transcript
// (pi-subagents), whose records name their recordType, which Cursor never
// writes, beside a role and a message.
func cursorType(r converters.Record) view.Value {
	if r.Get("uuid").Exists() || r.Get("sessionId").Exists() || r.Get("parentUuid").Exists() || r.Get("recordType").Exists() {
		return view.Value{}
	}
	if t := r.Get("type"); t.IsString() {
		if own, _ := view.Lookup(cursorOwnTypes, t.Str()); own || r.Get("session_id").Exists() {
			return t
		}
		return view.Value{}
	}
	if t := r.Get("role"); t.IsString() && r.Get("message").IsObject() {
		return t
	}
	return view.Value{}
}

// cursorOwnTypes are Cursor's record types that no other agent's log is
// known to use: a line of one is Cursor's even without a session_id (newer
// event families may omit it). The shared names (user, assistant, system)
// need the session_id.
var cursorOwnTypes = map[string]bool{
	"thinking": true, "tool_call": true, "retry": true, "connection": true, "interaction_query": true, "turn_ended": true,
}

// cursorTime is a record's time: Cursor writes epoch milliseconds
// (timestamp_ms), on some lines only.
func cursorTime(r converters.Record) view.Value {
	ms := cursorMS(r.Get("timestamp_ms"))
	if ms <= 0 {
		return view.Value{}
	}
	// A document of its own: the formatted time is no view of the line.
	return view.Of(gjson.Result{Type: gjson.String, Str: time.UnixMilli(ms).UTC().Format(time.RFC3339Nano)})
}

var cursorTypes = []string{
	"system", "user", "assistant", "thinking", "tool_call", "result", "retry", "connection", "interaction_query", "turn_ended",
}

// cursorBuiltinTools are Cursor's own tool keys (stream-json) and display
// names (transcripts): public, so they pass through.
var cursorBuiltinTools = map[string]bool{
	"shellToolCall": true, "readToolCall": true, "writeToolCall": true, "editToolCall": true, "globToolCall": true,
	"grepToolCall": true, "lsToolCall": true, "webFetchToolCall": true, "mcpToolCall": true, "taskToolCall": true,
	"awaitToolCall": true, "askQuestionToolCall": true, "prManagementToolCall": true, "recordScreenToolCall": true,
	"deleteToolCall": true, "semanticSearchToolCall": true, "readLintsToolCall": true, "todoToolCall": true,
	"Shell": true, "Read": true, "Write": true, "Edit": true, "Glob": true, "Grep": true, "LS": true, "WebFetch": true,
	"Delete": true, "SemanticSearch": true, "ReadLints": true, "Task": true, "TodoWrite": true, "StrReplace": true,
	"ApplyPatch": true, "Await": true, "AskQuestion": true,
}

// cursorMS reads epoch milliseconds written as a number or a string.
func cursorMS(v view.Value) int64 {
	switch v.Type() {
	case view.Number:
		return v.Int()
	case view.String:
		n, _ := v.Str().Int()
		return n
	}
	return 0
}

type cursorTool struct {
	key, name string
	span      int
	mcpServer string // owned copies of the MCP names, for hashing only
	mcpTool   string
	// What finish writes of an MCP call's arguments (args.args), taken
	// when the call opens: the arguments are of that line.
	mcpArgsHash string
	mcpArgsSize int
	agent       string // subagent span key (taskToolCall)
	done        bool
}

type cursorState struct {
	native.Base
	prompted int64 // time of the last user or tool record: the next chat span starts there
	fileID   string
	model    string
	cur      string // span key of the agent the records belong to; "" is the root
	file     int
	fileRel  string
	bound    map[string]bool // task tool keys whose subagent transcript was read

	stream, transcript bool
	tools              map[string]*cursorTool
	chats              map[string]int
	timed              bool // a record had a time
	clocked            bool // spans were timed on the record clock before any record had a time
	result             bool
	usage              view.Owned // the terminal result's usage, a copy (read at End)
	gapDone            bool
	counts             map[string]int64
}

func newCursor(env converters.Env) *cursorState {
	return &cursorState{Base: native.New(env, cursorTypes), tools: map[string]*cursorTool{}, chats: map[string]int{},
		counts: map[string]int64{}, bound: map[string]bool{}}
}

// StartFile takes the conversation id from a transcript's file name
// (<uuid>.jsonl): transcript lines carry no id.
// A companion file (a transcript under subagents/) is a subagent's: its
// records go to a subagent span, opened at its first record.
func (c *cursorState) StartFile(f converters.SourceFile, out *converters.Output) error {
	c.file, c.fileRel, c.cur = f.Index, f.Rel, ""
	base := strings.TrimSuffix(native.PathBase(f.Rel), ".jsonl")
	if f.Index == 0 && leak.UUID.Admit(base) {
		c.fileID = base
	}
	return nil
}

// subagentFile opens the span of a companion transcript: the subagent of
// the oldest task call not yet matched with a transcript (transcripts name
// no parent call), or an unlinked subagent under the root.
func (c *cursorState) subagentFile(r converters.Record) {
	var tasks []*cursorTool
	for _, t := range c.tools {
		if t.agent != "" && !c.bound[t.key] {
			tasks = append(tasks, t)
		}
	}
	sort.Slice(tasks, func(i, j int) bool { return tasks[i].span < tasks[j].span })
	if len(tasks) > 0 {
		c.bound[tasks[0].key] = true
		c.cur = tasks[0].agent
		c.counts["subagent_transcripts_linked"]++
		return
	}
	c.cur = "agent:file:" + strconv.Itoa(c.file)
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: c.cur, Name: "invoke_agent", Kind: 1, Start: r.NS, End: r.NS, Attrs: append(events.AgentSpan("cursor-subagent"),
		receipt.Attr{Key: "subagent.depth", Value: receipt.Computed(1)})})
	c.Emit(r, c.cur, "subagent.spawned", append(events.SubagentSpawned("unlinked", 1), events.TranscriptLayout("session_subagents_dir")))
	c.counts["subagents"]++
}

// gap writes an explicit audit gap: something the format never records.
func (c *cursorState) gap(r converters.Record, gap, detail string) {
	c.Emit(r, "", "context.audit_gap.recorded", events.AuditGap(gap, detail))
}

func (c *cursorState) Record(r converters.Record, out *converters.Output) error {
	c.Out = out
	if r.NS != 0 {
		c.timed = true
	} else if !c.timed {
		// No record so far had a time (agent transcripts never do): the
		// spans go on the record clock, as the pipeline writes the trace
		// of an input without times (RecordClock).
		r.NS = converters.RecordClock(r.Seq)
		c.clocked = true
	}
	c.see(r)
	switch r.Type {
	case "system":
		if m := r.Get("model"); m.IsString() && !m.Str().Empty() {
			c.model = m.Str().Own()
		}
		if r.File == 0 {
			c.SeeWorkDir(r.Get("cwd").Str())
		}
		c.counts["system_"+cursorSubtype(r)]++
	case "user":
		c.user(r)
		c.prompted = r.NS // 0 when the prompt has no time: the first thinking line then says when the call began
	case "thinking":
		if c.prompted == 0 {
			c.prompted = r.NS
		}
	case "assistant":
		c.assistant(r)
	case "tool_call":
		c.toolCall(r)
		if r.NS > 0 && r.Get("subtype").Str().Is("completed") {
			c.prompted = r.NS // a tool's result prompts the next model call
		}
	case "result":
		c.runResult(r)
	case "turn_ended":
		c.counts["turns"]++
		if s := r.Get("status").Str(); !s.Empty() && !s.Is("success") {
			c.counts["turns_not_successful"]++
		}
	default:
		if r.Type != "" {
			c.counts[r.Type]++
		} else {
			c.counts[r.TypeText.Own()]++ // a type Cursor does not document, by its spelling
		}
	}
	return nil
}

// see notes what any record says of the log: its type, whether it is
// a stream capture or a transcript, the file's subagent, the
// session id, and (once) the audit gap of instruction loads.
func (c *cursorState) see(r converters.Record) {
	c.CountType(r)
	role := r.Get("role").IsString() && !r.Get("type").Exists()
	if role || r.Type == "turn_ended" {
		c.transcript = true
	} else {
		c.stream = true
	}
	if r.File > 0 && c.cur == "" {
		c.subagentFile(r)
	}
	if sid := r.Get("session_id"); r.File == 0 && c.Session == "" && sid.IsString() && !sid.Str().Empty() {
		c.Session = c.Pass(leak.IDOrUUID, sid.Str())
	}
	if !c.gapDone {
		c.gapDone = true
		c.gap(r, "instruction_loads_not_logged", "cursor_rules_agents_md_and_user_rules_load_without_a_record")
	}
}

// runResult reads the terminal result of a stream capture: its usage
// (written at End), failure and duration.
func (c *cursorState) runResult(r converters.Record) {
	c.result = true
	c.usage = r.Get("usage").Own()
	if r.Get("is_error").Bool() {
		c.counts["failed_runs"]++
	}
	if d := r.Get("duration_ms"); d.IsNumber() {
		c.Out.Span.Set("cursor.duration_bucket", receipt.S(receipt.LatencyLadder.Bucket(c.Count(d))))
	}
}

func cursorSubtype(r converters.Record) string {
	if s, ok := r.Get("subtype").Str().Word("init", "task_notification", "background_shell_timeout"); ok {
		return s
	}
	return "other"
}

// cursorLabels are the values of its label fields the reader knows, written
// in clear; any other value of a label field is written as its digest.
var cursorLabels = []string{
	"custom_block", "default", "delta", "login", "reconnected", "reconnecting", "starting",
}
