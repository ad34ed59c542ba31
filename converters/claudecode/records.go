package claudecode

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// assistant handles one assistant line: the chat span of its response (one
// response is written as several lines sharing message.id and requestId,
// each repeating the usage), and the tool calls it makes.
func (c *claudeState) assistant(r converters.Record, agent *claudeAgent) {
	msg := r.Get("message")
	// One pass over the message for all it is read for: content, the
	// bulk of it, comes before stop_reason and usage.
	f := msg.Fields("model", "id", "stop_reason", "usage", "content")
	if raw, mid := f[0].Str(), f[1].Str(); !raw.Empty() && !raw.Is("<synthetic>") && !mid.Empty() {
		// A response is one message.id, whatever its rows say of requestId
		// (newer transports leave it off some rows): the first row names
		// the chat span. The same id under another agent is a replay of
		// the parent's history (fork and subagent transcripts): counted
		// once, with the parent, keeping the largest usage of all its
		// copies, as within one file: an aside_question subagent's copy
		// may hold the final output count where the parent's transcript
		// kept a partial streamed row. A copy under another request id is
		// another request, not folded in.
		m, seen := view.Lookup(c.messages, mid)
		was := m
		if !seen {
			m = claudeMessage{key: "chat:" + agent.key + ":" + c.KeyPart(mid), agent: agent.key, span: -1, usage: -1}
			if rq := r.Get("requestId").Str(); !rq.Empty() {
				m.request = c.KeyPart(rq)
				m.key += ":" + m.request
			}
		} else if m.agent != agent.key {
			c.counts["replayed_messages"]++
			if rq := r.Get("requestId").Str(); m.request == "" || rq.Empty() || c.KeyPart(rq) == m.request {
				c.recordUsage(&m, c.modelOf(raw).raw, f[3])
				if m != was {
					c.messages[mid.Own()] = m
				}
			}
			c.toolUses(r, agent, f[4])
			return
		}
		model := c.modelOf(raw)
		if m.span < 0 {
			m.span = int32(len(c.Out.Spans))
			// A chat span runs from the record that prompted it (the user
			// turn or tool result before it) to its last response line.
			start := r.NS
			if agent.prompted > 0 && agent.prompted < r.NS {
				start = agent.prompted
			}
			c.Out.Spans = append(c.Out.Spans, converters.Span{Key: m.key, Parent: agent.key, Name: model.span, Kind: 3,
				Start: start, End: r.NS, Attrs: append(append(make(receipt.Attrs, 0, claudeChatAttrs), events.ChatSpan("anthropic")...),
					receipt.Attr{Key: "gen_ai.request.model", Value: receipt.S(model.out)},
					receipt.Attr{Key: "gen_ai.response.id", Value: receipt.S(c.Pass(leak.ID, mid))})})
		}
		c.touch(int(m.span), r.NS)
		if _, named := c.Out.Spans[m.span].Attrs.Get(requestAttr); !named {
			// The request id of the response's first row that names one:
			// with the message id it is the key ccusage counts a response
			// once by across sessions (usage.Fold).
			if rq := r.Get("requestId").Str(); !rq.Empty() {
				c.Out.Spans[m.span].Attrs.Set(requestAttr, receipt.S(c.Pass(leak.ID, rq)))
			}
		}
		if sr := f[2]; sr.IsString() {
			if reason, ok := sr.Str().Admit(leak.Label); ok {
				c.Out.Spans[m.span].Attrs.Set("gen_ai.response.finish_reasons", receipt.L([]string{reason}))
			}
		}
		c.recordUsage(&m, model.raw, f[3])
		if m != was {
			// A key outlives the line (and assigning replaces the map's
			// key too): a copy, for a message seen before as for a new one.
			c.messages[mid.Own()] = m
		}
	}
	if r.Get("isApiErrorMessage").Bool() {
		c.counts["api_errors"]++
	}
	c.toolUses(r, agent, f[4])
}

// toolUses opens the tool calls of an assistant row's content.
func (c *claudeState) toolUses(r converters.Record, agent *claudeAgent, content view.Value) {
	content.ForEach(func(_, b view.Value) bool {
		if b.Get("type").Str().Is("tool_use") {
			c.toolUse(r, agent, b)
		}
		return true
	})
}

// recordUsage keeps, per response, the usage with the largest output count:
// streaming snapshots written earlier carry smaller counts. Newer usage
// fields are read where they are counts of their own and ignored where they
// restate others: output_tokens_details.thinking_tokens breaks down
// output_tokens; of iterations[] (2.1.227, the advisor tool) the "message"
// iterations restate the top-level counts, but an "advisor_message"
// iteration is another model's inference inside the response, counted
// apart under its own model, as ccusage counts it (one naming no model is
// left out, as ccusage leaves it);
// server_tool_use.web_search_requests is read, web_fetch_requests ignored.
func (c *claudeState) recordUsage(m *claudeMessage, model string, u view.Value) {
	if !u.Exists() {
		return
	}
	// One pass over the usage object (and one over each nested one) for
	// every count: it comes on each of a session's responses.
	f := u.Fields("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "cache_creation", "server_tool_use")
	cw := f[4].Fields("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens")
	n := claudeUsage{
		model: model, span: int(m.span),
		Usage:        native.Usage{Input: c.Count(f[0]), Output: c.Count(f[1]), CacheRead: c.Count(f[2]), CacheWrite: c.Count(f[3]), Responses: 1},
		cacheWrite5m: c.Count(cw[0]), cacheWrite1h: c.Count(cw[1]),
		web: c.Count(f[5].Get("web_search_requests")),
	}
	u.Get("iterations").ForEach(func(_, it view.Value) bool {
		g := it.Fields("type", "model", "input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
		if !g[0].Str().Is("advisor_message") || g[1].Str().Empty() {
			return true
		}
		gw := it.Get("cache_creation").Fields("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens")
		n.advisors = append(n.advisors, claudeUsage{
			model: c.modelOf(g[1].Str()).raw, span: n.span,
			Usage:        native.Usage{Input: c.Count(g[2]), Output: c.Count(g[3]), CacheRead: c.Count(g[4]), CacheWrite: c.Count(g[5]), Responses: 1},
			cacheWrite5m: c.Count(gw[0]), cacheWrite1h: c.Count(gw[1]),
		})
		return true
	})
	switch {
	case m.usage < 0:
		m.usage = int32(len(c.usages))
		c.usages = append(c.usages, n)
	case n.Output >= c.usages[m.usage].Output:
		c.usages[m.usage] = n
	}
}

// modelOf returns a response's model: as read (copied), as the trace
// writes it, and its chat span's name, made again only when it changes.
func (c *claudeState) modelOf(raw view.Text) claudeModel {
	if !raw.Is(c.model.raw) {
		out := c.Pass(leak.Model, raw)
		c.model = claudeModel{raw: raw.Own(), out: out, span: "chat " + out}
	}
	return c.model
}

// claudeChatAttrs is how many attributes a chat span ends with: operation,
// provider, model and response id when it opens, the request id, finish
// reasons, the four
// usage counts at End, and the compaction flag and conversation id
// (genAISpans). Made with that room, its list is never copied to grow: a
// long session has tens of thousands of them.
const claudeChatAttrs = 12

// toolUse opens an execute_tool span for a tool_use block and writes what
// the call itself evidences (skills, memory writes, subagent prompts).
func (c *claudeState) toolUse(r converters.Record, agent *claudeAgent, b view.Value) {
	f := b.Fields("id", "name", "input")
	id, input := f[0].Str(), f[2]
	if id.Empty() {
		return
	}
	key := "tool:" + c.KeyPart(id)
	if _, dup := c.tools[key]; dup {
		return // the same call re-written after a resume
	}
	c.counts["tool_calls"]++
	// The tool outlives the line: its name is a built-in's own word, or a
	// copy; its input, when its result reads it, a copy too.
	name, builtin := f[1].Str().Word(claudeBuiltinToolList...)
	if !builtin {
		name = f[1].Str().Own()
	}
	t := &claudeTool{key: key, name: name, agent: agent.key, span: len(c.Out.Spans), line: r.Line, inputSize: input.RawLen()}
	if claudeResultReadsInput(name, input) {
		t.input = input.Own()
	}
	t.inputDigest = c.Digest(input)
	attrs := receipt.Attrs{events.Operation("execute_tool"), {Key: "gen_ai.tool.call.id", Value: receipt.S(c.Pass(leak.ID, id))}}
	kind := native.ToolOther
	switch {
	case builtin:
		kind = native.ToolBuiltin
	case strings.HasPrefix(name, "mcp__"):
		kind = native.ToolMCP
		t.mcpServer, t.mcpTool = c.SplitMCP(name)
	}
	attrs, spanName := c.DescribeTool(attrs, kind, name, t.mcpServer, t.mcpTool)
	attrs = append(attrs, receipt.Attr{Key: "convert.tool.call.arguments_hash", Value: receipt.S(t.inputDigest)})
	c.tools[key] = t
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Parent: agent.key, Name: spanName, Kind: 1, Start: r.NS, End: r.NS, Attrs: attrs})
	switch name {
	case "Task", "Agent":
		if p := input.Get("prompt"); p.IsString() {
			c.promptTool[p.Str().Digest(c.Hasher)] = key
		}
		c.pendingTask = append(c.pendingTask, key)
	case "Skill", "SlashCommand":
		skill := input.Get("skill").Str()
		if skill.Empty() {
			skill = input.Get("command").Str()
		}
		c.skillInvoked(r, key, skill, "skill_tool_call", view.Value{})
	case "Write", "Edit", "MultiEdit":
		t.initWrite = c.lastCommand == "/init" && isClaudeMD(input.Get("file_path").Str())
	}
}

// skillInvoked writes a context.skill.invoked event. A slash command's
// name is read from the prompt's text: it stays a digest even with
// --reveal names (native.Base.SkillInText).
func (c *claudeState) skillInvoked(r converters.Record, span string, skill view.Text, activation string, body view.Value) {
	var a receipt.Attrs
	if activation == "slash_command" {
		a = c.SkillInText("claude_code", activation, skill, c.skills)
	} else {
		a = c.Skill("claude_code", activation, skill, c.skills)
	}
	if body.IsString() {
		events.BodyIdentity(&a, c.Hasher, body.Str())
	}
	c.Emit(r, span, "context.skill.invoked", a)
}

var commandNameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<command-name>\s*(/?[^<\s]*)\s*</command-name>`) })

// commandName returns the slash command a user line runs, as the line
// spells it (1.0.24 wrote "clear", later versions "/clear"; borrowed like
// text), and whether it runs one. The substring test spares the regexp on
// megabytes of ordinary text.
func commandName(text view.Text) (view.Text, bool) {
	if !text.Contains("<command-name>") {
		return view.Text{}, false
	}
	m := text.Submatch(commandNameRe())
	if m == nil {
		return view.Text{}, false
	}
	return m[1], true
}

// claudeBuiltinCommand returns the built-in command that name (as
// commandName read it, with or without its slash) is, as the list's own
// word ("/init"), and whether it is one: the name is written and kept after
// the line, and a view of the line must be neither.
func claudeBuiltinCommand(name view.Text) (string, bool) {
	bare := name.TrimPrefix("/")
	for _, w := range claudeBuiltinCommandList {
		if bare.Is(w[1:]) {
			return w, true
		}
	}
	return "", false
}

// skillBodyPrefix starts the text Claude Code injects with a skill's body.
const skillBodyPrefix = "Base directory for this skill: "

// user handles one user line: typed prompts and slash commands, tool
// results, skill bodies, compaction summaries.
func (c *claudeState) user(r converters.Record, agent *claudeAgent) {
	content := r.Get("message.content")
	if r.Get("isCompactSummary").Bool() {
		c.compactSummary(r, agent, content)
		return
	}
	if content.IsString() {
		c.userText(r, agent, content.Str())
		return
	}
	content.ForEach(func(_, b view.Value) bool {
		switch typ := b.Get("type").Str(); {
		case typ.Is("tool_result"):
			c.toolResult(r, agent, b)
		case typ.Is("text"):
			c.userText(r, agent, b.Get("text").Str())
		}
		return true
	})
}

func (c *claudeState) userText(r converters.Record, agent *claudeAgent, text view.Text) {
	if name, ok := commandName(text); ok {
		// Only a built-in is kept (lastCommand is compared with /init and
		// /memory): the list's word, never the line's.
		cmd, builtin := claudeBuiltinCommand(name)
		c.lastCommand = cmd
		c.command = -1
		if builtin {
			c.counts["builtin_commands"]++
			c.builtinCommand(r, agent, cmd)
			return
		}
		c.skillInvoked(r, agent.key, name.TrimPrefix("/"), "slash_command", view.Value{})
		return
	}
	if r.Get("isMeta").Bool() {
		if c.command >= 0 && !text.HasPrefix(skillBodyPrefix) {
			c.commandExpansion(text)
			return
		}
		if text.HasPrefix(skillBodyPrefix) {
			span := agent.key
			if t := c.tools["tool:"+c.KeyPart(r.Get("sourceToolUseID").Str())]; t != nil {
				span = t.key
			}
			c.contextLoaded(r, span, "skill_body", "skill_tool_result", view.Text{}, text, true)
		}
		return
	}
	if r.File == 0 && !r.Get("isSidechain").Bool() {
		c.counts["user_prompts"]++
	}
}

// builtinCommand writes a built-in slash command (/init, /review, ...):
// each expands into a prompt of Claude Code's own that enters the context.
// Built-in names are public and written in clear (cmd is the list's word);
// the expansion, when the next meta line carries it, is identified by
// digest (commandExpansion), else the event says its text is not logged.
func (c *claudeState) builtinCommand(r converters.Record, agent *claudeAgent, cmd string) {
	a := events.InputLoaded("builtin_command_prompt", "claude_code", "slash_command")
	a = append(a, receipt.Attr{Key: "context.input.command.name", Value: receipt.S(cmd)})
	events.DeliveredNotLogged(&a)
	c.command = len(c.Out.Events)
	c.Emit(r, agent.key, "context.input.loaded", a)
}

// commandExpansion gives the open built-in command's event the identity of
// the prompt it expanded into.
func (c *claudeState) commandExpansion(text view.Text) {
	ev := &c.Out.Events[c.command]
	c.command = -1
	var a, tail receipt.Attrs
	for _, x := range ev.Attrs {
		switch x.Key {
		case "context.input.audit_gap":
		case "session.id":
			tail = append(tail, x)
		default:
			a = append(a, x)
		}
	}
	events.DeliveredIdentity(&a, c.Hasher, text, events.SourceIdentity(&a, c.Hasher, text, ""), "as-recorded-by-claude-code", false)
	ev.Attrs = append(a, tail...)
}

// toolResult closes a tool span and writes what crossed back: MCP results,
// tool search matches, subagent summaries, memory file accesses.
func (c *claudeState) toolResult(r converters.Record, agent *claudeAgent, b view.Value) {
	f := b.Fields("tool_use_id", "is_error")
	t := c.tools["tool:"+c.KeyPart(f[0].Str())]
	if t == nil {
		c.counts["orphan_tool_results"]++
		return
	}
	t.done = true
	sp := &c.Out.Spans[t.span]
	sp.Reach(r.NS)
	isErr := f[1].Bool()
	sp.Error = sp.Error || isErr
	status := "success"
	if isErr {
		status = "error"
	}
	// The result (content) and toolUseResult are read only by the calls
	// that need them: a Bash or Read result is often a long string full of
	// escapes, and reading it decodes all of it.
	switch {
	case t.mcpServer != "":
		res := b.Get("content")
		c.Emit(r, t.key, "mcp.tool_call.completed", events.MCPCall{
			Server: c.NameAttr("mcp.server", view.Borrow(t.mcpServer)), Tool: c.NameAttr("mcp.tool", view.Borrow(t.mcpTool)), Status: status,
			ArgsHash: t.inputDigest, ArgsSize: t.inputSize, ResultHash: c.Digest(res), ResultSize: res.RawLen(),
		}.Attrs())
	case t.name == "ToolSearch":
		c.toolSearch(r, t, b.Get("content"), r.Get("toolUseResult"))
	case t.name == "Task" || t.name == "Agent":
		c.subagentReturned(r, t, b.Get("content"), r.Get("toolUseResult"), status)
	case t.name == "Read" || t.name == "Write" || t.name == "Edit" || t.name == "MultiEdit":
		c.memoryFile(r, t, status)
	}
}

// toolSearch writes the search and one on-demand definition per tool it
// loaded (tool_reference blocks).
func (c *claudeState) toolSearch(r converters.Record, t *claudeTool, res, tur view.Value) {
	// The names are copies: they are written after the loop (a built-in's
	// in clear), and a view of the line is no name to write.
	var refs []string
	res.ForEach(func(_, b view.Value) bool {
		if b.Get("type").Str().Is("tool_reference") {
			refs = append(refs, b.Get("tool_name").Str().Own())
		}
		return true
	})
	s := events.ToolSearch{QueryHash: c.Digest(t.input.Value().Get("query")), Selected: len(refs), Policy: "model_tool_search"}
	if n := tur.Get("total_deferred_tools"); n.IsNumber() {
		s.Deferred = receipt.Attrs{{Key: "mcp.tool_search.deferred_tool_count", Value: receipt.Copied(c.Count(n))}}
	}
	if len(refs) > 0 {
		s.SelectedHash = c.ListDigest(refs)
	}
	c.Emit(r, t.key, "mcp.tool_search.performed", s.Attrs())
	for _, name := range refs {
		d := receipt.Attrs{}
		if strings.HasPrefix(name, "mcp__") {
			server, tool := c.SplitMCP(name)
			d = append(d, c.NameAttr("mcp.server", view.Borrow(server)), c.NameAttr("mcp.tool", view.Borrow(tool)))
		} else if claudeBuiltinTools[name] {
			d = append(d, receipt.Attr{Key: "gen_ai.tool.name", Value: receipt.S(name)})
		} else {
			d = append(d, c.NameAttr("mcp.tool", view.Borrow(name)))
		}
		d = append(d, events.DefinitionOnDemand("selected_by_tool_search")...)
		c.Emit(r, t.key, "mcp.tool_definition.loaded", d)
	}
}

// subagentReturned writes what crossed back to the parent from a subagent:
// the digest and size of its final text, never the text.
func (c *claudeState) subagentReturned(r converters.Record, t *claudeTool, res, tur view.Value, status string) {
	if id := tur.Get("agentId").Str(); !id.Empty() {
		c.agentTool[id.Own()] = t.key // a key outlives the line
	}
	for i, k := range c.pendingTask {
		if k == t.key {
			c.pendingTask = append(c.pendingTask[:i], c.pendingTask[i+1:]...)
			break
		}
	}
	text := resultText(res)
	a := events.SubagentReturned(text.Digest(c.Hasher), text.Len(), status, "final_text_returned_to_parent")
	if n := tur.Get("totalTokens"); n.IsNumber() {
		a = append(a, receipt.Attr{Key: "subagent.total_token_bucket", Value: receipt.S(receipt.TokenLadder.Bucket(c.Count(n)))})
	}
	if n := tur.Get("totalToolUseCount"); n.IsNumber() {
		a = append(a, receipt.Attr{Key: "subagent.tool_call_count", Value: receipt.Copied(c.Count(n))})
	}
	if at := t.input.Value().Get("subagent_type"); at.IsString() {
		a = append(a, receipt.Attr{Key: "subagent.type", Value: receipt.S(c.Name(at.Str()))})
	}
	a = append(a, events.RawSummaryNotRecorded)
	c.Emit(r, t.key, "subagent.result.returned", a)
}

// resultText joins the text of a tool result (a string or text blocks):
// borrowed like res.
func resultText(res view.Value) view.Text {
	if res.IsString() {
		return res.Str()
	}
	text, _ := claudeTextBlocks(res)
	return text
}

// claudeTextBlocks joins the text of v's text blocks by newlines, and says
// how many there were: one block's text is its own view of the line, more
// are joined into a text of their own (empty when there are none).
func claudeTextBlocks(v view.Value) (text view.Text, n int) {
	var b strings.Builder
	v.ForEach(func(_, blk view.Value) bool {
		if !blk.Get("type").Str().Is("text") {
			return true
		}
		t := blk.Get("text").Str()
		switch n {
		case 0:
			text = t
		case 1:
			b.WriteString(text.Own())
			fallthrough
		default:
			b.WriteByte('\n')
			b.WriteString(t.Own())
		}
		n++
		return true
	})
	if n > 1 {
		text = view.Borrow(b.String()) // ours, read like the line's
	}
	return text, n
}

// memoryFile writes an access to an instruction or memory file: CLAUDE.md
// anywhere, and auto-memory files under a project's memory/ directory.
func (c *claudeState) memoryFile(r converters.Record, t *claudeTool, status string) {
	p := t.input.Value().Get("file_path").Str()
	kind := memoryKind(p)
	if kind == "" {
		return
	}
	op := map[string]string{"Read": "read", "Write": "write", "Edit": "edit", "MultiEdit": "edit"}[t.name]
	a := receipt.Attrs{
		{Key: "context.memory_file.kind", Value: receipt.S(kind)},
		{Key: "context.memory_file.operation", Value: receipt.S(op)},
		{Key: "context.memory_file.status", Value: receipt.S(status)},
		{Key: "context.memory_file.path_hash", Value: receipt.S(p.Digest(c.Hasher))},
	}
	if body := t.input.Value().Get("content"); body.IsString() {
		a = append(a, receipt.Attr{Key: "context.memory_file.content_hash", Value: receipt.S(body.Str().Digest(c.Hasher))},
			receipt.Attr{Key: "context.memory_file.size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(body.Str().Len())))})
	}
	trigger := "tool_call"
	if t.initWrite {
		trigger = "init_command"
	} else if c.lastCommand == "/memory" && op != "read" {
		trigger = "memory_command"
	}
	a = append(a, receipt.Attr{Key: "context.memory_file.trigger", Value: receipt.S(trigger)})
	c.Emit(r, t.key, "context.memory_file.accessed", a)
}

func isClaudeMD(p view.Text) bool {
	b := textBase(slashPath(p))
	return b.Is("CLAUDE.md") || b.Is("CLAUDE.local.md")
}

// claudeResultReadsInput reports whether toolResult reads this call's input
// (ToolSearch's query, a subagent's type, a memory file's path and body):
// only then is the input kept until the result.
func claudeResultReadsInput(name string, input view.Value) bool {
	switch name {
	case "ToolSearch", "Task", "Agent":
		return true
	case "Read", "Write", "Edit", "MultiEdit":
		return memoryKind(input.Get("file_path").Str()) != ""
	}
	return false
}

// memoryKind classifies a path: an instruction file, an auto-memory file,
// or nothing.
func memoryKind(p view.Text) string {
	q := slashPath(p)
	switch {
	case isClaudeMD(q):
		return "claude_md"
	case q.Contains("/.claude/projects/") && q.Contains("/memory/"):
		return "auto_memory"
	case textBase(q).Is("MEMORY.md"):
		return "auto_memory"
	}
	return ""
}

// slashPath is p with backslashes as slashes (a Windows path): p itself
// when it has none, else a text of its own.
func slashPath(p view.Text) view.Text {
	if p.IndexByte('\\') < 0 {
		return p
	}
	return view.Borrow(strings.ReplaceAll(p.Own(), "\\", "/"))
}

// textBase is the last element of a slash path (pathBase), borrowed like p.
func textBase(p view.Text) view.Text { return p.From(p.LastIndex("/") + 1) }

// system handles compaction boundaries, hook lines and errors.
func (c *claudeState) system(r converters.Record, agent *claudeAgent) {
	subtype, known := r.Get("subtype").Str().Word("compact_boundary", "microcompact_boundary", "api_error", "error", "stop_hook_summary", "")
	if !known {
		return
	}
	switch subtype {
	case "compact_boundary":
		m := r.Get("compactMetadata")
		c.postTokens = -1
		if p := m.Get("postTokens"); p.IsNumber() {
			c.postTokens = c.Count(p)
		}
		c.compactionStarted(r, agent, m.Get("trigger").Str(), m.Get("preTokens"), "compact_boundary")
	case "microcompact_boundary":
		m := r.Get("microcompactMetadata")
		c.compactionStarted(r, agent, m.Get("trigger").Str(), m.Get("preTokens"), "microcompact_boundary")
	case "api_error", "error":
		c.counts["api_errors"]++
	case "stop_hook_summary":
		c.counts["hooks"] += c.Count(r.Get("hookCount"))
	case "":
		if r.Get("toolUseID").Exists() || r.Get("content").Str().Contains("Running") {
			c.counts["hooks"]++ // 1.0.4x-1.0.5x hook output lines
		}
	}
}

func (c *claudeState) compactionStarted(r converters.Record, agent *claudeAgent, trigger view.Text, pre view.Value, kind string) {
	c.compaction++
	c.counts["compactions"]++
	a := events.CompactionStarted(c.Hasher.Text(c.Session+":"+r.Get("uuid").Str().Own()+":"+strconv.Itoa(r.Line)), kind)
	if !trigger.Empty() {
		a = append(a, receipt.Attr{Key: "context.compaction.trigger", Value: receipt.S(c.Pass(leak.Label, trigger))})
	}
	if pre.IsNumber() {
		events.TokensBefore(&a, c.Count(pre))
	}
	c.Emit(r, agent.key, "context.compaction.started", a)
}

// compactSummary writes the summary that replaced the compacted context:
// its digest and size, never its text.
func (c *claudeState) compactSummary(r converters.Record, agent *claudeAgent, content view.Value) {
	text := resultText(content)
	a := events.CompactionSummary(text.Digest(c.Hasher), text.Len())
	if c.postTokens >= 0 {
		a = append(a, receipt.Attr{Key: "context.compaction.token_count.after_bucket", Value: receipt.S(receipt.TokenLadder.Bucket(c.postTokens))})
		c.postTokens = -1
	}
	if c.compaction == 0 {
		a = append(a, receipt.Attr{Key: "context.compaction.audit_gap", Value: receipt.S("summary_without_compact_boundary")})
	}
	c.Emit(r, agent.key, "context.compaction.summary_loaded", a)
}

// attachment handles the context-injection records of 2.1.9x+.
func (c *claudeState) attachment(r converters.Record, agent *claudeAgent) {
	at := r.Get("attachment")
	typ := at.Get("type").Str()
	kind, known := typ.Word("nested_memory", "hook_additional_context", "hook_success", "file", "directory",
		"compact_file_reference", "plan_file_reference", "edited_text_file", "mcp_instructions_delta",
		"deferred_tools_delta", "skill_listing", "invoked_skills")
	if !known {
		return
	}
	switch kind {
	case "nested_memory":
		body, logged := strText(at.Get("content.content"))
		c.contextLoaded(r, agent.key, "nested_instructions", "nested_directory_discovery", at.Get("path").Str(), body, logged)
	case "hook_additional_context":
		c.contextLoaded(r, agent.key, "hook_context", c.Pass(leak.Label, at.Get("hookEvent").Str()), view.Text{}, native.JoinStrings(at.Get("content")), true)
	case "hook_success":
		c.counts["hooks"]++
		if at.Get("hookEvent").Str().Is("SessionStart") && !at.Get("stdout").Str().Empty() {
			body, logged := strText(at.Get("stdout"))
			c.contextLoaded(r, agent.key, "hook_context", "SessionStart", view.Text{}, body, logged)
		}
	case "file", "directory", "compact_file_reference", "plan_file_reference", "edited_text_file":
		v := at.Get("content.content")
		if !v.Exists() {
			v = at.Get("content")
		}
		body, logged := strText(v)
		c.contextLoaded(r, agent.key, "file_attachment", c.Pass(leak.Label, typ), native.FirstString(at.Get("filename"), at.Get("path")), body, logged)
	case "mcp_instructions_delta":
		names := at.Get("addedNames").Array()
		for i, blk := range at.Get("addedBlocks").Array() {
			var server view.Text
			if i < len(names) {
				server = names[i].Str()
			}
			c.mcpInstructions(r, agent, server, blk)
		}
	case "deferred_tools_delta":
		c.deferredTools(r, agent, at)
	case "skill_listing":
		a := receipt.Attrs{
			{Key: "context.skill.listing.hash", Value: receipt.S(c.Digest(at.Get("content")))},
			{Key: "context.skill.listing.size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(at.Get("content").RawLen())))},
		}
		if n := at.Get("skillCount"); n.IsNumber() {
			a = append(a, receipt.Attr{Key: "context.skill.count", Value: receipt.Copied(c.Count(n))})
		}
		a = append(a, receipt.Attr{Key: "context.skill.listing.initial", Value: receipt.B(at.Get("isInitial").Bool())},
			receipt.Attr{Key: "privacy.raw_skill_listing_recorded", Value: receipt.B(false)})
		c.Emit(r, agent.key, "context.skill.listing.loaded", a)
	case "invoked_skills":
		at.Get("skills").ForEach(func(_, s view.Value) bool {
			c.skillInvoked(r, agent.key, s.Get("name").Str(), "reinjected_after_compaction", s.Get("content"))
			return true
		})
	}
}

// contextLoaded writes a context.input.loaded event for content that the
// transcript shows entering the prompt: its path (empty: none) and its
// body, when the transcript logged it.
func (c *claudeState) contextLoaded(r converters.Record, span, kind, activation string, path, body view.Text, logged bool) {
	a := events.InputLoaded(kind, "claude_code", activation)
	if !path.Empty() {
		// A public path is written as the list's own string, never the
		// line's: the event outlives it.
		if p, ok := path.Word(events.PublicInstructionPathList...); ok {
			a = append(a, receipt.Attr{Key: "context.input.source.path", Value: receipt.S(p)})
		}
		a = append(a, receipt.Attr{Key: "context.input.source.path_hash", Value: receipt.S(path.Digest(c.Hasher))})
	}
	if logged {
		events.DeliveredIdentity(&a, c.Hasher, body, events.SourceIdentity(&a, c.Hasher, body, ""), "as-recorded-by-claude-code", false)
	} else {
		events.DeliveredNotLogged(&a)
	}
	a = c.Conversation(a)
	c.Emit(r, span, "context.input.loaded", a)
}

func (c *claudeState) mcpInstructions(r converters.Record, agent *claudeAgent, server view.Text, blk view.Value) {
	a := events.InputLoaded("mcp_server_instructions", "claude_code", "mcp_server_connected")
	if !server.Empty() {
		a = append(a, c.NameAttr("mcp.server", server))
	}
	text := blk.Str()
	if !blk.IsString() {
		text = blk.Raw()
	}
	events.BodyIdentity(&a, c.Hasher, text)
	c.Emit(r, agent.key, "context.input.loaded", a)
}

// deferredTools writes a tool index: names listed without their schemas.
func (c *claudeState) deferredTools(r converters.Record, agent *claudeAgent, at view.Value) {
	added := at.Get("addedNames").Array()
	servers := map[string]bool{}
	var names []string
	for _, n := range added {
		name := n.Str().Own() // listed, and split into map keys
		names = append(names, name)
		if strings.HasPrefix(name, "mcp__") {
			s, _ := native.SplitMCP(name)
			servers[s] = true
		}
	}
	c.Emit(r, agent.key, "mcp.tool_index.loaded", events.ToolIndex{
		Strategy: "deferred_tool_loading", NamesHash: c.ListDigest(names), Count: int64(len(added)),
		Servers: receipt.Attrs{
			{Key: "mcp.tool.removed_count", Value: receipt.Computed(int64(len(at.Get("removedNames").Array())))},
			{Key: "mcp.server.count", Value: receipt.Computed(int64(len(servers)))},
			{Key: "mcp.server.pending_count", Value: receipt.Computed(int64(len(at.Get("pendingMcpServers").Array())))},
			{Key: "mcp.server.needs_auth_count", Value: receipt.Computed(int64(len(at.Get("needsAuthMcpServers").Array())))},
		},
	}.Attrs())
}

// strText is v's text and true when v is a string, else false.
func strText(v view.Value) (view.Text, bool) {
	if !v.IsString() {
		return view.Text{}, false
	}
	return v.Str(), true
}

// The schema of context.memory_file.accessed, which this file writes (see events/eventschema.go).
var _ = events.DeclareEvent("context.memory_file.accessed", events.EventDecl{
	Title: "context.memory_file.accessed: an instruction or memory file was read, written or edited by a tool call",
	Keys: []events.Attr{
		events.Sets("context.memory_file.content_hash", events.DefDigest),
		events.ReqAttr(events.SetsProp("context.memory_file.kind", events.Enum("claude_md", "auto_memory"))),
		events.ReqAttr(events.SetsProp("context.memory_file.operation", events.Enum("read", "write", "edit"))),
		events.ReqAttr(events.Sets("context.memory_file.path_hash", events.DefDigest)),
		events.Sets("context.memory_file.size_bucket", events.LadderDef(receipt.ByteLadder)),
		events.SetsProp("context.memory_file.status", events.Enum("success", "error")),
		events.SetsProp("context.memory_file.trigger", events.Enum("tool_call", "init_command", "memory_command")),
		events.Sets("session.id", events.DefID),
	},
})

// The schema of context.skill.listing.loaded, which this file writes (see events/eventschema.go).
var _ = events.DeclareEvent("context.skill.listing.loaded", events.EventDecl{
	Title: "context.skill.listing.loaded: the catalog of available skills entered the context",
	Keys: []events.Attr{
		events.Sets("context.skill.count", events.DefCount),
		events.ReqAttr(events.Sets("context.skill.listing.hash", events.DefDigest)),
		events.Sets("context.skill.listing.initial", events.DefBool),
		events.Sets("context.skill.listing.size_bucket", events.LadderDef(receipt.ByteLadder)),
		events.Sets("privacy.raw_skill_listing_recorded", events.DefNever),
		events.Sets("session.id", events.DefID),
	},
})

// requestAttr is the chat span's attribute for the API request id of a
// response (Claude Code's requestId), read by usage.Responses.
const requestAttr = "anthropic.request.id"
