package kimicli

import (
	"sort"
	"strconv"
	"time"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
)

// Kimi Code, Kimi CLI's successor, keeps a wire per agent of a session:
//
//	~/.kimi-code/sessions/<work dir>/<session id>/agents/<agent>/wire.jsonl
//
// (the main agent's is agents/main). Its lines are records of their own
// shape, camelCase: a {type: metadata, protocolVersion} header, then
// {type, time (Unix milliseconds), ...} records, among them
// context.append_message {message: {role, content}} and, after every
// model call, usage.record {model ("kimi-code/<model>"), usageScope
// ("turn", or "session" for a session's running sum), usage: {inputOther,
// output, inputCacheRead, inputCacheCreation}}.
//
// ccusage 20.0.24 (read from its binary and checked by running it: its
// published adapter predates Kimi Code) reads the wires at that depth
// under ~/.kimi/sessions and ~/.kimi-code/sessions (or KIMI_DATA_DIR), and
// counts, per session id (the folder above agents/: every agent of the
// session in one), the usage.record lines whose usageScope is "turn",
// once per time, model and figures (it names the model without its
// "kimi-code/" prefix, we as written); "session" records (sums) and records without a
// scope are not counted. So does this reader, per wire: a session's
// figures are the sum of its agents' receipts. Each counted record is a
// chat span with its usage; a user's context.append_message is a prompt
// (but for the <system-reminder> bookkeeping Kimi Code appends as the
// user, counted apart).
// Other record types are counted, not mapped.

// kimiCodeType is a Kimi Code record's type: usage.record with its usage
// object, context.append_message with its message; ok reports a line of
// that shape whatever its type.
func kimiCodeType(r converters.Record) (view.Value, bool) {
	t := r.Top("type")
	switch {
	case t.Str().Is("usage.record") && r.Top("usage").IsObject():
		return t, true
	case t.Str().Is("context.append_message") && r.Top("message").IsObject():
		return t, true
	}
	return view.Value{}, false
}

// kimiCodeTime is a Kimi Code record's time: time, Unix milliseconds, as
// an RFC 3339 string; or an ISO timestamp as written.
func kimiCodeTime(r converters.Record) view.Value {
	if ts := r.Top("timestamp"); ts.IsString() {
		return ts
	}
	ms := r.Top("time")
	if !ms.IsNumber() || ms.Float() <= 0 || ms.Float() > 7258118400000 {
		return view.Value{}
	}
	t := time.UnixMilli(ms.Int()).UTC()
	return view.Of(gjson.Result{Type: gjson.String, Str: t.Format(time.RFC3339Nano)})
}

// kimiCodeKey tells one usage.record from another as ccusage does.
type kimiCodeKey struct {
	model, time                          string
	input, output, cacheRead, cacheWrite int64
}

// codeRecord reads a Kimi Code record.
func (c *kimiState) codeRecord(r converters.Record) {
	c.code = true
	switch r.Type {
	case "context.append_message":
		role, _ := r.Get("message.role").Str().Word("user", "assistant", "system", "tool")
		c.counts["appended_messages"]++
		if role == "user" && r.Get("message.content").Str().HasPrefix("<system-reminder>") {
			// Bookkeeping Kimi Code appends as the user: no prompt.
			c.counts["system_reminders"]++
		} else if role == "user" {
			c.counts["user_prompts"]++
			if r.NS > 0 {
				c.prompted = r.NS
			}
		}
	case "usage.record":
		c.codeUsage(r)
	}
}

// codeUsage reads a usage.record: a turn's is a chat span with its usage
// and counts once in its model's totals.
func (c *kimiState) codeUsage(r converters.Record) {
	if !r.Get("usageScope").Str().Is("turn") {
		c.counts["usage_records_not_turn"]++
		return
	}
	u := r.Get("usage")
	v := native.Usage{Input: c.Count(u.Get("inputOther")), Output: c.Count(u.Get("output")),
		CacheRead: c.Count(u.Get("inputCacheRead")), CacheWrite: c.Count(u.Get("inputCacheCreation")), Responses: 1}
	if v.Tokens() == (events.Tokens{}) {
		c.counts["empty_usage"]++
		return
	}
	// The model as written (kimi-code/<model>): ccusage names it without
	// the prefix, which changes no total.
	model := "unknown"
	if m := r.Get("model").Str(); !m.Empty() {
		model = m.Own()
	}
	k := kimiCodeKey{model: model, time: r.Time, input: v.Input, output: v.Output, cacheRead: v.CacheRead, cacheWrite: v.CacheWrite}
	if c.codeSeen[k] {
		c.counts["repeated_usage"]++ // the same record written again: no other call
		return
	}
	c.codeSeen[k] = true
	c.counts["model_calls"]++
	start := r.NS
	if c.prompted > 0 && c.prompted < r.NS {
		start = c.prompted
	}
	name := c.Pass(leak.Model, view.Borrow(model)) // owned
	attrs := append(events.ChatSpan("moonshot"), receipt.Attr{Key: "gen_ai.request.model", Value: receipt.S(name)})
	attrs = append(attrs, v.CacheIn().Chat()...)
	key := "chat:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line)
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Name: "chat " + name, Kind: 3, Start: start, End: r.NS, Attrs: attrs})
	c.prompted = 0
	t := c.codeTotals[model]
	if t == nil {
		t = &native.Usage{}
		c.codeTotals[model] = t
	}
	t.Add(v)
}

// codeSummaries writes the totals per model, and returns their sum.
func (c *kimiState) codeSummaries(out *converters.Output) (sum native.Usage) {
	models := make([]string, 0, len(c.codeTotals))
	for m := range c.codeTotals {
		models = append(models, m)
	}
	sort.Strings(models)
	for _, m := range models {
		t := c.codeTotals[m]
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized", Attrs: events.UsageSummary(
			c.Pass(leak.Model, view.Borrow(m)), // owned
			t.Tokens(), receipt.Attrs{{Key: "gen_ai.usage.responses", Value: receipt.Computed(t.Responses)}},
			"time_model_and_usage", "session")})
		sum.Add(*t)
	}
	return sum
}
