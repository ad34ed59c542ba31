package kimicli

import (
	"strconv"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// kimiUsageKey tells one StatusUpdate's usage from another as ccusage's
// Kimi parser does: the message id, the time and the four counts (the
// session and model are the same for every line of a session).
type kimiUsageKey struct {
	message, time                        string
	input, output, cacheRead, cacheWrite int64
}

type kimiState struct {
	native.Base
	step      int          // index in Out.Spans of the open step's chat span; -1 for none
	stepUsage native.Usage // the open step's usage: its distinct updates summed
	prompted  int64        // time of the last prompt or tool result: the next step starts there
	tools     map[string]*native.Call
	agents    map[string]bool // subagents seen, by agent id (raw, never written)
	seen      map[kimiUsageKey]bool
	total     native.Usage // kosong's TokenUsage terms: Input is input_other, the cache apart
	counts    map[string]int64
	maxTokens int64 // the largest context size the history records
	// Kimi Code's wire (code.go): totals per model, told apart by key.
	code       bool
	codeSeen   map[kimiCodeKey]bool
	codeTotals map[string]*native.Usage
	folders    []string // the wire's last folders (Env.Folders): raw
}

func newKimi(env converters.Env) *kimiState {
	return &kimiState{Base: native.New(env, kimiTypes), folders: env.Folders, step: -1, tools: map[string]*native.Call{},
		agents: map[string]bool{}, seen: map[kimiUsageKey]bool{}, counts: map[string]int64{},
		codeSeen: map[kimiCodeKey]bool{}, codeTotals: map[string]*native.Usage{}}
}

// StartFile names the session by its folder (as ccusage does): the wire
// holds no id of its own.
//
//	~/.kimi/sessions/<work dir hash>/<session>/wire.jsonl                       Kimi CLI
//	~/.kimi-code/sessions/<work dir hash>/<session>/agents/<agent>/wire.jsonl   Kimi Code
func (c *kimiState) StartFile(f converters.SourceFile, out *converters.Output) error {
	c.Out = out
	if f.Index == 0 && c.Session == "" {
		if sid, ok := c.Admit(leak.IDOrUUID, view.Borrow(kimiSessionFolder(c.folders))); ok {
			c.Session = sid
		}
	}
	return nil
}

func (c *kimiState) Record(r converters.Record, out *converters.Output) error {
	c.Out = out
	c.CountType(r)
	p := r.Get("message.payload")
	switch r.Type {
	case "metadata":
		c.SeeVersion(r.Get("protocol_version").String())
		if v := r.Get("protocolVersion"); v.Exists() {
			c.code = true
			c.SeeVersion(v.String())
		}
	case "usage.record", "context.append_message":
		c.codeRecord(r)
	case "TurnBegin", "SteerInput":
		c.counts["user_prompts"]++
		c.closeStep()
		if r.NS > 0 {
			c.prompted = r.NS
		}
	case "StepBegin":
		c.openStep(r)
	case "StepInterrupted":
		c.counts["interrupted_steps"]++
		c.closeStep()
	case "TurnEnd":
		c.closeStep()
	case "ContentPart":
		c.cover(r)
		if p.Get("type").Str().Is("think") {
			c.counts["thinking_parts"]++
		}
	case "ToolCall":
		c.openTool(r, p)
	case "ToolResult":
		c.finishTool(r, p)
	case "StatusUpdate":
		c.usage(r, p)
	case "CompactionBegin":
		c.counts["compactions"]++
		a := events.CompactionStarted(c.Hasher.Text(c.Session+":compaction:"+strconv.FormatInt(c.counts["compactions"], 10)), "kimi_compaction")
		a = append(a, receipt.Attr{Key: "privacy.raw_context_recorded", Value: receipt.B(false)})
		c.Emit(r, "", "context.compaction.started", a)
	case "CompactionEnd":
		c.counts["compactions_ended"]++
	case "ApprovalRequest":
		c.counts["approval_requests"]++
	case "ApprovalResponse", "ApprovalRequestResolved":
		if w, ok := p.Get("response").Str().Word("approve", "approve_for_session", "reject"); ok {
			c.counts["approvals_"+w]++
		}
	case "SubagentEvent":
		c.subagentEvent(r, p)
	case "HookTriggered":
		c.counts["hooks"]++
	case "context_message":
		c.counts["context_messages"]++
	case "context_checkpoint":
		c.counts["context_checkpoints"]++
	case "context_usage":
		if n := c.Count(r.Get("token_count")); n > c.maxTokens {
			c.maxTokens = n
		}
	}
	return nil
}

// openStep opens a step's chat span: one model call, from the prompt or
// tool result that started it.
func (c *kimiState) openStep(r converters.Record) {
	c.closeStep()
	c.counts["model_calls"]++
	start := r.NS
	if c.prompted > 0 && c.prompted < r.NS {
		start = c.prompted
	}
	key := "chat:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line)
	c.step, c.stepUsage = len(c.Out.Spans), native.Usage{}
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Name: "chat", Kind: 3, Start: start, End: r.NS, Attrs: events.ChatSpan("moonshot")})
	c.prompted = 0
}

func (c *kimiState) closeStep() { c.step = -1 }

// cover stretches the open step's span to r.
func (c *kimiState) cover(r converters.Record) {
	if c.step >= 0 {
		c.Out.Spans[c.step].Cover(r.NS)
	}
}

// stepKey is the open step's span key, "" (the root) for none.
func (c *kimiState) stepKey() string {
	if c.step < 0 {
		return ""
	}
	return c.Out.Spans[c.step].Key
}

// openTool opens a call's execute_tool span under its step.
func (c *kimiState) openTool(r converters.Record, p view.Value) {
	c.cover(r)
	id, name := p.Get("id").Str(), p.Get("function.name").Str()
	key, ok := native.CallKey(&c.Base, id, c.tools, c.counts)
	if !ok {
		return
	}
	// The arguments are a JSON document in a string: digested as written.
	call := c.OpenCall(r, key, c.stepKey(), id, name, p.Get("function.arguments"), kimiBuiltinTools)
	t := &call
	c.tools[key] = t
	if isSub, _ := view.Lookup(kimiSubagentTools, name); isSub {
		t.Subagent = true
		c.counts["subagents"]++
		a := append(events.SubagentSpawned("task_tool_call", 1), events.TranscriptLayout("inline_tool_call"))
		args := p.Get("function.arguments").Str().Parse()
		if s := args.Get("prompt").Str(); !s.Empty() {
			a = append(a, receipt.Attr{Key: "subagent.prompt_hash", Value: receipt.S(s.Digest(c.Hasher))})
		}
		if s := native.FirstString(args.Get("subagent_name"), args.Get("subagent_type")); !s.Empty() {
			a = append(a, receipt.Attr{Key: "subagent.type", Value: receipt.S(c.Name(s))})
		}
		c.Emit(r, key, "subagent.spawned", a)
	}
}

// finishTool closes the call a ToolResult names; a tool's result is the
// next step's prompt.
func (c *kimiState) finishTool(r converters.Record, p view.Value) {
	if r.NS > 0 {
		c.prompted = r.NS
	}
	t := c.tools["tool:"+c.KeyPart(p.Get("tool_call_id").Str())]
	if t == nil {
		c.counts["results_without_call"]++
		return
	}
	rv := p.Get("return_value")
	if c.FinishCall(r, t, rv.Get("is_error").Bool(), rv.Get("output"), "kimi_cli.tool_call.status", nil) == "error" {
		c.counts["failed_tool_calls"]++
	}
}

// usage reads a StatusUpdate's token_usage: the open step's usage, and the
// session's totals as ccusage counts them (doc.go).
func (c *kimiState) usage(r converters.Record, p view.Value) {
	u := p.Get("token_usage")
	if !u.IsObject() {
		c.counts["status_updates"]++
		return
	}
	v := native.Usage{Input: c.Count(u.Get("input_other")), Output: c.Count(u.Get("output")),
		CacheRead: c.Count(u.Get("input_cache_read")), CacheWrite: c.Count(u.Get("input_cache_creation")), Responses: 1}
	if v.Tokens() == (events.Tokens{}) {
		c.counts["empty_usage"]++
		return
	}
	key := kimiUsageKey{message: p.Get("message_id").Str().Own(), time: r.Time,
		input: v.Input, output: v.Output, cacheRead: v.CacheRead, cacheWrite: v.CacheWrite}
	if c.seen[key] {
		c.counts["repeated_usage"]++
		return
	}
	c.seen[key] = true
	c.total.Add(v)
	// A step may report usage more than once: a copy counts once (above),
	// and the step's span carries its distinct updates summed, as the
	// session's total counts them; its usage attributes are set, not
	// appended again (a span's keys are unique).
	if c.step >= 0 {
		sp := &c.Out.Spans[c.step]
		sp.Cover(r.NS)
		c.stepUsage.Add(v)
		for _, a := range c.stepUsage.CacheIn().Chat() {
			sp.Attrs.Set(a.Key, a.Value)
		}
	}
}

// subagentEvent counts a subagent's own event; its usage is its own, not
// the session's (as ccusage counts it).
func (c *kimiState) subagentEvent(r converters.Record, p view.Value) {
	c.counts["subagent_events"]++
	if id := p.Get("agent_id").Str(); !id.Empty() {
		if seen, _ := view.Lookup(c.agents, id); !seen {
			c.agents[id.Own()] = true
		}
	}
	if p.Get("event.type").Str().Is("StatusUpdate") && p.Get("event.payload.token_usage").IsObject() {
		c.counts["subagent_usage_records"]++
	}
}

func (c *kimiState) End(out *converters.Output) error {
	c.Out = out
	c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
		events.AuditGap("instruction_loads_not_logged", "kimi_agents_md_and_system_prompt_load_without_a_record"))
	code := c.codeSummaries(out)
	if t := c.total; t.Responses > 0 {
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized", Attrs: events.UsageSummary("unknown", t.Tokens(),
			receipt.Attrs{{Key: "gen_ai.usage.responses", Value: receipt.Computed(t.Responses)}},
			"time_model_and_usage", "session")})
	} else if len(c.codeTotals) == 0 {
		c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
			events.AuditGap("token_usage_not_logged", "kimi_wire_has_no_token_usage"))
	}
	agent := "kimi-cli"
	if c.code {
		agent = "kimi-code"
	}
	c.RootIdentity(out, agent)
	if c.total.Responses > 0 || len(c.codeTotals) > 0 { // unknown is not zero: the audit gap says so
		code.Add(c.total)
		code.CacheIn().Root(out)
	}
	if c.maxTokens > 0 {
		out.Span.Set("kimi_cli.context_tokens.max", receipt.Copied(c.maxTokens))
	}
	c.counts["subagent_agents"] = int64(len(c.agents))
	native.Tally(out, "kimi_cli", c.counts, []string{"user_prompts", "model_calls", "tool_calls", "failed_tool_calls",
		"subagents", "subagent_agents", "subagent_events", "compactions", "approval_requests", "approvals_approve",
		"approvals_approve_for_session", "approvals_reject", "hooks", "interrupted_steps", "repeated_usage",
		"context_messages", "context_checkpoints"}, native.Unfinished(c.tools, func(t *native.Call) bool { return t.Done }))
	c.Summarize(out)
	return nil
}

// The audit gaps this reader writes, in the schema of
// context.audit_gap.recorded (see events/eventschema.go).
var _ = events.DeclareEvent("context.audit_gap.recorded", events.EventDecl{Adds: true, Keys: []events.Attr{
	events.SetsProp("context.audit_gap.detail", events.Enum(
		"kimi_agents_md_and_system_prompt_load_without_a_record", "kimi_wire_has_no_token_usage")),
}})

// kimiSessionFolder is the folder that names a wire's session: its own,
// or, for a Kimi Code agent's wire, the one above agents/ ("" for none).
func kimiSessionFolder(folders []string) string {
	n := len(folders)
	switch {
	case n >= 3 && folders[n-2] == "agents":
		return folders[n-3]
	case n >= 1 && folders[n-1] != "agents":
		return folders[n-1]
	}
	return ""
}
