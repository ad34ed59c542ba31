package qwencode

import (
	"sort"
	"strconv"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// qwenUsageKey tells one usage record from another as ccusage's Qwen
// parser does: the session, the time, the model and the four counts.
type qwenUsageKey struct {
	session, time, model            string
	input, output, cached, thoughts int64
}

type qwenState struct {
	native.Base
	model    string // the model of the last assistant record
	prompted int64  // time of the last prompt or tool result: the next chat span starts there
	tools    map[string]*native.Call
	skills   map[string]bool
	seen     map[qwenUsageKey]bool
	totals   map[string]*native.Usage // by model, in usageMetadata's terms (usage)
	counts   map[string]int64
}

func newQwen(env converters.Env) *qwenState {
	return &qwenState{Base: native.New(env, qwenTypes), tools: map[string]*native.Call{}, skills: map[string]bool{},
		seen: map[qwenUsageKey]bool{}, totals: map[string]*native.Usage{}, counts: map[string]int64{}}
}

func (c *qwenState) Record(r converters.Record, out *converters.Output) error {
	c.Out = out
	c.CountType(r)
	if c.Session == "" {
		if sid := r.Get("sessionId").Str(); !sid.Empty() {
			c.Session = c.Pass(leak.IDOrUUID, sid)
		}
	}
	c.SeeWorkDir(r.Get("cwd").Str())
	c.SeeVersion(r.Get("version").Str())
	if r.Get("isSidechain").Bool() || r.Get("agentId").IsString() {
		c.counts["subagent_records"]++
	}
	switch r.Type {
	case "user":
		c.user(r, r.Get("message.parts"))
	case "assistant":
		c.assistant(r)
	case "tool_result":
		c.toolResult(r)
	case "system":
		c.system(r)
	}
	return nil
}

// qwenReferenced begins the part an @-reference adds to a prompt: the text
// of the files it read (core/src/utils/pathReader and the at-command
// processor of packages/cli).
const qwenReferenced = "--- Content from referenced files ---"

// user reads a prompt: its text parts, of which the files an @-reference
// read are a context load rather than the user's words.
func (c *qwenState) user(r converters.Record, parts view.Value) {
	c.counts["user_prompts"]++
	parts.ForEach(func(_, p view.Value) bool {
		switch t := p.Get("text").Str(); {
		case p.Get("inlineData").Exists() || p.Get("fileData").Exists():
			c.counts["attachments"]++
		case t.TrimSpace().HasPrefix(qwenReferenced):
			c.contextLoaded(r, "referenced_files", "user_at_command", t)
		}
		return true
	})
	if r.NS > 0 {
		c.prompted = r.NS
	}
}

// assistant reads a model response: a chat span with its tokens, and the
// tool calls it made.
func (c *qwenState) assistant(r converters.Record) {
	if m := r.Get("model").Str(); !m.Empty() && !m.Is(c.model) {
		c.model = m.Own()
	}
	c.counts["model_calls"]++
	start := r.NS
	if c.prompted > 0 && c.prompted < r.NS {
		start = c.prompted
	}
	attrs := events.ChatSpan("qwen")
	name := "chat"
	if c.model != "" {
		model := c.Pass(leak.Model, view.Borrow(c.model)) // owned
		name += " " + model
		attrs = append(attrs, receipt.Attr{Key: "gen_ai.request.model", Value: receipt.S(model)})
	}
	if u, ok := c.usage(r); ok {
		attrs = append(attrs, u.Chat()...)
		if u.Reasoning > 0 {
			attrs = append(attrs, receipt.Attr{Key: "gen_ai.usage.reasoning.output_tokens", Value: receipt.Copied(u.Reasoning)})
		}
	}
	key := "chat:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line)
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Name: name, Kind: 3, Start: start, End: r.NS, Attrs: attrs})
	c.prompted = 0
	r.Get("message.parts").ForEach(func(_, p view.Value) bool {
		switch {
		case p.Get("thought").Bool():
			c.counts["thoughts"]++
		case p.Get("functionCall").IsObject():
			c.openTool(r, key, p.Get("functionCall"))
		}
		return true
	})
}

// usage reads an assistant record's usageMetadata and adds it to its
// model's totals, as ccusage counts it (doc.go). In usageMetadata's terms:
// Input is promptTokenCount (cached tokens included), Output
// candidatesTokenCount, Reasoning thoughtsTokenCount, CacheRead
// cachedContentTokenCount.
func (c *qwenState) usage(r converters.Record) (native.Usage, bool) {
	u := r.Get("usageMetadata")
	if !u.IsObject() {
		return native.Usage{}, false
	}
	v := native.Usage{Input: c.Count(u.Get("promptTokenCount")), Output: c.Count(u.Get("candidatesTokenCount")),
		Reasoning: c.Count(u.Get("thoughtsTokenCount")), CacheRead: c.Count(u.Get("cachedContentTokenCount")), Responses: 1}
	if v.Input == 0 && v.Output == 0 && v.Reasoning == 0 && v.CacheRead == 0 {
		c.counts["empty_usage"]++
		return native.Usage{}, false
	}
	model := c.model
	if model == "" {
		model = "unknown"
	}
	key := qwenUsageKey{session: r.Get("sessionId").Str().Own(), time: r.Time, model: model,
		input: v.Input, output: v.Output, cached: v.CacheRead, thoughts: v.Reasoning}
	if c.seen[key] {
		c.counts["repeated_usage"]++
		return v, true
	}
	c.seen[key] = true
	t := c.totals[model]
	if t == nil {
		t = &native.Usage{}
		c.totals[model] = t
	}
	t.Add(v)
	return v, true
}

// openTool opens an execute_tool span under the chat span of the response
// that made the call.
func (c *qwenState) openTool(r converters.Record, parent string, fc view.Value) {
	id, name, args := fc.Get("id").Str(), fc.Get("name").Str(), fc.Get("args")
	key, ok := native.CallKey(&c.Base, id, c.tools, c.counts)
	if !ok {
		return
	}
	call := c.OpenCall(r, key, parent, id, name, args, qwenBuiltinTools)
	t := &call
	c.tools[key] = t
	switch {
	case name.Is("skill"):
		if s := args.Get("skill").Str(); !s.Empty() {
			a := c.Conversation(c.Skill("qwen_code", "model_tool_call", s, c.skills))
			c.Emit(r, key, "context.skill.invoked", a)
			c.counts["skills"]++
		}
	case name.Is("agent") || name.Is("task"):
		t.Subagent = true
		c.counts["subagents"]++
		a := append(events.SubagentSpawned("task_tool_call", 1), events.TranscriptLayout("inline_tool_call"))
		if p := args.Get("prompt").Str(); !p.Empty() {
			a = append(a, receipt.Attr{Key: "subagent.prompt_hash", Value: receipt.S(p.Digest(c.Hasher))})
		}
		if s := args.Get("subagent_type").Str(); !s.Empty() {
			a = append(a, receipt.Attr{Key: "subagent.type", Value: receipt.S(c.Name(s))})
		}
		c.Emit(r, key, "subagent.spawned", a)
	case name.Is("save_memory"):
		c.counts["memory_saves"]++
	}
}

// qwenDone are the statuses a tool_result gives a call (coreToolScheduler's
// Status): success, error, cancelled.
var qwenDone = []string{"success", "error", "cancelled"}

// toolResult closes the call its toolCallResult names with its result; a
// tool's result is the next prompt.
func (c *qwenState) toolResult(r converters.Record) {
	if r.NS > 0 {
		c.prompted = r.NS
	}
	tr := r.Get("toolCallResult")
	id := tr.Get("callId").Str()
	res := view.Value{}
	r.Get("message.parts").ForEach(func(_, p view.Value) bool {
		if f := p.Get("functionResponse"); f.IsObject() {
			if id.Empty() {
				id = f.Get("id").Str()
			}
			res = f.Get("response")
			return false
		}
		return true
	})
	t := c.tools["tool:"+c.KeyPart(id)]
	if id.Empty() || t == nil {
		c.counts["results_without_call"]++
		return
	}
	status, _ := tr.Get("status").Str().Word(qwenDone...)
	failed := status == "error" || status == "cancelled" || tr.Get("error").Exists() && tr.Get("error").Type() != view.Null
	got := c.FinishCall(r, t, failed, res, "qwen_code.tool_call.status", nil)
	switch {
	case got == "error":
		c.counts["failed_tool_calls"]++
	case got != "" && t.MCPServer != "":
		c.counts["mcp_calls"]++
	}
}

// qwenSubtypes are the system record subtypes this reader counts by name.
var qwenSubtypes = []string{
	"session_notes", "chat_compression", "slash_command", "ui_telemetry", "at_command", "attribution_snapshot",
	"notification", "custom_title", "session_model", "session_approval_mode", "rewind", "file_history_snapshot",
	"parent_session", "session_source",
}

// system reads a system record by its subtype: a compression, the files
// an @-reference read, the rest counted.
func (c *qwenState) system(r converters.Record) {
	sub, known := r.Get("subtype").Str().Word(qwenSubtypes...)
	if !known {
		c.counts["other_system_records"]++
		return
	}
	p := r.Get("systemPayload")
	switch sub {
	case "chat_compression":
		c.counts["compressions"]++
		// The compressed history starts with the summary the model wrote,
		// sent as a user message (services/chatCompressionService.ts).
		summary := p.Get("compressedHistory.0.parts.0.text")
		if !c.Compaction(r, c.counts["compressions"], "qwen_chat_compression", p.Get("info.originalTokenCount"), summary) {
			c.counts["compressions_without_summary"]++
		}
	case "at_command":
		c.counts["at_commands"]++
		c.counts["at_command_files"] += int64(native.ArrayLen(p.Get("filesRead")))
	case "slash_command":
		if p.Get("phase").Str().Is("invocation") {
			c.counts["slash_commands"]++
		}
	case "rewind":
		c.counts["rewinds"]++
	default:
		c.counts[sub]++
	}
}

// contextLoaded writes text the session sent to the model as a context
// load: digests and size, never the text.
func (c *qwenState) contextLoaded(r converters.Record, kind, activation string, text view.Text) {
	a := events.InputLoaded(kind, "qwen_code", activation)
	digest := events.SourceIdentity(&a, c.Hasher, text, "")
	events.DeliveredIdentity(&a, c.Hasher, text, digest, "as-recorded-by-session-log", false)
	a = append(a, receipt.Attr{Key: "privacy.raw_context_recorded", Value: receipt.B(false)})
	a = c.Conversation(a)
	c.Emit(r, "", "context.input.loaded", a)
	c.counts["context_loads"]++
}

func (c *qwenState) End(out *converters.Output) error {
	c.Out = out
	c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
		events.AuditGap("instruction_loads_not_logged", "qwen_md_context_files_and_system_prompt_load_without_a_record"))
	models := make([]string, 0, len(c.totals))
	for m := range c.totals {
		models = append(models, m)
	}
	sort.Strings(models)
	var all native.Usage
	for _, m := range models {
		t := c.totals[m]
		all.Add(*t)
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized", Attrs: events.UsageSummary(
			c.Pass(leak.Model, view.Borrow(m)), // owned
			t.Tokens(),
			receipt.Attrs{
				{Key: "gen_ai.usage.reasoning.output_tokens", Value: receipt.Copied(t.Reasoning)},
				{Key: "gen_ai.usage.responses", Value: receipt.Computed(t.Responses)},
			},
			"time_model_and_usage", "session")})
	}
	if len(models) == 0 {
		c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
			events.AuditGap("token_usage_not_logged", "qwen_responses_have_no_usage_metadata"))
	}
	c.RootIdentity(out, "qwen-code")
	if c.model != "" {
		out.Span.Set("gen_ai.request.model", receipt.S(c.Pass(leak.Model, view.Borrow(c.model))))
	}
	if len(models) > 0 { // unknown is not zero: the audit gap says so
		all.Root(out) // Input holds the cached tokens already
	}
	native.Tally(out, "qwen_code", c.counts, []string{"user_prompts", "model_calls", "tool_calls", "failed_tool_calls",
		"mcp_calls", "skills", "subagents", "compressions", "context_loads", "slash_commands", "at_commands", "repeated_usage",
		"subagent_records"}, native.Unfinished(c.tools, func(t *native.Call) bool { return t.Done }))
	c.Summarize(out)
	return nil
}

// The audit gaps this reader writes, in the schema of
// context.audit_gap.recorded (see events/eventschema.go).
var _ = events.DeclareEvent("context.audit_gap.recorded", events.EventDecl{Adds: true, Keys: []events.Attr{
	events.SetsProp("context.audit_gap.detail", events.Enum(
		"qwen_md_context_files_and_system_prompt_load_without_a_record", "qwen_responses_have_no_usage_metadata")),
}})
