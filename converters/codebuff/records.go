package codebuff

import (
	"math"
	"sort"
	"strconv"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// usage is one assistant message's usage as ccusage's Codebuff parser
// reads it (doc.go): the four counts (Input without the cache reads and
// writes, which are apart), and beside them the credits and the model.
type usage struct {
	native.Usage
	model   string // raw, for Pass only; "" when none
	credits float64
}

func (u usage) signal() bool {
	return u.Input > 0 || u.Output > 0 || u.CacheRead > 0 || u.CacheWrite > 0 || u.credits > 0
}

// fill sets each field of u still zero (or the model still unknown) from
// fb, as ccusage's mergeFallback does.
func (u *usage) fill(fb usage) {
	if u.Input == 0 {
		u.Input = fb.Input
	}
	if u.Output == 0 {
		u.Output = fb.Output
	}
	if u.CacheWrite == 0 {
		u.CacheWrite = fb.CacheWrite
	}
	if u.CacheRead == 0 {
		u.CacheRead = fb.CacheRead
	}
	if u.credits == 0 {
		u.credits = fb.credits
	}
	if u.model == "" {
		u.model = fb.model
	}
}

// maxDepth bounds how deep nested subagent blocks are followed.
const maxDepth = 8

type codebuffState struct {
	native.Base
	prompted  int64 // time of the last prompt: the next turn starts there
	tools     map[string]*native.Call
	agents    map[string]bool // subagent span keys opened
	skills    map[string]bool
	loaded    map[string]bool // knowledge files written, by digest of path and body
	byID      map[string]int  // usage entries by message id: the last one counts (ccusage)
	entries   []usage
	counts    map[string]int64
	runStates int64
}

func newCodebuff(env converters.Env) *codebuffState {
	return &codebuffState{Base: native.New(env, codebuffTypes), tools: map[string]*native.Call{}, agents: map[string]bool{},
		skills: map[string]bool{}, loaded: map[string]bool{}, byID: map[string]int{}, counts: map[string]int64{}}
}

func (c *codebuffState) Record(r converters.Record, out *converters.Output) error {
	c.Out = out
	c.CountType(r)
	if c.Session == "" {
		// No chat id inside the chat (its folder's name, a time, is
		// not the reader's to see): its first message's id (the CLI's
		// user-<ms>) names it, as a digest.
		if id := r.Get("id").Str(); !id.Empty() {
			c.Session = id.Digest(c.Hasher)
		}
	}
	c.knowledge(r.Get("metadata.runState.sessionState.fileContext"), r)
	switch r.Type {
	case "run_state":
		c.counts["run_state_files"]++
		c.knowledge(r.Get("sessionState.fileContext"), r)
	case "user":
		c.counts["user_prompts"]++
		c.counts["attachments"] += int64(native.ArrayLen(r.Get("attachments")) + native.ArrayLen(r.Get("fileAttachments")) +
			native.ArrayLen(r.Get("textAttachments")))
		if r.NS > 0 {
			c.prompted = r.NS
		}
	case "ai", "agent", "assistant":
		c.assistant(r)
	case "error":
		c.counts["errors"]++
	}
	return nil
}

// assistant reads a reply: a chat span for the turn, its tokens, and the
// tool calls and subagents its blocks show.
func (c *codebuffState) assistant(r converters.Record) {
	c.counts["replies"]++
	u := c.usageOf(r)
	start := r.NS
	if c.prompted > 0 && c.prompted < r.NS {
		start = c.prompted
	}
	c.prompted = 0
	attrs := events.ChatSpan("codebuff")
	name := "chat"
	if u.model != "" {
		model := c.Pass(leak.Model, view.Borrow(u.model)) // owned
		name += " " + model
		attrs = append(attrs, receipt.Attr{Key: "gen_ai.request.model", Value: receipt.S(model)})
	}
	if u.signal() {
		// A span's input holds the cache (CacheIn); the summary's is
		// ccusage's, without it.
		attrs = append(attrs, u.CacheIn().Chat()...)
		c.count(r, u)
	}
	key := "chat:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line)
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Name: name, Kind: 3, Start: start, End: r.NS, Attrs: attrs})
	if r.Get("isComplete").Exists() && !r.Get("isComplete").Bool() {
		c.counts["incomplete_replies"]++
	}
	c.blocks(r, r.Get("blocks"), key, 0)
}

// count adds a reply's usage to the session's, as ccusage does: one entry
// per message id, the last one read counting; a message without an id
// counts on its own.
func (c *codebuffState) count(r converters.Record, u usage) {
	id := r.Get("id").Str()
	if id.Empty() {
		c.entries = append(c.entries, u)
		return
	}
	if i, seen := view.Lookup(c.byID, id); seen {
		c.counts["repeated_message_ids"]++
		c.entries[i] = u
		return
	}
	c.byID[id.Own()] = len(c.entries)
	c.entries = append(c.entries, u)
}

// usageOf reads a reply's usage as ccusage's extractAssistantUsage does:
// metadata.model, then metadata.usage, metadata.codebuff.usage and the run
// state's last assistant messages fill what is still zero; the message's
// credits when the usage names none.
func (c *codebuffState) usageOf(r converters.Record) usage {
	var u usage
	md := r.Get("metadata")
	if md.IsObject() {
		if m := md.Get("model").Str(); md.Get("model").IsString() && !m.Empty() {
			u.model = m.Own()
		}
		u.fill(c.usageObject(md.Get("usage")))
		u.fill(c.usageObject(md.Get("codebuff.usage")))
		if rs, ok := c.runStateUsage(md); ok {
			u.fill(rs)
		}
	}
	if cr := positive(r.Get("credits")); cr > 0 && u.credits <= 0 {
		u.credits = cr
	}
	return u
}

// runStateUsage reads the usage the SDK's run state keeps on the main
// agent's assistant messages (providerOptions), latest first.
func (c *codebuffState) runStateUsage(md view.Value) (usage, bool) {
	h := md.Get("runState.sessionState.mainAgentState.messageHistory")
	if !h.IsArray() || !md.Get("runState").IsObject() {
		return usage{}, false
	}
	c.runStates++
	msgs := h.Array()
	var u usage
	found := false
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		po := m.Get("providerOptions")
		if !m.IsObject() || !m.Get("role").Str().Is("assistant") || !po.IsObject() {
			continue
		}
		var e usage
		e.fill(c.usageObject(po.Get("usage")))
		cb := po.Get("codebuff")
		e.fill(c.usageObject(cb.Get("usage")))
		if m := cb.Get("model"); cb.IsObject() && m.IsString() && !m.Str().Empty() {
			e.model = m.Str().Own()
		}
		if e.signal() || e.model != "" {
			found = true
		}
		u.fill(e)
	}
	return u, found
}

// usageObject reads a usage object under every name ccusage reads.
func (c *codebuffState) usageObject(v view.Value) usage {
	if !v.IsObject() {
		return usage{}
	}
	u := usage{Usage: native.Usage{
		Input:      c.pick(v, "inputTokens", "input_tokens", "promptTokens", "prompt_tokens"),
		Output:     c.pick(v, "outputTokens", "output_tokens", "completionTokens", "completion_tokens"),
		CacheRead:  c.pick(v, "cacheReadInputTokens", "cache_read_input_tokens"),
		CacheWrite: c.pick(v, "cacheCreationInputTokens", "cache_creation_input_tokens", "cacheCreationTokens", "cache_creation_tokens", "cachedTokensCreated", "cached_tokens_created"),
	}, credits: positive(v.Get("credits"))}
	if u.CacheRead == 0 {
		u.CacheRead = c.pick(v.Get("promptTokensDetails"), "cachedTokens")
	}
	if u.CacheRead == 0 {
		u.CacheRead = c.pick(v.Get("prompt_tokens_details"), "cached_tokens")
	}
	if m := v.Get("model"); m.IsString() && !m.Str().Empty() {
		u.model = m.Str().Own()
	}
	return u
}

// pick is the first of keys whose value is a positive whole number
// (ccusage's pickPositiveInteger: 20.0.24 passes over 10.9 to the next
// name, as running it shows), read as a count.
//
//	{"inputTokens": 10.9, "input_tokens": 7}  7
//	{"inputTokens": 0.5}                      0
func (c *codebuffState) pick(obj view.Value, keys ...string) int64 {
	if !obj.IsObject() {
		return 0
	}
	for _, k := range keys {
		if v := obj.Get(k); positive(v) > 0 && v.Float() == math.Trunc(v.Float()) {
			return c.Count(v)
		}
	}
	return 0
}

// positive is a positive finite number, else 0.
func positive(v view.Value) float64 {
	if !v.IsNumber() {
		return 0
	}
	f := v.Float()
	if f > 0 && !math.IsInf(f, 0) {
		return f
	}
	return 0
}

// blocks reads a message's content blocks (cli/src/types/chat.ts): tool
// calls, subagents (with their own blocks), reasoning, questions, plans.
// Below the first level of nesting no value is copied: ids and names are
// digests (the pass-through paths are declared two levels deep).
func (c *codebuffState) blocks(r converters.Record, bs view.Value, parent string, depth int) {
	if depth > maxDepth {
		c.counts["blocks_too_deep"]++
		return
	}
	bs.Each(func(b view.Value) bool {
		switch t, _ := b.Get("type").Str().Word("text", "tool", "agent", "ask-user", "mode-divider", "plan", "image", "gate-state", "agent-list"); t {
		case "text":
			if b.Get("textType").Str().Is("reasoning") {
				c.counts["reasoning_blocks"]++
			}
		case "tool":
			c.tool(r, b, parent, depth)
		case "agent":
			c.agent(r, b, parent, depth)
		case "ask-user":
			c.counts["questions"]++
			if b.Get("skipped").Bool() {
				c.counts["questions_skipped"]++
			}
		case "mode-divider":
			c.counts["mode_changes"]++
		case "plan":
			c.counts["plans"]++
		case "image":
			c.counts["images"]++
		case "gate-state":
			c.counts["gates"]++
		case "":
			c.counts["other_blocks"]++
		}
		return true
	})
}

// tool reads a tool block: an execute_tool span, finished when its output
// is there.
func (c *codebuffState) tool(r converters.Record, b view.Value, parent string, depth int) {
	id, name := b.Get("toolCallId").Str(), b.Get("toolName").Str()
	key, ok := native.CallKey(&c.Base, id, c.tools, c.counts)
	if !ok {
		return
	}
	builtins := codebuffBuiltinTools
	if depth > 1 {
		builtins = nil // undeclared depth: nothing copied
	}
	call := c.OpenCall(r, key, parent, id, name, b.Get("input"), builtins)
	t := &call
	c.tools[key] = t
	if name.Is("skill") {
		if s := native.FirstString(b.Get("input.name"), b.Get("input.skill")); !s.Empty() {
			c.Emit(r, key, "context.skill.invoked", c.Conversation(c.Skill("codebuff", "model_tool_call", s, c.skills)))
			c.counts["skills"]++
		}
	}
	out := b.Get("output")
	if !out.Exists() {
		return
	}
	failed := b.Get("outputRaw.#.value.errorMessage").Len() > 0
	if c.FinishCall(r, t, failed, out, "codebuff.tool_call.status", nil) == "error" {
		c.counts["failed_tool_calls"]++
	}
}

// agent reads a subagent's block: an invoke_agent span under the
// spawn_agents call that made it, subagent.spawned, its own blocks, and
// subagent.result.returned once it finished.
func (c *codebuffState) agent(r converters.Record, b view.Value, parent string, depth int) {
	id := b.Get("agentId").Str()
	if id.Empty() {
		c.counts["subagents_without_id"]++
		return
	}
	key := "agent:" + c.KeyPart(id)
	if c.agents[key] {
		c.counts["repeated_subagents"]++
		return
	}
	c.agents[key] = true
	c.counts["subagents"]++
	link := "inline_order"
	if sp := b.Get("spawnToolCallId").Str(); !sp.Empty() && c.tools["tool:"+c.KeyPart(sp)] != nil {
		parent, link = "tool:"+c.KeyPart(sp), "spawn_call_id"
	}
	d := int64(depth + 1)
	kind := c.Name(b.Get("agentType").Str())
	if depth > 1 {
		kind = c.Digest(b.Get("agentType")) // undeclared depth: nothing copied
	}
	attrs := receipt.Attrs{
		{Key: "gen_ai.operation.name", Value: receipt.S("invoke_agent")},
		{Key: "gen_ai.agent.name", Value: receipt.S("codebuff-subagent")},
		{Key: "subagent.depth", Value: receipt.Computed(d)},
		{Key: "subagent.link", Value: receipt.S(link)},
		{Key: "subagent.type", Value: receipt.S(kind)},
	}
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Parent: parent, Name: "invoke_agent", Kind: 1, Start: r.NS, End: r.NS, Attrs: attrs})
	ev := append(events.SubagentSpawned(link, d), events.TranscriptLayout("inline_tool_call"),
		receipt.Attr{Key: "subagent.type", Value: receipt.S(kind)})
	if p := b.Get("initialPrompt").Str(); !p.Empty() {
		ev = append(ev, receipt.Attr{Key: "subagent.prompt_hash", Value: receipt.S(p.Digest(c.Hasher))})
	}
	c.Emit(r, key, "subagent.spawned", ev)
	c.blocks(r, b.Get("blocks"), key, depth+1)
	status, _ := b.Get("status").Str().Word("complete", "failed", "cancelled")
	if status == "" {
		c.counts["subagents_unfinished"]++
		return
	}
	res := b.Get("content")
	out := "success"
	if status != "complete" {
		out = "error"
		c.counts["subagents_"+status]++
	}
	a := append(events.SubagentReturned(c.Digest(res), res.RawLen(), out, "final_text_returned_to_parent"), events.RawSummaryNotRecorded)
	c.Emit(r, key, "subagent.result.returned", a)
}

// knowledge writes the knowledge files (knowledge.md, AGENTS.md, CLAUDE.md:
// Codebuff's instruction files) a saved run state (a message's, or the
// chat's run-state.json) shows the session loaded, fc being its
// sessionState.fileContext (knowledgeFiles and
// userKnowledgeFiles, path to body), each once: digests and size, never
// the text or the path.
func (c *codebuffState) knowledge(fc view.Value, r converters.Record) {
	if !fc.IsObject() {
		return
	}
	for _, f := range []struct{ field, kind string }{{"knowledgeFiles", "project_knowledge_file"}, {"userKnowledgeFiles", "user_knowledge_file"}} {
		fc.Get(f.field).ForEach(func(path, body view.Value) bool {
			if !body.IsString() {
				return true
			}
			digest := body.Str().Digest(c.Hasher)
			id := path.Str().Digest(c.Hasher) + ":" + digest
			if c.loaded[id] {
				return true
			}
			c.loaded[id] = true
			a := events.InputLoaded(f.kind, "codebuff", "session_start")
			events.SourceIdentity(&a, c.Hasher, body.Str(), digest)
			events.DeliveredIdentity(&a, c.Hasher, body.Str(), digest, "as-recorded-by-session-log", false)
			a = append(a, receipt.Attr{Key: "privacy.raw_context_recorded", Value: receipt.B(false)})
			c.Emit(r, "", "context.input.loaded", c.Conversation(a))
			c.counts["knowledge_files"]++
			return true
		})
	}
}

func (c *codebuffState) End(out *converters.Output) error {
	c.Out = out
	if c.counts["knowledge_files"] == 0 {
		c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
			events.AuditGap("instruction_loads_not_logged", "codebuff_knowledge_files_load_without_a_record_in_the_chat"))
	}
	sums := map[string]*native.Usage{} // by model
	for _, u := range c.entries {
		m := u.model
		if m == "" {
			m = "unknown"
		}
		t := sums[m]
		if t == nil {
			t = &native.Usage{}
			sums[m] = t
		}
		v := u.Usage
		v.Responses = 1
		t.Add(v)
		if u.credits > 0 {
			c.counts["replies_with_credits"]++
		}
	}
	models := make([]string, 0, len(sums))
	for m := range sums {
		models = append(models, m)
	}
	sort.Strings(models)
	var all native.Usage
	for _, m := range models {
		t := sums[m]
		all.Add(*t)
		model := "unknown"
		if m != "unknown" {
			model = c.Pass(leak.Model, view.Borrow(m)) // owned
		}
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized", Attrs: events.UsageSummary(model,
			t.Tokens(), receipt.Attrs{{Key: "gen_ai.usage.responses", Value: receipt.Computed(t.Responses)}},
			"assistant_usage_records", "session")})
	}
	if len(models) == 0 {
		c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
			events.AuditGap("token_usage_not_logged", "codebuff_replies_have_no_usage"))
	}
	c.RootIdentity(out, "codebuff")
	if len(models) > 0 { // unknown is not zero: the audit gap says so
		all.CacheIn().Root(out)
	}
	c.counts["run_states"] = c.runStates
	native.Tally(out, "codebuff", c.counts, []string{"user_prompts", "replies", "tool_calls", "failed_tool_calls",
		"subagents", "subagents_unfinished", "skills", "knowledge_files", "questions", "plans", "mode_changes", "errors",
		"attachments", "reasoning_blocks", "repeated_message_ids", "replies_with_credits", "run_state_files"},
		native.Unfinished(c.tools, func(t *native.Call) bool { return t.Done }))
	c.Summarize(out)
	return nil
}

// The audit gaps this reader writes, in the schema of
// context.audit_gap.recorded (see events/eventschema.go).
var _ = events.DeclareEvent("context.audit_gap.recorded", events.EventDecl{Adds: true, Keys: []events.Attr{
	events.SetsProp("context.audit_gap.detail", events.Enum(
		"codebuff_knowledge_files_load_without_a_record_in_the_chat", "codebuff_replies_have_no_usage")),
}})
