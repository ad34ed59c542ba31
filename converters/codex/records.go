package codex

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"

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
func (c *codexState) item(r converters.Record, p view.Value) {
	pt := p.Get("type").Str()
	if r.Type == "response_item" {
		c.TypeCounts[c.payloadKey("response_item", pt)]++
	}
	c.touch(r.NS)
	switch {
	case pt.Is("message"):
		c.message(r, p)
	case pt.Is("function_call"): // one scan: arguments are long, and namespace is often absent
		f := p.Fields("call_id", "name", "namespace", "arguments")
		c.openTool(r, f[0].Str(), f[1].Str(), f[2].Str(), f[3])
	case pt.Is("custom_tool_call"):
		f := p.Fields("call_id", "name", "input", "namespace")
		c.openTool(r, f[0].Str(), f[1].Str(), f[3].Str(), f[2])
	case pt.Is("function_call_output"), pt.Is("custom_tool_call_output"):
		f := p.Fields("call_id", "output", "namespace", "name")
		if f[0].Str().Empty() && f[2].Str().Is("codex_app") {
			c.appMessage(r, f[3].Str(), f[1])
			break
		}
		c.toolOutput(r, f[0].Str(), f[1])
	case pt.Is("local_shell_call"), pt.Is("web_search_call"), pt.Is("image_generation_call"):
		name, _ := view.Lookup(codexItemTools, pt)
		id := native.FirstString(p.Get("call_id"), p.Get("id"))
		args := p.Get("action")
		t := c.openTool(r, id, view.Borrow(name), view.Text{}, args)
		t.done = true
		if s := p.Get("status").Str(); s.Is("failed") || s.Is("incomplete") {
			c.Out.Spans[t.span].Error = true
		}
	case pt.Is("tool_search_call"):
		c.openTool(r, p.Get("call_id").Str(), view.Borrow("tool_search"), view.Text{}, p.Get("arguments"))
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
	return record + ":" + t.Digest(c.Hasher)
}

// message classifies a message: instruction wrappers (AGENTS.md in two
// shapes, environment context, developer instructions), skill blocks, or a
// prompt.
func (c *codexState) message(r converters.Record, p view.Value) {
	var parts []view.Text // joined below, within the call
	content := p.Get("content")
	content.ForEach(func(_, b view.Value) bool {
		if t := b.Get("text"); t.IsString() {
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
		digest := text.Digest(c.Hasher)
		c.instructionText(r, kind, via, dir, source, text, digest, digest)
	}
	switch role := p.Get("role").Str(); {
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
func (c *codexState) skill(r converters.Record, name, path, body view.Text) {
	seen, _ := view.Lookup(c.skills, name)
	a := events.SkillInvocation(c.Hasher, "codex", "skill_block_injected", name, seen)
	if !seen {
		c.skills[name.Own()] = true // a key outlives the line
	}
	// The name is never revealed: it exists only inside the injected text,
	// so the leak check could not tell it from content.
	if !path.Empty() {
		a = append(a, receipt.Attr{Key: "context.input.source.path_hash", Value: receipt.S(path.Digest(c.Hasher))})
	}
	events.BodyIdentity(&a, c.Hasher, body)
	c.Emit(r, "", "context.skill.invoked", a)
}

// openTool opens an execute_tool span for a call. MCP tools are named
// server__tool (early), mcp__server__tool, or by a namespace mcp__server.
func (c *codexState) openTool(r converters.Record, id, nameText, namespace view.Text, args view.Value) *codexTool {
	key := "tool:line:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line)
	if !id.Empty() {
		key = "tool:" + c.KeyPart(id)
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
	switch {
	case namespace.Is("web"):
		// The web namespace (0.14x) is the web search tool's calls.
		name = "web_search"
	case namespace.Is("collaboration") && !codexBuiltinTools[name]:
		// Collaboration tools are Codex's own; one this reader does not
		// know is still not an extension's, but its name is hashed.
		name = "collaboration." + name
	case namespace.Is("codex_app"):
		// The desktop app's own tools (threads, automations): public
		// names in clear; one this reader does not know is hashed.
		name = "codex_app." + name
	}
	t := &codexTool{key: key, name: name, span: len(c.Out.Spans), args: args.Own(), argsDigest: c.Digest(args), argsSize: argsSize}
	if namespace.Empty() || namespace.Is("collaboration") {
		t.collab = codexCollabTools[name]
	}
	switch {
	case namespace.HasPrefix("mcp__"):
		t.mcpServer, t.mcpTool = namespace.TrimPrefix("mcp__").Own(), name
	case strings.HasPrefix(name, "mcp__"):
		t.mcpServer, t.mcpTool = c.SplitMCP(name)
	case !codexBuiltinTools[name] && strings.Contains(name, "__"):
		t.mcpServer, t.mcpTool = c.SplitMCP(name) // server__tool
	}
	attrs := receipt.Attrs{events.Operation("execute_tool")}
	if !id.Empty() {
		attrs = append(attrs, receipt.Attr{Key: "gen_ai.tool.call.id", Value: receipt.S(c.Pass(leak.ID, id))})
	}
	kind := native.ToolOther
	switch {
	case t.mcpServer != "":
		kind = native.ToolMCP
	case codexBuiltinTools[name]:
		kind = native.ToolBuiltin
	}
	attrs, spanName := c.DescribeTool(attrs, kind, name, t.mcpServer, t.mcpTool)
	attrs = append(attrs, receipt.Attr{Key: "convert.tool.call.arguments_hash", Value: receipt.S(t.argsDigest)})
	c.tools[key] = t
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Name: spanName, Kind: 1, Start: r.NS, End: r.NS, Attrs: attrs})
	return t
}

func (c *codexState) tool(id view.Text) *codexTool {
	if id.Empty() {
		return nil
	}
	return c.tools["tool:"+c.KeyPart(id)]
}

// toolOutput closes a call. The output is a string (often JSON with an
// exit code), an object or content blocks.
func (c *codexState) toolOutput(r converters.Record, id view.Text, out view.Value) {
	t := c.tool(id)
	if t == nil {
		c.counts["orphan_tool_outputs"]++
		return
	}
	t.done = true
	c.Out.Spans[t.span].Reach(r.NS)
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
		f := inner.Fields("metadata", "isError", "success")
		failed = f[0].Get("exit_code").Int() != 0 || f[1].Bool() || f[2].Type() == view.False
	} else {
		failed = inner.Deep("metadata.exit_code").Int() != 0 || inner.Deep("isError").Bool() || inner.Deep("success").Type() == view.False
	}
	if failed {
		c.Out.Spans[t.span].Error = true
	}
	switch t.collab {
	case "spawn":
		// The new thread's id, when no collab_agent_spawn_end said it
		// (that event is not persisted by every policy).
		if scanned {
			g := inner.Fields("agent_id", "new_thread_id", "thread_id")
			c.spawnChildFrom(r, id, native.FirstString(g[0], g[1], g[2]), false)
		}
	case "wait":
		// What the waited-for agents brought back into this thread.
		status := "success"
		if failed {
			status = "error"
		}
		size := out.RawLen()
		if out.IsString() {
			size = out.Str().Len()
		}
		c.Emit(r, t.key, "subagent.result.returned",
			append(events.SubagentReturned(c.Digest(out), size, status, "final_text_returned_to_parent"), events.RawSummaryNotRecorded))
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
func (c *codexState) mcpCompleted(r converters.Record, t *codexTool, status string, result view.Value) {
	t.mcpReported = true
	size := result.RawLen()
	if result.IsString() {
		size = result.Str().Len()
	}
	c.Emit(r, t.key, "mcp.tool_call.completed", events.MCPCall{
		Server: c.NameAttr("mcp.server", view.Borrow(t.mcpServer)), Tool: c.NameAttr("mcp.tool", view.Borrow(t.mcpTool)), Status: status,
		ArgsHash: t.argsDigest, ArgsSize: t.argsSize, ResultHash: c.Digest(result), ResultSize: size,
	}.Attrs())
}

// toolSearch writes a tool search: the query digest and the tools it loaded
// (function groups, each with its tools).
func (c *codexState) toolSearch(r converters.Record, p view.Value) {
	id := p.Get("call_id").Str()
	t := c.tool(id)
	if t == nil {
		t = c.openTool(r, id, view.Borrow("tool_search"), view.Text{}, view.Value{})
	}
	t.done = true
	c.Out.Spans[t.span].Reach(r.NS)
	var names []string // small copies, hashed as a list below
	p.Get("tools").ForEach(func(_, g view.Value) bool {
		if inner := g.Get("tools"); inner.IsArray() {
			group := g.Get("name").Str().Own()
			inner.ForEach(func(_, x view.Value) bool {
				names = append(names, group+"__"+x.Get("name").Str().Own())
				return true
			})
		} else {
			names = append(names, g.Get("name").Str().Own())
		}
		return true
	})
	args := t.args.Value()
	query := args.Get("query")
	if !query.Exists() {
		query = args
	}
	s := events.ToolSearch{QueryHash: c.Digest(query), Selected: len(names), Policy: "model_tool_search"}
	if len(names) > 0 {
		s.SelectedHash = c.ListDigest(names)
	}
	if p.Get("execution").Str().Is("server") {
		s.Policy = "server_tool_search"
	}
	c.Emit(r, t.key, "mcp.tool_search.performed", s.Attrs())
}

// agentMessage is an inter-agent message: from a child thread, it is what
// the subagent brought back to this one.
func (c *codexState) agentMessage(r converters.Record, p view.Value) {
	author := p.Get("author").Str()
	span, ok := view.Lookup(c.agents, author)
	if !ok {
		c.counts["inter_agent_messages"]++
		return
	}
	c.stretchAgent(author, r.NS)
	text := native.JoinStrings(p.Get("content.#.text"))
	c.Emit(r, span, "subagent.result.returned",
		append(events.SubagentReturned(text.Digest(c.Hasher), text.Len(), "success", "inter_agent_message"), events.RawSummaryNotRecorded))
}

// event handles one runtime event: token counts, prompts, MCP call ends,
// command results, compaction, rollbacks and subagent lifecycle.
func (c *codexState) event(r converters.Record, p view.Value) {
	pt := p.Get("type").Str()
	c.TypeCounts[c.payloadKey("event_msg", pt)]++
	c.touch(r.NS)
	switch {
	case pt.Is("token_count"):
		c.tokenCount(p.Get("info"))
	case pt.Is("turn.completed"):
		if u := p.Get("usage"); u.IsObject() && c.prevTotal == nil {
			c.addUsage(c.usageOf(u)) // 0.5x: per-turn usage, not cumulative
		}
	case pt.Is("user_message"):
		c.counts["user_prompts"]++
	case pt.Is("item_completed"):
		c.itemCompleted(r, p.Get("item"))
	case pt.Is("thread_rolled_back"):
		c.counts["rollbacks"]++
	case pt.Is("turn_aborted"):
		c.counts["aborted_turns"]++
	case pt.Is("context_compacted"):
		c.counts["compaction_events"]++
	case pt.Is("mcp_tool_call_end"):
		c.mcpEnd(r, p)
	case pt.Is("exec_command_end"):
		if t := c.tool(p.Get("call_id").Str()); t != nil {
			c.Out.Spans[t.span].Reach(r.NS)
			if p.Get("exit_code").Int() != 0 {
				c.Out.Spans[t.span].Error = true
			}
		}
	case pt.Is("patch_apply_end"):
		if t := c.tool(p.Get("call_id").Str()); t != nil && p.Get("success").Type() == view.False {
			c.Out.Spans[t.span].Error = true
		}
	case pt.Is("collab_agent_spawn_end"):
		c.spawnChild(r, p.Get("call_id").Str(), native.FirstString(p.Get("new_thread_id"), p.Get("agent_thread_id"), p.Get("thread_id")))
	case pt.Is("sub_agent_activity"):
		id := p.Get("agent_thread_id").Str()
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
	if last := info.Get("last_token_usage.input_tokens"); last.Exists() {
		c.lastInput = c.Count(last)
	}
	tot := info.Get("total_token_usage")
	if !tot.IsObject() {
		if last := info.Get("last_token_usage"); last.IsObject() {
			c.addUsage(c.usageOf(last))
		}
		return
	}
	now := c.totalOf(tot)
	d := now
	if p := c.prevTotal; p != nil && now.Total >= p.Total {
		d = native.Usage{
			Input: max(0, now.Input-p.Input), CacheRead: max(0, now.CacheRead-p.CacheRead), CacheWrite: max(0, now.CacheWrite-p.CacheWrite),
			Output: max(0, now.Output-p.Output), Reasoning: max(0, now.Reasoning-p.Reasoning), Total: max(0, now.Total-p.Total),
		}
	}
	c.prevTotal = &now
	// What is written is the growth, each part a count a request may add
	// (a first total above MaxCount is not one, and is not written).
	d = native.Usage{Input: c.Growth(d.Input), CacheRead: c.Growth(d.CacheRead), CacheWrite: c.Growth(d.CacheWrite),
		Output: c.Growth(d.Output), Reasoning: c.Growth(d.Reasoning), Total: c.Growth(d.Total)}
	if d == (native.Usage{}) {
		return
	}
	c.addUsage(d)
}

func (c *codexState) addUsage(d native.Usage) {
	m := c.modelOr()
	u := c.perModel[m]
	if u == nil {
		u = &native.Usage{}
		c.perModel[m] = u
		c.models = append(c.models, m)
	}
	u.Add(d)
	if c.chat >= 0 {
		cu := c.chatUsage[c.chat]
		if cu == nil {
			cu = &native.Usage{}
			c.chatUsage[c.chat] = cu
		}
		cu.Add(d)
	}
}

// mcpEnd reads an mcp_tool_call_end event: {call_id, invocation{server,
// tool, arguments}, result{Ok|Err}}.
func (c *codexState) mcpEnd(r converters.Record, p view.Value) {
	id := p.Get("call_id").Str()
	server, tool := p.Get("invocation.server").Str(), p.Get("invocation.tool").Str()
	t := c.tool(id)
	if t == nil {
		name := view.Join([]view.Text{view.Borrow("mcp"), server, tool}, "__")
		t = c.openTool(r, id, name, view.Text{}, p.Get("invocation.arguments"))
	}
	if t.mcpServer == "" {
		t.mcpServer, t.mcpTool = server.Own(), tool.Own()
	}
	c.Out.Spans[t.span].Reach(r.NS)
	status, res := "success", p.Get("result.Ok")
	if e := p.Get("result.Err"); e.Exists() || res.Get("isError").Bool() {
		status = "error"
		c.Out.Spans[t.span].Error = true
		if e.Exists() {
			res = e
		}
	}
	if !t.mcpReported {
		c.mcpCompleted(r, t, status, res)
	}
}

// itemCompleted reads 0.147's item_completed events (PascalCase items).
func (c *codexState) itemCompleted(r converters.Record, it view.Value) {
	switch typ := it.Get("type").Str(); {
	case typ.Is("UserMessage"):
		c.counts["user_prompts"]++
	case typ.Is("McpToolCall"):
		id := native.FirstString(it.Get("call_id"), it.Get("id"))
		t := c.tool(id)
		if t == nil {
			name := view.Join([]view.Text{view.Borrow("mcp"), it.Get("server").Str(), it.Get("tool").Str()}, "__")
			t = c.openTool(r, id, name, view.Text{}, it.Get("arguments"))
		}
		t.done = true
		status := "success"
		if it.Get("status").Str().Is("failed") || it.Get("error").Exists() {
			status = "error"
			c.Out.Spans[t.span].Error = true
		}
		if !t.mcpReported && t.mcpServer != "" {
			c.mcpCompleted(r, t, status, it.Get("result"))
		}
	}
}

// spawnChild opens a subagent span under the spawn call: the child thread
// writes its own rollout (linked back by parent_thread_id).
func (c *codexState) spawnChild(r converters.Record, callID, thread view.Text) {
	c.spawnChildFrom(r, callID, thread, true)
}

// spawnChildFrom is spawnChild for a thread id read at a pass-through
// field (listed), or inside a tool's output (raw text: the id is written as
// a digest, and only the link to the child's trace, which is a digest
// itself, is made from the id as read).
func (c *codexState) spawnChildFrom(r converters.Record, callID, thread view.Text, listed bool) {
	if thread.Empty() {
		return
	}
	id, traceKey := c.Pass(leak.IDOrUUID, thread), c.Pass(leak.IDOrUUID, thread)
	if !listed {
		id = thread.Digest(c.Hasher)
	}
	key := "agent:" + c.KeyPart(thread)
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
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Parent: parent, Name: "invoke_agent", Kind: 1, Start: r.NS, End: r.NS,
		Attrs: append(events.AgentSpan("codex-subagent"),
			receipt.Attr{Key: "subagent.id", Value: receipt.S(id)},
			receipt.Attr{Key: "subagent.link", Value: receipt.S(link)}),
		Rare: &converters.SpanRare{Links: []converters.Link{{TraceKey: traceKey, Attrs: receipt.Attrs{{Key: "subagent.link", Value: receipt.S("child_rollout")}}}}}})
	c.Emit(r, key, "subagent.spawned", append(events.SubagentSpawned(link, 1), events.TranscriptLayout("separate_rollout"),
		receipt.Attr{Key: "subagent.agent_id", Value: receipt.S(id)}))
}

// compacted writes a compaction: the context size before it (the input of
// the last request) and the summary that replaced the history (or, when the
// summary is empty, the retained history).
func (c *codexState) compacted(r converters.Record, p view.Value) {
	c.compaction++
	c.counts["compactions"]++
	a := events.CompactionStarted(c.Hasher.Text(c.Session+":compaction:"+strconv.Itoa(c.compaction)), "codex_compacted_record")
	if c.lastInput > 0 {
		events.TokensBefore(&a, c.lastInput)
	}
	a = append(a, receipt.Attr{Key: "privacy.raw_context_recorded", Value: receipt.B(false)})
	c.Emit(r, "", "context.compaction.started", a)
	summary := p.Get("message")
	text := summary.Str()
	if text.Empty() {
		summary = p.Get("replacement_history")
		text = summary.Raw()
	}
	c.Emit(r, "", "context.compaction.summary_loaded", events.CompactionSummary(c.Digest(summary), text.Len()))
}

// stretchAgent extends a subagent's span to a later sign of life.
func (c *codexState) stretchAgent(thread view.Text, ns int64) {
	key, ok := view.Lookup(c.agents, thread)
	if !ok {
		return
	}
	for i := range c.Out.Spans {
		if c.Out.Spans[i].Key == key {
			c.Out.Spans[i].Reach(ns)
		}
	}
}

// appMessage reads an output the Codex app writes with no call of the
// model's before it (namespace codex_app, no call_id): a task delegated
// from another thread, or an automation's run, delivered into this
// thread's context. It is a context input: its digest and size, never its
// text.
func (c *codexState) appMessage(r converters.Record, name view.Text, out view.Value) {
	c.counts["app_messages"]++
	kind := "codex_app_message"
	switch {
	case name.Is("create_thread"), name.Is("send_message_to_thread"):
		kind = "delegated_task"
	case name.Is("automation_update"):
		kind = "automation_run"
	}
	text := out.Str()
	if !out.IsString() {
		text = out.Raw()
	}
	a := append(events.InputLoaded(kind, "codex_app", "injected_message"), receipt.Attr{Key: "context.input.delivered.via", Value: receipt.S("codex_app_output")})
	digest := events.SourceIdentity(&a, c.Hasher, text, "")
	events.DeliveredIdentity(&a, c.Hasher, text, digest, "as-recorded-by-codex", true)
	a = append(a, receipt.Attr{Key: "privacy.raw_context_recorded", Value: receipt.B(false)})
	a = c.Conversation(a)
	c.Emit(r, "", "context.input.loaded", a)
}
