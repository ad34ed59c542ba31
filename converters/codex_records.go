package converters

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
)

var codexSkillRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)^<skill>\s*<name>([^<]*)</name>\s*(?:<path>([^<]*)</path>)?`)
})

// item handles one Responses-API item: messages (prompts, instruction and
// environment wrappers, skills), tool calls and their outputs, tool search.
func (c *codexState) item(r Record, p view.Value) {
	pt := get(p, "type").Str()
	if r.Type == "response_item" {
		c.typeCounts[c.payloadKey("response_item", pt)]++
	}
	c.touch(r.NS)
	switch {
	case pt.Is("message"):
		c.message(r, p)
	case pt.Is("function_call"): // one scan: arguments are long, and namespace is often absent
		f := fields(p, "call_id", "name", "namespace", "arguments")
		c.openTool(r, f[0].Str(), f[1].Str(), f[2].Str(), f[3])
	case pt.Is("custom_tool_call"):
		f := fields(p, "call_id", "name", "input")
		c.openTool(r, f[0].Str(), f[1].Str(), view.Text{}, f[2])
	case pt.Is("function_call_output"), pt.Is("custom_tool_call_output"):
		f := fields(p, "call_id", "output")
		c.toolOutput(r, f[0].Str(), f[1])
	case pt.Is("local_shell_call"), pt.Is("web_search_call"), pt.Is("image_generation_call"):
		name, _ := view.Lookup(codexItemTools, pt)
		id := firstString(get(p, "call_id"), get(p, "id"))
		args := get(p, "action")
		t := c.openTool(r, id, view.Borrow(name), view.Text{}, args)
		t.done = true
		if s := get(p, "status").Str(); s.Is("failed") || s.Is("incomplete") {
			c.out.Spans[t.span].Error = true
		}
	case pt.Is("tool_search_call"):
		c.openTool(r, get(p, "call_id").Str(), view.Borrow("tool_search"), view.Text{}, get(p, "arguments"))
	case pt.Is("tool_search_output"):
		c.toolSearch(r, p)
	case pt.Is("compaction"), pt.Is("compaction_summary"):
		c.counts["remote_compactions"]++
	case pt.Is("agent_message"):
		c.agentMessage(r, p)
	}
}

// codexItemTools name the built-in tools of the items that are tool calls
// in themselves.
var codexItemTools = map[string]string{"local_shell_call": "local_shell", "web_search_call": "web_search", "image_generation_call": "image_generation"}

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

// codexPayloadKeys are the keys payloadKey counts known payload types
// under, by record type and payload type: made once, not per record.
var codexPayloadKeys = func() map[string]map[string]string {
	keys := map[string]map[string]string{}
	for _, record := range []string{"response_item", "event_msg"} {
		m := map[string]string{}
		for t := range codexEventTypes {
			m[t] = record + ":" + t
		}
		for _, t := range codexItemTypes {
			m[t] = record + ":" + t
		}
		keys[record] = m
	}
	return keys
}()

// payloadKey counts a payload type under its record type; an unknown type is
// counted by digest.
func (c *codexState) payloadKey(record string, t view.Text) string {
	if k, ok := view.Lookup(codexPayloadKeys[record], t); ok {
		return k
	}
	return record + ":" + t.Digest(c.h)
}

// message classifies a message: instruction wrappers (AGENTS.md in two
// shapes, environment context, developer instructions), skill blocks, or a
// prompt.
func (c *codexState) message(r Record, p view.Value) {
	var parts []view.Text // joined below, within the call
	content := get(p, "content")
	forEach(content, func(_, b view.Value) bool {
		if t := get(b, "text"); t.IsString() {
			parts = append(parts, t.Str())
		}
		return true
	})
	if content.IsString() {
		parts = append(parts, content.Str())
	}
	text := view.Join(parts, "\n")
	// The delivered text is a string: its digest is its text's, and keys
	// its repeats.
	loaded := func(kind, via string, dir, source view.Text) {
		digest := text.Digest(c.h)
		c.instructionText(r, kind, via, dir, source, text, digest, digest)
	}
	switch role := get(p, "role").Str(); {
	case role.Is("developer"), role.Is("system"):
		loaded("developer_instructions", "developer_message", view.Text{}, text)
		return
	case role.Is("assistant"):
		c.counts["assistant_messages"]++
		return
	case role.Is("user"):
	default:
		return
	}
	trimmed := text.TrimSpace()
	// Each pattern is anchored at a fixed opening: only a message that
	// starts with it runs the expression (user prompts are most messages,
	// and long), and then once.
	match := func(re *regexp.Regexp, opening string) []view.Text {
		if !trimmed.HasPrefix(opening) {
			return nil
		}
		return trimmed.Submatch(re)
	}
	if dir, body, ok := codexAgentsMD(trimmed); ok {
		loaded("agents_md", "agents_md_message", dir, body)
		return
	}
	if body, ok := codexUserInstructions(trimmed); ok {
		loaded("agents_md", "user_instructions_message", view.Text{}, body)
		return
	}
	if trimmed.HasPrefix("<environment_context>") {
		loaded("environment_context", "environment_context_message", view.Text{}, text)
		return
	}
	if m := match(codexSkillRe(), "<skill>"); m != nil {
		c.skill(r, m[1], m[2], text)
		return
	}
	if !trimmed.HasPrefix("<user_shell_command>") && !trimmed.HasPrefix("<turn_aborted>") && r.Type == "message" {
		c.counts["user_prompts"]++ // pre-envelope: no user_message events
	}
}

// The instruction messages are told apart with string operations, not
// expressions: every Codex session opens with its AGENTS.md, tens of KB,
// and a lazy (.*?) over it with submatches ran Go's NFA byte by byte (a
// tenth of a session's conversion). TestCodexInstructionParsers holds them
// to the patterns they replaced:
//
//	(?s)^# AGENTS\.md instructions for ([^\n]*)\n\n<INSTRUCTIONS>\n?(.*?)\n?</INSTRUCTIONS>\s*$
//	(?s)^<user_instructions>\s*(.*?)\s*</user_instructions>\s*$

// codexAgentsMD splits an AGENTS.md message into its directory and body.
func codexAgentsMD(s view.Text) (dir, body view.Text, ok bool) {
	rest, ok := s.CutPrefix("# AGENTS.md instructions for ")
	if !ok {
		return view.Text{}, view.Text{}, false
	}
	dir, rest, ok = rest.Cut("\n")
	if !ok {
		return view.Text{}, view.Text{}, false
	}
	if rest, ok = rest.CutPrefix("\n<INSTRUCTIONS>"); !ok {
		return view.Text{}, view.Text{}, false
	}
	body, ok = beforeClosing(rest, "</INSTRUCTIONS>")
	if !ok {
		return view.Text{}, view.Text{}, false
	}
	body = body.TrimPrefix("\n")
	return dir, body.TrimSuffix("\n"), true
}

// codexUserInstructions is the body of a <user_instructions> message.
func codexUserInstructions(s view.Text) (view.Text, bool) {
	rest, ok := s.CutPrefix("<user_instructions>")
	if !ok {
		return view.Text{}, false
	}
	body, ok := beforeClosing(rest, "</user_instructions>")
	return body.TrimLeft(asciiSpace).TrimRight(asciiSpace), ok // strings.Trim
}

// asciiSpace is what \s matches in a Go regular expression.
const asciiSpace = " \t\n\f\r"

// beforeClosing returns s up to the closing tag that only ASCII whitespace
// follows (there is at most one: the last).
func beforeClosing(s view.Text, tag string) (view.Text, bool) {
	i := s.LastIndex(tag)
	if i < 0 || !s.From(i+len(tag)).TrimLeft(asciiSpace).Empty() {
		return view.Text{}, false
	}
	return s.Slice(0, i), true
}

// skill writes a skill body Codex injected as a <skill> block.
func (c *codexState) skill(r Record, name, path, body view.Text) {
	seen, _ := view.Lookup(c.skills, name)
	a := skillInvocation(c.h, "codex", "skill_block_injected", name, seen)
	if !seen {
		c.skills[name.Own()] = true // a key outlives the line
	}
	// The name is never revealed: it exists only inside the injected text,
	// so the leak check could not tell it from content.
	if !path.Empty() {
		a = append(a, receipt.Attr{Key: "context.input.source.path_hash", Value: receipt.S(path.Digest(c.h))})
	}
	bodyIdentity(&a, c.h, body)
	c.emit(r, "", "context.skill.invoked", a)
}

// openTool opens an execute_tool span for a call. MCP tools are named
// server__tool (early), mcp__server__tool, or by a namespace mcp__server.
func (c *codexState) openTool(r Record, id, nameText, namespace view.Text, args view.Value) *codexTool {
	key := "tool:line:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line)
	if !id.Empty() {
		key = "tool:" + c.keyPart(id)
	}
	if t, dup := c.tools[key]; dup {
		return t // the same call re-written (resume, fork)
	}
	c.counts["tool_calls"]++
	// The tool, its span and the names in both outlive the line: copies.
	name := nameText.Own()
	argsSize := args.RawLen()
	if args.IsString() {
		argsSize = args.Str().Len()
	}
	// A copy: the tool outlives its line, which args would keep alive.
	t := &codexTool{key: key, name: name, span: len(c.out.Spans), args: args.Own(), argsDigest: c.digest(args), argsSize: argsSize}
	switch {
	case namespace.HasPrefix("mcp__"):
		t.mcpServer, t.mcpTool = namespace.TrimPrefix("mcp__").Own(), name
	case strings.HasPrefix(name, "mcp__"):
		t.mcpServer, t.mcpTool = splitMCP(name)
	case !codexBuiltinTools[name] && strings.Contains(name, "__"):
		i := strings.Index(name, "__")
		t.mcpServer, t.mcpTool = name[:i], name[i+2:]
	}
	attrs := receipt.Attrs{operation("execute_tool")}
	if !id.Empty() {
		attrs = append(attrs, receipt.Attr{Key: "gen_ai.tool.call.id", Value: receipt.S(c.pass(leak.ID, id))})
	}
	kind := toolOther
	switch {
	case t.mcpServer != "":
		kind = toolMCP
	case codexBuiltinTools[name]:
		kind = toolBuiltin
	}
	attrs, spanName := c.describeTool(attrs, kind, name, t.mcpServer, t.mcpTool)
	attrs = append(attrs, receipt.Attr{Key: "convert.tool.call.arguments_hash", Value: receipt.S(t.argsDigest)})
	c.tools[key] = t
	c.out.Spans = append(c.out.Spans, Span{Key: key, Name: spanName, Kind: 1, Start: r.NS, End: r.NS, Attrs: attrs})
	return t
}

func (c *codexState) tool(id view.Text) *codexTool {
	if id.Empty() {
		return nil
	}
	return c.tools["tool:"+c.keyPart(id)]
}

// toolOutput closes a call. The output is a string (often JSON with an
// exit code), an object or content blocks.
func (c *codexState) toolOutput(r Record, id view.Text, out view.Value) {
	t := c.tool(id)
	if t == nil {
		c.counts["orphan_tool_outputs"]++
		return
	}
	t.done = true
	c.out.Spans[t.span].Reach(r.NS)
	// An output string is often JSON itself ({"output":"...","metadata":
	// {"exit_code":1}}), its output first: read in one pass at memchr speed
	// when the line scanner would accept it, with gjson when only gjson
	// does (nested deeper than a line may be).
	inner, scanned := out, true
	if out.IsString() {
		if scanned = out.Str().Check(jsonscan.ValidString); scanned || out.Str().Check(gjson.Valid) {
			inner = out.Str().Parse()
		}
	}
	var failed bool
	if scanned {
		f := fields(inner, "metadata", "isError", "success")
		failed = get(f[0], "exit_code").Int() != 0 || f[1].Bool() || f[2].Type() == view.False
	} else {
		failed = inner.Deep("metadata.exit_code").Int() != 0 || inner.Deep("isError").Bool() || inner.Deep("success").Type() == view.False
	}
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
func (c *codexState) mcpCompleted(r Record, t *codexTool, status string, result view.Value) {
	t.mcpReported = true
	size := result.RawLen()
	if result.IsString() {
		size = result.Str().Len()
	}
	c.emit(r, t.key, "mcp.tool_call.completed", mcpCall{
		Server: c.nameAttr("mcp.server", view.Borrow(t.mcpServer)), Tool: c.nameAttr("mcp.tool", view.Borrow(t.mcpTool)), Status: status,
		ArgsHash: t.argsDigest, ArgsSize: t.argsSize, ResultHash: c.digest(result), ResultSize: size,
	}.Attrs())
}

// toolSearch writes a tool search: the query digest and the tools it loaded
// (function groups, each with its tools).
func (c *codexState) toolSearch(r Record, p view.Value) {
	id := get(p, "call_id").Str()
	t := c.tool(id)
	if t == nil {
		t = c.openTool(r, id, view.Borrow("tool_search"), view.Text{}, view.Value{})
	}
	t.done = true
	c.out.Spans[t.span].Reach(r.NS)
	var names []string // small copies, hashed as a list below
	forEach(get(p, "tools"), func(_, g view.Value) bool {
		if inner := get(g, "tools"); inner.IsArray() {
			group := get(g, "name").Str().Own()
			forEach(inner, func(_, x view.Value) bool {
				names = append(names, group+"__"+get(x, "name").Str().Own())
				return true
			})
		} else {
			names = append(names, get(g, "name").Str().Own())
		}
		return true
	})
	args := t.args.Value()
	query := get(args, "query")
	if !query.Exists() {
		query = args
	}
	s := toolSearch{QueryHash: c.digest(query), Selected: len(names), Policy: "model_tool_search"}
	if len(names) > 0 {
		s.SelectedHash = c.listDigest(names)
	}
	if get(p, "execution").Str().Is("server") {
		s.Policy = "server_tool_search"
	}
	c.emit(r, t.key, "mcp.tool_search.performed", s.Attrs())
}

// agentMessage is an inter-agent message: from a child thread, it is what
// the subagent brought back to this one.
func (c *codexState) agentMessage(r Record, p view.Value) {
	author := get(p, "author").Str()
	span, ok := view.Lookup(c.agents, author)
	if !ok {
		c.counts["inter_agent_messages"]++
		return
	}
	c.stretchAgent(author, r.NS)
	text := joinStrings(get(p, "content.#.text"))
	c.emit(r, span, "subagent.result.returned",
		append(subagentReturned(text.Digest(c.h), text.Len(), "success", "inter_agent_message"), rawSummaryNotRecorded))
}

// event handles one runtime event: token counts, prompts, MCP call ends,
// command results, compaction, rollbacks and subagent lifecycle.
func (c *codexState) event(r Record, p view.Value) {
	pt := get(p, "type").Str()
	c.typeCounts[c.payloadKey("event_msg", pt)]++
	c.touch(r.NS)
	switch {
	case pt.Is("token_count"):
		c.tokenCount(get(p, "info"))
	case pt.Is("turn.completed"):
		if u := get(p, "usage"); u.IsObject() && c.prevTotal == nil {
			c.addUsage(c.usageOf(u)) // 0.5x: per-turn usage, not cumulative
		}
	case pt.Is("user_message"):
		c.counts["user_prompts"]++
	case pt.Is("item_completed"):
		c.itemCompleted(r, get(p, "item"))
	case pt.Is("thread_rolled_back"):
		c.counts["rollbacks"]++
	case pt.Is("turn_aborted"):
		c.counts["aborted_turns"]++
	case pt.Is("context_compacted"):
		c.counts["compaction_events"]++
	case pt.Is("mcp_tool_call_end"):
		c.mcpEnd(r, p)
	case pt.Is("exec_command_end"):
		if t := c.tool(get(p, "call_id").Str()); t != nil {
			c.out.Spans[t.span].Reach(r.NS)
			if get(p, "exit_code").Int() != 0 {
				c.out.Spans[t.span].Error = true
			}
		}
	case pt.Is("patch_apply_end"):
		if t := c.tool(get(p, "call_id").Str()); t != nil && get(p, "success").Type() == view.False {
			c.out.Spans[t.span].Error = true
		}
	case pt.Is("collab_agent_spawn_end"):
		c.spawnChild(r, get(p, "call_id").Str(), firstString(get(p, "new_thread_id"), get(p, "agent_thread_id"), get(p, "thread_id")))
	case pt.Is("sub_agent_activity"):
		id := get(p, "agent_thread_id").Str()
		if _, ok := view.Lookup(c.agents, id); !ok && !id.Empty() {
			c.spawnChild(r, view.Text{}, id)
		}
		c.stretchAgent(id, r.NS)
	}
}

// tokenCount adds the growth of the cumulative total since the last count:
// Codex writes a count about twice per request, so summing the counts, or
// their last_token_usage, would count requests twice. A total smaller than
// the last one (a restarted thread) starts a new baseline.
func (c *codexState) tokenCount(info view.Value) {
	if !info.IsObject() {
		c.counts["rate_limit_only_counts"]++
		return
	}
	if last := get(info, "last_token_usage.input_tokens"); last.Exists() {
		c.lastInput = c.count(last)
	}
	tot := get(info, "total_token_usage")
	if !tot.IsObject() {
		if last := get(info, "last_token_usage"); last.IsObject() {
			c.addUsage(c.usageOf(last))
		}
		return
	}
	now := c.usageOf(tot)
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
func (c *codexState) mcpEnd(r Record, p view.Value) {
	id := get(p, "call_id").Str()
	server, tool := get(p, "invocation.server").Str(), get(p, "invocation.tool").Str()
	t := c.tool(id)
	if t == nil {
		name := view.Join([]view.Text{view.Borrow("mcp"), server, tool}, "__")
		t = c.openTool(r, id, name, view.Text{}, get(p, "invocation.arguments"))
	}
	if t.mcpServer == "" {
		t.mcpServer, t.mcpTool = server.Own(), tool.Own()
	}
	c.out.Spans[t.span].Reach(r.NS)
	status, res := "success", get(p, "result.Ok")
	if e := get(p, "result.Err"); e.Exists() || get(res, "isError").Bool() {
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
func (c *codexState) itemCompleted(r Record, it view.Value) {
	switch typ := get(it, "type").Str(); {
	case typ.Is("UserMessage"):
		c.counts["user_prompts"]++
	case typ.Is("McpToolCall"):
		id := firstString(get(it, "call_id"), get(it, "id"))
		t := c.tool(id)
		if t == nil {
			name := view.Join([]view.Text{view.Borrow("mcp"), get(it, "server").Str(), get(it, "tool").Str()}, "__")
			t = c.openTool(r, id, name, view.Text{}, get(it, "arguments"))
		}
		t.done = true
		status := "success"
		if get(it, "status").Str().Is("failed") || get(it, "error").Exists() {
			status = "error"
			c.out.Spans[t.span].Error = true
		}
		if !t.mcpReported && t.mcpServer != "" {
			c.mcpCompleted(r, t, status, get(it, "result"))
		}
	}
}

// spawnChild opens a subagent span under the spawn call: the child thread
// writes its own rollout (linked back by parent_thread_id).
func (c *codexState) spawnChild(r Record, callID, thread view.Text) {
	if thread.Empty() {
		return
	}
	key := "agent:" + c.keyPart(thread)
	if _, ok := view.Lookup(c.agents, thread); ok {
		return
	}
	parent, link := "", "unlinked"
	if t := c.tool(callID); t != nil {
		parent, link = t.key, "spawn_call_id"
	}
	c.agents[thread.Own()] = key // a key outlives the line
	c.counts["subagents"]++
	// The child's rollout is its own trace: link this span to its root
	// (the child links back to the parent's root), both ways.
	c.out.Spans = append(c.out.Spans, Span{Key: key, Parent: parent, Name: "invoke_agent", Kind: 1, Start: r.NS, End: r.NS,
		Attrs: append(agentSpan("codex-subagent"),
			receipt.Attr{Key: "subagent.id", Value: receipt.S(c.pass(leak.ID, thread))},
			receipt.Attr{Key: "subagent.link", Value: receipt.S(link)}),
		Rare: &SpanRare{Links: []Link{{TraceKey: c.pass(leak.ID, thread), Attrs: receipt.Attrs{{Key: "subagent.link", Value: receipt.S("child_rollout")}}}}}})
	c.emit(r, key, "subagent.spawned", append(subagentSpawned(link, 1), transcriptLayout("separate_rollout"),
		receipt.Attr{Key: "subagent.agent_id", Value: receipt.S(c.pass(leak.ID, thread))}))
}

// compacted writes a compaction: the context size before it (the input of
// the last request) and the summary that replaced the history (or, when the
// summary is empty, the retained history).
func (c *codexState) compacted(r Record, p view.Value) {
	c.compaction++
	c.counts["compactions"]++
	a := compactionStarted(c.h.Text(c.session+":compaction:"+strconv.Itoa(c.compaction)), "codex_compacted_record")
	if c.lastInput > 0 {
		tokensBefore(&a, c.lastInput)
	}
	a = append(a, receipt.Attr{Key: "privacy.raw_context_recorded", Value: receipt.B(false)})
	c.emit(r, "", "context.compaction.started", a)
	summary := get(p, "message")
	text := summary.Str()
	if text.Empty() {
		summary = get(p, "replacement_history")
		text = summary.Raw()
	}
	c.emit(r, "", "context.compaction.summary_loaded", compactionSummary(c.digest(summary), text.Len()))
}

// stretchAgent extends a subagent's span to a later sign of life.
func (c *codexState) stretchAgent(thread view.Text, ns int64) {
	key, ok := view.Lookup(c.agents, thread)
	if !ok {
		return
	}
	for i := range c.out.Spans {
		if c.out.Spans[i].Key == key {
			c.out.Spans[i].Reach(ns)
		}
	}
}
