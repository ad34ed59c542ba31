package converters

import (
	"github.com/contextreceipts/convert/internal/leak"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
)

var (
	codexAgentsMDRe = regexp.MustCompile(`(?s)^# AGENTS\.md instructions for ([^\n]*)\n\n<INSTRUCTIONS>\n?(.*?)\n?</INSTRUCTIONS>\s*$`)
	codexUserInsRe  = regexp.MustCompile(`(?s)^<user_instructions>\s*(.*?)\s*</user_instructions>\s*$`)
	codexSkillRe    = regexp.MustCompile(`(?s)^<skill>\s*<name>([^<]*)</name>\s*(?:<path>([^<]*)</path>)?`)
)

// item handles one Responses-API item: messages (prompts, instruction and
// environment wrappers, skills), tool calls and their outputs, tool search.
func (c *codexState) item(r Record, p gjson.Result) {
	pt := p.Get("type").Str
	if r.Type == "response_item" {
		c.typeCounts[c.payloadKey("response_item", pt)]++
	}
	c.touch(r.NS)
	switch pt {
	case "message":
		c.message(r, p)
	case "function_call":
		c.openTool(r, p.Get("call_id").Str, p.Get("name").Str, p.Get("namespace").Str, p.Get("arguments"))
	case "custom_tool_call":
		c.openTool(r, p.Get("call_id").Str, p.Get("name").Str, "", p.Get("input"))
	case "function_call_output", "custom_tool_call_output":
		c.toolOutput(r, p.Get("call_id").Str, p.Get("output"))
	case "local_shell_call", "web_search_call", "image_generation_call":
		name := map[string]string{"local_shell_call": "local_shell", "web_search_call": "web_search", "image_generation_call": "image_generation"}[pt]
		id := firstString(p.Get("call_id"), p.Get("id"))
		args := p.Get("action")
		t := c.openTool(r, id, name, "", args)
		t.done = true
		if s := p.Get("status").Str; s == "failed" || s == "incomplete" {
			c.out.Spans[t.span].Error = true
		}
	case "tool_search_call":
		c.openTool(r, p.Get("call_id").Str, "tool_search", "", p.Get("arguments"))
	case "tool_search_output":
		c.toolSearch(r, p)
	case "compaction", "compaction_summary":
		c.counts["remote_compactions"]++
	case "agent_message":
		c.agentMessage(r, p)
	}
}

// codexEventTypes are the event_msg payload types known by name; others are
// counted by digest (their names are input and could be anything).
var codexEventTypes = map[string]bool{
	"user_message": true, "agent_message": true, "agent_reasoning": true, "agent_reasoning_raw_content": true,
	"token_count": true, "patch_apply_end": true, "thread_name_updated": true, "context_compacted": true,
	"entered_review_mode": true, "exited_review_mode": true, "thread_rolled_back": true, "turn_aborted": true,
	"task_started": true, "turn_started": true, "task_complete": true, "turn_complete": true,
	"image_generation_end": true, "item_completed": true, "error": true, "guardian_assessment": true,
	"web_search_end": true, "exec_command_end": true, "mcp_tool_call_end": true, "view_image_tool_call": true,
	"collab_agent_spawn_end": true, "collab_agent_interaction_end": true, "collab_waiting_end": true,
	"collab_close_end": true, "dynamic_tool_call_request": true, "dynamic_tool_call_response": true,
	"sub_agent_activity": true, "thread_settings_applied": true, "thread_goal_updated": true,
	"undo_completed": true, "turn.completed": true,
}

// payloadKey counts a payload type under its record type; an unknown type is
// counted by digest.
func (c *codexState) payloadKey(record, t string) string {
	if !codexEventTypes[t] && !slices.Contains(codexItemTypes, t) {
		t = c.h.Text(t)
	}
	return record + ":" + t
}

// message classifies a message: instruction wrappers (AGENTS.md in two
// shapes, environment context, developer instructions), skill blocks, or a
// prompt.
func (c *codexState) message(r Record, p gjson.Result) {
	var parts []string
	p.Get("content").ForEach(func(_, b gjson.Result) bool {
		if t := b.Get("text"); t.Type == gjson.String {
			parts = append(parts, t.Str)
		}
		return true
	})
	if s := p.Get("content"); s.Type == gjson.String {
		parts = append(parts, s.Str)
	}
	text := strings.Join(parts, "\n")
	del := gjson.Result{Type: gjson.String, Str: text}
	switch p.Get("role").Str {
	case "developer", "system":
		c.instructions(r, "developer_instructions", "developer_message", "", del, del)
		return
	case "assistant":
		c.counts["assistant_messages"]++
		return
	case "user":
	default:
		return
	}
	trimmed := strings.TrimSpace(text)
	switch {
	case codexAgentsMDRe.MatchString(trimmed):
		m := codexAgentsMDRe.FindStringSubmatch(trimmed)
		c.instructions(r, "agents_md", "agents_md_message", m[1], gjson.Result{Type: gjson.String, Str: m[2]}, del)
	case codexUserInsRe.MatchString(trimmed):
		m := codexUserInsRe.FindStringSubmatch(trimmed)
		c.instructions(r, "agents_md", "user_instructions_message", "", gjson.Result{Type: gjson.String, Str: m[1]}, del)
	case strings.HasPrefix(trimmed, "<environment_context>"):
		c.instructions(r, "environment_context", "environment_context_message", "", del, del)
	case codexSkillRe.MatchString(trimmed):
		m := codexSkillRe.FindStringSubmatch(trimmed)
		c.skill(r, m[1], m[2], text)
	case strings.HasPrefix(trimmed, "<user_shell_command>"), strings.HasPrefix(trimmed, "<turn_aborted>"):
	default:
		if r.Type == "message" { // pre-envelope: no user_message events
			c.counts["user_prompts"]++
		}
	}
}

// skill writes a skill body Codex injected as a <skill> block.
func (c *codexState) skill(r Record, name, path, body string) {
	role := "selected"
	if c.skills[name] {
		role = "duplicate"
	}
	c.skills[name] = true
	a := receipt.Attrs{
		{Key: "context.input.kind", Value: receipt.S("skill")},
		{Key: "context.input.activation", Value: receipt.S("skill_block_injected")},
		{Key: "context.input.loaded_by", Value: receipt.S("codex")},
		{Key: "context.skill.id", Value: receipt.S(c.h.Text(name))},
		{Key: "context.input.duplicate.role", Value: receipt.S(role)},
	}
	// The name is never revealed: it exists only inside the injected text,
	// so the leak check could not tell it from content.
	if path != "" {
		a = append(a, receipt.Attr{Key: "context.input.source.path_hash", Value: receipt.S(c.h.Text(path))})
	}
	a = append(a, receipt.Attr{Key: "context.input.delivered.hash", Value: receipt.S(c.h.Text(body))},
		receipt.Attr{Key: "context.input.source.size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(len(body))))})
	c.emit(r, "", "context.skill.invoked", a)
}

// openTool opens an execute_tool span for a call. MCP tools are named
// server__tool (early), mcp__server__tool, or by a namespace mcp__server.
func (c *codexState) openTool(r Record, id, name, namespace string, args gjson.Result) *codexTool {
	key := "tool:" + c.keyPart(id)
	if id == "" {
		key = "tool:line:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line)
	}
	if t, dup := c.tools[key]; dup {
		return t // the same call re-written (resume, fork)
	}
	c.counts["tool_calls"]++
	argText := args.Raw
	if args.Type == gjson.String {
		argText = args.Str
	}
	t := &codexTool{key: key, name: name, span: len(c.out.Spans), args: args, argsDigest: c.digest(args), argsSize: len(argText)}
	switch {
	case strings.HasPrefix(namespace, "mcp__"):
		t.mcpServer, t.mcpTool = strings.TrimPrefix(namespace, "mcp__"), name
	case strings.HasPrefix(name, "mcp__"):
		t.mcpServer, t.mcpTool = splitMCP(name)
	case !codexBuiltinTools[name] && strings.Contains(name, "__"):
		i := strings.Index(name, "__")
		t.mcpServer, t.mcpTool = name[:i], name[i+2:]
	}
	attrs := receipt.Attrs{{Key: "gen_ai.operation.name", Value: receipt.S("execute_tool")}}
	if id != "" {
		attrs = append(attrs, receipt.Attr{Key: "gen_ai.tool.call.id", Value: receipt.S(c.pass(leak.ID, id))})
	}
	naming, spanName := c.toolNaming(name, codexBuiltinTools[name] && t.mcpServer == "", t.mcpServer != "", t.mcpServer, t.mcpTool)
	attrs = append(attrs, naming...)
	attrs = append(attrs, receipt.Attr{Key: "convert.tool.call.arguments_hash", Value: receipt.S(t.argsDigest)})
	c.tools[key] = t
	c.out.Spans = append(c.out.Spans, Span{Key: key, Name: spanName, Kind: 1, Start: r.NS, End: r.NS, Attrs: attrs})
	return t
}

func (c *codexState) tool(id string) *codexTool {
	if id == "" {
		return nil
	}
	return c.tools["tool:"+c.keyPart(id)]
}

func (c *codexState) stretch(t *codexTool, ns int64) {
	sp := &c.out.Spans[t.span]
	if ns > sp.End {
		sp.End = ns
	}
}

// toolOutput closes a call. The output is a string (often JSON with an
// exit code), an object or content blocks.
func (c *codexState) toolOutput(r Record, id string, out gjson.Result) {
	t := c.tool(id)
	if t == nil {
		c.counts["orphan_tool_outputs"]++
		return
	}
	t.done = true
	c.stretch(t, r.NS)
	inner := out
	if out.Type == gjson.String && gjson.Valid(out.Str) {
		inner = gjson.Parse(out.Str)
	}
	failed := inner.Get("metadata.exit_code").Int() != 0 || inner.Get("isError").Bool() || inner.Get("success").Type == gjson.False
	if failed {
		c.out.Spans[t.span].Error = true
	}
	if t.mcpServer != "" && !t.mcpReported {
		status := "success"
		if failed {
			status = "error"
		}
		c.mcpCompleted(r, t, status, out)
	}
}

// mcpCompleted writes an MCP call once, from its end event or its output,
// whichever comes first.
func (c *codexState) mcpCompleted(r Record, t *codexTool, status string, result gjson.Result) {
	t.mcpReported = true
	raw := result.Raw
	if result.Type == gjson.String {
		raw = result.Str
	}
	c.emit(r, t.key, "mcp.tool_call.completed", receipt.Attrs{
		c.nameAttr("mcp.server", t.mcpServer),
		c.nameAttr("mcp.tool", t.mcpTool),
		{Key: "mcp.tool_call.status", Value: receipt.S(status)},
		{Key: "mcp.tool_call.arguments_hash", Value: receipt.S(t.argsDigest)},
		{Key: "mcp.tool_call.arguments_size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(t.argsSize)))},
		{Key: "mcp.tool_call.result_hash", Value: receipt.S(c.digest(result))},
		{Key: "mcp.tool_call.result_size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(len(raw))))},
		{Key: "privacy.raw_tool_arguments_recorded", Value: receipt.B(false)},
		{Key: "privacy.raw_tool_results_recorded", Value: receipt.B(false)},
	})
}

// toolSearch writes a tool search: the query digest and the tools it loaded
// (function groups, each with its tools).
func (c *codexState) toolSearch(r Record, p gjson.Result) {
	t := c.tool(p.Get("call_id").Str)
	if t == nil {
		t = c.openTool(r, p.Get("call_id").Str, "tool_search", "", gjson.Result{})
	}
	t.done = true
	c.stretch(t, r.NS)
	var names []string
	p.Get("tools").ForEach(func(_, g gjson.Result) bool {
		if inner := g.Get("tools"); inner.IsArray() {
			inner.ForEach(func(_, x gjson.Result) bool {
				names = append(names, g.Get("name").Str+"__"+x.Get("name").Str)
				return true
			})
		} else {
			names = append(names, g.Get("name").Str)
		}
		return true
	})
	query := t.args.Get("query")
	if !query.Exists() {
		query = t.args
	}
	a := receipt.Attrs{
		{Key: "mcp.tool_search.query_hash", Value: receipt.S(c.digest(query))},
		{Key: "mcp.tool_search.selected_count", Value: receipt.I(int64(len(names)))},
		{Key: "mcp.tool_search.candidate_count_bucket", Value: receipt.S(receipt.CountLadder.Bucket(int64(len(names))))},
	}
	if len(names) > 0 {
		a = append(a, receipt.Attr{Key: "mcp.tool_search.selected_tools_hash", Value: receipt.S(c.listDigest(names))})
	}
	policy := "model_tool_search"
	if e := p.Get("execution").Str; e == "server" {
		policy = "server_tool_search"
	}
	a = append(a, receipt.Attr{Key: "mcp.tool_search.selection_policy", Value: receipt.S(policy)},
		receipt.Attr{Key: "privacy.raw_query_recorded", Value: receipt.B(false)})
	c.emit(r, t.key, "mcp.tool_search.performed", a)
}

// agentMessage is an inter-agent message: from a child thread, it is what
// the subagent brought back to this one.
func (c *codexState) agentMessage(r Record, p gjson.Result) {
	author := p.Get("author").Str
	span, ok := c.agents[author]
	if !ok {
		c.counts["inter_agent_messages"]++
		return
	}
	c.stretchAgent(author, r.NS)
	text := joinStrings(p.Get("content.#.text"))
	c.emit(r, span, "subagent.result.returned", receipt.Attrs{
		{Key: "subagent.result.hash", Value: receipt.S(c.h.Text(text))},
		{Key: "subagent.result.size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(len(text))))},
		{Key: "subagent.result.status", Value: receipt.S("success")},
		{Key: "subagent.result.boundary", Value: receipt.S("inter_agent_message")},
		{Key: "privacy.raw_summary_recorded", Value: receipt.B(false)},
	})
}

// event handles one runtime event: token counts, prompts, MCP call ends,
// command results, compaction, rollbacks and subagent lifecycle.
func (c *codexState) event(r Record, p gjson.Result) {
	pt := p.Get("type").Str
	c.typeCounts[c.payloadKey("event_msg", pt)]++
	c.touch(r.NS)
	switch pt {
	case "token_count":
		c.tokenCount(p.Get("info"))
	case "turn.completed":
		if u := p.Get("usage"); u.IsObject() && c.prevTotal == nil {
			c.addUsage(codexUsageOf(u)) // 0.5x: per-turn usage, not cumulative
		}
	case "user_message":
		c.counts["user_prompts"]++
	case "item_completed":
		c.itemCompleted(r, p.Get("item"))
	case "thread_rolled_back":
		c.counts["rollbacks"]++
	case "turn_aborted":
		c.counts["aborted_turns"]++
	case "context_compacted":
		c.counts["compaction_events"]++
	case "mcp_tool_call_end":
		c.mcpEnd(r, p)
	case "exec_command_end":
		if t := c.tool(p.Get("call_id").Str); t != nil {
			c.stretch(t, r.NS)
			if p.Get("exit_code").Int() != 0 {
				c.out.Spans[t.span].Error = true
			}
		}
	case "patch_apply_end":
		if t := c.tool(p.Get("call_id").Str); t != nil && p.Get("success").Type == gjson.False {
			c.out.Spans[t.span].Error = true
		}
	case "collab_agent_spawn_end":
		c.spawnChild(r, p.Get("call_id").Str, firstString(p.Get("new_thread_id"), p.Get("agent_thread_id"), p.Get("thread_id")))
	case "sub_agent_activity":
		id := p.Get("agent_thread_id").Str
		if _, ok := c.agents[id]; !ok && id != "" {
			c.spawnChild(r, "", id)
		}
		c.stretchAgent(id, r.NS)
	}
}

// tokenCount adds the growth of the cumulative total since the last count:
// Codex writes a count about twice per request, so summing the counts, or
// their last_token_usage, would count requests twice. A total smaller than
// the last one (a restarted thread) starts a new baseline.
func (c *codexState) tokenCount(info gjson.Result) {
	if !info.IsObject() {
		c.counts["rate_limit_only_counts"]++
		return
	}
	if last := info.Get("last_token_usage.input_tokens"); last.Exists() {
		c.lastInput = last.Int()
	}
	tot := info.Get("total_token_usage")
	if !tot.IsObject() {
		if last := info.Get("last_token_usage"); last.IsObject() {
			c.addUsage(codexUsageOf(last))
		}
		return
	}
	now := codexUsageOf(tot)
	d := now
	if p := c.prevTotal; p != nil && now.total >= p.total {
		d = codexUsage{
			input: max(0, now.input-p.input), cached: max(0, now.cached-p.cached), cacheWrite: max(0, now.cacheWrite-p.cacheWrite),
			output: max(0, now.output-p.output), reasoning: max(0, now.reasoning-p.reasoning), total: max(0, now.total-p.total),
		}
	}
	c.prevTotal = &now
	if d == (codexUsage{}) {
		return
	}
	c.addUsage(d)
}

func (c *codexState) addUsage(d codexUsage) {
	m := c.modelOr()
	u := c.perModel[m]
	if u == nil {
		u = &codexUsage{}
		c.perModel[m] = u
		c.models = append(c.models, m)
	}
	u.add(d)
	if c.chat >= 0 {
		cu := c.chatUsage[c.chat]
		if cu == nil {
			cu = &codexUsage{}
			c.chatUsage[c.chat] = cu
		}
		cu.add(d)
	}
}

// mcpEnd reads an mcp_tool_call_end event: {call_id, invocation{server,
// tool, arguments}, result{Ok|Err}}.
func (c *codexState) mcpEnd(r Record, p gjson.Result) {
	t := c.tool(p.Get("call_id").Str)
	if t == nil {
		t = c.openTool(r, p.Get("call_id").Str, "mcp__"+p.Get("invocation.server").Str+"__"+p.Get("invocation.tool").Str, "", p.Get("invocation.arguments"))
	}
	if t.mcpServer == "" {
		t.mcpServer, t.mcpTool = p.Get("invocation.server").Str, p.Get("invocation.tool").Str
	}
	c.stretch(t, r.NS)
	status, res := "success", p.Get("result.Ok")
	if e := p.Get("result.Err"); e.Exists() || res.Get("isError").Bool() {
		status = "error"
		c.out.Spans[t.span].Error = true
		if e.Exists() {
			res = e
		}
	}
	if !t.mcpReported {
		c.mcpCompleted(r, t, status, res)
	}
}

// itemCompleted reads 0.147's item_completed events (PascalCase items).
func (c *codexState) itemCompleted(r Record, it gjson.Result) {
	switch it.Get("type").Str {
	case "UserMessage":
		c.counts["user_prompts"]++
	case "McpToolCall":
		id := firstString(it.Get("call_id"), it.Get("id"))
		t := c.tool(id)
		if t == nil {
			t = c.openTool(r, id, "mcp__"+it.Get("server").Str+"__"+it.Get("tool").Str, "", it.Get("arguments"))
		}
		t.done = true
		status := "success"
		if s := it.Get("status").Str; s == "failed" || it.Get("error").Exists() {
			status = "error"
			c.out.Spans[t.span].Error = true
		}
		if !t.mcpReported && t.mcpServer != "" {
			c.mcpCompleted(r, t, status, it.Get("result"))
		}
	}
}

// spawnChild opens a subagent span under the spawn call: the child thread
// writes its own rollout (linked back by parent_thread_id).
func (c *codexState) spawnChild(r Record, callID, thread string) {
	if thread == "" {
		return
	}
	key := "agent:" + c.keyPart(thread)
	if _, ok := c.agents[thread]; ok {
		return
	}
	parent, link := "", "unlinked"
	if t := c.tool(callID); t != nil {
		parent, link = t.key, "spawn_call_id"
	}
	c.agents[thread] = key
	c.counts["subagents"]++
	// The child's rollout is its own trace: link this span to its root
	// (the child links back to the parent's root), both ways.
	c.out.Spans = append(c.out.Spans, Span{Key: key, Parent: parent, Name: "invoke_agent", Kind: 1, Start: r.NS, End: r.NS,
		Attrs: receipt.Attrs{
			{Key: "gen_ai.operation.name", Value: receipt.S("invoke_agent")},
			{Key: "gen_ai.agent.name", Value: receipt.S("codex-subagent")},
			{Key: "subagent.id", Value: receipt.S(c.pass(leak.ID, thread))},
			{Key: "subagent.link", Value: receipt.S(link)},
		},
		Links: []Link{{TraceKey: c.pass(leak.ID, thread), Attrs: receipt.Attrs{{Key: "subagent.link", Value: receipt.S("child_rollout")}}}}})
	c.emit(r, key, "subagent.spawned", receipt.Attrs{
		{Key: "subagent.link", Value: receipt.S(link)},
		{Key: "subagent.depth", Value: receipt.I(1)},
		{Key: "subagent.transcript_layout", Value: receipt.S("separate_rollout")},
		{Key: "subagent.agent_id", Value: receipt.S(c.pass(leak.ID, thread))},
	})
}

// compacted writes a compaction: the context size before it (the input of
// the last request) and the summary that replaced the history (or, when the
// summary is empty, the retained history).
func (c *codexState) compacted(r Record, p gjson.Result) {
	c.compaction++
	c.counts["compactions"]++
	a := receipt.Attrs{
		{Key: "context.compaction.id_hash", Value: receipt.S(c.h.Text(c.session + ":compaction:" + strconv.Itoa(c.compaction)))},
		{Key: "context.compaction.reason", Value: receipt.S("codex_compacted_record")},
	}
	if c.lastInput > 0 {
		a = append(a, receipt.Attr{Key: "context.compaction.token_count.before_bucket", Value: receipt.S(receipt.TokenLadder.Bucket(c.lastInput))})
	}
	a = append(a, receipt.Attr{Key: "privacy.raw_context_recorded", Value: receipt.B(false)})
	c.emit(r, "", "context.compaction.started", a)
	summary := p.Get("message")
	text := summary.Str
	if text == "" {
		summary = p.Get("replacement_history")
		text = summary.Raw
	}
	c.emit(r, "", "context.compaction.summary_loaded", receipt.Attrs{
		{Key: "context.compaction.summary.hash", Value: receipt.S(c.digest(summary))},
		{Key: "context.compaction.summary.size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(len(text))))},
		{Key: "privacy.raw_summary_recorded", Value: receipt.B(false)},
	})
}

// stretchAgent extends a subagent's span to a later sign of life.
func (c *codexState) stretchAgent(thread string, ns int64) {
	key, ok := c.agents[thread]
	if !ok || ns == 0 {
		return
	}
	for i := range c.out.Spans {
		if c.out.Spans[i].Key == key && ns > c.out.Spans[i].End {
			c.out.Spans[i].End = ns
		}
	}
}
