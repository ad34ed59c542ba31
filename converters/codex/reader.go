package codex

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
)

// codex reads native OpenAI Codex CLI rollouts (~/.codex/sessions/YYYY/MM/
// DD/rollout-*.jsonl, and the .jsonl.zst Codex writes for idle sessions), in
// the pre-envelope layout of mid-2025 and the {timestamp,type,payload}
// envelope since (docs/converters.md). It writes what the
// rollout evidences about context (instruction loads wherever the version
// put them, environment context, skills, MCP calls and tool search,
// compaction, subagents) and token usage from the cumulative token_count
// totals, and a trace: an invoke_agent root, a chat span per turn and an
// execute_tool span per tool call.
//
// Message text, instructions, tool arguments and outputs, paths and cwd are
// raw: hashed or measured, never copied. Built-in tool names pass through;
// MCP server and tool names, skill names and agent roles are hashed unless
// --reveal names.
func init() {
	converters.RegisterBuiltin(converters.Converter{
		Name:        "codex",
		Doc:         "OpenAI Codex CLI rollouts (pre-envelope to 0.14x, .jsonl.zst): instructions, tools, MCP, compaction, tokens",
		SpanName:    "invoke_agent",
		TimeField:   "timestamp",
		Types:       codexTypes,
		OpenTypes:   true,
		PassThrough: codexPass,
		Labels:      codexLabels,
		Events: []string{
			"context.input.loaded", "context.skill.invoked", "mcp.tool_index.loaded", "mcp.tool_call.completed", "mcp.tool_search.performed",
			"context.compaction.started", "context.compaction.summary_loaded", "subagent.spawned",
			"subagent.result.returned", "gen_ai.token_usage.summarized",
		},
		New: func(env converters.Env) converters.State { return newCodex(env) },
		Native: &converters.Format{
			Type:      codexType,
			Layout:    converters.Layout{SessionID: codexRolloutID},
			Locations: []converters.Location{{Env: "CODEX_HOME", Default: ".codex", Below: "sessions"}},
			Seeds:     []string{"samples/codex"},
			IDs:       codexIDs,
		},
	})
}

// codexType is a record's type. A record is Codex's only in Codex's shape:
// the {timestamp, type, payload} envelope, or (pre-envelope rollouts) a bare
// Responses-API item with one of the fields only such items have. A
// pre-envelope rollout starts with a bare header {id, timestamp,
// instructions} and has {"record_type":"state"} markers: neither has a
// type, so the type names them. Other agents' logs share type names with
// Codex ("message", "compaction": pi-agent, OpenClaw and Factory Droid
// sessions) but not its shape, and get no type, so that detection does not
// hand them to this reader.
func codexType(r converters.Record) view.Value {
	t := r.Get("type")
	switch {
	case t.IsString() && r.Get("payload").Exists():
		return t
	case t.IsString():
		if codexBareItem(r, t) {
			return t
		}
		return view.Value{}
	case r.Get("record_type").IsString():
		return codexWord("state_marker")
	case r.Get("id").IsString() && r.Get("timestamp").Exists() && !codexForeign(r):
		return codexWord("session_header")
	}
	return view.Value{}
}

// codexBareItem reports whether r, a record without an envelope, is a
// pre-envelope Responses-API item: an item type Codex knows, with a field
// only those items carry (a message's role and content, a call's call_id,
// encrypted reasoning, a git snapshot, a web search's action, an
// inter-agent message's author), and none of the fields of the agents
// whose logs wrap their messages ({"type":"message","message":{...}}).
func codexBareItem(r converters.Record, t view.Value) bool {
	if known, _ := view.Lookup(codexBareItemTypes(), t.Str()); !known || codexForeign(r) {
		return false
	}
	switch {
	case r.Get("role").IsString():
		return r.Get("content").Exists()
	case r.Get("call_id").Exists(), r.Get("encrypted_content").Exists(), r.Get("ghost_commit").Exists(),
		r.Get("action").IsObject(), r.Get("author").Exists(), r.Get("summary").IsArray():
		return true
	}
	return false
}

// codexForeign reports whether r has a field of another agent's envelope
// that no Codex record has at its top level: a wrapped message, a tree
// link, a session id of the Claude Code, Cursor or Droid kinds, a
// Codebuff chat message's variant, a chat app's sender ({id, timestamp}
// alone is every message's shape, not a session header).
func codexForeign(r converters.Record) bool {
	for _, k := range []string{"message", "parentId", "parentUuid", "sessionId", "session_id", "version", "uuid", "variant", "sender"} {
		if r.Get(k).Exists() {
			return true
		}
	}
	return false
}

// codexBareItemTypes is codexItemTypes as a set.
var codexBareItemTypes = sync.OnceValue(func() map[string]bool {
	m := make(map[string]bool, len(codexItemTypes))
	for _, t := range codexItemTypes {
		m[t] = true
	}
	return m
})

// codexWord is a type codexType gives records that have none: a JSON
// string of a constant (owned), made as a Value for the call.
func codexWord(w string) view.Value {
	return view.Of(gjson.Result{Type: gjson.String, Str: w})
}

// codexRolloutRe is a rollout file name (sessions/YYYY/MM/DD/rollout-
// <time>-<thread-uuid>.jsonl), ending in its thread id.
var codexRolloutRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^rollout-.*([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl(\.gz|\.zst)?$`)
})

// codexRolloutID is the thread id in a rollout's file name ("" for none).
func codexRolloutID(base string) string {
	if m := codexRolloutRe().FindStringSubmatch(base); m != nil {
		return m[1]
	}
	return ""
}

// codexItemTypes are the Responses-API item types: response_item payloads,
// and bare records in pre-envelope rollouts.
var codexItemTypes = []string{
	"message", "reasoning", "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output",
	"local_shell_call", "tool_search_call", "tool_search_output", "web_search_call", "image_generation_call",
	"ghost_snapshot", "compaction", "compaction_summary", "agent_message",
}

// codexTypes are the record types this converter knows; detection scores
// inputs by them. Others are counted (by digest) and otherwise ignored.
var codexTypes = append([]string{
	"session_meta", "turn_context", "response_item", "event_msg", "compacted", "world_state",
	"inter_agent_communication", "inter_agent_communication_metadata", "security_risk_score", "realtime_item",
	"session_header", "state_marker",
}, codexItemTypes...)

// codexPass are the structural fields whose token values may appear in
// output: ids, enums, versions, model names, built-in tool names.
var codexPass = leak.Paths{
	// Token counts: numbers the reader sums.
	"*.input_tokens": leak.Count, "*.cached_input_tokens": leak.Count, "*.output_tokens": leak.Count,
	"*.reasoning_output_tokens": leak.Count, "*.total_tokens": leak.Count, "*.model_context_window": leak.Count,
	"*.exit_code": leak.Count, "*.duration_ms": leak.Count,
	// Running totals (a heavy session passes 10^9): only subtracted.
	"payload.info.total_token_usage.input_tokens": leak.Cumulative, "payload.info.total_token_usage.cached_input_tokens": leak.Cumulative,
	"payload.info.total_token_usage.cache_write_input_tokens": leak.Cumulative, "payload.info.total_token_usage.output_tokens": leak.Cumulative,
	"payload.info.total_token_usage.reasoning_output_tokens": leak.Cumulative, "payload.info.total_token_usage.total_tokens": leak.Cumulative,
	"type": leak.Label, "timestamp": leak.Time, "ordinal": leak.Count, "id": leak.IDOrUUID, "record_type": leak.Label,
	"payload.type": leak.Label, "payload.id": leak.IDOrUUID, "payload.session_id": leak.IDOrUUID, "payload.timestamp": leak.Time,
	"payload.originator": leak.Label, "payload.cli_version": leak.Version, "payload.source": leak.Label, "payload.model_provider": leak.Label,
	"payload.model": leak.Model, "payload.effort": leak.Label, "payload.summary": leak.Label, "payload.approval_policy": leak.Label,
	"payload.sandbox_policy.type": leak.Label, "payload.sandbox_policy.mode": leak.Label, "payload.call_id": leak.ID,
	"payload.namespace": leak.Name, "payload.status": leak.Label, "payload.role": leak.Label, "payload.content.#.type": leak.Label,
	"payload.phase": leak.Label, "payload.turn_id": leak.IDOrUUID, "payload.forked_from_id": leak.IDOrUUID, "payload.parent_thread_id": leak.IDOrUUID,
	"payload.source.subagent": leak.Label, "payload.source.subagent.thread_spawn.parent_thread_id": leak.IDOrUUID,
	"payload.execution": leak.Label, "payload.reason": leak.Label, "payload.kind": leak.Label, "payload.agent_thread_id": leak.IDOrUUID,
	"payload.new_thread_id": leak.IDOrUUID, "payload.thread_id": leak.IDOrUUID, "payload.window_id": leak.IDOrUUID,
	"payload.previous_window_id": leak.IDOrUUID, "payload.first_window_id": leak.IDOrUUID, "payload.info.model": leak.Model,
	"name": leak.Name, "call_id": leak.ID, "role": leak.Label, "status": leak.Label, "content.#.type": leak.Label,
	// Names that --reveal names writes in clear; without it they are hashed.
	"payload.name": leak.Name, "payload.agent_role": leak.Name, "payload.agent_nickname": leak.Name,
	"payload.invocation.server": leak.Name, "payload.invocation.tool": leak.Name,
	"payload.item.server": leak.Name, "payload.item.tool": leak.Name, // 0.149 item_completed McpToolCall
	"payload.source.subagent.thread_spawn.agent_role": leak.Name,
}

// codexLabels are the values of its label fields the reader knows, written
// in clear; any other value of a label field is written as its digest.
var codexLabels = []string{
	"function",
	"assistant", "auto", "azure", "cli", "codex-tui", "codex_cli_rs", "codex_exec", "codex_sdk_ts",
	"codex_vscode", "commentary", "completed", "concise", "danger-full-access", "default", "detailed",
	"developer", "exec", "failed", "final_answer", "high", "in_progress", "incomplete", "input_image",
	"input_text", "low", "mcp", "medium", "minimal", "model_rerouted", "never", "none", "off", "ollama",
	"on-failure", "on-request", "openai", "openrouter", "output_text", "read-only", "reasoning_text",
	"summary_text", "system", "thread_checkpoint", "untrusted", "update", "user", "vscode", "workspace-write",
	"xhigh",
}

// codexBuiltinTools are Codex's own tool names: public, so they pass
// through. Any other tool name (MCP, dynamic tools) is hashed.
var codexBuiltinTools = map[string]bool{
	"shell": true, "container.exec": true, "local_shell": true, "exec_command": true, "write_stdin": true,
	"apply_patch": true, "update_plan": true, "view_image": true, "web_search": true, "read_file": true,
	"list_dir": true, "grep_files": true, "unified_exec": true, "shell_command": true, "exec": true,
	"spawn_agent": true, "send_input": true, "wait": true, "close_agent": true, "resume_agent": true,
	"list_mcp_resources": true, "list_mcp_resource_templates": true, "read_mcp_resource": true,
	"tool_search": true, "request_user_input": true, "image_generation": true,
	"wait_agent": true, "list_agents": true, "send_message": true,
	// The Codex app's own tools (namespace codex_app).
	"codex_app.create_thread": true, "codex_app.send_message_to_thread": true, "codex_app.automation_update": true,
}

// codexCollabTools are the tools of the collaboration namespace (and their
// earlier un-namespaced names) that spawn a subagent or wait for one.
var codexCollabTools = map[string]string{"spawn_agent": "spawn", "wait": "wait", "wait_agent": "wait"}

// codexTool is a tool call waiting for its output.
type codexTool struct {
	key, name   string
	span        int
	args        view.Owned // a copy: the tool outlives its line
	argsDigest  string
	argsSize    int
	mcpServer   string // raw MCP server and tool names, for hashing only
	mcpTool     string
	mcpReported bool // mcp.tool_call.completed written
	done        bool
	collab      string // a collaboration call: "spawn" or "wait" ("" for others)
}

// codexOwn are the counts OpenAI reports beyond the common four.
func codexOwn(u native.Usage) receipt.Attrs {
	return receipt.Attrs{
		{Key: "gen_ai.usage.reasoning.output_tokens", Value: receipt.Copied(u.Reasoning)},
		{Key: "gen_ai.usage.total_tokens", Value: receipt.Copied(u.Total)},
	}
}

// totalOf reads a cumulative total_token_usage (leak.Cumulative): a
// heavy session's totals pass MaxCount honestly. It is only subtracted
// (tokenCount), never written.
func (c *codexState) totalOf(v view.Value) native.Usage {
	return native.Usage{
		Input: c.Cumulative(v.Get("input_tokens")), CacheRead: c.Cumulative(v.Get("cached_input_tokens")),
		CacheWrite: c.Cumulative(v.Get("cache_write_input_tokens")), Output: c.Cumulative(v.Get("output_tokens")),
		Reasoning: c.Cumulative(v.Get("reasoning_output_tokens")), Total: c.Cumulative(v.Get("total_tokens")),
	}
}

func (c *codexState) usageOf(v view.Value) native.Usage {
	return native.Usage{
		Input: c.Count(v.Get("input_tokens")), CacheRead: c.Count(v.Get("cached_input_tokens")),
		CacheWrite: c.Count(v.Get("cache_write_input_tokens")), Output: c.Count(v.Get("output_tokens")),
		Reasoning: c.Count(v.Get("reasoning_output_tokens")), Total: c.Count(v.Get("total_tokens")),
	}
}

type codexState struct {
	native.Base
	fileID   string // thread id from the file name, when the records have none
	model    string
	provider string // the chat spans' gen_ai.provider.name: session_meta's model_provider, else openai
	chat     int    // index in out.Spans of the current turn's chat span; -1 before the first turn

	historyStart int64 // subagent_history_start_ordinal: records before it are copied from the parent
	forkAt       int64 // a fork's creation (unix ms, from its UUIDv7 id): turns minted before it are the parent's copy; 0 when not gated
	tools        map[string]*codexTool
	agents       map[string]string // child thread id -> span key
	loads        map[string]bool   // kind|via|digest of instruction loads already written
	skills       map[string]bool

	prevTotal  *native.Usage            // last cumulative total seen
	perModel   map[string]*native.Usage // usage by model, from total deltas
	models     []string
	chatUsage  map[int]*native.Usage
	countsSeen int64 // token_count events with usage
	lastInput  int64 // input tokens of the last request: the context size

	counts     map[string]int64
	parent     string
	compaction int
}

func newCodex(env converters.Env) *codexState {
	return &codexState{
		Base: native.New(env, codexTypes), chat: -1, historyStart: -1, provider: "openai",
		tools: map[string]*codexTool{}, agents: map[string]string{}, loads: map[string]bool{}, skills: map[string]bool{},
		perModel: map[string]*native.Usage{}, chatUsage: map[int]*native.Usage{},
		counts: map[string]int64{},
	}
}

// StartFile takes the thread id from a rollout's file name
// (rollout-<time>-<uuid>.jsonl), used when no record names it.
func (c *codexState) StartFile(f converters.SourceFile, out *converters.Output) error {
	base := strings.TrimSuffix(strings.TrimSuffix(native.PathBase(f.Rel), ".zst"), ".jsonl")
	if len(base) >= 36 && strings.HasPrefix(base, "rollout-") {
		if id := base[len(base)-36:]; leak.UUID.Admit(id) {
			c.fileID = id
		}
	}
	return nil
}

func (c *codexState) Record(r converters.Record, out *converters.Output) error {
	c.Out = out
	c.CountType(r)
	if c.historyStart > 0 {
		if o := r.Get("ordinal"); o.IsNumber() && o.Int() < c.historyStart {
			c.counts["copied_history_records"]++
			return nil
		}
	}
	p := r.Get("payload")
	if c.forkAt > 0 && c.forkCopy(r, p) {
		return nil
	}
	switch r.Type {
	case "session_header":
		c.sessionMeta(r, r.JSON, "session_header_instructions")
	case "session_meta":
		c.sessionMeta(r, p, "session_meta_instructions")
	case "turn_context":
		c.turnContext(r, p)
	case "response_item":
		c.item(r, p)
	case "event_msg":
		c.event(r, p)
	case "compacted":
		c.compacted(r, p)
	case "world_state":
		if md := p.Get("state.agents_md"); md.IsObject() {
			c.instructions(r, "agents_md", "world_state_agents_md", md.Get("directory").Str(), md.Get("text"), md.Get("text"))
		}
	case "state_marker":
	default:
		if slices.Contains(codexItemTypes, r.Type) {
			c.item(r, r.JSON) // pre-envelope: a bare Responses-API item
		}
	}
	return nil
}

// forkCopy reports whether a record of a fork is part of the parent's
// history that the fork begins with (re-stamped: its times are the fork's,
// so they cannot tell). Turn ids are UUIDv7s minted when the turn first
// ran: the copy ends at the first turn_context whose turn id is as new as
// the fork itself, or whose id carries no time (then nothing more is taken
// for a copy). Copied token counts set the baseline of the cumulative
// totals and are not usage of the fork; every copied record is counted.
func (c *codexState) forkCopy(r converters.Record, p view.Value) bool {
	if r.Type == "turn_context" {
		if t := uuidV7Ms(p.Get("turn_id").Str()); t == 0 || t >= c.forkAt {
			c.forkAt = 0
			return false
		}
	}
	if r.Type == "session_meta" && c.Session == "" {
		return false // the fork's own meta, which armed the gate
	}
	if r.Type == "event_msg" && p.Get("type").Str().Is("token_count") {
		if tot := p.Get("info.total_token_usage"); tot.IsObject() {
			now := c.totalOf(tot)
			c.prevTotal = &now
		}
	}
	c.counts["copied_history_records"]++
	return true
}

// uuidV7Ms is the unix millisecond time a UUIDv7 carries in its first 48
// bits, 0 for any other value.
func uuidV7Ms(id view.Text) int64 {
	if id.Len() != 36 || id.Byte(14) != '7' || !id.Fits(leak.UUID) {
		return 0
	}
	// The 12 hex digits of id[0:8]+id[9:13], which leak.UUID admitted.
	var ms int64
	for i := 0; i < 13; i++ {
		if i == 8 {
			continue
		}
		d, ok := hexDigit(id.Byte(i))
		if !ok {
			return 0
		}
		ms = ms<<4 | int64(d)
	}
	return ms
}

// hexDigit is the value of a hexadecimal digit.
func hexDigit(b byte) (byte, bool) {
	switch {
	case b >= '0' && b <= '9':
		return b - '0', true
	case b >= 'a' && b <= 'f':
		return b - 'a' + 10, true
	case b >= 'A' && b <= 'F':
		return b - 'A' + 10, true
	}
	return 0, false
}

// sessionMeta reads a thread's identity, its parent or fork origin, and the
// instructions older versions put in the header.
func (c *codexState) sessionMeta(r converters.Record, p view.Value, via string) {
	if v := p.Get("cli_version"); v.IsString() {
		c.SeeVersion(v.Str())
	}
	if c.Session != "" {
		// A fork or a child copies its parent's history, meta included: the
		// thread is the first meta's. A resumed thread writes its own meta
		// again (Codex 0.142-0.146 up to 34 times) while total_token_usage
		// keeps running: a repeated meta is no new baseline; a baseline
		// restarts only where the totals go down (tokenCount).
		c.counts["extra_session_meta"]++
		return
	}
	if id := p.Get("id"); id.IsString() && !id.Str().Empty() {
		c.Session = c.Pass(leak.IDOrUUID, id.Str())
	}
	c.SeeWorkDir(p.Get("cwd").Str())
	if n := p.Get("subagent_history_start_ordinal"); n.IsNumber() {
		c.historyStart = c.Count(n)
	}
	if o := p.Get("originator"); o.IsString() && !o.Str().Empty() {
		c.Out.Span.Set("codex.originator", receipt.S(c.Pass(leak.Label, o.Str())))
	}
	if pr := p.Get("model_provider"); pr.IsString() {
		c.provider = c.Pass(leak.Label, pr.Str())
	}
	if f := p.Get("forked_from_id"); f.IsString() && !f.Str().Empty() {
		// Provenance: the fork copied that thread's history; it is not a child.
		c.Out.Span.Set("codex.forked_from_id", receipt.S(c.Pass(leak.IDOrUUID, f.Str())))
		c.forkAt = uuidV7Ms(p.Get("id").Str())
		if c.forkAt == 0 && r.NS > 0 {
			c.forkAt = r.NS / 1e6
		}
	}
	spawn := p.Get("source.subagent.thread_spawn")
	parent := native.FirstString(p.Get("parent_thread_id"), spawn.Get("parent_thread_id"))
	sub := p.Get("source.subagent")
	if !parent.Empty() || sub.Exists() {
		c.childThread(r, p, spawn, sub, parent)
	}
	if ins := p.Get("instructions"); ins.IsString() && !ins.Str().Empty() {
		c.instructions(r, "user_instructions", via, view.Text{}, ins, ins)
	}
	c.dynamicTools(r, p.Get("dynamic_tools"))
	if b := p.Get("base_instructions.text"); b.IsString() && !b.Str().Empty() {
		c.instructions(r, "system_prompt", "session_meta_base_instructions", view.Text{}, b, b)
	}
}

// childThread writes that this rollout is a subagent's: its parent thread
// (another rollout, converted on its own) and its role.
func (c *codexState) childThread(r converters.Record, p, spawn, sub view.Value, parent view.Text) {
	depth := c.Count(spawn.Get("depth"))
	if d := p.Get("depth"); d.IsNumber() {
		depth = c.Count(d)
	}
	if depth < 1 {
		depth = 1
	}
	a := append(events.SubagentSpawned("parent_thread_id", depth), events.TranscriptLayout("separate_rollout"))
	var kind view.Text
	switch {
	case sub.IsString():
		kind = sub.Str() // review, compact
	case sub.Get("thread_spawn").Exists():
		kind = native.FirstString(p.Get("agent_role"), spawn.Get("agent_role"))
	}
	if !kind.Empty() {
		a = append(a, receipt.Attr{Key: "subagent.type", Value: receipt.S(c.Name(kind))})
	}
	if !parent.Empty() {
		c.parent = c.Pass(leak.IDOrUUID, parent)
		a = append(a, receipt.Attr{Key: "subagent.parent_thread_id", Value: receipt.S(c.parent)})
		c.Out.Span.Set("codex.parent_thread_id", receipt.S(c.parent))
		c.Out.Links = append(c.Out.Links, converters.Link{TraceKey: c.parent, Attrs: receipt.Attrs{{Key: "subagent.link", Value: receipt.S("parent_rollout")}}})
	}
	c.Out.Span.Set("subagent.depth", receipt.Computed(depth))
	c.Emit(r, "", "subagent.spawned", a)
}

// turnContext opens the chat span of a turn and writes the instructions
// newer versions repeat in every turn context (once per distinct text).
func (c *codexState) turnContext(r converters.Record, p view.Value) {
	if m := p.Get("model"); m.IsString() && !m.Str().Empty() && !m.Str().Is(c.model) {
		c.model = m.Str().Own() // kept past the line
	}
	c.chat = len(c.Out.Spans)
	attrs := events.ChatSpan(c.provider)
	if c.model != "" {
		attrs = append(attrs, receipt.Attr{Key: "gen_ai.request.model", Value: receipt.S(c.Pass(leak.Model, view.Borrow(c.model)))})
	}
	if e := p.Get("effort"); e.IsString() {
		if effort, ok := e.Str().Admit(leak.Label); ok {
			attrs = append(attrs, receipt.Attr{Key: "codex.reasoning.effort", Value: receipt.S(effort)})
		}
	}
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: "chat:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line), Name: c.chatName(),
		Kind: 3, Start: r.NS, End: r.NS, Attrs: attrs})
	c.counts["turns"]++
	if u := p.Get("user_instructions"); u.IsString() && !u.Str().Empty() {
		c.instructions(r, "user_instructions", "turn_context_user_instructions", view.Text{}, u, u)
	}
	if d := p.Get("developer_instructions"); d.IsString() && !d.Str().Empty() {
		c.instructions(r, "developer_instructions", "turn_context_developer_instructions", view.Text{}, d, d)
	}
	if d := p.Get("collaboration_mode.settings.developer_instructions"); d.IsString() && !d.Str().Empty() {
		c.instructions(r, "developer_instructions", "collaboration_mode_developer_instructions", view.Text{}, d, d)
	}
}

func (c *codexState) modelOr() string {
	if c.model == "" {
		return "unknown"
	}
	return c.model
}

// touch stretches the current chat span to cover a record time.
func (c *codexState) touch(ns int64) {
	if c.chat >= 0 {
		c.Out.Spans[c.chat].Cover(ns)
	}
}

// instructions writes one instruction load: kind (agents_md, user
// instructions, system prompt, developer instructions, environment
// context), the place the version put it (via), the source text and the
// delivered text. A text repeated in the same place (turn contexts repeat
// it every turn) is written once.
func (c *codexState) instructions(r converters.Record, kind, via string, dir view.Text, source, delivered view.Value) {
	digest := c.Digest(delivered)
	textDigest := digest
	if !delivered.IsString() {
		textDigest = "" // c.digest hashed it as JSON; its identity is of its text
	}
	c.instructionText(r, kind, via, dir, source.String(), delivered.String(), digest, textDigest)
}

// instructionText is instructions of the source and delivered texts: key
// is the delivered value's digest (what repeats are told by), digest the
// delivered text's when the caller has it ("" when not).
func (c *codexState) instructionText(r converters.Record, kind, via string, dir, src, del view.Text, key, digest string) {
	key = kind + "|" + via + "|" + key
	if c.loads[key] {
		c.counts["repeated_instruction_loads"]++
		return
	}
	c.loads[key] = true
	a := append(events.InputLoaded(kind, "codex", codexActivation(via)), receipt.Attr{Key: "context.input.delivered.via", Value: receipt.S(via)})
	if kind == "agents_md" {
		a = append(a, receipt.Attr{Key: "context.input.source.path", Value: receipt.S("AGENTS.md")})
		if !dir.Empty() {
			// A path, short: copied to be joined, then hashed.
			a = append(a, receipt.Attr{Key: "context.input.source.path_hash", Value: receipt.S(c.Hasher.Text(dir.TrimSuffix("/").Own() + "/AGENTS.md"))})
		}
	}
	srcDigest := ""
	if src.Equal(del) {
		srcDigest = digest
	}
	events.SourceIdentity(&a, c.Hasher, src, srcDigest)
	events.DeliveredIdentity(&a, c.Hasher, del, digest, "as-recorded-by-codex", true)
	a = append(a, receipt.Attr{Key: "privacy.raw_context_recorded", Value: receipt.B(false)})
	a = c.Conversation(a)
	c.Emit(r, "", "context.input.loaded", a)
	c.counts["instruction_loads"]++
}

func (c *codexState) End(out *converters.Output) error {
	c.Out = out
	if c.Session == "" && c.fileID != "" {
		c.Session = c.fileID
	}
	var all native.Usage
	for _, m := range c.models {
		u := c.perModel[m]
		all.Add(*u)
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized",
			Attrs: events.UsageSummary(c.Pass(leak.Model, view.Borrow(m)), u.Tokens(), codexOwn(*u), "cumulative_total_deltas", "thread")})
	}
	// The spans' usage follows the GenAI conventions (input already holds
	// the cached tokens, as OpenAI counts them); receipts keep usageSummary.
	for idx, u := range c.chatUsage {
		out.Spans[idx].Attrs = append(append(out.Spans[idx].Attrs, u.Chat()...),
			receipt.Attr{Key: "gen_ai.usage.reasoning.output_tokens", Value: receipt.Copied(u.Reasoning)})
	}
	c.RootIdentity(out, "codex")
	all.Root(out)
	for _, k := range []string{"user_prompts", "tool_calls", "turns", "compactions", "instruction_loads", "rollbacks", "aborted_turns", "subagents"} {
		out.Span.Set("codex."+k+".count", receipt.Computed(c.counts[k]))
	}
	if n := c.counts["app_messages"]; n > 0 {
		out.Span.Set("codex.app_messages.count", receipt.Computed(n))
	}
	if n := c.counts["copied_history_records"]; n > 0 {
		out.Span.Set("codex.copied_history_records.count", receipt.Computed(n))
	}
	var open int64
	for _, t := range c.tools {
		if !t.done {
			open++
		}
	}
	if open > 0 {
		out.Span.Set("codex.tool_calls.without_output", receipt.Computed(open))
	}
	c.Summarize(out)
	return nil
}

// codexActivation says when a place delivers its text: at session start
// (header, session meta), with every turn (turn context), or as a message
// Codex injected into the history.
func codexActivation(via string) string {
	switch {
	case strings.HasPrefix(via, "session_"):
		return "session_start"
	case strings.HasSuffix(via, "_message"):
		return "injected_message"
	case strings.HasPrefix(via, "world_state"):
		return "world_state_snapshot"
	}
	return "turn_context"
}

// dynamicTools writes the tool index of session_meta.dynamic_tools (a list,
// or in 0.146 an object wrapping tools[]): names and counts, and how many
// are deferred (loaded only through tool search).
func (c *codexState) dynamicTools(r converters.Record, dt view.Value) {
	if dt.IsObject() {
		dt = dt.Get("tools")
	}
	if !dt.IsArray() {
		return
	}
	var names []string
	deferred := int64(0)
	dt.ForEach(func(_, t view.Value) bool {
		names = append(names, t.Get("name").Str().Own()) // small; hashed as a list below
		if t.Get("deferLoading").Bool() || t.Get("defer_loading").Bool() {
			deferred++
		}
		return true
	})
	strategy := "all_definitions_at_startup"
	if deferred > 0 {
		strategy = "deferred_tool_loading"
	}
	c.Emit(r, "", "mcp.tool_index.loaded", events.ToolIndex{
		Strategy: strategy, NamesHash: c.ListDigest(names), Count: int64(len(names)), AtStartup: int64(len(names)) - deferred,
	}.Attrs())
}

// chatName names a chat span after its model, or just "chat" when the log
// names none.
func (c *codexState) chatName() string {
	if c.model == "" {
		return "chat"
	}
	return "chat " + c.Pass(leak.Model, view.Borrow(c.model))
}
