package zcode

import (
	"sort"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

type zcodeState struct {
	native.Base
	counts map[string]int64
	// usage by model, as ccusage counts it: Input without the cache reads
	// and writes; Reasoning is computed_total_tokens beyond input and output.
	usage map[string]*native.Usage
	calls map[string]bool // the rows read, by id
}

func newZcode(env converters.Env) *zcodeState {
	return &zcodeState{Base: native.New(env, zcodeTypes), counts: map[string]int64{}, usage: map[string]*native.Usage{}, calls: map[string]bool{}}
}

func (c *zcodeState) Record(r converters.Record, out *converters.Output) error {
	c.Out = out
	c.CountType(r)
	switch r.Type {
	case "session":
		s := r.Get("zcode_session")
		if id := s.Get("id").Str(); c.Session == "" && !id.Empty() {
			c.Session = c.Pass(leak.IDOrUUID, id)
		}
		c.SeeWorkDir(s.Get("directory").Str())
	case "model_usage":
		c.call(r, r.Get("zcode_model_usage"))
	}
	return nil
}

// call reads a model_usage row: a model call's chat span (started_at to
// completed_at, else started_at plus duration_ms), and its tokens counted
// as ccusage 20.0.24 counts them (doc.go).
func (c *zcodeState) call(r converters.Record, u view.Value) {
	if id := u.Get("session_id").Str(); c.Session == "" && !id.Empty() {
		c.Session = c.Pass(leak.IDOrUUID, id)
	}
	key := "call:" + c.KeyPart(u.Get("id").String())
	if c.calls[key] {
		// The table's key: a row read twice is not a call of its own.
		c.counts["repeated_calls"]++
		return
	}
	c.calls[key] = true
	c.counts["model_calls"]++
	status, _ := u.Get("status").Str().Word(zcodeLabels...)
	if r.NS > 0 {
		end := r.NS
		if done := u.Get("completed_at"); done.IsNumber() && done.Int()*1e6 > r.NS {
			end = done.Int() * 1e6
		} else if d := c.Count(u.Get("duration_ms")); d > 0 {
			end = r.NS + d*1e6
		}
		sp := converters.Span{Key: key, Name: "chat", Kind: 3, Start: r.NS, End: end,
			Attrs: events.ChatSpan("zcode"), Error: status == "error"}
		if sp.Error {
			// The row says only that the call failed: _OTHER, as the
			// conventions name an error of no known class.
			sp.Attrs = append(sp.Attrs, receipt.Attr{Key: "error.type", Value: receipt.S("_OTHER")})
		}
		c.Out.Spans = append(c.Out.Spans, sp)
	}
	if status != "completed" {
		c.counts["calls_not_completed"]++
		return
	}
	model := u.Get("model_id").Str()
	cols := []string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "computed_total_tokens"}
	for _, k := range cols {
		if v := u.Get(k); v.Exists() && !v.IsNumber() {
			model = view.Text{} // ccusage's query fails on the row: not counted
		}
	}
	if model.Empty() || !u.Get("started_at").IsNumber() {
		c.counts["calls_without_counted_usage"]++
		return
	}
	in, out := c.Count(u.Get("input_tokens")), c.Count(u.Get("output_tokens"))
	cr, cw := c.Count(u.Get("cache_read_input_tokens")), c.Count(u.Get("cache_creation_input_tokens"))
	if in == 0 && out == 0 && cr == 0 && cw == 0 {
		c.counts["calls_without_counted_usage"]++
		return
	}
	// The cache reads and writes are parts of input_tokens.
	cr = min(cr, in)
	cw = min(cw, in-cr)
	m := model.Own()
	t := c.usage[m]
	if t == nil {
		t = &native.Usage{}
		c.usage[m] = t
	}
	t.Add(native.Usage{Input: in - cr - cw, Output: out, CacheRead: cr, CacheWrite: cw,
		Reasoning: max(c.Count(u.Get("computed_total_tokens"))-in-out, 0)})
}

func (c *zcodeState) End(out *converters.Output) error {
	c.Out = out
	c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
		events.AuditGap("instruction_loads_not_logged", "zcode_instructions_skills_and_mcp_load_without_a_record"))
	c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
		events.AuditGap("transcript_missing", "zcode_usage_ledger_holds_no_messages_or_tool_calls"))
	models := make([]string, 0, len(c.usage))
	for m := range c.usage {
		models = append(models, m)
	}
	sort.Strings(models)
	var total native.Usage
	for _, m := range models {
		t := c.usage[m]
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized", Attrs: events.UsageSummary(
			c.Pass(leak.Model, view.Borrow(m)), t.Tokens(),
			receipt.Attrs{{Key: "gen_ai.usage.reasoning.output_tokens", Value: receipt.Copied(t.Reasoning)}},
			"model_usage_row_id", "session")})
		total.Add(*t)
	}
	if len(models) == 0 {
		c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
			events.AuditGap("token_usage_not_logged", "zcode_session_has_no_completed_usage"))
	}
	c.RootIdentity(out, "zcode")
	if len(models) > 0 {
		total.CacheIn().Root(out)
	}
	native.Tally(out, "zcode", c.counts, []string{"model_calls", "calls_not_completed", "calls_without_counted_usage"}, 0)
	c.Summarize(out)
	return nil
}

// The audit gaps this reader writes, in the schema of
// context.audit_gap.recorded (see events/eventschema.go).
var _ = events.DeclareEvent("context.audit_gap.recorded", events.EventDecl{Adds: true, Keys: []events.Attr{
	events.SetsProp("context.audit_gap.detail", events.Enum(
		"zcode_instructions_skills_and_mcp_load_without_a_record", "zcode_usage_ledger_holds_no_messages_or_tool_calls",
		"zcode_session_has_no_completed_usage")),
}})

// Each model_usage row is one model call, counted once (its id is the
// table's key).
var _ = events.DeclareEvent("gen_ai.token_usage.summarized", events.EventDecl{Adds: true, Keys: []events.Attr{
	events.SetsProp("gen_ai.usage.dedupe", events.Enum("model_usage_row_id")),
}})
