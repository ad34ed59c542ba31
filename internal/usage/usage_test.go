package usage

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tidwall/gjson"
)

// TestSummaryOneModel: input never holds the cache, whatever the agent's
// convention; the names the receipt writes are read once here.
func TestSummaryOneModel(t *testing.T) {
	for _, tc := range []struct {
		name, attrs string
		want        Tokens
	}{
		{"claude code: input apart from the cache",
			`{"gen_ai.request.model":"claude-opus-4-7","gen_ai.usage.input_tokens":7,"gen_ai.usage.output_tokens":50,"gen_ai.usage.cache_read.input_tokens":900,"gen_ai.usage.cache_creation.input_tokens":40,"gen_ai.usage.dedupe":"message_id_and_request_id_largest_output"}`,
			Tokens{Input: 7, Output: 50, CacheRead: 900, CacheWrite: 40}},
		{"codex: cached tokens inside input are taken out",
			`{"gen_ai.request.model":"gpt-5.5","gen_ai.usage.input_tokens":1000,"gen_ai.usage.output_tokens":30,"gen_ai.usage.cache_read.input_tokens":940,"gen_ai.usage.cache_creation.input_tokens":0,"gen_ai.usage.reasoning.output_tokens":12,"gen_ai.usage.dedupe":"cumulative_total_deltas"}`,
			Tokens{Input: 60, Output: 30, CacheRead: 940, Reasoning: 12}},
		{"gemini cli: cached tokens inside the prompt count are taken out",
			`{"gen_ai.request.model":"gemini-2.5-pro","gen_ai.usage.input_tokens":500,"gen_ai.usage.output_tokens":20,"gen_ai.usage.cache_read.input_tokens":300,"gen_ai.usage.reasoning.output_tokens":9,"gen_ai.usage.dedupe":"message_id_last_record"}`,
			Tokens{Input: 200, Output: 20, CacheRead: 300, Reasoning: 9}},
		{"copilot cli: cache reads and writes inside the shutdown's inputTokens are taken out",
			`{"gen_ai.request.model":"m","gen_ai.usage.input_tokens":152000,"gen_ai.usage.output_tokens":574,"gen_ai.usage.cache_read.input_tokens":98000,"gen_ai.usage.cache_creation.input_tokens":12000,"gen_ai.usage.dedupe":"shutdown_model_metrics"}`,
			Tokens{Input: 42000, Output: 574, CacheRead: 98000, CacheWrite: 12000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := gjson.Parse(tc.attrs)
			_, got := Summary(func(k string) gjson.Result { return a.Get(gjson.Escape(k)) })
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

// chat writes a chat span as the converters do: GenAI input (cache inside).
func chat(id, model string, in, out, cr, cw int64) map[string]any {
	attr := func(k string, v any) map[string]any {
		if s, ok := v.(string); ok {
			return map[string]any{"key": k, "value": map[string]any{"stringValue": s}}
		}
		return map[string]any{"key": k, "value": map[string]any{"intValue": fmt.Sprint(v)}}
	}
	return map[string]any{"name": "chat " + model, "startTimeUnixNano": "1780000000000000000", "endTimeUnixNano": "1780000001000000000", "attributes": []any{
		attr("gen_ai.operation.name", "chat"), attr("gen_ai.request.model", model), attr("gen_ai.response.id", id), attr("anthropic.request.id", "req_"+id),
		attr("gen_ai.usage.input_tokens", in+cr+cw), attr("gen_ai.usage.output_tokens", out),
		attr("gen_ai.usage.cache_read.input_tokens", cr), attr("gen_ai.usage.cache_write.input_tokens", cw),
	}}
}

func trace(spans ...map[string]any) []byte {
	ss := []any{}
	for _, s := range spans {
		ss = append(ss, s)
	}
	doc, _ := json.Marshal(map[string]any{"resourceSpans": []any{map[string]any{"scopeSpans": []any{map[string]any{"spans": ss}}}}})
	return doc
}

func TestResponsesReadBothTraceFormats(t *testing.T) {
	root := map[string]any{"name": "invoke_agent x", "attributes": []any{
		map[string]any{"key": "gen_ai.operation.name", "value": map[string]any{"stringValue": "invoke_agent"}},
		map[string]any{"key": "gen_ai.usage.input_tokens", "value": map[string]any{"intValue": "999"}},
	}}
	noID := chat("", "m", 1, 2, 0, 0)
	doc := trace(root, chat("msg_A", "m", 3, 4, 100, 10), map[string]any{"name": "execute_tool x", "attributes": []any{}}, noID)
	one := Responses(doc)
	lines := Responses([]byte(string(doc) + "\n" + string(trace(chat("msg_B", "m", 1, 1, 0, 0))) + "\n"))
	if len(one) != 2 || one[0].ID != "msg_A" || one[0].Request != "req_msg_A" || one[1].ID != "" || one[1].Tokens.Output != 2 || one[0].Tokens != (Tokens{Input: 3, Output: 4, CacheRead: 100, CacheWrite: 10}) || one[0].At.IsZero() {
		t.Errorf("one document: %+v", one)
	}
	if len(lines) != 3 || lines[2].ID != "msg_B" {
		t.Errorf("one document a line: %+v", lines)
	}
}

// TestFoldCountsEachResponseOnce: a resumed copy's responses fold into the
// original's, the larger copy of a streamed response is kept, and the
// totals do not depend on the order sessions come in.
func TestFoldCountsEachResponseOnce(t *testing.T) {
	orig := []Response{{ID: "msg_1", Request: "req_1", Model: "m", Tokens: Tokens{Input: 1, Output: 10}}, {ID: "msg_2", Request: "req_2", Model: "m", Tokens: Tokens{Output: 20, CacheRead: 5}}}
	resumed := []Response{{ID: "msg_1", Request: "req_1", Model: "m", Tokens: Tokens{Input: 1, Output: 10}}, {ID: "msg_2", Request: "req_2", Model: "m", Tokens: Tokens{Output: 25, CacheRead: 5}}, {ID: "msg_3", Request: "req_3", Model: "m", Tokens: Tokens{Output: 7}}}
	resumed = append(resumed, Response{Model: "m", Tokens: Tokens{Output: 1}}, Response{Model: "m", Tokens: Tokens{Output: 1}}) // no id: never folded
	sessions := [][]Response{orig, resumed}
	var sum Tokens
	for _, s := range sessions {
		for _, r := range s {
			sum.Add(r.Tokens)
		}
	}
	want := Tokens{Input: 1, Output: 10 + 25 + 7 + 2, CacheRead: 5}
	for _, order := range [][]int{{0, 1}, {1, 0}} {
		var f Fold
		for _, i := range order {
			f.Add(i, sessions[i])
		}
		got := sum
		for _, rs := range f.Folded() {
			for _, r := range rs {
				got.Sub(r.Tokens)
			}
		}
		if got != want || f.Duplicates() != 2 {
			t.Errorf("order %v: %+v, %d folded; want %+v, 2", order, got, f.Duplicates(), want)
		}
		folded := f.Folded()
		if len(folded[0]) != 1 || folded[0][0].ID != "msg_2" || len(folded[1]) != 1 || folded[1][0].ID != "msg_1" {
			t.Errorf("order %v: the smaller copy of msg_2 and the later copy of msg_1 must go: %+v", order, folded)
		}
	}
}

// TestFoldKeyIsMessageAndRequest: responses fold across sessions only on
// the pair (message id, request id), as ccusage 20.0.24 folds Claude Code
// rows across files: the same message id under another request id is
// another response, and one without a request id (or without a message id)
// is never folded. The figures are written from that rule.
func TestFoldKeyIsMessageAndRequest(t *testing.T) {
	r := func(id, req string, out int64) Response {
		return Response{ID: id, Request: req, Model: "m", Tokens: Tokens{Input: 1, Output: out, CacheRead: 100, CacheWrite: 10}}
	}
	a := []Response{r("msg_1", "req_1", 10), r("msg_2", "req_2", 20), r("msg_3", "", 30)}
	b := []Response{r("msg_1", "req_1", 10), r("msg_2", "req_9", 20), r("msg_3", "", 30), r("msg_4", "req_4", 40), r("", "req_5", 50)}
	var f Fold
	f.Add(0, a)
	f.Add(1, b)
	folded := f.Folded()
	if f.Duplicates() != 1 || len(folded[0]) != 0 || len(folded[1]) != 1 || folded[1][0].ID != "msg_1" || folded[1][0].Request != "req_1" {
		t.Fatalf("only msg_1/req_1 of the later session folds: %d folded, %+v", f.Duplicates(), folded)
	}
	var total Tokens
	for _, s := range [][]Response{a, b} {
		for _, x := range s {
			total.Add(x.Tokens)
		}
	}
	for _, x := range folded[1] {
		total.Sub(x.Tokens)
	}
	// 8 responses less msg_1's copy: 7 responses, output 10+20+30+20+30+40+50.
	if want := (Tokens{Input: 7, Output: 200, CacheRead: 700, CacheWrite: 70}); total != want {
		t.Errorf("totals %+v, want %+v", total, want)
	}
}
