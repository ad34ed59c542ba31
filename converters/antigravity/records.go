package antigravity

import (
	"strconv"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// defaultModel names a response whose model nothing names, as ccusage does.
const defaultModel = "gemini-internal-model"

// response is the usage of one model response (or a retry of one), as
// ccusage counts it: input, visible output, cache creation and reads,
// and the total output, whose rest beyond the visible output is reasoning.
type response struct {
	model                                        string
	fromStep                                     bool // a step's: its model falls back on the generations'
	input, output, cacheWrite, cacheRead, reason int64
	totalOut                                     int64
	ids                                          []string // response:, provider:, message: identities
}

type antigravityState struct {
	native.Base
	counts    map[string]int64
	responses []*response
	genModel  string // the last generation's model: what a step naming none used
	curModel  string // the model of the generations so far
	prev      int64  // the time of the step before: a response's chat span starts there
}

func newAntigravity(env converters.Env) *antigravityState {
	return &antigravityState{Base: native.New(env, antigravityTypes), counts: map[string]int64{}}
}

func (c *antigravityState) Record(r converters.Record, out *converters.Output) error {
	c.Out = out
	c.CountType(r)
	switch r.Type {
	case "conversation":
		if id := r.Get("antigravity_conversation.id").Str(); c.Session == "" && !id.Empty() {
			c.Session = c.Pass(leak.IDOrUUID, id)
		}
	case "step":
		c.step(r, r.Get("antigravity_step"))
	case "generation":
		c.generation(r.Get("antigravity_generation"))
	}
	return nil
}

// modelOf is the model a step's or a generation's metadata names: its
// label (as read: a trimmed label is no input value, so it could be
// written neither in clear nor as the input's digest), else its model id.
func modelOf(v view.Value) string {
	if m := v.Get("model").Str(); !m.TrimSpace().Empty() {
		return m.Own()
	}
	if id := v.Get("model_id"); id.IsNumber() && id.Int() > 0 {
		return "antigravity-model-" + strconv.FormatInt(id.Int(), 10)
	}
	return ""
}

// step reads a step: its usage and retries (a model response: a chat
// span from the step before), whether it ran a subtrajectory (a
// subagent's).
func (c *antigravityState) step(r converters.Record, s view.Value) {
	c.counts["steps"]++
	if s.Get("subtrajectory").Bool() {
		c.counts["subagent_steps"]++
	}
	model := modelOf(s)
	if s.Get("usage").IsObject() {
		c.counts["model_responses"]++
		c.add(s.Get("usage"), model, true)
		if r.NS > 0 {
			start := r.NS
			if c.prev > 0 && c.prev < r.NS {
				start = c.prev
			}
			c.Out.Spans = append(c.Out.Spans, converters.Span{Key: "chat:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line),
				Name: "chat", Kind: 3, Start: start, End: r.NS, Attrs: events.ChatSpan("antigravity")})
		}
	}
	if r.NS > 0 {
		c.prev = r.NS
	}
	s.Get("retries").ForEach(func(_, u view.Value) bool {
		c.counts["retries"]++
		c.add(u, model, true)
		return true
	})
}

// generation reads a generation's metadata: its model becomes the
// current one, its usage and retries counted under it.
func (c *antigravityState) generation(g view.Value) {
	c.counts["generations"]++
	model := modelOf(g)
	if model == "" {
		if id := g.Get("usage.model_id"); id.IsNumber() && id.Int() > 0 {
			model = "antigravity-model-" + strconv.FormatInt(id.Int(), 10)
		}
	}
	if model != "" {
		c.curModel, c.genModel = model, model
	}
	c.add(g.Get("usage"), c.curModel, false)
	g.Get("retries").ForEach(func(_, u view.Value) bool {
		c.counts["retries"]++
		c.add(u, c.curModel, false)
		return true
	})
}

// add counts one usage, as ccusage's append_usage_event does: none of
// its counts set, it is no response; the total output is at least the
// visible output and reasoning, the output the visible output or what the
// total leaves beyond reasoning, reasoning the rest.
func (c *antigravityState) add(u view.Value, model string, fromStep bool) {
	if !u.IsObject() {
		return
	}
	in, totalOut := c.Count(u.Get("input")), c.Count(u.Get("total_output"))
	cw, cr := c.Count(u.Get("cache_creation")), c.Count(u.Get("cache_read"))
	reason, visible := c.Count(u.Get("reasoning")), c.Count(u.Get("visible_output"))
	if in == 0 && totalOut == 0 && cw == 0 && cr == 0 && reason == 0 && visible == 0 {
		return
	}
	totalOut = max(totalOut, visible+reason)
	output := max(visible, totalOut-reason)
	reason = max(reason, totalOut-output)
	r := &response{model: model, fromStep: fromStep, input: in, output: output, cacheWrite: cw, cacheRead: cr, reason: reason, totalOut: totalOut}
	for _, k := range []string{"response", "provider", "message"} {
		key := map[string]string{"response": "response_id", "provider": "provider_message_id", "message": "message_id"}[k]
		if id := u.Get(key).Str(); !id.Empty() {
			r.ids = append(r.ids, k+":"+id.Own())
		}
	}
	c.responses = append(c.responses, r)
}

// merged are the responses once copies of one response (sharing a
// response, provider or message identity: a step's and its generation's,
// or a retry recorded twice) are one, as ccusage merges them: each count
// the largest of the copies, the first copy's model unless it had none.
func (c *antigravityState) merged() []*response {
	var out []*response
	seen := map[string]*response{}
	for _, r := range c.responses {
		if r.model == "" && r.fromStep {
			r.model = c.genModel
		}
		if r.model == "" {
			r.model = defaultModel
		}
		var into *response
		for _, id := range r.ids {
			if into = seen[id]; into != nil {
				break
			}
		}
		if into == nil {
			out = append(out, r)
			for _, id := range r.ids {
				seen[id] = r
			}
			continue
		}
		c.counts["merged_copies"]++
		into.input = max(into.input, r.input)
		into.output = max(into.output, r.output)
		into.cacheWrite = max(into.cacheWrite, r.cacheWrite)
		into.cacheRead = max(into.cacheRead, r.cacheRead)
		into.reason = max(into.reason, r.reason)
		into.totalOut = max(into.totalOut, r.totalOut, into.output+into.reason)
		if into.model == defaultModel && r.model != defaultModel {
			into.model = r.model
		}
		for _, id := range r.ids {
			if seen[id] == nil {
				seen[id] = into
			}
		}
	}
	return out
}

func (c *antigravityState) End(out *converters.Output) error {
	c.Out = out
	c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
		events.AuditGap("instruction_loads_not_logged", "antigravity_rules_and_system_prompt_in_undecoded_step_payloads"))
	c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
		events.AuditGap("tool_results_not_logged", "antigravity_tool_calls_and_results_in_undecoded_step_payloads"))
	// One summary per model, in the order the models first answered.
	var models []string
	byModel := map[string]*native.Usage{} // Reasoning: total output beyond the visible
	var total native.Usage
	for _, r := range c.merged() {
		t := byModel[r.model]
		if t == nil {
			t = &native.Usage{}
			byModel[r.model] = t
			models = append(models, r.model)
		}
		v := native.Usage{Input: r.input, Output: r.output, CacheRead: r.cacheRead, CacheWrite: r.cacheWrite,
			Reasoning: r.totalOut - r.output}
		t.Add(v)
		total.Add(v)
	}
	for _, m := range models {
		t := byModel[m]
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized", Attrs: events.UsageSummary(
			c.Pass(leak.Model, view.Borrow(m)), t.Tokens(),
			receipt.Attrs{{Key: "gen_ai.usage.reasoning.output_tokens", Value: receipt.Copied(t.Reasoning)}},
			"largest_copy_by_identity", "session")})
	}
	if len(models) == 0 {
		c.Emit(converters.Record{}, "", "context.audit_gap.recorded",
			events.AuditGap("token_usage_not_logged", "antigravity_steps_and_generations_have_no_usage"))
	}
	c.RootIdentity(out, "antigravity")
	if len(models) > 0 {
		out.Span.Set("gen_ai.request.model", receipt.S(c.Pass(leak.Model, view.Borrow(models[len(models)-1]))))
		total.CacheIn().Root(out)
	}
	native.Tally(out, "antigravity", c.counts, []string{"steps", "model_responses", "generations", "retries", "merged_copies",
		"subagent_steps"}, 0)
	c.Summarize(out)
	return nil
}

// The audit gaps this reader writes, in the schema of
// context.audit_gap.recorded (see events/eventschema.go).
var _ = events.DeclareEvent("context.audit_gap.recorded", events.EventDecl{Adds: true, Keys: []events.Attr{
	events.SetsProp("context.audit_gap.detail", events.Enum(
		"antigravity_rules_and_system_prompt_in_undecoded_step_payloads",
		"antigravity_tool_calls_and_results_in_undecoded_step_payloads",
		"antigravity_steps_and_generations_have_no_usage")),
}})

// Copies of one response are merged by its identities, each count the
// largest copy's (ccusage's rule).
var _ = events.DeclareEvent("gen_ai.token_usage.summarized", events.EventDecl{Adds: true, Keys: []events.Attr{
	events.SetsProp("gen_ai.usage.dedupe", events.Enum("largest_copy_by_identity")),
}})
