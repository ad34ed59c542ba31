package piagent

import (
	"regexp"
	"sort"
	"strconv"
	"sync"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// piUsageKey is what tells one assistant message's usage from another's,
// as ccusage tells them (a line written twice, as a copied branch or a
// reset session repeats them, counts once; entry ids are not compared).
// ccusage's pi report compares the entry's time, the model, every figure
// of the usage, its total and its cost; its OpenClaw report the message's
// own time in milliseconds, the model, the figures and the cost.
type piUsageKey struct {
	time, model                          string
	msgTime                              int64
	input, output, cacheRead, cacheWrite int64
	total                                int64
	cost                                 float64
}

// piTally is a session's token totals per model under one way of telling
// usage records apart.
type piTally struct {
	seen     map[piUsageKey]bool
	totals   map[string]*native.Usage // by model; input excludes the cache reads and writes, as pi counts it
	repeated int64
}

// add counts v under key once.
func (t *piTally) add(key piUsageKey, v native.Usage) {
	if t.seen[key] {
		t.repeated++
		return
	}
	t.seen[key] = true
	u := t.totals[key.model]
	if u == nil {
		u = &native.Usage{}
		t.totals[key.model] = u
	}
	u.Add(v)
}

func newTally() piTally {
	return piTally{seen: map[piUsageKey]bool{}, totals: map[string]*native.Usage{}}
}

// piTool is one tool call, opened by an assistant message's toolCall block
// and finished by the toolResult message that names its id.
// piTool is a call of a tool; Subagent: of the subagent tool, whose
// result is what the subagents returned.
type piTool = native.Call

type piState struct {
	native.Base
	model    string // the model in use: model_change, a snapshot, the last assistant message's
	prompted int64  // time of the last prompt or tool result: the next chat span starts there
	tools    map[string]*piTool
	skills   map[string]bool
	pi, claw piTally         // the totals as ccusage's pi and OpenClaw reports count them
	entries  map[string]bool // ids of the message entries read
	counts   map[string]int64
	format   int64 // the header's version; 1 when it names none
	// subagentRun: the input is a subagent run's transcript (piRunType),
	// whose agent runAgent names (hashed unless names are revealed).
	subagentRun bool
	runAgent    string
	openclaw    bool // an entry only OpenClaw writes was read
	traj        bool // the input is an OpenClaw trajectory (trajectory.go)
	instr       bool // a system prompt's load was read (a trajectory's)
}

func newPi(env converters.Env) *piState {
	return &piState{Base: native.New(env, piTypes), tools: map[string]*piTool{}, skills: map[string]bool{},
		pi: newTally(), claw: newTally(), entries: map[string]bool{}, counts: map[string]int64{}}
}

// StartFile starts a file of the session: its transcript, or one of the
// archives OpenClaw renamed it to on a reset or a delete (piLayout), whose
// entries are the session's too. Each file's first chat starts at its own
// prompt.
func (c *piState) StartFile(f converters.SourceFile, out *converters.Output) error {
	c.Out = out
	c.prompted = 0
	if _, ok := piArchiveID(native.PathBase(f.Rel)); ok {
		c.counts["archived_transcripts"]++
	}
	return nil
}

func (c *piState) Record(r converters.Record, out *converters.Output) error {
	c.Out = out
	c.CountType(r)
	if rt := r.Get("recordType"); rt.IsString() && !r.Get("type").Exists() {
		c.run(r)
		return nil
	}
	if r.Get("traceSchema").Str().Is(clawTrajectorySchema) {
		c.trajectory(r)
		return nil
	}
	switch r.Type {
	case "store":
		// A session of OpenClaw's database: OpenClaw's, whatever its
		// entries say.
		c.openclaw = true
		c.counts["store_rows"] += c.Count(r.Get("openclaw_store.rows"))
	case "session":
		c.header(r)
	case "model_change":
		if m := r.Get("modelId").Str(); !m.Empty() {
			c.model = m.Own()
		}
		c.counts["model_changes"]++
	case "thinking_level_change":
		c.counts["thinking_level_changes"]++
	case "message":
		if id := r.Get("id").Str(); !id.Empty() {
			if seen, _ := view.Lookup(c.entries, id); seen {
				// The same entry written again: not another message, but
				// its usage counts as ccusage counts it (usage).
				c.counts["repeated_entries"]++
				if m := r.Get("message"); m.Get("role").Str().Is("assistant") {
					c.usage(r, m)
				}
				return nil
			}
			c.entries[id.Own()] = true
		}
		c.message(r, r.Get("message"))
	case "compaction":
		c.compaction(r)
	case "branch_summary":
		if s := r.Get("summary"); s.IsString() && !s.Str().Empty() {
			c.contextLoaded(r, "branch_summary", "tree_navigation", s.Str())
		}
		c.counts["branch_summaries"]++
	case "custom_message":
		c.extensionMessage(r, r.JSON)
	case "custom":
		c.custom(r)
	case "label":
		c.counts["labels"]++
	case "session_info":
		c.counts["session_infos"]++
		// A subagent extension names the pi session a run gets
		// subagent-<agent>-<run id>[-<index>].
		if r.Get("name").Str().HasPrefix("subagent-") {
			c.subagentRun = true
		}
	}
	return nil
}

// run reads a record of a subagent run's transcript (piRunType): its
// messages as a session's, its tool_start, tool_end and stdout records
// counted. The run is a session of its own, named by its run id, and says
// it is a subagent's.
func (c *piState) run(r converters.Record) {
	c.subagentRun = true
	if c.Session == "" {
		if id := r.Get("runId").Str(); !id.Empty() {
			if sid, ok := c.Admit(leak.IDOrUUID, id); ok {
				c.Session = sid
			}
		}
	}
	if c.runAgent == "" {
		if a := r.Get("agent").Str(); !a.Empty() {
			c.runAgent = c.Name(a)
		}
	}
	switch r.Type {
	case "message":
		c.message(r, r.Get("message"))
	case "tool_start":
		c.counts["run_tool_starts"]++
	case "tool_end":
		c.counts["run_tool_ends"]++
	case "stdout":
		c.counts["run_stdout_lines"]++
	}
}

// header reads the session line: its id names the session; a forked
// session names the file it came from (parentSession), which is a path.
func (c *piState) header(r converters.Record) {
	if id := r.Get("id").Str(); c.Session == "" && !id.Empty() {
		c.Session = c.Pass(leak.IDOrUUID, id)
	}
	c.SeeWorkDir(r.Get("cwd").Str())
	if m := r.Get("modelId").Str(); !m.Empty() {
		c.model = m.Own() // version 1 headers name the model
	}
	c.format = 1
	if v := r.Get("version"); v.IsNumber() {
		c.format = c.Count(v)
	}
	if r.Get("parentSession").IsString() || r.Get("branchedFrom").IsString() {
		c.counts["forked_sessions"]++
	}
}

// message reads an AgentMessage entry by its role.
func (c *piState) message(r converters.Record, m view.Value) {
	role, _ := m.Get("role").Str().Word("user", "assistant", "toolResult", "bashExecution", "custom", "branchSummary", "compactionSummary")
	switch role {
	case "user":
		c.user(r, m.Get("content"))
	case "assistant":
		c.assistant(r, m)
	case "toolResult":
		c.finishTool(r, m)
	case "bashExecution":
		// A command the user ran (!cmd): its output is sent to the model
		// unless it was run with !! (excludeFromContext).
		c.counts["user_shell_commands"]++
		if out := m.Get("output"); out.IsString() && !m.Get("excludeFromContext").Bool() {
			c.contextLoaded(r, "user_shell_output", "user_command", out.Str())
		}
	case "custom":
		c.extensionMessage(r, m)
	case "branchSummary", "compactionSummary":
		c.counts[role+"_messages"]++
	default:
		c.counts["messages_of_other_roles"]++
	}
}

// piSkillRe is the block /skill:name expands into (agent-session.ts
// _expandSkillCommand): the skill's name, then its body.
var piSkillRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^<skill name="([^"]{1,200})"`) })

// user reads a user message: a prompt, or a skill expanded by /skill:name.
func (c *piState) user(r converters.Record, content view.Value) {
	var texts []view.Text // of this line, read in this call only
	if content.IsString() {
		texts = append(texts, content.Str())
	}
	images := 0
	content.ForEach(func(_, b view.Value) bool {
		switch {
		case b.Get("type").Str().Is("text"):
			texts = append(texts, b.Get("text").Str())
		case b.Get("type").Str().Is("image"):
			images++
		}
		return true
	})
	c.counts["images"] += int64(images)
	text := view.Join(texts, "\n").TrimSpace()
	if m := text.Submatch(piSkillRe()); len(m) == 2 {
		c.skill(r, "", m[1], "slash_command", text)
	}
	c.counts["user_prompts"]++
	if r.NS > 0 {
		c.prompted = r.NS
	}
}

// assistant reads a model response: a chat span with its tokens, and the
// tool calls it made.
func (c *piState) assistant(r converters.Record, m view.Value) {
	if v := m.Get("model").Str(); !v.Empty() && !v.Is(c.model) {
		c.model = v.Own()
	}
	c.counts["model_calls"]++
	start := r.NS
	if c.prompted > 0 && c.prompted < r.NS {
		start = c.prompted
	}
	provider := "pi"
	if p := m.Get("provider").Str(); !p.Empty() {
		provider = c.Pass(leak.Label, p)
	}
	attrs := events.ChatSpan(provider)
	name := "chat"
	if c.model != "" {
		model := c.Pass(leak.Model, view.Borrow(c.model)) // owned
		name += " " + model
		attrs = append(attrs, receipt.Attr{Key: "gen_ai.request.model", Value: receipt.S(model)})
	}
	if s, ok := m.Get("stopReason").Str().Word("stop", "length", "toolUse", "error", "aborted"); ok {
		attrs = append(attrs, receipt.Attr{Key: "gen_ai.response.finish_reasons", Value: receipt.L([]string{s})})
		if s == "error" || s == "aborted" {
			c.counts[s+"_responses"]++
		}
	}
	if u, ok := c.usage(r, m); ok {
		attrs = append(attrs, u.CacheIn().Chat()...)
	}
	key := "chat:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line)
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Name: name, Kind: 3, Start: start, End: r.NS, Attrs: attrs})
	c.prompted = 0
	m.Get("content").ForEach(func(_, b view.Value) bool {
		switch {
		case b.Get("type").Str().Is("thinking"):
			c.counts["thinking_blocks"]++
		case b.Get("type").Str().Is("toolCall"):
			c.openTool(r, key, b)
		}
		return true
	})
}

// usage reads an assistant message's usage and adds it to its model's
// totals, once per piUsageKey. ccusage counts an assistant message whose
// input and output are numbers.
func (c *piState) usage(r converters.Record, m view.Value) (native.Usage, bool) {
	u := m.Get("usage")
	if !u.IsObject() || !u.Get("input").IsNumber() || !u.Get("output").IsNumber() {
		return native.Usage{}, false
	}
	v := native.Usage{Input: c.Count(u.Get("input")), Output: c.Count(u.Get("output")),
		CacheRead: c.Count(u.Get("cacheRead")), CacheWrite: c.Count(u.Get("cacheWrite")), Responses: 1}
	if r.Time == "" {
		// ccusage leaves out a message it cannot date; so do the totals
		// (the chat span keeps its figures), and the root counts it.
		c.counts["usage_without_time"]++
		return v, true
	}
	total := v.Input + v.Output + v.CacheRead + v.CacheWrite
	if t := u.Get("totalTokens"); t.IsNumber() {
		total = c.Count(t)
	}
	model := c.model
	if model == "" {
		model = "unknown"
	}
	cost := u.Get("cost.total").Float()
	key := piUsageKey{model: model, input: v.Input, output: v.Output, cacheRead: v.CacheRead, cacheWrite: v.CacheWrite, cost: cost}
	pi, claw := key, key
	pi.time, pi.total = r.Time, total
	claw.msgTime = m.Get("timestamp").Int()
	c.pi.add(pi, v)
	c.claw.add(claw, v)
	return v, true
}

// openTool opens an execute_tool span under the chat span of the message
// that made the call.
func (c *piState) openTool(r converters.Record, parent string, b view.Value) {
	id, name, args := b.Get("id").Str(), b.Get("name").Str(), b.Get("arguments")
	key, ok := native.CallKey(&c.Base, id, c.tools, c.counts)
	if !ok {
		return
	}
	call := c.OpenCall(r, key, parent, id, name, args, piBuiltinTools)
	t := &call
	c.tools[key] = t
	if name.Is("subagent") {
		c.subagent(r, t, args)
	}
	// pi's skills are files the model reads when their description in the
	// system prompt fits the task: a read of a SKILL.md loads one.
	if name.Is("read") {
		if p := native.FirstString(args.Get("path"), args.Get("file_path")); p.HasSuffix("/SKILL.md") {
			dir := p.TrimSuffix("/SKILL.md")
			c.skill(r, key, dir.From(dir.LastIndex("/")+1), "model_read_skill_file", view.Text{})
		}
	}
}

// subagent starts the subagents of a call of the subagent tool (pi's
// subagent extension and pi-subagents register it: {agent, task}, or
// {tasks: [{agent, task}]} and {chain: [...]} for several). Each runs as a
// pi process of its own, whose transcript is a session of its own
// (subagent-artifacts/<run id>_<agent>_transcript.jsonl, or a pi session
// under the parent's folder): its records and tokens are in its own
// receipt, as ccusage counts them apart.
func (c *piState) subagent(r converters.Record, t *piTool, args view.Value) {
	t.Subagent = true
	one := func(a view.Value) {
		c.counts["subagents"]++
		attrs := append(events.SubagentSpawned("task_tool_call", 1), events.TranscriptLayout("separate_session"))
		if p := native.FirstString(a.Get("task"), a.Get("prompt")); !p.Empty() {
			attrs = append(attrs, receipt.Attr{Key: "subagent.prompt_hash", Value: receipt.S(p.Digest(c.Hasher))})
		}
		if s := native.FirstString(a.Get("agent")); !s.Empty() {
			attrs = append(attrs, receipt.Attr{Key: "subagent.type", Value: receipt.S(c.Name(s))})
		}
		c.Emit(r, t.Key, "subagent.spawned", attrs)
	}
	several := false
	for _, list := range []string{"tasks", "chain"} {
		args.Get(list).ForEach(func(_, a view.Value) bool {
			several = true
			one(a)
			return true
		})
	}
	if !several {
		one(args)
	}
}

// finishTool closes a call with its toolResult message; an MCP call writes
// what crossed the boundary, digested. A tool's result is the next prompt.
func (c *piState) finishTool(r converters.Record, m view.Value) {
	if r.NS > 0 {
		c.prompted = r.NS
	}
	t := c.tools["tool:"+c.KeyPart(m.Get("toolCallId").Str())]
	if t == nil {
		c.counts["results_without_call"]++
		return
	}
	status := c.FinishCall(r, t, m.Get("isError").Bool(), m.Get("content"), "pi_agent.tool_call.status", nil)
	if status == "error" {
		c.counts["failed_tool_calls"]++
	}
	if status != "" && t.MCPServer != "" {
		c.counts["mcp_calls"]++
	}
}

// skill writes a context.skill.invoked event on span ("" for the root): a
// skill's body entered the context (body, when the log holds it).
func (c *piState) skill(r converters.Record, span string, name view.Text, activation string, body view.Text) {
	if name.Empty() {
		return
	}
	a := c.Skill("pi_agent", activation, name, c.skills)
	if !body.Empty() {
		events.BodyIdentity(&a, c.Hasher, body)
	}
	a = c.Conversation(a)
	c.Emit(r, span, "context.skill.invoked", a)
	c.counts["skills"]++
}

// compaction writes a compaction and the summary that replaced the
// history before firstKeptEntryId.
func (c *piState) compaction(r converters.Record) {
	c.counts["compactions"]++
	reason := "pi_compaction"
	if r.Get("fromHook").Bool() {
		reason = "extension_compaction"
	}
	if !c.Compaction(r, c.counts["compactions"], reason, r.Get("tokensBefore"), r.Get("summary")) {
		c.counts["compactions_without_summary"]++
	}
}

// extensionMessage writes text an extension sent to the model (a
// custom_message entry, or a message of role custom): a context load.
func (c *piState) extensionMessage(r converters.Record, m view.Value) {
	c.counts["extension_messages"]++
	content := m.Get("content")
	var texts []view.Text
	if content.IsString() {
		texts = append(texts, content.Str())
	}
	content.ForEach(func(_, b view.Value) bool {
		if b.Get("type").Str().Is("text") {
			texts = append(texts, b.Get("text").Str())
		}
		return true
	})
	if text := view.Join(texts, "\n"); !text.Empty() {
		c.contextLoaded(r, "extension_message", "extension", text)
	}
}

// custom reads an extension's state entry (never sent to the model).
// OpenClaw writes its own: a snapshot of the model in use, and openclaw.*
// entries, which tell an OpenClaw session from pi's.
func (c *piState) custom(r converters.Record) {
	c.counts["extension_entries"]++
	t := r.Get("customType").Str()
	if t.Is("model-snapshot") || t.HasPrefix("openclaw.") || t.HasPrefix("openclaw:") {
		c.openclaw = true
	}
	if t.Is("model-snapshot") {
		if m := r.Get("data.modelId").Str(); !m.Empty() {
			c.model = m.Own()
		}
	}
}

// contextLoaded writes text the session sent to the model as a context
// load: digests and size, never the text.
func (c *piState) contextLoaded(r converters.Record, kind, activation string, text view.Text) {
	a := events.InputLoaded(kind, "pi_agent", activation)
	digest := events.SourceIdentity(&a, c.Hasher, text, "")
	events.DeliveredIdentity(&a, c.Hasher, text, digest, "as-recorded-by-session-log", false)
	a = append(a, receipt.Attr{Key: "privacy.raw_context_recorded", Value: receipt.B(false)})
	a = c.Conversation(a)
	c.Emit(r, "", "context.input.loaded", a)
	c.counts["context_loads"]++
}

func (c *piState) End(out *converters.Output) error {
	c.Out = out
	if !c.instr {
		c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
			events.AuditGap("instruction_loads_not_logged", "pi_agents_md_and_system_prompt_load_without_a_record"))
	}
	tally := c.pi
	if c.openclaw {
		tally = c.claw
	}
	c.counts["repeated_usage"] = tally.repeated
	models := make([]string, 0, len(tally.totals))
	for m := range tally.totals {
		models = append(models, m)
	}
	sort.Strings(models)
	var all native.Usage
	for _, m := range models {
		u := tally.totals[m]
		all.Add(*u)
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized", Attrs: events.UsageSummary(
			c.Pass(leak.Model, view.Borrow(m)), // owned
			u.Tokens(),
			receipt.Attrs{{Key: "gen_ai.usage.responses", Value: receipt.Computed(u.Responses)}},
			"time_model_and_usage", "session")})
	}
	switch {
	case c.traj:
		// ccusage counts no usage of a trajectory: the run's tokens are
		// its transcript's (trajectory.go).
		c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
			events.AuditGap("token_usage_not_counted", "openclaw_trajectory_usage_is_counted_in_the_session_transcript"))
	case len(models) == 0:
		c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
			events.AuditGap("token_usage_not_logged", "pi_messages_have_no_usage"))
	}
	agent := "pi-agent"
	if c.openclaw {
		agent = "openclaw"
	}
	c.RootIdentity(out, agent)
	if c.model != "" {
		out.Span.Set("gen_ai.request.model", receipt.S(c.Pass(leak.Model, view.Borrow(c.model))))
	}
	if len(models) > 0 { // unknown is not zero: the audit gap says so
		all.CacheIn().Root(out) // as each chat span counts it: pi reports input and cache apart
	}
	if c.format > 0 {
		out.Span.Set("pi_agent.session_format", receipt.Copied(c.format))
	}
	native.Tally(out, "pi_agent", c.counts, []string{"user_prompts", "model_calls", "tool_calls", "failed_tool_calls", "mcp_calls", "skills", "subagents",
		"compactions", "branch_summaries", "extension_messages", "user_shell_commands", "model_changes", "repeated_usage",
		"usage_without_time"}, native.Unfinished(c.tools, func(t *piTool) bool { return t.Done }))
	if c.subagentRun {
		out.Span.Set("pi_agent.subagent_run", receipt.B(true))
		if c.runAgent != "" {
			out.Span.Set("subagent.type", receipt.S(c.runAgent))
		}
	}
	if n := c.counts["archived_transcripts"]; n > 0 {
		out.Span.Set("pi_agent.archived_transcripts.count", receipt.Computed(n))
	}
	c.Summarize(out)
	return nil
}
