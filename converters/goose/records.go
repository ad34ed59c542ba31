package goose

import (
	"strconv"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

type gooseState struct {
	native.Base
	prompted int64 // time of the last prompt or tool result: the next chat span starts there
	tools    map[string]*native.Call
	counts   map[string]int64
	model    string
	tokens   native.Usage // Reasoning: the total beyond input and output
	counted  bool         // the session row's usage counts (ccusage's rules)
	subagent bool
}

func newGoose(env converters.Env) *gooseState {
	return &gooseState{Base: native.New(env, gooseTypes), tools: map[string]*native.Call{}, counts: map[string]int64{}}
}

func (c *gooseState) Record(r converters.Record, out *converters.Output) error {
	c.Out = out
	c.CountType(r)
	switch r.Type {
	case "session":
		c.session(r.Get("goose_session"))
	case "message":
		c.message(r, r.Get("goose_message"))
	}
	return nil
}

// session reads the session row: its id, working directory, type and
// usage, counted as ccusage counts it (reader.go).
func (c *gooseState) session(s view.Value) {
	if id := s.Get("id").Str(); c.Session == "" && !id.Empty() {
		c.Session = c.Pass(leak.IDOrUUID, id)
	}
	c.SeeWorkDir(s.Get("working_dir").Str())
	if s.Get("session_type").Str().Is("sub_agent") {
		c.subagent = true
	}
	model := s.Get("model_config.model_name").Str() // as read: trimmed, it is no input value
	first := func(keys ...string) view.Value {
		for _, k := range keys {
			if v := s.Get(k); v.IsNumber() {
				return v
			}
		}
		return view.Value{}
	}
	in := c.Count(first("accumulated_input_tokens", "input_tokens"))
	outT := c.Count(first("accumulated_output_tokens", "output_tokens"))
	total := in + outT
	if t := first("accumulated_total_tokens", "total_tokens"); t.Exists() {
		total = c.Count(t)
	}
	if model.TrimSpace().Empty() || in == 0 && outT == 0 && total == 0 {
		c.counts["sessions_without_counted_usage"]++
		return
	}
	c.model = model.Own()
	c.tokens = native.Usage{Input: in, Output: outT, Reasoning: max(total-in-outT, 0)}
	c.counted = true
}

// message reads a message: a prompt, or a model response with its tool
// requests; tool responses close the calls they name.
func (c *gooseState) message(r converters.Record, m view.Value) {
	role, _ := m.Get("role").Str().Word("user", "assistant")
	content := m.Get("content")
	key := ""
	switch role {
	case "assistant":
		c.counts["model_messages"]++
		start := r.NS
		if c.prompted > 0 && c.prompted < r.NS {
			start = c.prompted
		}
		key = "chat:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line)
		c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Name: "chat", Kind: 3, Start: start, End: r.NS, Attrs: events.ChatSpan("goose")})
		c.prompted = 0
	case "user":
		prompt := false
		content.ForEach(func(_, p view.Value) bool {
			prompt = prompt || p.Get("type").Str().Is("text")
			return true
		})
		if prompt {
			c.counts["user_prompts"]++
		}
		if r.NS > 0 {
			c.prompted = r.NS
		}
	default:
		c.counts["messages_of_other_roles"]++
	}
	content.ForEach(func(_, p view.Value) bool {
		t, _ := p.Get("type").Str().Word(gooseLabels...)
		switch t {
		case "toolRequest":
			c.openTool(r, key, p)
		case "toolResponse":
			c.finishTool(r, p)
		case "thinking", "redactedThinking":
			c.counts["thinking_parts"]++
		case "conversationCompacted", "summarizationRequested":
			c.counts["compaction_notices"]++
		case "image":
			c.counts["images"]++
		}
		return true
	})
}

// openTool opens a tool request's execute_tool span: Goose names every
// tool <extension>__<tool>, an MCP server's tool, read as mcp__<extension>__<tool>.
func (c *gooseState) openTool(r converters.Record, parent string, p view.Value) {
	id := p.Get("id").Str()
	key, ok := native.CallKey(&c.Base, id, c.tools, c.counts)
	if !ok {
		return
	}
	name := p.Get("toolCall.value.name").Str()
	if s, t, ok := name.Cut("__"); ok && !s.Empty() && !t.Empty() {
		name = view.Borrow("mcp__" + name.Own()) // owned: a document of its own
	}
	call := c.OpenCall(r, key, parent, id, name, p.Get("toolCall.value.arguments"), nil)
	c.tools[key] = &call
}

// finishTool closes the call a tool response names.
func (c *gooseState) finishTool(r converters.Record, p view.Value) {
	if r.NS > 0 {
		c.prompted = r.NS
	}
	t := c.tools["tool:"+c.KeyPart(p.Get("id").Str())]
	if t == nil {
		c.counts["results_without_call"]++
		return
	}
	res := p.Get("toolResult")
	failed := !res.Get("status").Str().Is("success")
	switch c.FinishCall(r, t, failed, res, "goose.tool_call.status", nil) {
	case "error":
		c.counts["failed_tool_calls"]++
	case "success":
		if t.MCPServer != "" {
			c.counts["mcp_calls"]++
		}
	}
}

func (c *gooseState) End(out *converters.Output) error {
	c.Out = out
	c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
		events.AuditGap("instruction_loads_not_logged", "goose_hints_and_system_prompt_load_without_a_record"))
	if c.counted {
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized", Attrs: events.UsageSummary(
			c.Pass(leak.Model, view.Borrow(c.model)), c.tokens.Tokens(),
			receipt.Attrs{{Key: "gen_ai.usage.reasoning.output_tokens", Value: receipt.Copied(c.tokens.Reasoning)}},
			"session_row_totals", "session")})
	} else {
		c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
			events.AuditGap("token_usage_not_logged", "goose_session_has_no_counted_usage"))
	}
	c.RootIdentity(out, "goose")
	if c.counted {
		out.Span.Set("gen_ai.request.model", receipt.S(c.Pass(leak.Model, view.Borrow(c.model))))
		c.tokens.CacheIn().Root(out)
	}
	if c.subagent {
		out.Span.Set("goose.subagent_session", receipt.B(true))
	}
	native.Tally(out, "goose", c.counts, []string{"user_prompts", "model_messages", "tool_calls", "failed_tool_calls", "mcp_calls",
		"thinking_parts", "compaction_notices"}, native.Unfinished(c.tools, func(t *native.Call) bool { return t.Done }))
	c.Summarize(out)
	return nil
}

// The audit gaps this reader writes, in the schema of
// context.audit_gap.recorded (see events/eventschema.go).
var _ = events.DeclareEvent("context.audit_gap.recorded", events.EventDecl{Adds: true, Keys: []events.Attr{
	events.SetsProp("context.audit_gap.detail", events.Enum(
		"goose_hints_and_system_prompt_load_without_a_record", "goose_session_has_no_counted_usage")),
}})

// The session row's totals are Goose's own, counted once per session.
var _ = events.DeclareEvent("gen_ai.token_usage.summarized", events.EventDecl{Adds: true, Keys: []events.Attr{
	events.SetsProp("gen_ai.usage.dedupe", events.Enum("session_row_totals")),
}})
