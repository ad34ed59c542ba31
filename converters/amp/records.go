package amp

import (
	"sort"
	"strconv"
	"time"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

type ampState struct {
	native.Base
	tools  map[string]*native.Call
	skills map[string]bool
	guides map[string]bool // guidance files loaded so far, by uri (raw, never written)
	// totals by model (owned copies), in ccusage's terms: Input without the
	// cache reads and writes, which are apart; Reasoning is what a ledger
	// event's total holds beyond its parts (ccusage's extra total tokens).
	totals map[string]*native.Usage
	counts map[string]int64
}

func newAmp(env converters.Env) *ampState {
	return &ampState{Base: native.New(env, ampTypes), tools: map[string]*native.Call{}, skills: map[string]bool{}, guides: map[string]bool{},
		totals: map[string]*native.Usage{}, counts: map[string]int64{}}
}

func (c *ampState) Record(r converters.Record, out *converters.Output) error {
	c.Out = out
	c.CountType(r)
	if r.Type != "thread" {
		return nil
	}
	c.counts["threads"]++
	if c.counts["threads"] > 1 {
		return nil // one thread per file: a second document is not this thread's
	}
	c.identity(r)
	c.messages(r)
	c.usage(r)
	return nil
}

// identity names the session by the thread id (T-<uuid>, ccusage's
// session id), and reads the client's version and the workspace the thread
// started in (its project key; the path is never written).
func (c *ampState) identity(r converters.Record) {
	if sid, ok := c.Admit(leak.IDOrUUID, r.Top("id").Str()); ok {
		c.Session = sid
	}
	env := r.Get("env.initial")
	c.SeeVersion(env.Get("platform.clientVersion").Str())
	if uri := env.Get("trees.0.uri").Str(); uri.HasPrefix("file://") {
		c.SeeWorkDir(uri.From(len("file://")))
	}
}

// messages reads the thread's messages in order: prompts and tool results
// (user), model responses (assistant, a chat span each) and the
// summaries that replaced the context (info).
func (c *ampState) messages(r converters.Record) {
	last, prompted := r.NS, int64(0)
	r.Get("messages").ForEach(func(_, m view.Value) bool {
		at := messageNS(m)
		if at == 0 {
			at = last
		}
		last = at
		mr := converters.Record{Line: r.Line, File: r.File, Type: r.Type, NS: at, JSON: m}
		if at > 0 {
			mr.Time = formatNS(at)
		}
		switch role := m.Get("role").Str(); {
		case role.Is("user"):
			c.user(mr, m)
			prompted = at
		case role.Is("assistant"):
			c.assistant(mr, m, prompted)
			prompted = 0
		case role.Is("info"):
			c.info(mr, m)
		default:
			c.counts["other_messages"]++
		}
		return true
	})
}

// messageNS is a message's time: when it was sent (meta.sentAt), or the
// time its usage names; 0 when it has none.
func messageNS(m view.Value) int64 {
	if ns := epochMs(m.Get("meta.sentAt")); ns > 0 {
		return ns
	}
	if ns, ok := rfc3339(nonEmpty(m.Get("usage.timestamp"))); ok {
		return ns
	}
	return 0
}

// rfc3339 reads an RFC 3339 time (years 1970 to 2200) as Unix nanoseconds.
func rfc3339(v view.Text) (int64, bool) {
	if v.Empty() {
		return 0, false
	}
	var t time.Time
	ok := v.Check(func(s string) bool {
		var err error
		t, err = time.Parse(time.RFC3339Nano, s) // a time keeps nothing of s
		return err == nil
	})
	if !ok || t.Year() < 1970 || t.Year() > 2200 {
		return 0, false
	}
	return t.UnixNano(), true
}

// user reads a user message: typed text is a prompt, a tool_result block
// closes the call its toolUseID names.
func (c *ampState) user(r converters.Record, m view.Value) {
	prompt := false
	m.Get("content").ForEach(func(_, b view.Value) bool {
		switch t := b.Get("type").Str(); {
		case t.Is("text"):
			prompt = true
		case t.Is("tool_result"):
			c.result(r, b)
		case t.Is("image"):
			c.counts["images"]++
		}
		return true
	})
	if prompt {
		c.counts["user_prompts"]++
	}
	c.guidance(r, "", m.Get("discoveredGuidanceFiles"), "user_message")
}

// guidance writes the guidance files (AGENTS.md and the like) Amp found
// and put in the context, as a message or a file read lists them
// ({uri, lineCount}): Amp logs where each is, never its text. A file
// loaded before in the thread is counted, not written again.
func (c *ampState) guidance(r converters.Record, span string, files view.Value, activation string) {
	files.ForEach(func(_, f view.Value) bool {
		uri := f.Get("uri").Str()
		if uri.Empty() {
			return true
		}
		if seen, _ := view.Lookup(c.guides, uri); seen {
			c.counts["repeated_guidance_files"]++
			return true
		}
		c.guides[uri.Own()] = true
		c.counts["guidance_files"]++
		path := uri.TrimPrefix("file://")
		a := events.InputLoaded("agents_md", "amp", activation)
		if i := path.LastIndex("/"); i >= 0 {
			if p, ok := events.PublicPath(path.From(i + 1)); ok {
				a = append(a, receipt.Attr{Key: "context.input.source.path", Value: receipt.S(p)})
			}
		}
		a = append(a, receipt.Attr{Key: "context.input.source.path_hash", Value: receipt.S(path.Digest(c.Hasher))})
		events.DeliveredNotLogged(&a)
		a = append(a, receipt.Attr{Key: "privacy.raw_context_recorded", Value: receipt.B(false)})
		c.Emit(r, span, "context.input.loaded", c.Conversation(a))
		return true
	})
}

// assistant opens a response's chat span, from the prompt or tool result
// that started it, with its usage, and the execute_tool span of each
// tool_use block under it.
func (c *ampState) assistant(r converters.Record, m view.Value, prompted int64) {
	c.counts["model_calls"]++
	start := r.NS
	if prompted > 0 && prompted < r.NS {
		start = prompted
	}
	key := "chat:" + strconv.Itoa(len(c.Out.Spans))
	if id := m.Get("messageId"); id.IsNumber() {
		key = "chat:" + strconv.FormatInt(c.Count(id), 10)
	}
	for _, s := range c.Out.Spans {
		if s.Key == key {
			key += ":" + strconv.Itoa(len(c.Out.Spans))
			c.counts["repeated_message_ids"]++
			break
		}
	}
	attrs := events.ChatSpan("amp")
	if u := m.Get("usage"); u.IsObject() {
		v := native.Usage{Input: c.Count(u.Get("inputTokens")), Output: c.Count(u.Get("outputTokens")),
			CacheRead: c.Count(u.Get("cacheReadInputTokens")), CacheWrite: c.Count(u.Get("cacheCreationInputTokens"))}
		attrs = append(attrs, v.CacheIn().Chat()...)
		if model := u.Get("model").Str(); !model.Empty() {
			attrs = append(attrs, receipt.Attr{Key: "gen_ai.request.model", Value: receipt.S(c.Pass(leak.Model, model))})
		}
	}
	if s := m.Get("state.stopReason").Str(); !s.Empty() {
		if w, ok := s.Word("end_turn", "tool_use", "max_tokens"); ok {
			attrs = append(attrs, receipt.Attr{Key: "gen_ai.response.finish_reasons", Value: receipt.L([]string{w})})
		}
	}
	if m.Get("state.type").Str().Is("cancelled") {
		c.counts["cancelled_responses"]++
	}
	parent := ""
	if p := m.Get("parentToolUseId").Str(); !p.Empty() {
		// A subagent's own response, inline in its parent's thread: under
		// the call that runs it.
		c.counts["subagent_responses"]++
		if t := c.tools["tool:"+c.KeyPart(p)]; t != nil {
			parent = t.Key
		}
	}
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Parent: parent, Name: "chat", Kind: 3, Start: start, End: r.NS, Attrs: attrs})
	m.Get("content").ForEach(func(_, b view.Value) bool {
		switch t := b.Get("type").Str(); {
		case t.Is("thinking"), t.Is("redacted_thinking"):
			c.counts["thinking_blocks"]++
		case t.Is("tool_use"):
			c.call(r, key, b)
		}
		return true
	})
}

// call opens a tool_use block's execute_tool span: Task and Amp's
// built-in subagents spawn a subagent, skill loads a skill, an
// mcp__server__tool name is an MCP server's tool.
func (c *ampState) call(r converters.Record, parent string, b view.Value) {
	id, name, input := b.Get("id").Str(), b.Get("name").Str(), b.Get("input")
	key, ok := native.CallKey(&c.Base, id, c.tools, c.counts)
	if !ok {
		return
	}
	call := c.OpenCall(r, key, parent, id, name, input, ampBuiltinTools)
	t := &call
	c.tools[key] = t
	if sub, _ := view.Lookup(ampSubagentTools, name); sub {
		t.Subagent = true
		c.counts["subagents"]++
		a := append(events.SubagentSpawned("task_tool_call", 1), events.TranscriptLayout("inline_tool_call"))
		if p := native.FirstString(input.Get("prompt"), input.Get("task"), input.Get("query")); !p.Empty() {
			a = append(a, receipt.Attr{Key: "subagent.prompt_hash", Value: receipt.S(p.Digest(c.Hasher))})
		}
		// The subagent is one of Amp's own: its name is public.
		typ, _ := name.Word("Task", "oracle", "librarian", "finder", "codebase_search_agent")
		a = append(a, receipt.Attr{Key: "subagent.type", Value: receipt.S(typ)})
		c.Emit(r, key, "subagent.spawned", a)
	}
	if name.Is("skill") {
		if s := input.Get("name").Str(); !s.Empty() {
			c.Emit(r, key, "context.skill.invoked", c.Conversation(c.Skill("amp", "model_tool_call", s, c.skills)))
			c.counts["skills"]++
		}
	}
}

// result closes the call a tool_result block names (toolUseID, or the
// Anthropic API's tool_use_id), with its run's status: done is a success;
// error, cancelled and rejected-by-user fail, as does is_error.
func (c *ampState) result(r converters.Record, b view.Value) {
	c.counts["tool_results"]++
	t := c.tools["tool:"+c.KeyPart(native.FirstString(b.Get("toolUseID"), b.Get("tool_use_id")))]
	if t == nil {
		c.counts["results_without_call"]++
		return
	}
	run := b.Get("run")
	status := run.Get("status").Str()
	if status.Is("rejected-by-user") {
		c.counts["rejected_tool_calls"]++
	}
	if status.Is("in-progress") || status.Is("blocked-on-user") {
		return // not finished when the thread was saved: the call stays open
	}
	if status.Is("done") {
		c.guidance(r, t.Key, run.Get("result.discoveredGuidanceFiles"), "file_read")
	}
	failed := status.Is("error") || status.Is("cancelled") || status.Is("rejected-by-user") || b.Get("is_error").Bool()
	if c.FinishCall(r, t, failed, run.Get("result"), "amp.tool_call.status", nil) == "error" {
		c.counts["failed_tool_calls"]++
	}
}

// info reads an info message: a summary block of type message is the
// summary that replaced the thread's context (a compaction).
func (c *ampState) info(r converters.Record, m view.Value) {
	c.counts["info_messages"]++
	m.Get("content").ForEach(func(_, b view.Value) bool {
		if !b.Get("type").Str().Is("summary") {
			return true
		}
		s := b.Get("summary")
		switch kind := s.Get("type").Str(); {
		case kind.Is("message"):
			c.counts["compactions"]++
			c.Compaction(r, c.counts["compactions"], "amp_thread_summary", view.Value{}, s.Get("summary"))
		case kind.Is("thread"):
			c.counts["summary_threads"]++
		}
		return true
	})
}

// usage counts the thread's tokens as ccusage 20.0.24 does
// (adapter/amp/parser.rs): the usage ledger's events when the thread has
// a ledger, else its assistant messages' usage.
func (c *ampState) usage(r converters.Record) {
	if events := r.Get("usageLedger.events"); events.IsArray() {
		cache := c.cacheByMessage(r.Get("messages"))
		events.ForEach(func(_, e view.Value) bool {
			c.ledgerEvent(e, cache)
			return true
		})
		return
	}
	r.Get("messages").ForEach(func(_, m view.Value) bool {
		if !m.Get("role").Str().Is("assistant") {
			return true
		}
		u := m.Get("usage")
		if !u.Exists() {
			return true
		}
		at := nonEmpty(u.Get("timestamp"))
		if at.Empty() {
			at = nonEmpty(m.Get("timestamp"))
		}
		model := asRead(u.Get("model"))
		if model.Empty() {
			model = asRead(m.Get("model"))
		}
		if _, ok := rfc3339(at); !ok || model.Empty() {
			c.counts["usage_without_time_or_model"]++
			return true
		}
		v := native.Usage{Input: c.whole(u.Get("inputTokens")), Output: c.whole(u.Get("outputTokens")),
			CacheWrite: c.whole(u.Get("cacheCreationInputTokens")), CacheRead: c.whole(u.Get("cacheReadInputTokens"))}
		c.add(model, v, c.whole(u.Get("totalTokens")))
		return true
	})
}

// cacheByMessage are the cache tokens of each assistant message by its
// messageId, the last message of an id winning, as ccusage keys them.
func (c *ampState) cacheByMessage(msgs view.Value) map[int64][2]int64 {
	out := map[int64][2]int64{}
	msgs.ForEach(func(_, m view.Value) bool {
		id := m.Get("messageId")
		if !m.Get("role").Str().Is("assistant") || !isWhole(id) {
			return true
		}
		u := m.Get("usage")
		out[id.Int()] = [2]int64{c.whole(u.Get("cacheCreationInputTokens")), c.whole(u.Get("cacheReadInputTokens"))}
		return true
	})
	return out
}

// ledgerEvent counts one usage ledger event: its time and model must be
// there, its tokens' input and output are its own, the cache tokens those
// of the assistant message its toMessageId names.
func (c *ampState) ledgerEvent(e view.Value, cache map[int64][2]int64) {
	c.counts["ledger_events"]++
	at, model, tokens := nonEmpty(e.Get("timestamp")), asRead(e.Get("model")), e.Get("tokens")
	if _, ok := rfc3339(at); !ok || model.Empty() || !tokens.Exists() {
		c.counts["ledger_events_not_counted"]++
		return
	}
	v := native.Usage{Input: c.whole(tokens.Get("input")), Output: c.whole(tokens.Get("output"))}
	if to := e.Get("toMessageId"); isWhole(to) {
		cw := cache[to.Int()]
		v.CacheWrite, v.CacheRead = cw[0], cw[1]
	}
	c.add(model, v, c.whole(tokens.Get("total")))
}

// add counts v under model, after ccusage's total fallback: what a total
// holds beyond the parts is the output when there is none, else extra
// (Reasoning); a response of no tokens at all is left out.
func (c *ampState) add(model view.Text, v native.Usage, total int64) {
	if missing := total - (v.Input + v.Output + v.CacheRead + v.CacheWrite); missing > 0 {
		if v.Output == 0 {
			v.Output = missing
		} else {
			v.Reasoning = missing
		}
	}
	if v.Input+v.Output+v.CacheRead+v.CacheWrite+v.Reasoning == 0 {
		c.counts["empty_usage"]++
		return
	}
	t, _ := view.Lookup(c.totals, model)
	if t == nil {
		t = &native.Usage{}
		c.totals[model.Own()] = t
	}
	v.Responses = 1
	t.Add(v)
}

// asRead is a string value as read, empty when it is no string or only
// blanks: a model is written as read (or as its digest), never trimmed,
// since a trimmed value is no input value.
func asRead(v view.Value) view.Text {
	if nonEmpty(v).Empty() {
		return view.Text{}
	}
	return v.Str()
}

// nonEmpty is a string value trimmed, empty when it is no string.
func nonEmpty(v view.Value) view.Text {
	if !v.IsString() {
		return view.Text{}
	}
	return v.Str().TrimSpace()
}

// isWhole reports a JSON integer (no fraction, no exponent) that is not
// negative: what serde_json's as_u64 and as_i64 read; any other number
// reads as none.
func isWhole(v view.Value) bool {
	if !v.IsNumber() {
		return false
	}
	raw := v.Raw()
	for i := 0; i < raw.Len(); i++ {
		if b := raw.Byte(i); b < '0' || b > '9' {
			return false
		}
	}
	return raw.Len() > 0
}

// whole is a count as ccusage reads it (isWhole, else 0), bounded as
// every count is (native.Base.Count).
func (c *ampState) whole(v view.Value) int64 {
	if !isWhole(v) {
		return 0
	}
	return c.Count(v)
}

func (c *ampState) End(out *converters.Output) error {
	c.Out = out
	c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
		events.AuditGap("instruction_loads_not_logged", "amp_guidance_file_text_and_system_prompt_not_logged"))
	models := make([]string, 0, len(c.totals))
	for m := range c.totals {
		models = append(models, m)
	}
	sort.Strings(models)
	var all native.Usage
	for _, m := range models {
		t := c.totals[m]
		all.Add(*t)
		extra := receipt.Attrs{{Key: "gen_ai.usage.responses", Value: receipt.Computed(t.Responses)}}
		if t.Reasoning > 0 {
			extra = append(extra, receipt.Attr{Key: "gen_ai.usage.reasoning.output_tokens", Value: receipt.Copied(t.Reasoning)})
		}
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized", Attrs: events.UsageSummary(
			c.Pass(leak.Model, view.Borrow(m)), // owned
			t.Tokens(), extra, "usage_ledger_events", "thread")})
	}
	if len(models) == 0 {
		c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
			events.AuditGap("token_usage_not_logged", "amp_thread_has_no_counted_usage"))
	}
	c.RootIdentity(out, "amp")
	if len(models) > 0 { // unknown is not zero: the audit gap says so
		all.CacheIn().Root(out)
	}
	native.Tally(out, "amp", c.counts, []string{"user_prompts", "model_calls", "tool_calls", "failed_tool_calls",
		"rejected_tool_calls", "subagents", "skills", "compactions", "ledger_events", "ledger_events_not_counted",
		"thinking_blocks", "cancelled_responses", "guidance_files", "subagent_responses"}, native.Unfinished(c.tools, func(t *native.Call) bool { return t.Done }))
	c.Summarize(out)
	return nil
}

// The audit gaps this reader writes, in the schema of
// context.audit_gap.recorded (see events/eventschema.go).
var _ = events.DeclareEvent("context.audit_gap.recorded", events.EventDecl{Adds: true, Keys: []events.Attr{
	events.SetsProp("context.audit_gap.detail", events.Enum(
		"amp_guidance_file_text_and_system_prompt_not_logged", "amp_thread_has_no_counted_usage")),
}})

// A thread's tokens are its usage ledger's events (or, without a ledger,
// its assistant messages' usage), each counted once.
var _ = events.DeclareEvent("gen_ai.token_usage.summarized", events.EventDecl{Adds: true, Keys: []events.Attr{
	events.SetsProp("gen_ai.usage.dedupe", events.Enum("usage_ledger_events")),
}})
