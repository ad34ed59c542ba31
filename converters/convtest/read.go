package convtest

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/internal/pipeline"
)

// Span is one span of a trace.
type Span struct {
	ID, Parent, Name string
	Events           []string // its events' names, in order
	Error            bool     // its status is an error
	Attrs            gjson.Result
}

// Attr is the span's attribute key as a string ("" when absent).
func (s Span) Attr(key string) string {
	var v string
	s.Attrs.ForEach(func(_, a gjson.Result) bool {
		if a.Get("key").Str != key {
			return true
		}
		for _, k := range []string{"stringValue", "intValue", "boolValue"} {
			if x := a.Get("value." + k); x.Exists() {
				v = x.String()
			}
		}
		return false
	})
	return v
}

// Spans are the spans of an OTLP/JSON trace, by span id.
func Spans(trace []byte) map[string]Span {
	out := map[string]Span{}
	gjson.GetBytes(trace, "resourceSpans.0.scopeSpans.0.spans").ForEach(func(_, s gjson.Result) bool {
		var evs []string
		s.Get("events").ForEach(func(_, e gjson.Result) bool { evs = append(evs, e.Get("name").Str); return true })
		id := s.Get("spanId").Str
		out[id] = Span{id, s.Get("parentSpanId").Str, s.Get("name").Str, evs, s.Get("status.code").Int() == 2, s.Get("attributes")}
		return true
	})
	return out
}

// Chain is the names from span id up to the root:
// "invoke_agent < execute_tool Agent < invoke_agent claude-code"; a parent
// the trace lacks ends it with "< MISSING".
func Chain(spans map[string]Span, id string) string {
	var names []string
	for id != "" {
		s, ok := spans[id]
		if !ok {
			return strings.Join(names, " < ") + " < MISSING"
		}
		names = append(names, s.Name)
		id = s.Parent
	}
	return strings.Join(names, " < ")
}

// WithEvent are the ids of the spans that carry an event called event.
func WithEvent(spans map[string]Span, event string) []string {
	var out []string
	for id, s := range spans {
		for _, e := range s.Events {
			if e == event {
				out = append(out, id)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// Events are a receipt's events called name, in order.
func Events(receipt []byte, name string) []gjson.Result {
	var out []gjson.Result
	for _, l := range bytes.Split(receipt, []byte{'\n'}) {
		if e := gjson.ParseBytes(l); e.Get("name").Str == name {
			out = append(out, e)
		}
	}
	return out
}

// Attr is attribute key of a receipt event ("gen_ai.request.model").
func Attr(e gjson.Result, key string) gjson.Result {
	return e.Get("attributes." + strings.ReplaceAll(key, ".", `\.`))
}

// Usage sums a receipt's gen_ai.token_usage.summarized events by model:
// "in=49 out=3011 cache_read=174100 cache_write=29560 responses=7".
// The model "" holds the sum over every model.
func Usage(receipt []byte) map[string]string {
	type sum struct{ in, out, cr, cw, resp int64 }
	sums := map[string]*sum{"": {}}
	for _, e := range Events(receipt, "gen_ai.token_usage.summarized") {
		m := Attr(e, "gen_ai.request.model").Str
		if sums[m] == nil {
			sums[m] = &sum{}
		}
		for _, s := range []*sum{sums[m], sums[""]} {
			s.in += Attr(e, "gen_ai.usage.input_tokens").Int()
			s.out += Attr(e, "gen_ai.usage.output_tokens").Int()
			s.cr += Attr(e, "gen_ai.usage.cache_read.input_tokens").Int()
			s.cw += Attr(e, "gen_ai.usage.cache_creation.input_tokens").Int()
			s.resp += Attr(e, "gen_ai.usage.responses").Int()
		}
	}
	out := map[string]string{}
	for m, s := range sums {
		out[m] = fmt.Sprintf("in=%d out=%d cache_read=%d cache_write=%d responses=%d", s.in, s.out, s.cr, s.cw, s.resp)
	}
	return out
}

// outlineKeys are the attributes an outline line shows.
var outlineKeys = []string{"mcp.tool_call.status", "subagent.link", "subagent.result.status", "context.audit_gap", "context.audit_gap.detail",
	"gen_ai.request.model", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "gen_ai.usage.cache_read.input_tokens",
	"gen_ai.usage.cache_creation.input_tokens", "gen_ai.usage.reasoning.output_tokens", "gen_ai.usage.dedupe", "context.input.kind",
	"context.input.duplicate.role", "gemini_cli.tool_call.status", "gemini_cli.rewound", "copilot_cli.tool_call.status",
	"context.compaction.token_count.after_bucket", "gen_ai.tool.name", "gen_ai.tool.type", "gemini_cli.tool_call.exit_nonzero",
	"gemini_cli.user_prompts.count", "gemini_cli.tool_responses.count", "gemini_cli.slash_commands.count", "copilot_cli.user_prompts.count",
	"copilot_cli.usage.all_shutdowns.input_tokens", "copilot_cli.usage.all_shutdowns.output_tokens", "copilot_cli.usage.all_shutdowns.count",
	"copilot_cli.usage.call_records.input_tokens", "copilot_cli.usage.call_records.output_tokens",
	"copilot_cli.billing.nano_aiu", "copilot_cli.billing.premium_count"}

// Outline is what a conversion says, one sorted line per event and span,
// with the attributes mapping tests look at: "event NAME k=v ...",
// "span NAME < PARENT < ... [error] k=v ..." and "summary types=...".
// A failed conversion fails t.
func Outline(t *testing.T, res pipeline.Result) []string {
	t.Helper()
	if res.Err != nil {
		t.Fatalf("conversion failed: %v", res.Err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(res.Receipt))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		e := gjson.ParseBytes(sc.Bytes())
		if e.Get("name").Str == "convert.summary" {
			out = append(out, "summary types="+Attr(e, "convert.input.record_types").Raw)
			continue
		}
		l := "event " + e.Get("name").Str
		for _, k := range outlineKeys {
			if v := Attr(e, k); v.Exists() {
				l += " " + k + "=" + v.String()
			}
		}
		out = append(out, l)
	}
	spans := Spans(res.Trace)
	for id, s := range spans {
		l := "span " + Chain(spans, id)
		if s.Error {
			l += " [error]"
		}
		for _, k := range outlineKeys {
			if v := s.Attr(k); v != "" {
				l += " " + k + "=" + v
			}
		}
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}

// ExpectOutline fails t unless converter was detected, every want has an
// Outline line holding all its parts, no line holds a not, and NoCanary
// holds.
func ExpectOutline(t *testing.T, res pipeline.Result, converter string, want [][]string, not []string) {
	t.Helper()
	if res.Converter != converter {
		t.Fatalf("detected %q (%v), want %s", res.Converter, res.Err, converter)
	}
	got := Outline(t, res)
	for _, w := range want {
		if !Has(got, w...) {
			t.Errorf("no line with %q in\n%s", w, strings.Join(got, "\n"))
		}
	}
	for _, n := range not {
		if Has(got, n) {
			t.Errorf("a line holds %q:\n%s", n, strings.Join(got, "\n"))
		}
	}
	NoCanary(t, res)
}

// Has reports whether some line holds every part of want.
func Has(lines []string, want ...string) bool {
	for _, l := range lines {
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(l, w)
		}
		if ok {
			return true
		}
	}
	return false
}

// SameButInput reports whether two receipts are equal but for their
// summaries' digests, size and path of the input (the same session read
// from another file).
func SameButInput(a, b []byte) bool {
	return bytes.Equal(inputFacts.ReplaceAll(a, nil), inputFacts.ReplaceAll(b, nil))
}

var inputFacts = regexp.MustCompile(`"convert\.input\.(sha256|group_sha256|bytes|path)":("[^"]*"|[0-9]+),?`)
