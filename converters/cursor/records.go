package cursor

import (
	"strconv"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// user counts prompts; in transcripts it also closes tool calls whose
// results some builds write as blocks.
func (c *cursorState) user(r converters.Record) {
	content := r.Get("message.content")
	prompt := content.IsString()
	content.ForEach(func(_, b view.Value) bool {
		switch typ := b.Get("type").Str(); {
		case typ.Is("text"):
			prompt = true
			if b.Get("text").Str().Contains("<user_query>") {
				c.counts["wrapped_queries"]++
			}
		case typ.Is("tool_result"), typ.Is("tool-result"):
			if t := c.tools["tool:"+c.KeyPart(native.FirstString(b.Get("tool_use_id"), b.Get("toolCallId"), b.Get("id")))]; t != nil {
				c.finish(r, t, "success", b.Get("content"))
			}
		case typ.Is("command_output"):
			c.commandOutput(r, b)
		case typ.Is("redacted"), typ.Is("redacted_thinking"):
			c.counts["redacted_blocks"]++
		}
		return true
	})
	if prompt && r.File == 0 {
		c.counts["user_prompts"]++
	}
}

// commandOutput reads a transcript's command_output block: the output of
// a shell call, which names no call. It closes the oldest shell call still
// open (transcripts write calls and outputs in order); its exit code, when
// given, says whether it failed. The output is digested, never copied.
func (c *cursorState) commandOutput(r converters.Record, b view.Value) {
	c.counts["command_outputs"]++
	var open *cursorTool
	for _, t := range c.tools {
		if !t.done && (t.name == "Shell" || t.name == "shellToolCall") && (open == nil || t.span < open.span) {
			open = t
		}
	}
	if open == nil {
		c.counts["orphan_command_outputs"]++
		return
	}
	status := "success"
	if code := firstNumber(b.Get("exitCode"), b.Get("exit_code")); code.Exists() && code.Int() != 0 {
		status = "error"
	}
	c.finish(r, open, status, firstExisting(b.Get("output"), b.Get("content"), b.Get("text")))
}

// firstNumber returns the first of vs that is a number.
func firstNumber(vs ...view.Value) view.Value {
	for _, v := range vs {
		if v.IsNumber() {
			return v
		}
	}
	return view.Value{}
}

// firstExisting returns the first of vs that exists.
func firstExisting(vs ...view.Value) view.Value {
	for _, v := range vs {
		if v.Exists() {
			return v
		}
	}
	return view.Value{}
}

// cursorRedacted is the marker Cursor writes in place of redacted thinking:
// a whole text block, or the end of one.
const cursorRedacted = "[REDACTED]"

// assistant opens or extends a chat span: one per model_call_id in
// stream-json (partial-output lines share it), one per line in transcripts,
// whose tool_use blocks are the only record of their tool calls.
func (c *cursorState) assistant(r converters.Record) {
	key := "chat:line:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line)
	if id := r.Get("model_call_id").Str(); !id.Empty() {
		key = "chat:" + c.KeyPart(id)
	}
	idx, ok := c.chats[key]
	if !ok {
		idx = len(c.Out.Spans)
		c.chats[key] = idx
		attrs := events.ChatSpan("cursor")
		if c.model != "" {
			attrs = append(attrs, receipt.Attr{Key: "gen_ai.request.model", Value: receipt.S(c.Pass(leak.Model, view.Borrow(c.model)))})
		}
		start := r.NS
		if c.prompted > 0 && c.prompted < r.NS {
			start = c.prompted // from the record that prompted the call
		}
		c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Parent: c.cur, Name: c.chatName(), Kind: 3, Start: start, End: r.NS, Attrs: attrs})
		c.prompted = 0
		c.counts["model_calls"]++
	}
	c.Out.Spans[idx].Cover(r.NS)
	r.Get("message.content").ForEach(func(i, b view.Value) bool {
		switch typ := b.Get("type").Str(); {
		case typ.Is("text"):
			if b.Get("text").Str().TrimSpace().HasSuffix(cursorRedacted) {
				c.counts["redacted_blocks"]++
			}
		case typ.Is("redacted"), typ.Is("redacted_thinking"):
			c.counts["redacted_blocks"]++
		case typ.Is("tool_use"), typ.Is("tool_call"):
			id := native.FirstString(b.Get("id"), b.Get("toolCallId"))
			if id.Empty() {
				// A string of its own, made here (the index or key is tiny).
				id = view.Borrow("line:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line) + ":" + i.String().Own())
			}
			args := b.Get("input")
			if !args.Exists() {
				args = b.Get("args")
			}
			c.openTool(r, id, native.FirstString(b.Get("name"), b.Get("toolName")), args)
		}
		return true
	})
}

func (c *cursorState) modelOr() string {
	if c.model == "" {
		return "unknown"
	}
	return c.model
}

// toolCall reads a tool_call record. The tool is the single key inside
// tool_call (<name>ToolCall); started and completed share call_id, which can
// hold a newline (it is hashed then, like any id that is not a token).
func (c *cursorState) toolCall(r converters.Record) {
	id := native.FirstString(r.Get("call_id"), r.Get("tool_call.*.args.toolCallId"), r.Get("tool_call.toolCallId"))
	var name view.Text
	var body view.Value
	r.Get("tool_call").ForEach(func(k, v view.Value) bool {
		if k.Str().HasSuffix("ToolCall") && v.IsObject() {
			name, body = k.Str(), v
			return false
		}
		return true
	})
	if builtin, _ := view.Lookup(cursorBuiltinTools, name); c.Env.RevealNames && !builtin {
		// A tool named by a key: keys are never declared pass-through, so
		// an unknown one is written by its digest even when names are
		// revealed.
		name = view.Borrow(name.Digest(c.Hasher)) // a digest, owned
	}
	ns := r.NS
	if ns == 0 {
		if ms := cursorMS(r.Get("tool_call.startedAtMs")); ms > 0 && r.Get("subtype").Str().Is("started") {
			ns = ms * 1_000_000
		} else if ms := cursorMS(r.Get("tool_call.completedAtMs")); ms > 0 {
			ns = ms * 1_000_000
		}
	}
	r.NS = ns
	t := c.tools["tool:"+c.KeyPart(id)]
	if t == nil {
		args := body.Get("args")
		t = c.openTool(r, id, name, args)
	}
	c.Out.Spans[t.span].Cover(ns)
	if !r.Get("subtype").Str().Is("completed") {
		return
	}
	res := body.Get("result")
	status := "success"
	var outcome view.Value
	res.ForEach(func(k, v view.Value) bool {
		// The result's first key names the outcome. Keys are input: only
		// the outcomes Cursor documents are written, any other as "other".
		status, outcome = "other", v
		if w, ok := k.Str().Word(cursorOutcomes...); ok {
			status = w
		}
		return false
	})
	if !res.Exists() {
		status = "unknown"
	}
	if status == "success" && (outcome.Get("isError").Bool() || outcome.Get("exitCode").Int() != 0) {
		status = "error"
	}
	c.finish(r, t, status, outcome)
}

// openTool opens an execute_tool span; a taskToolCall also opens its
// subagent's span under it.
func (c *cursorState) openTool(r converters.Record, id, name view.Text, args view.Value) *cursorTool {
	key := "tool:" + c.KeyPart(id)
	if t, ok := c.tools[key]; ok {
		return t
	}
	c.counts["tool_calls"]++
	// Copies: the tool outlives its line.
	t := &cursorTool{key: key, name: name.Own(), span: len(c.Out.Spans)}
	attrs := receipt.Attrs{events.Operation("execute_tool"), {Key: "gen_ai.tool.call.id", Value: receipt.S(c.Pass(leak.ID, id))}}
	kind := native.ToolUnnamed
	builtin, _ := view.Lookup(cursorBuiltinTools, name)
	switch {
	case name.Is("mcpToolCall"):
		kind = native.ToolMCP
		t.mcpServer, t.mcpTool = args.Get("providerIdentifier").Str().Own(), args.Get("toolName").Str().Own()
		// What finish writes of the arguments, taken now: they are of this line.
		mcpArgs := args.Get("args")
		t.mcpArgsHash, t.mcpArgsSize = c.Digest(mcpArgs), mcpArgs.RawLen()
	case builtin:
		kind = native.ToolBuiltin
	case !name.Empty():
		kind = native.ToolOther
	}
	attrs, spanName := c.DescribeTool(attrs, kind, t.name, t.mcpServer, t.mcpTool)
	attrs = append(attrs, receipt.Attr{Key: "convert.tool.call.arguments_hash", Value: receipt.S(c.Digest(args))})
	c.tools[key] = t
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Parent: c.cur, Name: spanName, Kind: 1, Start: r.NS, End: r.NS, Attrs: attrs})
	if name.Is("taskToolCall") || name.Is("Task") {
		c.spawn(r, t, args)
	}
	return t
}

// spawn opens the span of a subagent started by a task tool call.
func (c *cursorState) spawn(r converters.Record, t *cursorTool, args view.Value) {
	t.agent = "agent:" + t.key
	depth := int64(1)
	a := append(events.SubagentSpawned("task_tool_call", depth), events.TranscriptLayout("inline_tool_call"))
	spanAttrs := append(events.AgentSpan("cursor-subagent"), receipt.Attr{Key: "subagent.depth", Value: receipt.Computed(depth)})
	if id := args.Get("agentId"); id.IsString() && !id.Str().Empty() {
		a = append(a, receipt.Attr{Key: "subagent.agent_id", Value: receipt.S(c.Pass(leak.ID, id.Str()))})
		spanAttrs = append(spanAttrs, receipt.Attr{Key: "subagent.id", Value: receipt.S(c.Pass(leak.ID, id.Str()))})
	}
	// The subagent's type: the one key of an object, or a string.
	var kind view.Text
	kinds := 0
	if st := args.Get("subagentType"); st.IsObject() {
		st.ForEach(func(k, _ view.Value) bool {
			kind = k.Str()
			kinds++
			return true
		})
	} else if st.IsString() {
		kind, kinds = st.Str(), 1
	}
	if kinds == 1 {
		written := kind.Digest(c.Hasher)
		if kind.Is("unspecified") {
			written = "unspecified"
		} else if c.Env.RevealNames {
			if s, ok := kind.Admit(leak.Name); ok {
				written = s
			}
		}
		a = append(a, receipt.Attr{Key: "subagent.type", Value: receipt.S(written)})
	}
	if d := args.Get("description"); d.IsString() {
		a = append(a, receipt.Attr{Key: "subagent.description_hash", Value: receipt.S(d.Str().Digest(c.Hasher))})
	}
	if p := args.Get("prompt"); p.IsString() {
		a = append(a, receipt.Attr{Key: "subagent.prompt_hash", Value: receipt.S(p.Str().Digest(c.Hasher))})
	}
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: t.agent, Parent: t.key, Name: "invoke_agent", Kind: 1, Start: r.NS, End: r.NS, Attrs: spanAttrs})
	c.Emit(r, t.agent, "subagent.spawned", a)
	c.counts["subagents"]++
}

// cursorOutcomes are the result kinds Cursor's tool calls report.
var cursorOutcomes = []string{"success", "error", "failure", "rejected", "denied", "cancelled", "canceled",
	"timeout", "aborted", "skipped", "fileNotFound", "notFound", "permissionDenied", "userRejected"}

// finish closes a tool call with its outcome: MCP calls and subagents write
// what crossed back, digested.
func (c *cursorState) finish(r converters.Record, t *cursorTool, status string, outcome view.Value) {
	if t.done {
		return
	}
	t.done = true
	sp := &c.Out.Spans[t.span]
	sp.Cover(r.NS)
	if status != "success" {
		sp.Error = true
		c.counts["failed_tool_calls"]++
	}
	sp.Attrs = append(sp.Attrs, receipt.Attr{Key: "cursor.tool_call.status", Value: receipt.S(c.Pass(leak.Label, view.Borrow(status)))})
	raw := outcome.RawLen()
	if outcome.IsString() {
		raw = outcome.Str().Len()
	}
	switch {
	case t.mcpServer != "" || t.mcpTool != "":
		c.Emit(r, t.key, "mcp.tool_call.completed", events.MCPCall{
			Server: c.NameAttr("mcp.server", view.Borrow(t.mcpServer)), Tool: c.NameAttr("mcp.tool", view.Borrow(t.mcpTool)),
			Status: c.Pass(leak.Label, view.Borrow(status)), ArgsHash: t.mcpArgsHash, ArgsSize: t.mcpArgsSize,
			ResultHash: c.Digest(outcome), ResultSize: raw,
		}.Attrs())
	case t.agent != "":
		st := "success"
		if status != "success" {
			st = "error"
		}
		c.Out.Spans[t.span+1].Cover(r.NS)
		a := events.SubagentReturned(c.Digest(outcome), raw, st, "final_text_returned_to_parent")
		if steps := outcome.Get("conversationSteps"); steps.IsArray() {
			a = append(a, receipt.Attr{Key: "subagent.tool_call_count", Value: receipt.Computed(int64(steps.Len()))})
		}
		a = append(a, events.RawSummaryNotRecorded)
		c.Emit(r, t.key, "subagent.result.returned", a)
	}
}

func (c *cursorState) End(out *converters.Output) error {
	c.Out = out
	if c.Session == "" {
		c.Session = c.fileID
	}
	end := converters.Record{}
	if c.timed && c.clocked {
		c.unclock()
	}
	if !c.timed {
		detail := "cursor_records_have_no_timestamps"
		c.gap(end, "timestamps_not_logged", detail)
	}
	usage := c.usage.Value()
	switch {
	case usage.IsObject():
		u := native.Usage{Input: c.Count(usage.Get("inputTokens")), Output: c.Count(usage.Get("outputTokens")),
			CacheRead: c.Count(usage.Get("cacheReadTokens")), CacheWrite: c.Count(usage.Get("cacheWriteTokens"))}
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized",
			Attrs: events.UsageSummary(c.Pass(leak.Model, view.Borrow(c.modelOr())), u.Tokens(), nil, "terminal_result_usage", "run")})
		u.Root(out)
	case c.stream && c.result:
		c.gap(end, "token_usage_not_logged", "cursor_stream_json_result_has_no_usage")
	case c.stream:
		c.gap(end, "token_usage_not_logged", "cursor_stream_json_has_no_result_record")
	default:
		c.gap(end, "token_usage_not_logged", "cursor_transcripts_have_no_usage")
	}
	var open int64
	for _, t := range c.tools {
		if !t.done {
			open++
		}
	}
	if c.transcript && open > 0 {
		c.gap(end, "tool_results_not_logged", "cursor_transcripts_have_no_tool_results")
	}
	c.RootIdentity(out, "cursor-agent")
	if c.model != "" {
		out.Span.Set("gen_ai.request.model", receipt.S(c.Pass(leak.Model, view.Borrow(c.model))))
	}
	format := "stream_json"
	if c.transcript && !c.stream {
		format = "agent_transcript"
	} else if c.transcript {
		format = "mixed"
	}
	out.Span.Set("cursor.log_format", receipt.S(format))
	native.Tally(out, "cursor", c.counts, []string{"user_prompts", "model_calls", "tool_calls", "failed_tool_calls", "subagents", "turns"}, open)
	for _, k := range []string{"wrapped_queries", "redacted_blocks", "command_outputs"} {
		if n := c.counts[k]; n > 0 {
			out.Span.Set("cursor."+k+".count", receipt.Computed(n))
		}
	}
	c.Summarize(out)
	return nil
}

// unclock takes the record clock's times off the spans of an input whose
// first records had no time and later ones had: the pipeline then writes
// the trace on the records' times, and those spans get the root's start.
func (c *cursorState) unclock() {
	limit := converters.RecordClockEpoch.AddDate(1, 0, 0).UnixNano()
	for i := range c.Out.Spans {
		sp := &c.Out.Spans[i]
		if sp.Start < limit {
			sp.Start = 0
		}
		if sp.End < limit {
			sp.End = 0
		}
	}
}

// chatName names a chat span after its model, or just "chat" when the log
// names none.
func (c *cursorState) chatName() string {
	if c.model == "" {
		return "chat"
	}
	return "chat " + c.Pass(leak.Model, view.Borrow(c.model))
}
