package droid

import (
	"strconv"
	"strings"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// droidTool is one tool call, opened by an assistant message's tool_use
// block and finished by the tool_result block that names its id.
type droidTool struct {
	native.Call        // Subagent: a Task call
	skill       string // a Skill call: the skill it loads (owned), written when it succeeds
}

// droidUsage is the settings sidecar's totals, in Droid's terms: input
// excludes the cache reads and writes, which are counted apart; its
// thinking tokens are Reasoning.
type droidUsage struct {
	native.Usage
	model string
	ok    bool
}

type droidState struct {
	native.Base
	prompted int64 // time of the last prompt or tool result: the next chat span starts there
	tools    map[string]*droidTool
	skills   map[string]bool // skills loaded so far (raw names, for duplicates)
	usage    droidUsage
	parent   string // the calling session of a subagent's session (an id that passes)
	subagent bool   // the sidecar tags the session as a subagent's
	orphan   bool   // the input is a settings document whose transcript is gone
	fileID   string // the session id a settings document's file name carries
	counts   map[string]int64
}

func newDroid(env converters.Env) *droidState {
	return &droidState{Base: native.New(env, droidTypes), tools: map[string]*droidTool{}, skills: map[string]bool{}, counts: map[string]int64{}}
}

// StartFile reads the settings sidecar of the session file: the model and
// the session's token totals. A settings document read on its own (its
// transcript gone) names its session by its file name.
func (c *droidState) StartFile(f converters.SourceFile, out *converters.Output) error {
	c.Out = out
	if f.Index != 0 {
		return nil
	}
	if id, ok := strings.CutSuffix(native.PathBase(f.Rel), ".settings.json"); ok && leak.UUID.Admit(id) {
		c.fileID = id
	}
	c.settings(f.Meta)
	return nil
}

// settings reads a settings document: the sidecar, or the input itself
// when its transcript is gone.
func (c *droidState) settings(m view.Value) {
	if !m.IsObject() {
		return
	}
	if v := m.Get("model").Str(); !v.Empty() {
		c.usage.model = v.Own()
	}
	m.Get("tags").ForEach(func(_, t view.Value) bool {
		if t.Get("name").Str().Is("subagent") {
			c.subagent = true
		}
		return true
	})
	u := m.Get("tokenUsage")
	if !u.IsObject() {
		return
	}
	c.usage.ok = true
	c.usage.Usage = native.Usage{Input: c.Count(u.Get("inputTokens")), Output: c.Count(u.Get("outputTokens")),
		CacheRead: c.Count(u.Get("cacheReadTokens")), CacheWrite: c.Count(u.Get("cacheCreationTokens")),
		Reasoning: c.Count(u.Get("thinkingTokens"))}
}

func (c *droidState) Record(r converters.Record, out *converters.Output) error {
	c.Out = out
	c.CountType(r)
	switch r.Type {
	case "settings":
		// The settings document on its own: its transcript is gone.
		c.orphan = true
		if c.Session == "" && c.fileID != "" {
			c.Session = c.fileID
		}
		c.settings(r.JSON)
	case "session_start":
		if id := r.Get("id").Str(); c.Session == "" && !id.Empty() {
			c.Session = c.Pass(leak.IDOrUUID, id)
		}
		c.SeeWorkDir(r.Get("cwd").Str())
		if p := r.Get("callingSessionId").Str(); !p.Empty() {
			c.parent = c.Pass(leak.IDOrUUID, p)
		}
	case "compaction_state":
		c.compaction(r)
	case "message":
		m := r.Get("message")
		if m.Get("role").Str().Is("assistant") {
			c.assistant(r, m)
		} else {
			c.user(r, m.Get("content"))
		}
	}
	return nil
}

// user reads a user message: a prompt, or the results of tool calls.
func (c *droidState) user(r converters.Record, content view.Value) {
	prompt := false
	content.ForEach(func(_, b view.Value) bool {
		switch {
		case b.Get("type").Str().Is("tool_result"):
			c.finishTool(r, b)
		case b.Get("type").Str().Is("text"):
			prompt = true
		case b.Get("type").Str().Is("image"):
			c.counts["images"]++
		}
		return true
	})
	if prompt {
		c.counts["user_prompts"]++
	}
	if r.NS > 0 {
		c.prompted = r.NS
	}
}

// assistant reads a model response: a chat span, and the tool calls it
// made. The transcript names no model and no usage: the model is the
// sidecar's.
func (c *droidState) assistant(r converters.Record, m view.Value) {
	c.counts["model_calls"]++
	start := r.NS
	if c.prompted > 0 && c.prompted < r.NS {
		start = c.prompted
	}
	attrs := events.ChatSpan("factory")
	name := "chat"
	if c.usage.model != "" {
		model := c.Pass(leak.Model, view.Borrow(c.usage.model)) // owned
		name += " " + model
		attrs = append(attrs, receipt.Attr{Key: "gen_ai.request.model", Value: receipt.S(model)})
	}
	key := "chat:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line)
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Name: name, Kind: 3, Start: start, End: r.NS, Attrs: attrs})
	c.prompted = 0
	m.Get("content").ForEach(func(_, b view.Value) bool {
		switch {
		case b.Get("type").Str().Is("thinking"):
			c.counts["thinking_blocks"]++
		case b.Get("type").Str().Is("tool_use"):
			c.openTool(r, key, b)
		}
		return true
	})
}

// openTool opens an execute_tool span under the chat span of the message
// that made the call; a Task call starts a subagent.
func (c *droidState) openTool(r converters.Record, parent string, b view.Value) {
	id, name, args := b.Get("id").Str(), b.Get("name").Str(), b.Get("input")
	key, ok := native.CallKey(&c.Base, id, c.tools, c.counts)
	if !ok {
		return
	}
	t := &droidTool{Call: c.OpenCall(r, key, parent, id, name, args, droidBuiltinTools)}
	c.tools[key] = t
	if name.Is("Skill") {
		t.skill = native.FirstString(args.Get("skill"), args.Get("name")).Own()
		if t.skill == "" {
			c.counts["skills_without_name"]++
		}
	}
	if name.Is("Task") {
		// The subagent runs as a session of its own (its session_start
		// names this one): its records and tokens are in its own receipt.
		t.Subagent = true
		c.counts["subagents"]++
		a := append(events.SubagentSpawned("task_tool_call", 1), events.TranscriptLayout("separate_session"))
		if p := native.FirstString(args.Get("prompt")); !p.Empty() {
			a = append(a, receipt.Attr{Key: "subagent.prompt_hash", Value: receipt.S(p.Digest(c.Hasher))})
		}
		if d := native.FirstString(args.Get("description")); !d.Empty() {
			a = append(a, receipt.Attr{Key: "subagent.description_hash", Value: receipt.S(d.Digest(c.Hasher))})
		}
		if s := native.FirstString(args.Get("subagent_type")); !s.Empty() {
			a = append(a, receipt.Attr{Key: "subagent.type", Value: receipt.S(c.Name(s))})
		}
		c.Emit(r, key, "subagent.spawned", a)
	}
}

// compaction reads a compaction_state record: Droid's summary of the
// messages it removed from the context (saveCompactionSummary: id,
// timestamp, summaryText, summaryTokens, summaryKind llm_summary or
// provider_switch_serialization, removedCount, anchorMessage, systemInfo),
// which replaces them in the next request.
func (c *droidState) compaction(r converters.Record) {
	c.counts["compactions"]++
	// The skills loaded before are in the summary at most: one loaded
	// again enters the context again.
	clear(c.skills)
	reason := "droid_compaction"
	if k, ok := r.Get("summaryKind").Str().Word("llm_summary", "provider_switch_serialization"); ok {
		reason = k
	}
	// Droid logs the summary's own size (summaryTokens), not the
	// context's before it.
	if !c.Compaction(r, c.counts["compactions"], reason, view.Value{}, r.Get("summaryText")) {
		c.counts["compactions_without_summary"]++
	}
}

// skill writes a skill the Skill tool loaded (input.skill, the shape of the
// Claude Code tool Droid's mirrors; no public Droid log shows another):
// its body enters the context when the call succeeds.
func (c *droidState) skill(r converters.Record, span string, name view.Text) {
	if name.Empty() {
		c.counts["skills_without_name"]++
		return
	}
	a := c.Conversation(c.Skill("droid", "model_tool_call", name, c.skills))
	c.Emit(r, span, "context.skill.invoked", a)
	c.counts["skills"]++
}

// finishTool closes a call with its tool_result block; an MCP call writes
// what crossed the boundary, digested, and a Task call what the subagent
// returned.
func (c *droidState) finishTool(r converters.Record, b view.Value) {
	t := c.tools["tool:"+c.KeyPart(b.Get("tool_use_id").Str())]
	if t == nil {
		c.counts["results_without_call"]++
		return
	}
	status := c.FinishCall(r, &t.Call, b.Get("is_error").Bool(), b.Get("content"), "droid.tool_call.status", func(status string) {
		if t.skill != "" && status == "success" {
			c.skill(r, t.Key, view.Borrow(t.skill)) // owned
		}
	})
	if status == "error" {
		c.counts["failed_tool_calls"]++
	}
	if status != "" && t.MCPServer != "" {
		c.counts["mcp_calls"]++
	}
}

func (c *droidState) End(out *converters.Output) error {
	c.Out = out
	c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
		events.AuditGap("instruction_loads_not_logged", "droid_agents_md_and_system_prompt_load_without_a_record"))
	if c.orphan {
		// Only the totals are left: what entered the context is not known.
		c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
			events.AuditGap("transcript_missing", "droid_settings_without_session_transcript"))
	}
	u := c.usage
	if u.ok {
		model := "unknown"
		if u.model != "" {
			model = u.model
		}
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized", Attrs: events.UsageSummary(
			c.Pass(leak.Model, view.Borrow(model)), // owned
			u.Tokens(),
			nil, "settings_sidecar_totals", "session")})
	} else {
		c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
			events.AuditGap("token_usage_not_logged", "droid_session_has_no_settings_usage"))
	}
	c.RootIdentity(out, "factory-droid")
	if u.model != "" {
		out.Span.Set("gen_ai.request.model", receipt.S(c.Pass(leak.Model, view.Borrow(u.model))))
	}
	if u.ok {
		u.CacheIn().Root(out) // the settings count input and cache apart; a span's input holds both
		out.Span.Set("droid.usage.thinking_tokens", receipt.Copied(u.Reasoning))
	}
	if c.parent != "" {
		out.Span.Set("droid.calling_session_id", receipt.S(c.parent))
	}
	out.Span.Set("droid.subagent_session", receipt.B(c.parent != "" || c.subagent))
	if c.orphan {
		out.Span.Set("droid.transcript_missing", receipt.B(true))
	}
	native.Tally(out, "droid", c.counts, []string{"user_prompts", "model_calls", "tool_calls", "failed_tool_calls", "mcp_calls", "subagents", "skills", "compactions"}, native.Unfinished(c.tools, func(t *droidTool) bool { return t.Done }))
	c.Summarize(out)
	return nil
}
