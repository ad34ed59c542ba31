package geminicli

import (
	"regexp"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// tokensOf reads a message's TokensSummary. Each figure is the first of
// its names that is a number: the CLI's, then the older ones ccusage
// 20.0.24 also reads (prompt, candidates, *_tokens). A summary without an
// output count, or with 0, still has its total, which Gemini counts as
// prompt (cached inside) + output + thoughts + tool: the output is what
// the total leaves (ccusage derives it too, but takes the cached tokens
// out again, so where some were cached its output is short of the log's).
//
//	{input 1000, output 100, total 1150, ...}     output 100
//	{input 1000, thoughts 20, total 1120}         output 100
//	{input 1000, cached 400, total 1600}          output 600 (ccusage 200)
//	{input 1000, total 900}                       output 0
//
// The usage is one response's: Input the prompt count, which holds the
// cached tokens (CacheRead too), plus the tool-use prompt count, which it
// does not (the CLI's own totals add it); Output excludes the thinking
// tokens (Reasoning); Total is Gemini's own.
func (c *geminiState) tokensOf(t view.Value) *native.Usage {
	get := func(names ...string) int64 {
		for _, n := range names {
			if v := t.Get(n); v.IsNumber() {
				return c.Count(v)
			}
		}
		return 0
	}
	tok := &native.Usage{Input: get("input", "prompt", "prompt_tokens") + get("tool", "tool_tokens"),
		Output: get("output", "candidates", "candidates_tokens"), CacheRead: get("cached", "cached_tokens"),
		Reasoning: get("thoughts", "thoughts_tokens"), Total: get("total", "total_tokens"), Responses: 1}
	if tok.Output == 0 {
		tok.Output = max(0, tok.Total-tok.Input-tok.Reasoning)
	}
	return tok
}

// geminiMsg is one message of one file. The recording service appends a
// message again, whole, each time it changes (tokens, tool calls): the
// last record of an id is the message.
type geminiMsg struct {
	key      string
	file     int
	chat     int // index in out.Spans of its chat span; -1 for other kinds
	model    string
	tokens   *native.Usage
	thoughts int64
	rewound  bool
}

// geminiTool is one tool call, seen in every record of its message.
type geminiTool struct {
	key, name          string // owned copies, as every string it keeps
	span               int
	mcpServer, mcpTool string // raw names, for hashing only
	agentID            string // the agent it started, when the record names one
	agentCall          bool   // a call that starts a subagent (agentId or a built-in agent)
	depth              int    // depth of the agent that made the call
	bound              bool   // a subagent chat was attached to it
	done               bool
	status             string
	// What End writes of the result of a call that starts a subagent,
	// taken when it finishes: the result is of that line.
	resultHash string
	resultSize int
	doneAt     native.Place // where it finished, for the subagent result event
}

// geminiAgent is the agent of one file: the main session (key "") or a
// subagent chat.
type geminiAgent struct {
	key      string
	depth    int   // 0 for the main session
	span     int   // index in out.Spans; -1 for the root
	prompted int64 // time of its last user message: its next chat span starts there
}

type geminiState struct {
	native.Base
	file     int
	fileRel  string
	agent    *geminiAgent // agent of the current file
	root     *geminiAgent
	fileSIDs map[int]string // session id each file's metadata names

	msgs   map[string]*geminiMsg
	order  []*geminiMsg // messages by first appearance, every file
	tools  map[string]*geminiTool
	agents map[string]*geminiTool // agent id -> the call that started it
	skills map[string]bool
	counts map[string]int64

	gapDone, legacy, jsonl bool
}

func newGemini(env converters.Env) *geminiState {
	root := &geminiAgent{key: "", span: -1}
	return &geminiState{Base: native.New(env, geminiTypes), root: root, agent: root, fileSIDs: map[int]string{},
		msgs: map[string]*geminiMsg{}, tools: map[string]*geminiTool{}, agents: map[string]*geminiTool{},
		skills: map[string]bool{}, counts: map[string]int64{}}
}

// StartFile starts a file: the main chat, or a subagent chat (a companion
// under chats/<parent-session-id>/), whose agent is opened at its first
// record, when its metadata has named it.
func (c *geminiState) StartFile(f converters.SourceFile, out *converters.Output) error {
	c.file, c.fileRel, c.agent = f.Index, f.Rel, c.root
	if f.Index > 0 {
		c.agent = nil
	}
	return nil
}

func (c *geminiState) Record(r converters.Record, out *converters.Output) error {
	c.Out = out
	c.CountType(r)
	if !c.gapDone {
		c.gapDone = true
		c.Emit(r, "", "context.audit_gap.recorded",
			events.AuditGap("instruction_loads_not_logged", "gemini_md_context_files_load_without_a_record"))
	}
	switch r.Type {
	case "session_metadata":
		c.jsonl = true
		c.metadata(r, r.JSON)
	case "session_document":
		c.legacy = true
		c.metadata(r, r.JSON)
		r.Get("messages").ForEach(func(_, m view.Value) bool {
			if geminiType(m).Exists() {
				ns, at := geminiAt(m.Get("timestamp"))
				c.message(geminiNested(r, m, at, ns))
			} else {
				c.counts["document_entries_not_messages"]++
			}
			return true
		})
	case "metadata_set":
		c.jsonl = true
		c.set(r, r.Get(`\$set`))
	case "rewind_to":
		c.jsonl = true
		c.rewind(r.Get(`\$rewindTo`).Str())
	default:
		c.jsonl = true
		c.message(r)
	}
	return nil
}

// metadata reads a chat's identity: the main file names the session; a
// subagent chat names its own agent, which is then tied to the call that
// started it.
func (c *geminiState) metadata(r converters.Record, m view.Value) {
	sid := m.Get("sessionId").Str()
	if _, seen := c.fileSIDs[r.File]; !seen {
		c.fileSIDs[r.File] = sid.Own()
	}
	if r.File == 0 {
		if c.Session == "" && !sid.Empty() {
			c.Session = c.Pass(leak.IDOrUUID, sid)
		}
		if m.Get("kind").Str().Is("subagent") {
			c.counts["subagent_chat_given_alone"]++
		}
		return
	}
	if c.agent == nil {
		c.startAgent(r, sid)
	}
}

// agentOf returns the agent of the current file, opening an unnamed
// subagent when a companion file starts with no metadata.
func (c *geminiState) agentOf(r converters.Record) *geminiAgent {
	if c.agent == nil {
		c.startAgent(r, view.Text{})
	}
	return c.agent
}

// geminiNested is the record of a message nested in record r (a legacy
// document's, or a $set's): a view of r's line, of the same lifetime.
func geminiNested(r converters.Record, m view.Value, at string, ns int64) converters.Record {
	typ, _ := m.Get("type").Str().Word(geminiTypes...)
	return converters.Record{Line: r.Line, File: r.File, Type: typ, Time: at, NS: ns, JSON: m}
}

// startAgent opens a subagent chat's span under the call that started it:
// the call whose record names this chat's session id as its agentId, or
// else the oldest call to a built-in agent not yet tied to a chat.
func (c *geminiState) startAgent(r converters.Record, sid view.Text) {
	var tool *geminiTool
	link := "unlinked"
	if t, _ := view.Lookup(c.agents, sid); !sid.Empty() && t != nil && !t.bound {
		tool, link = t, "tool_call_agent_id"
	} else {
		var open []*geminiTool
		for _, t := range c.tools {
			if t.agentCall && !t.bound && t.agentID == "" {
				open = append(open, t)
			}
		}
		sort.Slice(open, func(i, j int) bool { return open[i].span < open[j].span })
		if len(open) > 0 {
			tool, link = open[0], "inline_order"
		}
	}
	parent, depth := "", 1
	if tool != nil {
		tool.bound = true
		parent, depth = tool.key, tool.depth+1
	}
	key := "agent:file:" + strconv.Itoa(r.File)
	c.agent = &geminiAgent{key: key, depth: depth, span: len(c.Out.Spans)}
	attrs := receipt.Attrs{
		{Key: "gen_ai.operation.name", Value: receipt.S("invoke_agent")},
		{Key: "gen_ai.agent.name", Value: receipt.S("gemini-cli-subagent")},
		{Key: "subagent.depth", Value: receipt.Computed(int64(depth))},
		{Key: "subagent.link", Value: receipt.S(link)},
	}
	ev := receipt.Attrs{
		{Key: "subagent.link", Value: receipt.S(link)},
		{Key: "subagent.depth", Value: receipt.Computed(int64(depth))},
		{Key: "subagent.transcript_layout", Value: receipt.S("session_subagents_dir")},
	}
	if !sid.Empty() {
		id := c.Pass(leak.IDOrUUID, sid)
		attrs = append(attrs, receipt.Attr{Key: "subagent.id", Value: receipt.S(id)})
		ev = append(ev, receipt.Attr{Key: "subagent.agent_id", Value: receipt.S(id)})
	}
	if tool != nil && tool.name != "" {
		kind := tool.name
		if !geminiBuiltinTools[kind] {
			kind = c.Name(view.Borrow(kind)) // owned
		}
		attrs = append(attrs, receipt.Attr{Key: "subagent.type", Value: receipt.S(kind)})
		ev = append(ev, receipt.Attr{Key: "subagent.type", Value: receipt.S(kind)})
	}
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Parent: parent, Name: "invoke_agent", Kind: 1, Start: r.NS, End: r.NS, Attrs: attrs})
	c.Emit(r, key, "subagent.spawned", ev)
	c.counts["subagents"]++
}

// message reads one message record (the first, or a later copy of it).
func (c *geminiState) message(r converters.Record) {
	m := r.JSON
	agent := c.agentOf(r)
	c.touchAgent(agent, r.NS)
	key := strconv.Itoa(r.File) + ":" + c.KeyPart(m.Get("id").Str())
	g := c.msgs[key]
	if g == nil {
		g = &geminiMsg{key: key, file: r.File, chat: -1}
		c.msgs[key] = g
		c.order = append(c.order, g)
		switch r.Type {
		case "user":
			c.user(r, agent, m.Get("content"))
			if r.NS > 0 {
				agent.prompted = r.NS // a prompt, or a tool's response: the next model call starts there
			}
		case "gemini":
			c.counts["model_messages"]++
		case "error":
			c.counts["errors"]++
		case "info", "warning":
			c.counts[r.Type+"s"]++
		}
	} else {
		c.counts["message_rewrites"]++
	}
	if r.Type != "gemini" {
		return
	}
	if v := m.Get("model").Str(); !v.Empty() && !v.Is(g.model) {
		g.model = v.Own() // a later copy of the message names it again
	}
	if g.chat < 0 {
		g.chat = len(c.Out.Spans)
		start := r.NS
		if agent.prompted > 0 && agent.prompted < r.NS {
			start = agent.prompted
		}
		c.Out.Spans = append(c.Out.Spans, converters.Span{Key: "chat:" + key, Parent: agent.key, Name: "chat", Kind: 3, Start: start, End: r.NS,
			Attrs: receipt.Attrs{
				{Key: "gen_ai.operation.name", Value: receipt.S("chat")},
				{Key: "gen_ai.provider.name", Value: receipt.S("gcp.gemini")},
			}})
	}
	c.Out.Spans[g.chat].Cover(r.NS)
	if t := m.Get("tokens"); t.IsObject() {
		g.tokens = c.tokensOf(t)
	}
	if n := int64(native.ArrayLen(m.Get("thoughts"))); n > g.thoughts {
		c.counts["thoughts"] += n - g.thoughts // a later copy repeats the thoughts of the first
		g.thoughts = n
	}
	m.Get("toolCalls").ForEach(func(_, tc view.Value) bool {
		c.toolCall(r, g, agent, tc)
		return true
	})
}

func (c *geminiState) touchAgent(a *geminiAgent, ns int64) {
	if a.span >= 0 {
		c.Out.Spans[a.span].Cover(ns)
	}
}

// geminiDone are the tool call statuses that end a call (scheduler/types.ts).
var geminiDone = []string{"success", "error", "cancelled"}

// geminiAgentTools are the built-in tools that run a subagent.
var geminiAgentTools = map[string]bool{"codebase_investigator": true, "delegate_to_agent": true, "invoke_agent": true, "cli_help": true}

// toolCall reads one tool call of a model message: opened at its first
// sight, finished when a later copy gives it a final status.
func (c *geminiState) toolCall(r converters.Record, g *geminiMsg, agent *geminiAgent, tc view.Value) {
	id := tc.Get("id").Str()
	if id.Empty() {
		c.counts["tool_calls_without_id"]++
		return
	}
	key := "tool:" + strconv.Itoa(r.File) + ":" + c.KeyPart(id)
	ns, start := r.NS, r.NS // the call's timestamp is its completion
	if at, _ := geminiAt(tc.Get("timestamp")); at > 0 {
		ns = at
		if start == 0 || start > at {
			start = at
		}
	}
	t := c.tools[key]
	if t == nil {
		name := tc.Get("name").Str()
		t = &geminiTool{key: key, name: name.Own(), span: len(c.Out.Spans), depth: agent.depth}
		c.tools[key] = t
		c.counts["tool_calls"]++
		// Call ids are <tool name>-<ms>-<n>: one of a tool that is not
		// built in carries its private name, so it is hashed.
		builtin := geminiBuiltinTools[t.name]
		callID := id.Digest(c.Hasher)
		if builtin {
			callID = c.Pass(leak.ID, id)
		}
		attrs := receipt.Attrs{events.Operation("execute_tool"), {Key: "gen_ai.tool.call.id", Value: receipt.S(callID)}}
		server, tool, mcp := geminiMCP(name)
		kind := native.ToolUnnamed
		switch {
		case builtin:
			kind = native.ToolBuiltin
		case mcp:
			kind = native.ToolMCP
			t.mcpServer, t.mcpTool = server.Own(), tool.Own()
		case !name.Empty():
			kind = native.ToolOther
		}
		attrs, spanName := c.DescribeTool(attrs, kind, t.name, t.mcpServer, t.mcpTool)
		args := tc.Get("args")
		attrs = append(attrs, receipt.Attr{Key: "convert.tool.call.arguments_hash", Value: receipt.S(c.Digest(args))})
		if a := tc.Get("agentId").Str(); !a.Empty() && !a.Is(c.fileSIDs[r.File]) {
			t.agentID, t.agentCall = a.Own(), true
			c.agents[t.agentID] = t
		} else if geminiAgentTools[t.name] {
			t.agentCall = true
		}
		parent := agent.key
		if g.chat >= 0 {
			parent = c.Out.Spans[g.chat].Key
		}
		c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Parent: parent, Name: spanName, Kind: 1, Start: start, End: ns, Attrs: attrs})
		if name.Is("activate_skill") {
			c.skillCall(r, agent, key, args)
		}
	}
	c.Out.Spans[t.span].Cover(ns)
	if status, done := tc.Get("status").Str().Word(geminiDone...); done && !t.done {
		c.finishTool(r, t, status, tc)
	}
}

// geminiMCP splits an MCP tool's name: server__tool in older versions,
// mcp_<server>_<tool> in newer ones (mcp-tool.ts), split at the first
// underscore after the prefix: a server name holding an underscore is
// split wrong, which changes the two digests, not what they identify
// together. A name with the prefix and no second part is the tool's alone.
func geminiMCP(name view.Text) (server, tool view.Text, ok bool) {
	if s, t, found := name.Cut("__"); found && !s.Empty() && !t.Empty() {
		return s, t, true
	}
	if rest, found := name.CutPrefix("mcp_"); found && !rest.Empty() {
		if s, t, found := rest.Cut("_"); found && !s.Empty() && !t.Empty() {
			return s, t, true
		}
		return rest, rest, true
	}
	return view.Text{}, view.Text{}, false
}

// skillCall writes the activation of a skill (activate_skill): its body
// enters the context when the call succeeds.
func (c *geminiState) skillCall(r converters.Record, agent *geminiAgent, span string, args view.Value) {
	skill := args.Get("name").Str()
	if skill.Empty() {
		return
	}
	a := c.Conversation(c.Skill("gemini_cli", "model_tool_call", skill, c.skills))
	c.Emit(r, span, "context.skill.invoked", a)
	c.counts["skills"]++
}

// finishTool closes a call with its final status; an MCP call writes what
// crossed the boundary, digested.
func (c *geminiState) finishTool(r converters.Record, t *geminiTool, status string, tc view.Value) {
	t.done, t.status, t.doneAt = true, status, native.PlaceOf(r)
	if t.agentCall { // only a call that starts a subagent is bound to one, and End writes its result
		res := tc.Get("result")
		t.resultHash, t.resultSize = c.Digest(res), res.RawLen()
	}
	if ns, at := geminiAt(tc.Get("timestamp")); ns > 0 {
		t.doneAt.Time, t.doneAt.NS = at, ns
	}
	sp := &c.Out.Spans[t.span]
	sp.Attrs = append(sp.Attrs, receipt.Attr{Key: "gemini_cli.tool_call.status", Value: receipt.S(status)})
	if status != "success" {
		sp.Error = true
		c.counts["failed_tool_calls"]++
	} else if t.name == "run_shell_command" && geminiExitNonzero(tc.Get("result")) {
		// A command that exits non-zero is recorded as a success; the exit
		// code is only in the output the model reads.
		sp.Error = true
		sp.Attrs = append(sp.Attrs, receipt.Attr{Key: "gemini_cli.tool_call.exit_nonzero", Value: receipt.B(true)})
		c.counts["failed_tool_calls"]++
	}
	if t.mcpTool == "" {
		return
	}
	args, res := tc.Get("args"), tc.Get("result")
	a := receipt.Attrs{c.NameAttr("mcp.server", view.Borrow(t.mcpServer)), c.NameAttr("mcp.tool", view.Borrow(t.mcpTool)),
		receipt.Attr{Key: "mcp.tool_call.status", Value: receipt.S(status)},
		receipt.Attr{Key: "mcp.tool_call.arguments_hash", Value: receipt.S(c.Digest(args))},
		receipt.Attr{Key: "mcp.tool_call.arguments_size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(args.RawLen())))},
		receipt.Attr{Key: "mcp.tool_call.result_hash", Value: receipt.S(c.Digest(res))},
		receipt.Attr{Key: "mcp.tool_call.result_size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(res.RawLen())))},
		receipt.Attr{Key: "privacy.raw_tool_arguments_recorded", Value: receipt.B(false)},
		receipt.Attr{Key: "privacy.raw_tool_results_recorded", Value: receipt.B(false)}}
	a = c.Conversation(a)
	c.Emit(r, t.key, "mcp.tool_call.completed", a)
	c.counts["mcp_calls"]++
}

// set reads a metadata patch. Its keys are counted (known keys by name);
// a messages key replaces the recorded history (the CLI syncs masked or
// compressed history back), which is counted; of its messages only those
// never recorded on their own are read (the others were, when recorded).
func (c *geminiState) set(r converters.Record, s view.Value) {
	s.ForEach(func(k, v view.Value) bool {
		key, known := k.Str().Word("lastUpdated", "summary", "directories", "sessionId", "memoryScratchpad", "kind", "activeExtensionName")
		switch {
		case known:
			c.counts["set_"+key]++
		case k.Str().Is("messages"):
			c.counts["history_rewrites"]++
			// A message first seen here is one the CLI put in the history
			// itself (the <session_context> injection at start, a summary).
			v.ForEach(func(_, m view.Value) bool {
				if id := m.Get("id"); id.IsString() && c.msgs[strconv.Itoa(r.File)+":"+c.KeyPart(id.Str())] == nil && geminiType(m).Exists() {
					ns, at := geminiAt(m.Get("timestamp"))
					if ns == 0 {
						ns, at = r.NS, r.Time
					}
					c.counts["history_only_messages"]++
					c.message(geminiNested(r, m, at, ns))
				}
				return true
			})
		default:
			c.counts["set_other"]++
		}
		return true
	})
}

// rewind applies $rewindTo: that message of the current file and every
// later one leave the conversation (all of them when the id is unknown, as
// the CLI does). Their records stay evidence: the calls happened and their
// tokens were spent, so spans and tokens are kept, marked rewound.
func (c *geminiState) rewind(id view.Text) {
	c.counts["rewinds"]++
	key := strconv.Itoa(c.file) + ":" + c.KeyPart(id)
	_, found := c.msgs[key]
	if !found {
		c.counts["rewinds_to_unknown_message"]++
	}
	from := !found
	for _, g := range c.order {
		if g.file != c.file {
			continue
		}
		if g.key == key {
			from = true
		}
		if from && !g.rewound {
			g.rewound = true
			c.counts["rewound_messages"]++
		}
	}
}

// geminiAt parses a message time: unix nanoseconds and the receipt's time
// form, or 0 and "" when there is none or it does not parse.
func geminiAt(v view.Value) (int64, string) {
	if !v.IsString() {
		return 0, ""
	}
	var t time.Time
	parsed := v.Str().Check(func(s string) bool {
		var err error
		t, err = time.Parse(time.RFC3339Nano, s) // a time keeps nothing of s
		return err == nil
	})
	if !parsed || t.Year() < 1970 || t.Year() > 2200 {
		return 0, ""
	}
	t = t.UTC()
	if t.Nanosecond()%int(time.Millisecond) == 0 {
		return t.UnixNano(), t.Format("2006-01-02T15:04:05.000Z")
	}
	return t.UnixNano(), t.Format(time.RFC3339Nano)
}

func (c *geminiState) End(out *converters.Output) error {
	c.Out = out
	totals := map[string]*native.Usage{}
	var models []string
	for _, g := range c.order {
		if g.chat < 0 {
			continue
		}
		sp := &out.Spans[g.chat]
		if g.model != "" {
			m := c.Pass(leak.Model, view.Borrow(g.model)) // owned
			sp.Name = "chat " + m
			sp.Attrs = append(sp.Attrs, receipt.Attr{Key: "gen_ai.request.model", Value: receipt.S(m)})
		}
		if g.rewound {
			sp.Attrs = append(sp.Attrs, receipt.Attr{Key: "gemini_cli.rewound", Value: receipt.B(true)})
		}
		if g.tokens == nil {
			continue
		}
		t := *g.tokens // as geminiUsageAttrs counts them; the CLI logs no cache writes
		sp.Attrs.Set("gen_ai.usage.input_tokens", receipt.Copied(t.Input))
		sp.Attrs.Set("gen_ai.usage.output_tokens", receipt.Copied(t.Output))
		sp.Attrs.Set("gen_ai.usage.cache_read.input_tokens", receipt.Copied(t.CacheRead))
		sp.Attrs.Set("gen_ai.usage.reasoning.output_tokens", receipt.Copied(t.Reasoning))
		model := g.model
		if model == "" {
			model = "unknown"
		}
		if totals[model] == nil {
			totals[model] = &native.Usage{}
			models = append(models, model)
		}
		totals[model].Add(*g.tokens)
	}
	sort.Strings(models)
	var all native.Usage
	for _, m := range models {
		t := totals[m]
		all.Add(*t)
		a := geminiUsageAttrs(receipt.Attrs{{Key: "gen_ai.request.model", Value: receipt.S(c.Pass(leak.Model, view.Borrow(m)))}}, *t)
		a = append(a,
			receipt.Attr{Key: "gen_ai.usage.responses", Value: receipt.Computed(t.Responses)},
			receipt.Attr{Key: "gen_ai.usage.dedupe", Value: receipt.S("message_id_last_record")},
			receipt.Attr{Key: "gen_ai.usage.scope", Value: receipt.S("session_with_subagents")})
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized", Attrs: a})
	}
	if len(models) == 0 {
		c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
			events.AuditGap("token_usage_not_logged", "gemini_messages_have_no_token_counts"))
	}
	c.subagentResults()
	c.RootIdentity(out, "gemini-cli")
	if len(models) > 0 { // unknown is not zero: the audit gap says so
		all.Root(out)
	}
	format := "chat_jsonl"
	switch {
	case c.legacy && c.jsonl:
		format = "mixed"
	case c.legacy:
		format = "legacy_session_document"
	}
	out.Span.Set("gemini_cli.log_format", receipt.S(format))
	native.Tally(out, "gemini_cli", c.counts, []string{"user_prompts", "tool_responses", "slash_commands", "context_loads", "model_messages", "tool_calls", "failed_tool_calls", "mcp_calls", "skills", "subagents", "rewinds", "rewound_messages", "history_rewrites", "thoughts", "errors"}, native.Unfinished(c.tools, func(t *geminiTool) bool { return t.done }))
	c.Summarize(out)
	return nil
}

// geminiUsageAttrs sets a token usage event's attributes (as tokensOf
// counts them; the CLI logs no cache writes, and none is written).
func geminiUsageAttrs(a receipt.Attrs, t native.Usage) receipt.Attrs {
	for _, x := range []receipt.Attr{
		{Key: "gen_ai.usage.input_tokens", Value: receipt.Copied(t.Input)},
		{Key: "gen_ai.usage.output_tokens", Value: receipt.Copied(t.Output)},
		{Key: "gen_ai.usage.cache_read.input_tokens", Value: receipt.Copied(t.CacheRead)},
		{Key: "gen_ai.usage.reasoning.output_tokens", Value: receipt.Copied(t.Reasoning)},
		{Key: "gen_ai.usage.total_tokens", Value: receipt.Copied(t.Total)},
	} {
		a.Set(x.Key, x.Value)
	}
	return a
}

// geminiIgnored are the prefixes of user messages that are not typed
// prompts (utils/sessionUtils.ts isIgnoredUserContent): slash commands,
// help, and the context the CLI injects.
var geminiIgnored = []string{"/", "?", "<session_context>", "<hook_context>"}

// user classifies a user message: a typed prompt, a tool's response (the
// CLI records function responses as user messages), a slash command, or
// context the CLI injected, which is written as a context load. In a
// subagent chat the "prompt" is the calling model's instruction.
func (c *geminiState) user(r converters.Record, agent *geminiAgent, content view.Value) {
	var texts []view.Text // of this line, read in this call only
	response := false
	if content.IsString() {
		texts = append(texts, content.Str())
	}
	content.ForEach(func(_, p view.Value) bool {
		switch {
		case p.Get("functionResponse").Exists():
			response = true
		case p.Get("text").IsString() && !p.Get("thought").Bool():
			texts = append(texts, p.Get("text").Str())
		}
		return true
	})
	text := view.Join(texts, "\n").TrimSpace()
	switch {
	case response:
		c.counts["tool_responses"]++
	case text.HasPrefix("<session_context>"):
		c.contextLoaded(r, agent, "environment_context", "session_start", text)
	case text.HasPrefix("<hook_context>"):
		c.contextLoaded(r, agent, "hook_context", "hook", text)
	case text.Empty():
		c.counts["empty_user_messages"]++
	case text.HasPrefix("/") || text.HasPrefix("?"):
		c.counts["slash_commands"]++
	case r.File > 0:
		c.counts["agent_instructions"]++
	default:
		c.counts["user_prompts"]++
	}
}

// contextLoaded writes context the CLI injected into the history as a
// user message: digests and size, never the text.
func (c *geminiState) contextLoaded(r converters.Record, agent *geminiAgent, kind, activation string, text view.Text) {
	digest := text.Digest(c.Hasher)
	a := receipt.Attrs{
		{Key: "context.input.kind", Value: receipt.S(kind)},
		{Key: "context.input.loaded_by", Value: receipt.S("gemini_cli")},
		{Key: "context.input.activation", Value: receipt.S(activation)},
		{Key: "context.input.source.bytes_hash", Value: receipt.S(digest)},
		{Key: "context.input.source.size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(text.Len())))},
		{Key: "context.input.source.canonical.form", Value: receipt.S(receipt.CanonicalTextForm)},
		{Key: "context.input.source.canonical.hash", Value: receipt.S(text.CanonicalDigest(c.Hasher))},
		{Key: "context.input.source.canonicalization", Value: receipt.S(receipt.CanonicalTextSteps)},
		{Key: "context.input.delivered.hash", Value: receipt.S(digest)},
		{Key: "context.input.delivered.transform", Value: receipt.S("as-recorded-by-session-log")},
		{Key: "privacy.raw_context_recorded", Value: receipt.B(false)},
	}
	a = c.Conversation(a)
	c.Emit(r, agent.key, "context.input.loaded", a)
	c.counts["context_loads"]++
}

var geminiExitRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Exit Code: [1-9][0-9]*`) })

// geminiExitNonzero reports whether a shell call's output says the
// command exited non-zero.
func geminiExitNonzero(result view.Value) bool {
	found := false
	result.ForEach(func(_, p view.Value) bool {
		if out := p.Get("functionResponse.response.output"); out.IsString() && out.Str().Matches(geminiExitRe()) {
			found = true
		}
		return !found
	})
	return found
}

// subagentResults writes a subagent.result.returned event for each
// finished call that started a subagent chat, in the order the calls were
// made (their spans'): a map's order is not the same twice. A call that
// named an agent whose chat was never found is counted.
func (c *geminiState) subagentResults() {
	tools := make([]*geminiTool, 0, len(c.tools))
	for _, t := range c.tools {
		tools = append(tools, t)
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].span < tools[j].span })
	for _, t := range tools {
		if !t.bound {
			if t.agentID != "" {
				c.counts["subagent_chats_not_found"]++
			}
			continue
		}
		st := "success"
		if t.status != "success" {
			st = "error"
		}
		if !t.done {
			continue
		}
		c.Emit(t.doneAt.Record(), t.key, "subagent.result.returned", append(
			events.SubagentReturned(t.resultHash, t.resultSize, st, "final_text_returned_to_parent"), events.RawSummaryNotRecorded))
	}
}
