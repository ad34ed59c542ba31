package hermes

import (
	"strconv"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

type hermesState struct {
	native.Base
	prompted int64
	tools    map[string]*native.Call
	counts   map[string]int64
	model    string
	tokens   native.Usage // the session row's counts, reasoning_tokens in Reasoning
	counted  bool
	child    bool
}

func newHermes(env converters.Env) *hermesState {
	return &hermesState{Base: native.New(env, hermesTypes), tools: map[string]*native.Call{}, counts: map[string]int64{}}
}

func (c *hermesState) Record(r converters.Record, out *converters.Output) error {
	c.Out = out
	c.CountType(r)
	switch r.Type {
	case "session":
		c.session(r.Get("hermes_session"))
	case "message":
		c.message(r, r.Get("hermes_message"))
	}
	return nil
}

// session reads the session row: its id, cwd, lineage and usage, counted
// as ccusage counts it (reader.go).
func (c *hermesState) session(s view.Value) {
	if id := s.Get("id").Str(); c.Session == "" && !id.Empty() {
		c.Session = c.Pass(leak.IDOrUUID, id)
	}
	c.SeeWorkDir(s.Get("cwd").Str())
	c.child = s.Get("parent_session_id").IsString()
	model := s.Get("model").Str() // as read: trimmed, it is no input value
	t := native.Usage{Input: c.Count(s.Get("input_tokens")), Output: c.Count(s.Get("output_tokens")),
		CacheRead: c.Count(s.Get("cache_read_tokens")), CacheWrite: c.Count(s.Get("cache_write_tokens")),
		Reasoning: c.Count(s.Get("reasoning_tokens"))}
	cost := max(s.Get("actual_cost_usd").Float(), s.Get("estimated_cost_usd").Float())
	if model.TrimSpace().Empty() || t.Input == 0 && t.Output == 0 && t.CacheRead == 0 && t.CacheWrite == 0 && t.Reasoning == 0 && cost == 0 {
		c.counts["sessions_without_counted_usage"]++
		return
	}
	c.model, c.tokens, c.counted = model.Own(), t, true
}

// message reads a message by its role.
func (c *hermesState) message(r converters.Record, m view.Value) {
	role, _ := m.Get("role").Str().Word("user", "assistant", "tool", "system")
	if m.Get("compressed_summary").Bool() {
		c.counts["compressions"]++
		if !c.Compaction(r, c.counts["compressions"], "hermes_compression", view.Value{}, m.Get("content")) {
			c.counts["compressions_without_summary"]++
		}
		return
	}
	switch role {
	case "user":
		c.counts["user_prompts"]++
		if r.NS > 0 {
			c.prompted = r.NS
		}
	case "system":
		c.counts["system_messages"]++
	case "assistant":
		c.counts["model_messages"]++
		start := r.NS
		if c.prompted > 0 && c.prompted < r.NS {
			start = c.prompted
		}
		key := "chat:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line)
		c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Name: "chat", Kind: 3, Start: start, End: r.NS, Attrs: events.ChatSpan("hermes")})
		c.prompted = 0
		m.Get("tool_calls").ForEach(func(_, tc view.Value) bool {
			c.openTool(r, key, tc)
			return true
		})
	case "tool":
		if r.NS > 0 {
			c.prompted = r.NS
		}
		t := c.tools["tool:"+c.KeyPart(m.Get("tool_call_id").Str())]
		if t == nil {
			c.counts["results_without_call"]++
			return
		}
		c.FinishCall(r, t, false, m.Get("content"), "hermes.tool_call.status", nil)
	default:
		c.counts["messages_of_other_roles"]++
	}
}

func (c *hermesState) openTool(r converters.Record, parent string, tc view.Value) {
	id := tc.Get("id").Str()
	key, ok := native.CallKey(&c.Base, id, c.tools, c.counts)
	if !ok {
		return
	}
	call := c.OpenCall(r, key, parent, id, tc.Get("function.name").Str(), tc.Get("function.arguments"), hermesBuiltinTools)
	c.tools[key] = &call
}

func (c *hermesState) End(out *converters.Output) error {
	c.Out = out
	c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
		events.AuditGap("instruction_loads_not_logged", "hermes_system_prompt_memory_and_context_files_load_without_a_message"))
	if c.counted {
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized", Attrs: events.UsageSummary(
			c.Pass(leak.Model, view.Borrow(c.model)), c.tokens.Tokens(),
			receipt.Attrs{{Key: "gen_ai.usage.reasoning.output_tokens", Value: receipt.Copied(c.tokens.Reasoning)}},
			"session_row_totals", "session")})
	} else {
		c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
			events.AuditGap("token_usage_not_logged", "hermes_session_has_no_counted_usage"))
	}
	c.RootIdentity(out, "hermes-agent")
	if c.counted {
		out.Span.Set("gen_ai.request.model", receipt.S(c.Pass(leak.Model, view.Borrow(c.model))))
		c.tokens.CacheIn().Root(out)
	}
	if c.child {
		out.Span.Set("hermes.parent_session", receipt.B(true))
	}
	native.Tally(out, "hermes", c.counts, []string{"user_prompts", "model_messages", "tool_calls", "compressions", "system_messages"},
		native.Unfinished(c.tools, func(t *native.Call) bool { return t.Done }))
	c.Summarize(out)
	return nil
}

// The audit gaps this reader writes, in the schema of
// context.audit_gap.recorded (see events/eventschema.go).
var _ = events.DeclareEvent("context.audit_gap.recorded", events.EventDecl{Adds: true, Keys: []events.Attr{
	events.SetsProp("context.audit_gap.detail", events.Enum(
		"hermes_system_prompt_memory_and_context_files_load_without_a_message", "hermes_session_has_no_counted_usage")),
}})

// The session row's totals are Hermes's own, counted once per session.
var _ = events.DeclareEvent("gen_ai.token_usage.summarized", events.EventDecl{Adds: true, Keys: []events.Attr{
	events.SetsProp("gen_ai.usage.dedupe", events.Enum("session_row_totals")),
}})
