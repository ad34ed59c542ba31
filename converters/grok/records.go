package grok

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

type grokState struct {
	native.Base
	turnStart int64 // time of the turn's first update: its chat span starts there
	tools     map[string]*native.Call
	counts    map[string]int64
	fallback  string                   // summary.json's current_model_id: a turn without modelUsage is its
	usage     map[string]*native.Usage // by model, as ccusage counts it: Input without the cache
	seen      map[string]bool          // ccusage's dedupe keys of the rows counted
	models    map[string]bool          // model names a declared field holds (modelName)
	reasoning int64                    // reasoningTokens of the rows counted: not in ccusage's totals

}

func newGrok(env converters.Env) *grokState {
	return &grokState{Base: native.New(env, grokTypes), tools: map[string]*native.Call{}, counts: map[string]int64{},
		usage: map[string]*native.Usage{}, seen: map[string]bool{}, models: map[string]bool{}}
}

// StartFile reads updates.jsonl's sidecar, summary.json: the session's
// working directory (info.cwd, else git_root_dir) and the model a turn
// without a per-model breakdown is counted under (current_model_id).
func (c *grokState) StartFile(f converters.SourceFile, out *converters.Output) error {
	c.Out = out
	if f.Index != 0 || !f.Meta.IsObject() {
		return nil
	}
	cwd := f.Meta.Get("info.cwd").Str()
	if cwd.Empty() {
		cwd = f.Meta.Get("git_root_dir").Str()
	}
	c.SeeWorkDir(cwd)
	if m := f.Meta.Get("current_model_id"); m.IsString() && !m.Str().Empty() {
		c.fallback = m.Str().Own()
		c.models[c.fallback] = true
	}
	if id := f.Meta.Get("info.id").Str(); c.Session == "" && !id.Empty() {
		c.Session = c.Pass(leak.IDOrUUID, id)
	}
	return nil
}

func (c *grokState) Record(r converters.Record, out *converters.Output) error {
	c.Out = out
	c.CountType(r)
	if r.Type == "session_file_line" {
		return nil
	}
	p := r.Get("params")
	if id := p.Get("sessionId").Str(); c.Session == "" && !id.Empty() {
		c.Session = c.Pass(leak.IDOrUUID, id)
	}
	if c.turnStart == 0 && r.NS > 0 {
		c.turnStart = r.NS
	}
	u := p.Get("update")
	switch r.Type {
	case "user_message_chunk":
		c.counts["user_message_chunks"]++
		if m := u.Get("_meta.modelId"); m.IsString() && !m.Str().Empty() {
			c.models[m.Str().Own()] = true
		}
	case "agent_message_chunk":
		c.counts["agent_message_chunks"]++
	case "agent_thought_chunk":
		c.counts["thought_chunks"]++
	case "plan":
		c.counts["plan_updates"]++
	case "tool_call":
		c.openTool(r, u)
		c.toolUpdate(r, u)
	case "tool_call_update":
		c.toolUpdate(r, u)
	case "turn_completed":
		c.turn(r, p, u)
	}
	return nil
}

// grokTool is a call's tool metadata, update._meta["x.ai/tool"]: its name,
// kind (task runs a subagent, skill a skill) and namespace (mcp: an MCP
// server's tool).
func grokTool(u view.Value) view.Value { return u.Get(`_meta.x\.ai/tool`) }

// openTool opens a tool_call's execute_tool span. The tool is named by its
// metadata (a title may hold a path: it is never read); an MCP tool whose
// name is <server>__<tool> is that server's tool.
func (c *grokState) openTool(r converters.Record, u view.Value) {
	id := u.Get("toolCallId").Str()
	key, ok := native.CallKey(&c.Base, id, c.tools, c.counts)
	if !ok {
		return
	}
	meta := grokTool(u)
	name := meta.Get("name").Str()
	if meta.Get("namespace").Str().Is("mcp") {
		if s, t, ok := name.Cut("__"); ok && !s.Empty() && !t.Empty() {
			name = view.Borrow("mcp__" + name.Own()) // owned: a document of its own
		} else {
			c.counts["mcp_tools_without_server"]++
		}
	}
	call := c.OpenCall(r, key, "", id, name, u.Get("rawInput"), grokBuiltinTools)
	t := &call
	c.tools[key] = t
	switch kind := meta.Get("kind").Str(); {
	case kind.Is("task"):
		t.Subagent = true
		c.counts["subagents"]++
		a := append(events.SubagentSpawned("task_tool_call", 1), events.TranscriptLayout("separate_session"))
		if s := u.Get("rawInput.prompt").Str(); !s.Empty() {
			a = append(a, receipt.Attr{Key: "subagent.prompt_hash", Value: receipt.S(s.Digest(c.Hasher))})
		}
		c.Emit(r, key, "subagent.spawned", a)
	case kind.Is("skill"):
		c.counts["skill_calls"]++
	}
}

// toolUpdate closes the call a tool_call or tool_call_update names once
// its status is completed or failed (ACP's ToolCallStatus; the _meta
// copy capitalizes it).
func (c *grokState) toolUpdate(r converters.Record, u view.Value) {
	status := u.Get("status").Str()
	if status.Empty() {
		status = r.Get("params._meta.updateParams.status").Str()
	}
	s, _ := status.Word(grokLabels...)
	failed := s == "failed" || s == "Failed"
	if !failed && s != "completed" && s != "Completed" {
		return
	}
	t := c.tools["tool:"+c.KeyPart(u.Get("toolCallId").Str())]
	if t == nil {
		c.counts["results_without_call"]++
		return
	}
	if c.FinishCall(r, t, failed, u.Get("rawOutput"), "grok.tool_call.status", nil) == "error" {
		c.counts["failed_tool_calls"]++
	}
}

// turn reads a turn_completed update: the turn's chat span, and its usage
// counted as ccusage 20.0.24 counts it (doc.go).
func (c *grokState) turn(r converters.Record, p, u view.Value) {
	c.counts["turns"]++
	key := "chat:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line)
	start := r.NS
	if c.turnStart > 0 && c.turnStart < r.NS {
		start = c.turnStart
	}
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Name: "chat", Kind: 3, Start: start, End: r.NS, Attrs: events.ChatSpan("grok")})
	c.turnStart = 0
	if u.Get("stop_reason").Str().Is("cancelled") {
		c.counts["cancelled_turns"]++
	}
	usage := u.Get("usage")
	if !usage.IsObject() {
		c.counts["turns_without_usage"]++
		return
	}
	type row struct {
		model string
		v     view.Value
	}
	var rows []row
	bad := false
	if mu := usage.Get("modelUsage"); mu.IsObject() && mu.Len() > 0 {
		mu.ForEach(func(k, v view.Value) bool {
			if !v.IsObject() {
				bad = true
				return false
			}
			rows = append(rows, row{k.Str().Own(), v})
			return true
		})
		sort.Slice(rows, func(i, j int) bool { return rows[i].model < rows[j].model })
	} else {
		model := c.fallback
		if model == "" {
			model = "unknown"
		}
		rows = []row{{model, usage}}
	}
	if bad || p.Get("_meta").Exists() && !p.Get("_meta").IsObject() {
		// ccusage's parser rejects the whole line.
		c.counts["turns_with_unreadable_usage"]++
		return
	}
	event := p.Get("_meta.eventId").Str()
	for _, x := range rows {
		in, out := c.u64(x.v.Get("inputTokens")), c.u64(x.v.Get("outputTokens"))
		cr, cw := c.u64(x.v.Get("cachedReadTokens")), c.u64(x.v.Get("cacheCreationTokens"))
		reasoning := c.u64(x.v.Get("reasoningTokens"))
		if in == 0 && out == 0 && cr == 0 && reasoning == 0 {
			continue
		}
		id := event.Own() + "\x00" + x.model
		if event.Empty() {
			id = "\x00" + r.Top("timestamp").Raw().Own() + "\x00" + x.model + "\x00" +
				strconv.FormatInt(in, 10) + "\x00" + strconv.FormatInt(out, 10) + "\x00" + strconv.FormatInt(cr, 10)
		}
		if c.seen[id] {
			c.counts["repeated_turn_usage"]++
			continue
		}
		c.seen[id] = true
		c.reasoning += reasoning
		// cachedReadTokens and cacheCreationTokens are parts of inputTokens.
		cr = min(cr, in)
		cw = min(cw, in-cr)
		t := c.usage[x.model]
		if t == nil {
			t = &native.Usage{}
			c.usage[x.model] = t
		}
		t.Add(native.Usage{Input: in - cr - cw, Output: out, CacheRead: cr, CacheWrite: cw})
	}
}

// u64 is a token count as ccusage's lenient reader takes it: a whole
// number written without sign, fraction or exponent; any other value (a
// string, 2.0, 1e3, -3, null) is 0.
func (c *grokState) u64(v view.Value) int64 {
	if !v.IsNumber() {
		return 0
	}
	for _, b := range []byte(v.Raw().Own()) {
		if b < '0' || b > '9' {
			return 0
		}
	}
	return c.Count(v)
}

// modelName writes a model name read from a modelUsage key: in clear when
// a declared field also holds it (a user_message_chunk's _meta.modelId,
// summary.json's current_model_id), else its digest (an object key is
// raw input).
func (c *grokState) modelName(m string) string {
	if c.models[m] || m == "unknown" {
		return c.Pass(leak.Model, view.Borrow(m))
	}
	return c.Hasher.Text(m)
}

func (c *grokState) End(out *converters.Output) error {
	c.Out = out
	c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
		events.AuditGap("instruction_loads_not_logged", "grok_agents_md_and_system_prompt_load_without_a_record"))
	models := make([]string, 0, len(c.usage))
	for m := range c.usage {
		models = append(models, m)
	}
	sort.Strings(models)
	var total native.Usage
	for _, m := range models {
		t := *c.usage[m]
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized", Attrs: events.UsageSummary(
			c.modelName(m), t.Tokens(), nil, "event_id_and_model", "session")})
		total.Add(t)
	}
	if len(models) == 0 {
		c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
			events.AuditGap("token_usage_not_logged", "grok_session_has_no_turn_usage"))
	}
	c.RootIdentity(out, "grok")
	if len(models) > 0 {
		total.CacheIn().Root(out)
	}
	if c.reasoning > 0 {
		out.Span.Set("grok.usage.reasoning_tokens", receipt.Computed(c.reasoning))
	}
	native.Tally(out, "grok", c.counts, []string{"turns", "user_message_chunks", "agent_message_chunks", "thought_chunks", "tool_calls",
		"failed_tool_calls", "subagents", "skill_calls", "plan_updates", "cancelled_turns"},
		native.Unfinished(c.tools, func(t *native.Call) bool { return t.Done }))
	c.Summarize(out)
	return nil
}

// The audit gaps this reader writes, in the schema of
// context.audit_gap.recorded (see events/eventschema.go).
var _ = events.DeclareEvent("context.audit_gap.recorded", events.EventDecl{Adds: true, Keys: []events.Attr{
	events.SetsProp("context.audit_gap.detail", events.Enum(
		"grok_agents_md_and_system_prompt_load_without_a_record", "grok_session_has_no_turn_usage")),
}})

// A turn's usage is counted once per event id and model, as ccusage
// dedupes it.
var _ = events.DeclareEvent("gen_ai.token_usage.summarized", events.EventDecl{Adds: true, Keys: []events.Attr{
	events.SetsProp("gen_ai.usage.dedupe", events.Enum("event_id_and_model")),
}})
