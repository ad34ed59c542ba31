package copilotcli

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

// keepMax keeps in u, field by field, the larger of u and v (one call's
// figures, assistant.usage, or one model's session total, session.shutdown
// modelMetrics), input as input less cache reads and writes (ccusage
// 20.0.24's rule for a session's shutdowns: it takes each as a running
// total). Copilot's input holds the cache reads and writes.
func keepMax(u *native.Usage, v native.Usage) {
	net := max(u.Input-u.CacheRead-u.CacheWrite, v.Input-v.CacheRead-v.CacheWrite)
	u.Output = max(u.Output, v.Output)
	u.CacheRead = max(u.CacheRead, v.CacheRead)
	u.CacheWrite = max(u.CacheWrite, v.CacheWrite)
	u.Reasoning = max(u.Reasoning, v.Reasoning)
	u.Responses = max(u.Responses, v.Responses)
	u.Input = net + u.CacheRead + u.CacheWrite
}

// copilotAgent is the main agent (key "") or a subagent started by a tool
// call (key "agent:<call>").
type copilotAgent struct {
	key      string
	span     int // index in out.Spans; -1 for the root
	depth    int
	chat     int   // index in out.Spans of its open chat span; -1 when none
	prompted int64 // time of its last prompt or tool result: its next chat span starts there
	bound    bool  // an agentId has been tied to it
	model    string
}

// copilotTool is one tool call.
type copilotTool struct {
	key, name          string
	span               int
	agent              *copilotAgent // the agent that made the call
	mcpServer, mcpTool string        // raw names (owned copies), for hashing only
	// What is kept of the arguments (a call's request and its execution are
	// different lines): their digest and size, and the prompt's digest
	// (a task's, for the subagent it starts).
	argsHash, promptHash string
	argsSize             int
	hasPrompt            bool
	sub                  *copilotAgent // the subagent it started
	done                 bool
}

type copilotState struct {
	native.Base
	root   *copilotAgent
	agents map[string]*copilotAgent // agentId -> agent
	byCall map[string]*copilotAgent // spawning tool call id -> subagent
	tools  map[string]*copilotTool
	skills map[string]bool
	models map[string]bool // model names seen in declared fields
	model  string

	shutdown, usage map[string]*native.Usage // per model: the shutdowns' metrics (ccusage's rule), per-call usage records
	summed          native.Usage             // every shutdown's metrics added (a resumed session's)
	shutdowns       int64
	withMetrics     int64 // shutdowns with metrics
	checkpoint      struct {
		seen             bool
		nanoAiu, premium int64
	}
	sinceShutdown int64 // model calls after the last shutdown with metrics
	counts        map[string]int64
	compaction    int
	instructions  bool // a system message was recorded
}

func newCopilot(env converters.Env) *copilotState {
	root := &copilotAgent{key: "", span: -1, chat: -1}
	return &copilotState{Base: native.New(env, append(append([]string(nil), copilotTypes...), copilotUnlisted...)), root: root, agents: map[string]*copilotAgent{},
		byCall: map[string]*copilotAgent{}, tools: map[string]*copilotTool{}, skills: map[string]bool{}, models: map[string]bool{},
		shutdown: map[string]*native.Usage{}, usage: map[string]*native.Usage{}, counts: map[string]int64{}}
}

func (c *copilotState) Record(r converters.Record, out *converters.Output) error {
	c.Out = out
	c.CountType(r)
	d := r.Get("data")
	for _, k := range []string{"selectedModel", "newModel", "model", "currentModel"} {
		if m := d.Get(k); m.IsString() && !m.Str().Empty() {
			if _, seen := view.Lookup(c.models, m.Str()); !seen {
				c.models[m.Str().Own()] = true
			}
		}
	}
	typ := copilotType(r)
	agent := c.agentOf(r, typ, d)
	switch typ {
	case "session.start", "session.resume":
		c.start(r, typ, d)
	case "session.model_change":
		if m := d.Get("newModel").Str(); !m.Empty() {
			c.model = m.Own()
		}
	case "user.message":
		// source names who wrote it: a person ("user", or none in older
		// builds) or the runtime (a command, a schedule, a skill).
		if src := d.Get("source").Str(); !src.Empty() && !src.Is("user") {
			c.counts["injected_messages"]++
		} else if agent == c.root {
			c.counts["user_prompts"]++
		}
		c.counts["attachments"] += int64(native.ArrayLen(d.Get("attachments")))
		c.prompt(agent, r.NS)
	case "assistant.turn_start":
		c.openChat(r, agent)
	case "assistant.message":
		c.message(r, agent, d)
	case "assistant.turn_end":
		if agent.chat >= 0 {
			c.Out.Spans[agent.chat].Cover(r.NS)
		}
		agent.chat = -1
	case "assistant.reasoning":
		c.counts["reasoning"]++
	case "assistant.usage":
		c.callUsage(agent, d)
	case "tool.execution_start":
		c.openTool(r, agent, d.Get("toolCallId").Str(), d.Get("toolName").Str(), d.Get("arguments"), d)
	case "tool.execution_complete":
		c.finishTool(r, d)
	case "subagent.started":
		c.subagent(r, d)
	case "subagent.completed", "subagent.failed":
		if a, _ := view.Lookup(c.byCall, d.Get("toolCallId").Str()); a != nil {
			c.Out.Spans[a.span].Cover(r.NS)
			if typ == "subagent.failed" {
				c.Out.Spans[a.span].Error = true
				c.counts["failed_subagents"]++
			}
		}
	case "skill.invoked":
		c.skill(r, agent, d)
	case "session.compaction_start":
		c.compactionStart(r, d)
	case "session.compaction_complete":
		c.compactionDone(r, d)
	case "system.message":
		c.systemMessage(r, d)
	case "session.shutdown":
		c.shutdownMetrics(d)
	case "session.usage_checkpoint":
		// Running totals of the session's billing (AI credits in nano
		// units, premium requests), no tokens: the last one is kept.
		c.checkpoint.seen = true
		c.checkpoint.nanoAiu, c.checkpoint.premium = c.nanoAiu(d.Get("totalNanoAiu")), c.Count(d.Get("totalPremiumRequests"))
	case "session.error":
		c.counts["errors"]++
	case "session.snapshot_rewind":
		c.counts["rewinds"]++
	case "session.truncation":
		c.counts["truncations"]++
	case "abort":
		c.counts["aborts"]++
	case "hook.start":
		c.counts["hooks"]++
	}
	return nil
}

// start reads the session's identity and version; a resumed session
// (session.resume) continues the same log.
func (c *copilotState) start(r converters.Record, typ string, d view.Value) {
	if v := d.Get("copilotVersion"); v.IsString() {
		c.SeeVersion(v.Str())
	}
	if typ == "session.resume" {
		c.counts["resumes"]++
	}
	c.SeeWorkDir(d.Get("context.cwd").Str())
	if sid := d.Get("sessionId").Str(); c.Session == "" && !sid.Empty() {
		c.Session = c.Pass(leak.IDOrUUID, sid)
	}
	if m := d.Get("selectedModel").Str(); !m.Empty() {
		c.model = m.Own()
	}
}

// copilotType is r's type as the reader's switch names it: a word of
// Types, or of copilotUnlisted (which the pipeline does not know), or "".
func copilotType(r converters.Record) string {
	if r.Type != "" {
		return r.Type
	}
	t, _ := r.TypeText.Word(copilotUnlisted...)
	return t
}

// agentOf returns the agent an event belongs to: the subagent of its
// parentToolCallId (older builds), or of its agentId (newer builds: the
// first agentId seen after a subagent started is tied to it), else the
// main agent.
func (c *copilotState) agentOf(r converters.Record, typ string, d view.Value) *copilotAgent {
	if p := d.Get("parentToolCallId").Str(); !p.Empty() && typ != "subagent.started" {
		if a, _ := view.Lookup(c.byCall, p); a != nil {
			return a
		}
	}
	id := r.Get("agentId").Str()
	if id.Empty() || typ == "subagent.started" {
		return c.root
	}
	if a, _ := view.Lookup(c.agents, id); a != nil {
		return a
	}
	var open []*copilotAgent
	for _, a := range c.byCall {
		if !a.bound {
			open = append(open, a)
		}
	}
	sort.Slice(open, func(i, j int) bool { return open[i].span > open[j].span })
	if len(open) == 0 {
		c.counts["events_of_unknown_agents"]++
		return c.root
	}
	open[0].bound = true
	c.agents[id.Own()] = open[0]
	return open[0]
}

func (c *copilotState) prompt(a *copilotAgent, ns int64) {
	if ns > 0 {
		a.prompted = ns
	}
}

// openChat opens the chat span of one model call of an agent.
func (c *copilotState) openChat(r converters.Record, a *copilotAgent) {
	start := r.NS
	if a.prompted > 0 && a.prompted < r.NS {
		start = a.prompted
	}
	key := "chat:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line)
	attrs := receipt.Attrs{
		{Key: "gen_ai.operation.name", Value: receipt.S("chat")},
		{Key: "gen_ai.provider.name", Value: receipt.S("github.copilot")},
	}
	name := "chat"
	if model := firstNonEmpty(a.model, c.model); model != "" {
		m := c.Pass(leak.Model, view.Borrow(model)) // owned
		name += " " + m
		attrs = append(attrs, receipt.Attr{Key: "gen_ai.request.model", Value: receipt.S(m)})
	}
	a.chat = len(c.Out.Spans)
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Parent: a.key, Name: name, Kind: 3, Start: start, End: r.NS, Attrs: attrs})
	a.prompted = 0
	c.counts["model_calls"]++
	c.sinceShutdown++
}

// message reads a model response: its output tokens (the only per-call
// count the log keeps) and the tool calls it requested.
func (c *copilotState) message(r converters.Record, a *copilotAgent, d view.Value) {
	if a.chat < 0 {
		c.openChat(r, a)
	}
	sp := &c.Out.Spans[a.chat]
	sp.Cover(r.NS)
	if n := d.Get("outputTokens"); n.IsNumber() {
		var prev int64
		if v, ok := sp.Attrs.Get("gen_ai.usage.output_tokens"); ok {
			prev = v.Int
		}
		sp.Attrs.Set("gen_ai.usage.output_tokens", receipt.Copied(prev+c.Count(n)))
	}
	d.Get("toolRequests").ForEach(func(_, t view.Value) bool {
		c.openTool(r, a, t.Get("toolCallId").Str(), t.Get("name").Str(), t.Get("arguments"), view.Value{})
		return true
	})
}

// callUsage reads an assistant.usage record, when a build persists them.
func (c *copilotState) callUsage(a *copilotAgent, d view.Value) {
	u := native.Usage{Input: c.Count(d.Get("inputTokens")), Output: c.Count(d.Get("outputTokens")),
		CacheRead: c.Count(d.Get("cacheReadTokens")), CacheWrite: c.Count(d.Get("cacheWriteTokens")), Responses: 1}
	m := d.Get("model").Str()
	if m.Empty() {
		m = view.Borrow(c.model) // owned
	}
	c.addUsage(c.usage, m, u)
	if a.chat >= 0 {
		sp := &c.Out.Spans[a.chat]
		sp.Attrs.Set("gen_ai.usage.input_tokens", receipt.Copied(u.Input))
		sp.Attrs.Set("gen_ai.usage.cache_read.input_tokens", receipt.Copied(u.CacheRead))
		sp.Attrs.Set("gen_ai.usage.cache_write.input_tokens", receipt.Copied(u.CacheWrite))
	}
}

func (c *copilotState) addUsage(to map[string]*native.Usage, model view.Text, u native.Usage) {
	if model.Empty() {
		model = view.Borrow("unknown")
	}
	total, _ := view.Lookup(to, model)
	if total == nil {
		total = &native.Usage{}
		to[model.Own()] = total
	}
	total.Add(u)
}

// maxNanoAiu bounds a running total of AI credits in nano units: a
// million credits, ten thousand dollars at a cent a credit.
const maxNanoAiu = 1_000_000_000_000_000

// nanoAiu reads totalNanoAiu, a running total of AI credits in nano units
// (10^9 a credit): a count of its own unit, not a token count, so a
// healthy session passes leak.MaxCount after about one credit. Past that
// bound, where a phone number's digits could hide, it is rounded down to
// a millionth of a credit; a negative total or one above maxNanoAiu is an
// invalid count (read as 0, counted).
//
//	520000           520000
//	25123456789      25123000000
//	1510581560000    1510581000000
//	-5, 10^16        0, counted
func (c *copilotState) nanoAiu(v view.Value) int64 {
	n := v.Int()
	if n < 0 || n > maxNanoAiu {
		return c.Count(v)
	}
	if n > leak.MaxCount {
		n -= n % 1_000_000
	}
	return n
}

// shutdownMetrics reads the per-model totals a session writes when it
// ends. The session's tokens are counted as ccusage 20.0.24 counts them
// (docs/formats.md, copilot_cli): per model and figure, the largest any
// shutdown gives. The CLI resets them each time a session is entered, so a
// resumed session's shutdowns are also added up, and written apart. One
// without metrics leaves the calls since the last one uncounted.
func (c *copilotState) shutdownMetrics(d view.Value) {
	c.shutdowns++
	if d.Get("modelMetrics").IsObject() {
		c.sinceShutdown = 0
		c.withMetrics++
	}
	if d.Get("shutdownType").Str().Is("error") {
		c.counts["error_shutdowns"]++
	}
	d.Get("modelMetrics").ForEach(func(k, m view.Value) bool {
		u := m.Get("usage")
		one := native.Usage{Input: c.Count(u.Get("inputTokens")), Output: c.Count(u.Get("outputTokens")),
			CacheRead: c.Count(u.Get("cacheReadTokens")), CacheWrite: c.Count(u.Get("cacheWriteTokens")),
			Reasoning: c.Count(u.Get("reasoningTokens")), Responses: c.Count(m.Get("requests.count"))}
		model := k.Str()
		if model.Empty() {
			model = view.Borrow("unknown")
		}
		if t, _ := view.Lookup(c.shutdown, model); t != nil {
			keepMax(t, one)
		} else {
			c.shutdown[model.Own()] = &one
		}
		c.summed.Add(one)
		return true
	})
}

// openTool opens an execute_tool span under the agent's current chat span
// (a request in assistant.message and its execution_start share the id).
func (c *copilotState) openTool(r converters.Record, a *copilotAgent, id, name view.Text, args, d view.Value) *copilotTool {
	if id.Empty() {
		c.counts["tool_calls_without_id"]++
		return nil
	}
	key := "tool:" + c.KeyPart(id)
	if t := c.tools[key]; t != nil {
		c.Out.Spans[t.span].Cover(r.NS)
		if server := d.Get("mcpServerName").Str(); t.mcpServer == "" && !server.Empty() {
			// The request named the tool; its execution says it is an MCP one.
			t.mcpServer, t.mcpTool = server.Own(), copilotMCPTool(d, name).Own()
			sp := &c.Out.Spans[t.span]
			naming, spanName := c.DescribeTool(nil, native.ToolMCP, name.Own(), t.mcpServer, t.mcpTool)
			for _, x := range naming {
				sp.Attrs.Set(x.Key, x.Value)
			}
			sp.Name = spanName
		}
		return t
	}
	c.counts["tool_calls"]++
	// The call outlives its line: what is kept of it is owned (copies of
	// the names, digests and the size of the arguments).
	t := &copilotTool{key: key, name: name.Own(), span: len(c.Out.Spans), agent: a,
		argsHash: c.Digest(args), argsSize: args.RawLen()}
	if p := args.Get("prompt"); p.IsString() {
		t.promptHash, t.hasPrompt = p.Str().Digest(c.Hasher), true // a task's, for the subagent it starts
	}
	c.tools[key] = t
	builtin, _ := view.Lookup(copilotBuiltinTools, name)
	callID := id.Digest(c.Hasher)
	if builtin {
		callID = c.Pass(leak.ID, id)
	}
	attrs := receipt.Attrs{events.Operation("execute_tool"), {Key: "gen_ai.tool.call.id", Value: receipt.S(callID)}}
	if s := d.Get("mcpServerName").Str(); !s.Empty() {
		t.mcpServer, t.mcpTool = s.Own(), copilotMCPTool(d, name).Own()
	}
	kind := native.ToolUnnamed
	switch {
	case t.mcpServer != "":
		kind = native.ToolMCP
	case builtin:
		kind = native.ToolBuiltin
	case !name.Empty():
		kind = native.ToolOther
	}
	attrs, spanName := c.DescribeTool(attrs, kind, t.name, t.mcpServer, t.mcpTool)
	attrs = append(attrs, receipt.Attr{Key: "convert.tool.call.arguments_hash", Value: receipt.S(t.argsHash)})
	parent := a.key
	if a.chat >= 0 {
		parent = c.Out.Spans[a.chat].Key
	}
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Parent: parent, Name: spanName, Kind: 1, Start: r.NS, End: r.NS, Attrs: attrs})
	return t
}

// copilotMCPTool is an MCP call's tool name: mcpToolName, or the tool's
// own name in builds that write only the server.
func copilotMCPTool(d view.Value, name view.Text) view.Text {
	if t := d.Get("mcpToolName").Str(); !t.Empty() {
		return t
	}
	return name
}

// finishTool closes a call with its outcome: MCP calls and subagents write
// what crossed back, digested. A tool's result is the next prompt.
func (c *copilotState) finishTool(r converters.Record, d view.Value) {
	t := c.tools["tool:"+c.KeyPart(d.Get("toolCallId").Str())]
	if t == nil {
		c.counts["results_without_call"]++
		return
	}
	if t.done {
		return
	}
	t.done = true
	c.prompt(t.agent, r.NS)
	sp := &c.Out.Spans[t.span]
	sp.Cover(r.NS)
	status, res := "success", d.Get("result")
	if !d.Get("success").Bool() {
		status, res = "error", d.Get("error")
		sp.Error = true
		c.counts["failed_tool_calls"]++
	}
	sp.Attrs = append(sp.Attrs, receipt.Attr{Key: "copilot_cli.tool_call.status", Value: receipt.S(status)})
	if code := d.Get("error.code"); code.IsString() {
		if s, ok := code.Str().Admit(leak.Label); ok {
			sp.Attrs = append(sp.Attrs, receipt.Attr{Key: "copilot_cli.tool_call.error_code", Value: receipt.S(s)})
		}
	}
	raw := res.RawLen()
	if text := res.Get("content"); text.IsString() {
		raw = text.Str().Len()
	}
	switch {
	case t.mcpServer != "":
		a := receipt.Attrs{c.NameAttr("mcp.server", view.Borrow(t.mcpServer)), c.NameAttr("mcp.tool", view.Borrow(t.mcpTool)),
			{Key: "mcp.tool_call.status", Value: receipt.S(status)},
			{Key: "mcp.tool_call.arguments_hash", Value: receipt.S(t.argsHash)},
			{Key: "mcp.tool_call.arguments_size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(t.argsSize)))},
			{Key: "mcp.tool_call.result_hash", Value: receipt.S(c.Digest(res))},
			{Key: "mcp.tool_call.result_size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(raw)))},
			{Key: "privacy.raw_tool_arguments_recorded", Value: receipt.B(false)},
			{Key: "privacy.raw_tool_results_recorded", Value: receipt.B(false)},
		}
		a = c.Conversation(a)
		c.Emit(r, t.key, "mcp.tool_call.completed", a)
		c.counts["mcp_calls"]++
	case t.sub != nil:
		c.Out.Spans[t.sub.span].Cover(r.NS)
		c.Emit(r, t.key, "subagent.result.returned", append(
			events.SubagentReturned(c.Digest(res), raw, status, "final_text_returned_to_parent"), events.RawSummaryNotRecorded))
	}
}

// subagent opens the span of a subagent under the tool call that started
// it (subagent.started names the call).
func (c *copilotState) subagent(r converters.Record, d view.Value) {
	call := d.Get("toolCallId").Str()
	t := c.tools["tool:"+c.KeyPart(call)]
	parent, link, depth := "", "unlinked", 1
	if t != nil {
		parent, link, depth = t.key, "spawn_call_id", t.agent.depth+1
	}
	a := &copilotAgent{key: "agent:" + c.KeyPart(call) + ":" + strconv.Itoa(r.Line), span: len(c.Out.Spans), depth: depth, chat: -1, prompted: r.NS}
	a.model = d.Get("model").Str().Own()
	if !call.Empty() {
		c.byCall[call.Own()] = a
	}
	if t != nil {
		t.sub = a
	}
	if id := r.Get("agentId").Str(); !id.Empty() {
		if known, _ := view.Lookup(c.agents, id); known == nil {
			a.bound, c.agents[id.Own()] = true, a // a build that stamps the child's id on its start
		}
	}
	attrs := receipt.Attrs{
		{Key: "gen_ai.operation.name", Value: receipt.S("invoke_agent")},
		{Key: "gen_ai.agent.name", Value: receipt.S("copilot-cli-subagent")},
		{Key: "subagent.depth", Value: receipt.Computed(int64(depth))},
		{Key: "subagent.link", Value: receipt.S(link)},
	}
	ev := receipt.Attrs{
		{Key: "subagent.link", Value: receipt.S(link)},
		{Key: "subagent.depth", Value: receipt.Computed(int64(depth))},
		{Key: "subagent.transcript_layout", Value: receipt.S("inline_tool_call")},
	}
	if n := d.Get("agentName").Str(); !n.Empty() {
		kind := c.Name(n)
		attrs = append(attrs, receipt.Attr{Key: "subagent.type", Value: receipt.S(kind)})
		ev = append(ev, receipt.Attr{Key: "subagent.type", Value: receipt.S(kind)})
	}
	if desc := d.Get("agentDescription"); desc.IsString() {
		ev = append(ev, receipt.Attr{Key: "subagent.description_hash", Value: receipt.S(desc.Str().Digest(c.Hasher))})
	}
	if t != nil && t.hasPrompt {
		ev = append(ev, receipt.Attr{Key: "subagent.prompt_hash", Value: receipt.S(t.promptHash)})
	}
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: a.key, Parent: parent, Name: "invoke_agent", Kind: 1, Start: r.NS, End: r.NS, Attrs: attrs})
	c.Emit(r, a.key, "subagent.spawned", ev)
	c.counts["subagents"]++
}

// skill writes a skill.invoked event: the skill's body entered the context.
func (c *copilotState) skill(r converters.Record, a *copilotAgent, d view.Value) {
	name := d.Get("name").Str()
	at := c.Skill("copilot_cli", "skill_invoked_event", name, c.skills)
	if p := d.Get("path"); p.IsString() && !p.Str().Empty() {
		at = append(at, receipt.Attr{Key: "context.input.source.path_hash", Value: receipt.S(p.Str().Digest(c.Hasher))})
	}
	if p := d.Get("pluginName"); p.IsString() && !p.Str().Empty() {
		at = append(at, receipt.Attr{Key: "context.skill.plugin", Value: receipt.S(p.Str().Digest(c.Hasher))})
	}
	if b := d.Get("content"); b.IsString() {
		at = append(at, receipt.Attr{Key: "context.input.delivered.hash", Value: receipt.S(b.Str().Digest(c.Hasher))},
			receipt.Attr{Key: "context.input.source.size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(b.Str().Len())))})
	}
	at = c.Conversation(at)
	span := a.key
	if a.chat >= 0 {
		span = c.Out.Spans[a.chat].Key
	}
	c.Emit(r, span, "context.skill.invoked", at)
	c.counts["skills"]++
}

func (c *copilotState) compactionStart(r converters.Record, d view.Value) {
	c.compaction++
	c.counts["compactions"]++
	a := receipt.Attrs{
		{Key: "context.compaction.id_hash", Value: receipt.S(c.Hasher.Text(c.Session + ":compaction:" + strconv.Itoa(c.compaction)))},
		{Key: "context.compaction.reason", Value: receipt.S("copilot_compaction_start")},
	}
	if tr := d.Get("trigger"); tr.IsString() {
		if s, ok := tr.Str().Admit(leak.Label); ok {
			a = append(a, receipt.Attr{Key: "context.compaction.trigger", Value: receipt.S(s)})
		}
	}
	if n := d.Get("preCompactionTokens"); n.IsNumber() {
		a = append(a, receipt.Attr{Key: "context.compaction.token_count.before_bucket", Value: receipt.S(receipt.TokenLadder.Bucket(c.Count(n)))})
	}
	a = append(a, receipt.Attr{Key: "privacy.raw_context_recorded", Value: receipt.B(false)})
	c.Emit(r, "", "context.compaction.started", a)
}

// compactionDone writes the summary that replaced the history, when the
// log keeps it; a failed compaction is only counted.
func (c *copilotState) compactionDone(r converters.Record, d view.Value) {
	if !d.Get("success").Bool() {
		c.counts["failed_compactions"]++
		return
	}
	s := d.Get("summaryContent")
	if !s.IsString() {
		c.counts["compactions_without_summary"]++
		return
	}
	a := receipt.Attrs{
		{Key: "context.compaction.summary.hash", Value: receipt.S(s.Str().Digest(c.Hasher))},
		{Key: "context.compaction.summary.size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(s.Str().Len())))},
	}
	if n := d.Get("postCompactionTokens"); n.IsNumber() {
		a = append(a, receipt.Attr{Key: "context.compaction.token_count.after_bucket", Value: receipt.S(receipt.TokenLadder.Bucket(c.Count(n)))})
	}
	a = append(a, events.RawSummaryNotRecorded)
	c.Emit(r, "", "context.compaction.summary_loaded", a)
}

// systemMessage writes a system or developer message the log records as
// a context load (digests and size only).
func (c *copilotState) systemMessage(r converters.Record, d view.Value) {
	text := d.Get("content")
	if !text.IsString() {
		return
	}
	c.instructions = true
	kind := "system_prompt"
	if d.Get("role").Str().Is("developer") {
		kind = "developer_instructions"
	}
	a := receipt.Attrs{
		{Key: "context.input.kind", Value: receipt.S(kind)},
		{Key: "context.input.loaded_by", Value: receipt.S("copilot_cli")},
		{Key: "context.input.activation", Value: receipt.S("session_start")},
		{Key: "context.input.delivered.via", Value: receipt.S("system_message_event")},
		{Key: "context.input.delivered.hash", Value: receipt.S(text.Str().Digest(c.Hasher))},
		{Key: "context.input.delivered.size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(text.Str().Len())))},
		{Key: "context.input.delivered.transform", Value: receipt.S("as-recorded-by-session-log")},
		{Key: "privacy.raw_context_recorded", Value: receipt.B(false)},
	}
	a = c.Conversation(a)
	c.Emit(r, "", "context.input.loaded", a)
	c.counts["instruction_loads"]++
}

func (c *copilotState) gap(gap, detail string) {
	c.Emit(converters.Record{}, "", "context.audit_gap.recorded", events.AuditGap(gap, detail))
}

// modelName writes a model name read from a modelMetrics key: in clear
// when a declared field also holds it (the leak check admits it there),
// else its digest.
func (c *copilotState) modelName(m string) string {
	if c.models[m] {
		return c.Pass(leak.Model, view.Borrow(m)) // owned (a key of totals)
	}
	return c.Hasher.Text(m)
}

func (c *copilotState) End(out *converters.Output) error {
	c.Out = out
	if !c.instructions {
		c.gap("instruction_loads_not_logged", "copilot_instructions_and_agents_md_load_without_a_record")
	}
	// ccusage's rule: the shutdowns' metrics, nothing for a session
	// that never shut down (its per-call usage records, when a build
	// writes them, are kept on the chat spans and written apart).
	totals, dedupe := c.shutdown, "shutdown_model_metrics"
	models := make([]string, 0, len(totals))
	for m := range totals {
		models = append(models, m)
	}
	sort.Strings(models)
	var all native.Usage
	for _, m := range models {
		u := totals[m]
		all.Add(*u)
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized", Attrs: events.UsageSummary(c.modelName(m), u.Tokens(),
			receipt.Attrs{
				{Key: "gen_ai.usage.reasoning.output_tokens", Value: receipt.Copied(u.Reasoning)},
				{Key: "gen_ai.usage.responses", Value: receipt.Computed(u.Responses)},
			}, dedupe, "session_with_subagents")})
	}
	switch {
	case len(models) == 0:
		c.gap("token_usage_not_logged", "copilot_session_has_no_shutdown_metrics")
	case dedupe == "shutdown_model_metrics" && c.sinceShutdown > 0:
		// Resumed and not ended, or left with /new: those calls' tokens
		// were never written.
		c.gap("token_usage_not_logged", "copilot_calls_after_last_shutdown_not_counted")
		out.Span.Set("copilot_cli.model_calls.after_last_shutdown", receipt.Computed(c.sinceShutdown))
	}
	c.RootIdentity(out, "copilot-cli")
	if c.model != "" {
		out.Span.Set("gen_ai.request.model", receipt.S(c.Pass(leak.Model, view.Borrow(c.model))))
	}
	if len(models) > 0 { // unknown is not zero: the audit gap says so
		all.Root(out)
	}
	// The figures ccusage's rule leaves out: every shutdown of a resumed
	// session added up, and the per-call records of one that never shut
	// down.
	if c.withMetrics > 1 {
		out.Span.Set("copilot_cli.usage.all_shutdowns.input_tokens", receipt.Computed(c.summed.Input))
		out.Span.Set("copilot_cli.usage.all_shutdowns.output_tokens", receipt.Computed(c.summed.Output))
		out.Span.Set("copilot_cli.usage.all_shutdowns.count", receipt.Computed(c.withMetrics))
	}
	if len(models) == 0 && len(c.usage) > 0 {
		var rec native.Usage
		for _, u := range c.usage {
			rec.Add(*u)
		}
		out.Span.Set("copilot_cli.usage.call_records.input_tokens", receipt.Computed(rec.Input))
		out.Span.Set("copilot_cli.usage.call_records.output_tokens", receipt.Computed(rec.Output))
	}
	if c.checkpoint.seen {
		out.Span.Set("copilot_cli.billing.nano_aiu", receipt.Copied(c.checkpoint.nanoAiu))
		out.Span.Set("copilot_cli.billing.premium_count", receipt.Copied(c.checkpoint.premium))
	}
	native.Tally(out, "copilot_cli", c.counts, []string{"user_prompts", "model_calls", "tool_calls", "failed_tool_calls", "mcp_calls", "skills", "subagents", "compactions", "rewinds", "resumes", "errors"}, native.Unfinished(c.tools, func(t *copilotTool) bool { return t.done }))
	c.Summarize(out)
	return nil
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
