package opencode

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

type opencodeState struct {
	native.Base
	agent    string                   // the agent the root span names: opencode, or a kin's (Variant)
	models   map[string]*native.Usage // by model, as written
	msgs     map[string]*opencodeMsg  // by message id
	toolKeys map[string]bool          // the tool spans' keys so far
	skills   map[string]bool
	counts   map[string]int64
	gapDone  bool
	first    int64 // earliest time seen (unix ns)
	last     int64
}

func newOpencode(env converters.Env) *opencodeState {
	return &opencodeState{Base: native.New(env, opencodeTypes), agent: "opencode", models: map[string]*native.Usage{},
		msgs: map[string]*opencodeMsg{}, toolKeys: map[string]bool{}, skills: map[string]bool{}, counts: map[string]int64{}}
}

func (c *opencodeState) Record(r converters.Record, out *converters.Output) error {
	c.Out = out
	c.CountType(r)
	if !c.gapDone {
		c.gapDone = true
		c.Emit(r, "", "context.audit_gap.recorded", events.AuditGap("instruction_loads_not_logged",
			"opencode_agents_md_and_instructions_load_without_a_record"))
	}
	switch r.Type {
	case "export_document":
		c.counts["documents"]++
		c.counts["todos"] += int64(native.ArrayLen(r.Get("todos"))) // newer exports: the session's todo list
		c.session(r, r.Get("info"))
		r.Get("messages").ForEach(func(_, m view.Value) bool {
			g := c.message(r, m.Get("info"))
			m.Get("parts").ForEach(func(_, p view.Value) bool {
				c.part(r, g, p)
				return true
			})
			return true
		})
	case "session_info":
		c.counts["storage_sessions"]++
		c.session(r, r.JSON)
	case "message_info":
		c.counts["storage_messages"]++
		c.message(r, r.JSON)
	case "part":
		c.counts["storage_parts"]++
		g := c.msgs[c.KeyPart(r.Get("messageID").Str())]
		if g == nil {
			c.counts["parts_without_message"]++
			return nil
		}
		c.part(r, g, r.JSON)
	}
	return nil
}

// session reads a session's identity (Session.Info).
func (c *opencodeState) session(r converters.Record, info view.Value) {
	if c.Session == "" {
		if id := info.Get("id").Str(); !id.Empty() {
			c.Session = c.Pass(leak.ID, id)
		}
	}
	c.SeeVersion(info.Get("version").Str())
	c.SeeWorkDir(info.Get("directory").Str())
	ns, at := opencodeAt(info.Get("time.created"))
	c.cover(ns)
	if p := info.Get("parentID").Str(); !p.Empty() {
		// A child session (a task tool's subagent), read on its own: its
		// parent holds the call that started it.
		c.counts["child_sessions"]++
		c.Emit(nested(r, info, at, ns), "", "subagent.spawned", append(events.SubagentSpawned("parent_thread_id", 1),
			events.TranscriptLayout("separate_session"),
			receipt.Attr{Key: "subagent.parent_thread_id", Value: receipt.S(c.Pass(leak.ID, p))}))
	}
}

// nested is a record for an event about a value nested in record r: the
// record's line, the value's own time.
func nested(r converters.Record, v view.Value, at string, ns int64) converters.Record {
	return converters.Record{Line: r.Line, File: r.File, Type: r.Type, Time: at, NS: ns, JSON: v}
}

func (c *opencodeState) cover(ns int64) {
	if ns == 0 {
		return
	}
	if c.first == 0 || ns < c.first {
		c.first = ns
	}
	if ns > c.last {
		c.last = ns
	}
}

// opencodeMsg is what the parts of a message need of it.
type opencodeMsg struct {
	user, summary, prompted bool
	chat                    int          // index in Out.Spans of an assistant message's chat span
	at                      native.Place // the message's time, for its parts' events
}

// message reads a message's info (MessageV2.Info): an export entry's
// info, or a storage message file. Its parts follow.
func (c *opencodeState) message(r converters.Record, info view.Value) *opencodeMsg {
	role, known := info.Get("role").Str().Word("user", "assistant")
	ns, at := opencodeAt(info.Get("time.created"))
	end, _ := opencodeAt(info.Get("time.completed"))
	c.cover(ns)
	c.cover(end)
	key := c.KeyPart(info.Get("id").Str())
	g := &opencodeMsg{user: role == "user", chat: -1, at: native.PlaceOf(nested(r, view.Value{}, at, ns))}
	if !known || c.msgs[key] != nil {
		if known {
			c.counts["repeated_messages"]++
		} else {
			c.counts["messages_of_unknown_role"]++
		}
		g.user = true // its parts are counted, and mapped to nothing
		g.prompted = true
		return g
	}
	c.msgs[key] = g
	if g.user {
		c.counts["user_messages"]++
		return g
	}
	c.counts["assistant_messages"]++
	model := info.Get("modelID").Str()
	provider := info.Get("providerID").Str()
	attrs := events.ChatSpan(c.Pass(leak.Label, provider))
	name := "chat"
	if !model.Empty() {
		mw := c.Pass(leak.Model, model)
		name += " " + mw
		attrs = append(attrs, receipt.Attr{Key: "gen_ai.request.model", Value: receipt.S(mw)})
	}
	span := converters.Span{Key: "chat:" + key, Name: name, Kind: 3, Start: ns, End: ns, Attrs: attrs}
	span.Cover(end)
	if e := info.Get("error.name").Str(); !e.Empty() {
		// The error's class (message-v2.ts's named errors), as error.type
		// wants it; another name is _OTHER, as the conventions say.
		kind, known := e.Word(opencodeErrors...)
		if !known {
			kind = "_OTHER"
		}
		span.Error = true
		span.Attrs = append(span.Attrs, receipt.Attr{Key: "error.type", Value: receipt.S(kind)})
		c.counts["assistant_errors"]++
	}
	if t := info.Get("tokens"); t.IsObject() {
		// An assistant message's tokens (MessageV2.Assistant tokens):
		// input excludes the cache reads and writes, which are apart;
		// output excludes reasoning.
		u := native.Usage{Input: c.Count(t.Get("input")), Output: c.Count(t.Get("output")),
			Reasoning: c.Count(t.Get("reasoning")), CacheRead: c.Count(t.Get("cache.read")), CacheWrite: c.Count(t.Get("cache.write"))}
		if u.Input == 0 && u.Output == 0 && u.CacheRead == 0 && u.CacheWrite == 0 {
			// ccusage 20.0.24's fallback: a total with no parts is output,
			// less the reasoning it counts apart.
			u.Output = max(c.Count(t.Get("total"))-u.Reasoning, 0)
		}
		span.Attrs = append(span.Attrs, u.CacheIn().Chat()...)
		// ccusage counts a message with tokens, a model and a provider.
		if (u.Input|u.Output|u.CacheRead|u.CacheWrite|u.Reasoning) != 0 && !model.Empty() && !provider.Empty() {
			mk := model.Own()
			if c.models[mk] == nil {
				c.models[mk] = &native.Usage{}
			}
			u.Responses = 1
			c.models[mk].Add(u)
		}
	}
	g.summary = info.Get("summary").Bool()
	c.Out.Spans = append(c.Out.Spans, span)
	g.chat = len(c.Out.Spans) - 1
	return g
}

// opencodeErrors are the errors an assistant message may end with.
var opencodeErrors = []string{"MessageAbortedError", "ProviderAuthError", "APIError", "MessageOutputLengthError",
	"ContextOverflowError", "StructuredOutputError", "UnknownError"}

// opencodePartTypes are the part types of message-v2.ts, counted by name.
var opencodePartTypes = []string{"text", "reasoning", "tool", "step-start", "step-finish", "file", "patch", "agent",
	"subtask", "compaction", "snapshot", "retry"}

func (c *opencodeState) partType(p view.Value) string {
	t, ok := p.Get("type").Str().Word(opencodePartTypes...)
	if !ok {
		t = "other"
	}
	c.counts["parts_"+t]++
	return t
}

// part reads one part of message g: in an export entry, or a storage
// part file.
func (c *opencodeState) part(r converters.Record, g *opencodeMsg, p view.Value) {
	t := c.partType(p)
	rec := g.at.Record()
	rec.Line, rec.File = r.Line, r.File
	if g.user {
		c.userPart(rec, g, t, p)
		return
	}
	switch t {
	case "tool":
		c.tool(rec, g.chat, p)
	case "step-finish":
		c.counts["steps"]++
	case "text":
		if g.summary {
			c.summary(rec, c.Out.Spans[g.chat].Key, p.Get("text").Str())
		}
	}
}

// userPart reads a user message's part: a typed prompt (the first text
// part neither synthetic nor ignored counts the message as one), files
// and agents attached, subtasks a command asked for, compaction requests.
func (c *opencodeState) userPart(r converters.Record, g *opencodeMsg, t string, p view.Value) {
	switch t {
	case "text":
		if !g.prompted && !p.Get("synthetic").Bool() && !p.Get("ignored").Bool() {
			g.prompted = true
			c.counts["user_prompts"]++
		}
	case "compaction":
		reason := "manual"
		if p.Get("auto").Bool() {
			reason = "auto"
			if p.Get("overflow").Bool() {
				reason = "auto_overflow"
			}
		}
		c.Emit(r, "", "context.compaction.started", append(events.CompactionStarted(c.Digest(p.Get("id")), reason),
			receipt.Attr{Key: "privacy.raw_context_recorded", Value: receipt.B(false)}))
		c.counts["compactions"]++
	}
}

// summary writes a summary a compaction made: a text part of the
// assistant message OpenCode marks summary, which replaces the history
// before it.
func (c *opencodeState) summary(r converters.Record, span string, text view.Text) {
	c.Emit(r, span, "context.compaction.summary_loaded", events.CompactionSummary(text.Digest(c.Hasher), text.Len()))
	c.counts["compaction_summaries"]++
}

// tool reads a tool part: its call, and its state (pending, running,
// completed, error) as the export kept it last.
func (c *opencodeState) tool(r converters.Record, chat int, p view.Value) {
	callID := p.Get("callID").Str()
	name := p.Get("tool").Str()
	state := p.Get("state")
	ns, _ := opencodeAt(state.Get("time.start"))
	end, endAt := opencodeAt(state.Get("time.end"))
	if ns == 0 {
		ns = r.NS
	}
	c.cover(ns)
	c.cover(end)
	parentKey := c.Out.Spans[chat].Key
	key := "tool:" + c.KeyPart(callID)
	if callID.Empty() {
		key = "tool:" + c.KeyPart(p.Get("id").Str())
	}
	// A call id is the provider's, unique only within its response: a
	// provider that numbers each response's calls (call_0, call_1) repeats
	// it in every message (OpenCode 1.2.26's apply_patch sessions did), and
	// a part may have neither id. Such a call is keyed under its chat, then
	// by its place among the message's tool parts.
	if c.toolKeys[key] {
		key = parentKey + "/" + key
	}
	for n := 2; c.toolKeys[key]; n++ {
		key = parentKey + "/tool#" + strconv.Itoa(n)
	}
	c.toolKeys[key] = true
	c.counts["tool_calls"]++
	kind := native.ToolUnnamed
	var server, tool view.Text
	switch {
	case opencodeBuiltinTools[name.Own()]:
		kind = native.ToolBuiltin
	case !name.Empty():
		kind = native.ToolOther
		// An MCP tool is <server>_<tool>: the split the field declares
		// (leak.ServerToolName), which the leak check types too.
		if s, t := c.SplitName(leak.ServerToolName, name.Own()); s != "" {
			kind, server, tool = native.ToolMCP, view.Borrow(s), view.Borrow(t)
		}
	}
	attrs := receipt.Attrs{events.Operation("execute_tool"), {Key: "gen_ai.tool.call.id", Value: receipt.S(c.Pass(leak.ID, callID))}}
	attrs, spanName := c.DescribeTool(attrs, kind, name.Own(), server.Own(), tool.Own())
	input := state.Get("input")
	attrs = append(attrs, receipt.Attr{Key: "convert.tool.call.arguments_hash", Value: receipt.S(c.Digest(input))})
	status, _ := state.Get("status").Str().Word("pending", "running", "completed", "error")
	if status == "" {
		status = "unknown"
	}
	attrs = append(attrs, receipt.Attr{Key: "opencode.tool_call.status", Value: receipt.S(status)})
	span := converters.Span{Key: key, Parent: parentKey, Name: spanName, Kind: 1, Start: ns, End: ns, Attrs: attrs}
	span.Cover(end)
	result := state.Get("output")
	done := status == "completed" || status == "error"
	if status == "error" {
		span.Error = true
		result = state.Get("error")
		c.counts["failed_tool_calls"]++
	}
	if !done {
		c.counts["tool_calls_without_result"]++
	}
	c.Out.Spans = append(c.Out.Spans, span)
	c.Out.Spans[chat].Cover(end)
	doneRec := r
	if end > 0 {
		doneRec.NS, doneRec.Time = end, endAt
	}
	st := "success"
	if status == "error" {
		st = "error"
	}
	switch {
	case kind == native.ToolMCP && done:
		a := events.MCPCall{Server: c.NameAttr("mcp.server", server), Tool: c.NameAttr("mcp.tool", tool), Status: st,
			ArgsHash: c.Digest(input), ArgsSize: input.RawLen(), ResultHash: c.Digest(result), ResultSize: result.RawLen()}.Attrs()
		a = c.Conversation(a)
		c.Emit(doneRec, key, "mcp.tool_call.completed", a)
		c.counts["mcp_calls"]++
	case name.Is("skill"):
		c.skill(r, key, input.Get("name").Str(), status)
	case name.Is("task"):
		c.task(r, doneRec, key, state, input, result, done, st)
	}
}

// skill writes a skill the skill tool loaded: its body enters the context
// when the call completes.
func (c *opencodeState) skill(r converters.Record, span string, skill view.Text, status string) {
	if skill.Empty() || status != "completed" {
		return
	}
	a := c.Conversation(c.Skill("opencode", "model_tool_call", skill, c.skills))
	c.Emit(r, span, "context.skill.invoked", a)
	c.counts["skills"]++
}

// task writes a subagent the task tool started: a child session of its
// own (state.metadata.sessionId), whose final text comes back as the
// call's output.
func (c *opencodeState) task(r, done converters.Record, span string, state, input, result view.Value, finished bool, status string) {
	a := append(events.SubagentSpawned("task_tool_call", 1), events.TranscriptLayout("separate_session"))
	if id := state.Get("metadata.sessionId").Str(); !id.Empty() {
		a = append(a, receipt.Attr{Key: "subagent.agent_id", Value: receipt.S(c.Pass(leak.ID, id))})
	}
	var kind string
	if t := input.Get("subagent_type").Str(); !t.Empty() {
		kind = c.Name(t)
		a = append(a, receipt.Attr{Key: "subagent.type", Value: receipt.S(kind)})
	}
	if p := input.Get("prompt"); p.Exists() {
		a = append(a, receipt.Attr{Key: "subagent.prompt_hash", Value: receipt.S(c.Digest(p))})
	}
	if d := input.Get("description"); d.Exists() {
		a = append(a, receipt.Attr{Key: "subagent.description_hash", Value: receipt.S(c.Digest(d))})
	}
	c.Emit(r, span, "subagent.spawned", a)
	c.counts["subagents"]++
	if !finished {
		return
	}
	ret := append(events.SubagentReturned(c.Digest(result), result.RawLen(), status, "final_text_returned_to_parent"),
		events.RawSummaryNotRecorded)
	if kind != "" {
		ret = append(ret, receipt.Attr{Key: "subagent.type", Value: receipt.S(kind)})
	}
	c.Emit(done, span, "subagent.result.returned", ret)
}

// opencodeAt reads a time in Unix milliseconds: unix nanoseconds and the
// receipt's time form, or 0 and "" when there is none or it is out of
// range.
func opencodeAt(v view.Value) (int64, string) {
	if !v.IsNumber() {
		return 0, ""
	}
	ms := v.Int()
	t := time.UnixMilli(ms).UTC()
	if t.Year() < 2000 || t.Year() > 2100 {
		return 0, ""
	}
	return t.UnixNano(), t.Format("2006-01-02T15:04:05.000Z")
}

func (c *opencodeState) End(out *converters.Output) error {
	c.Out = out
	models := make([]string, 0, len(c.models))
	for m := range c.models {
		models = append(models, m)
	}
	sort.Strings(models)
	var lastAt string
	if c.last > 0 {
		lastAt = time.Unix(0, c.last).UTC().Format("2006-01-02T15:04:05.000Z")
	}
	for _, m := range models {
		t := *c.models[m]
		extra := receipt.Attrs{{Key: "gen_ai.usage.reasoning.output_tokens", Value: receipt.Copied(t.Reasoning)},
			{Key: "gen_ai.usage.responses", Value: receipt.Computed(t.Responses)}}
		a := events.UsageSummary(c.Pass(leak.Model, view.Borrow(m)), t.Tokens(), extra, "assistant_usage_records", "thread")
		// At the session's last activity: the totals are known then, and
		// the root span, stretched to its events, covers every call.
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized", Time: lastAt, Attrs: a})
	}
	if len(models) == 0 && c.counts["documents"]+c.counts["storage_messages"] > 0 {
		c.Emit(converters.Record{}, "", "context.audit_gap.recorded", events.AuditGap("token_usage_not_logged",
			"opencode_messages_have_no_token_counts"))
	}
	c.RootIdentity(out, c.agent)
	var all native.Usage
	for _, m := range models {
		all.Add(*c.models[m])
	}
	if len(models) > 0 {
		all.CacheIn().Root(out)
	}
	for _, k := range []string{"user_prompts", "user_messages", "assistant_messages", "assistant_errors", "tool_calls",
		"failed_tool_calls", "tool_calls_without_result", "mcp_calls", "skills", "subagents", "child_sessions",
		"compactions", "compaction_summaries", "steps", "todos"} {
		out.Span.Set("opencode."+k+".count", receipt.Computed(c.counts[k]))
	}
	var parts []string
	for _, t := range append(opencodePartTypes, "other") {
		if n := c.counts["parts_"+t]; n > 0 {
			parts = append(parts, t+"="+strconv.FormatInt(n, 10))
		}
	}
	if len(parts) > 0 {
		out.Span.Set("opencode.part_types", receipt.L(parts))
	}
	c.Summarize(out)
	return nil
}
