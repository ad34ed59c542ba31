package kimicli_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	_ "github.com/contextreceipts/convert/converters/all"
	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
)

// TestTokenTotalsAgainstCcusage: each sample session's token totals are
// the figures ccusage 20.0.24 printed for it (testdata/ccusage.json).
func TestTokenTotalsAgainstCcusage(t *testing.T) {
	recorded := convtest.RecordedBeside(t)
	testshared.InRepo(t)
	if len(recorded) == 0 {
		t.Fatal("no sessions recorded")
	}
	for _, s := range recorded {
		if s.Session != "" {
			continue // a Kimi Code session of several wires: TestKimiCodeAgainstCcusage
		}
		ins, err := pipeline.Expand([]string{s.Sample})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, in := range ins {
			if strings.TrimSuffix(filepath.Base(in.Path), ".jsonl") != s.Input {
				continue
			}
			found = true
			res := pipeline.Convert(in, pipeline.Options{})
			if res.Err != nil || res.Converter != "kimi_cli" {
				t.Fatalf("%s: %s, %v", in.Path, res.Converter, res.Err)
			}
			if len(in.Companions) != 1 {
				t.Errorf("%s: %d companions, want context.jsonl", in.Path, len(in.Companions))
			}
			got := convtest.ReceiptTotals(res.Receipt)
			if got != s.Ccusage {
				t.Errorf("%s %s: ours %+v, ccusage %+v", s.Sample, s.Input, got, s.Ccusage)
			}
		}
		if !found {
			t.Errorf("%s: no input %s", s.Sample, s.Input)
		}
	}
}

// TestContextAloneIsNoKind: a context.jsonl given alone, whose role and
// content lines are every chat log's, is claimed by no reader; it is
// read only with its session's wire.
func TestContextAloneIsNoKind(t *testing.T) {
	testshared.InRepo(t)
	ctx, err := filepath.Glob("samples/kimi_cli/basic/sessions/*/*/context.jsonl")
	if err != nil || len(ctx) != 1 {
		t.Fatalf("context.jsonl: %v %v", ctx, err)
	}
	res := pipeline.Convert(pipeline.Input{Path: ctx[0], Rel: "context.jsonl"}, pipeline.Options{Converter: "auto"})
	if res.Err == nil || !strings.Contains(res.Err.Error(), converters.ErrNoKind.Error()) {
		t.Fatalf("claimed by %q (error %v)", res.Converter, res.Err)
	}
	res = pipeline.Convert(pipeline.Input{Path: ctx[0], Rel: "context.jsonl"}, pipeline.Options{Converter: "kimi_cli"})
	if res.Err == nil || res.Receipt != nil {
		t.Fatal("converted alone by kimi_cli")
	}
}

// TestLocations: ~/.kimi/sessions and Kimi Code's ~/.kimi-code/sessions,
// or the sessions under KIMI_DATA_DIR instead of both.
func TestLocations(t *testing.T) {
	convtest.Locations(t, "kimi_cli", "KIMI_DATA_DIR", []string{"HOME/.kimi/sessions", "HOME/.kimi-code/sessions"},
		[]string{"ENV/sessions", "ENV/sessions"})
}

// TestKimiCodeAgainstCcusage: a Kimi Code session's wires (one per agent,
// agents/<agent>/wire.jsonl) are each read by kimi_cli as Kimi Code's, and
// their receipts sum to the figures ccusage 20.0.24 printed for the
// session (testdata/ccusage.json); no canary reaches an output.
func TestKimiCodeAgainstCcusage(t *testing.T) {
	recorded := convtest.RecordedBeside(t)
	testshared.InRepo(t)
	checked := 0
	for _, s := range recorded {
		if s.Session == "" {
			continue
		}
		ins, err := pipeline.Expand([]string{s.Sample})
		if err != nil {
			t.Fatal(err)
		}
		var got convtest.Totals
		wires := 0
		for _, in := range ins {
			if !strings.Contains(filepath.ToSlash(in.Path), "/"+s.Session+"/agents/") {
				continue
			}
			wires++
			res := pipeline.Convert(in, pipeline.Options{})
			if res.Err != nil || res.Converter != "kimi_cli" {
				t.Fatalf("%s: %s, %v", in.Path, res.Converter, res.Err)
			}
			convtest.NoCanary(t, res)
			if !strings.Contains(string(res.Trace), `"gen_ai.agent.name","value":{"stringValue":"kimi-code"}`) {
				t.Errorf("%s: not named kimi-code", in.Path)
			}
			w := convtest.ReceiptTotals(res.Receipt)
			got.Input += w.Input
			got.Output += w.Output
			got.CacheRead += w.CacheRead
			got.CacheWrite += w.CacheWrite
			got.Total += w.Total
		}
		if wires != 2 {
			t.Errorf("%s: %d wires, want the main agent's and the subagent's", s.Session, wires)
		}
		if got != s.Ccusage {
			t.Errorf("%s %s: ours %+v, ccusage %+v", s.Sample, s.Session, got, s.Ccusage)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no Kimi Code session recorded")
	}
}

// TestStepUsageUpdates: a step may report its usage more than once. A
// copy counts once in the session's totals and on the step's chat span;
// two distinct updates are both counted, and the span carries their sum
// (set once: a span's attribute keys are unique, and a second append
// failed the trace's validation).
func TestStepUsageUpdates(t *testing.T) {
	status := func(in, out int) string {
		return `{"timestamp":1795168804.1,"message":{"type":"StatusUpdate","payload":{"token_usage":{"input_other":` +
			strconv.Itoa(in) + `,"output":` + strconv.Itoa(out) + `,"input_cache_read":1000,"input_cache_creation":0},"message_id":"chatcmpl-CANARY-1"}}}`
	}
	head := []string{`{"type":"metadata","protocol_version":"1.3"}`,
		`{"timestamp":1795168801.0,"message":{"type":"TurnBegin","payload":{"user_input":"CANARY-prompt"}}}`,
		`{"timestamp":1795168801.1,"message":{"type":"StepBegin","payload":{"n":1}}}`}
	for _, tc := range []struct {
		name            string
		updates         []string
		input, output   int64 // the session's, as ccusage counts them
		spanIn, spanOut string
	}{
		{"one update", []string{status(100, 10)}, 100, 10, "1100", "10"},
		{"a copy of it", []string{status(100, 10), status(100, 10)}, 100, 10, "1100", "10"},
		{"two distinct updates", []string{status(100, 10), status(50, 5)}, 150, 15, "2150", "15"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := convtest.ConvertLines(t, "kimi_cli", "wire.jsonl", append(append([]string(nil), head...), tc.updates...)...)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			convtest.NoCanary(t, res)
			if got := convtest.ReceiptTotals(res.Receipt); got.Input != tc.input || got.Output != tc.output {
				t.Errorf("session input %d, output %d; want %d, %d", got.Input, got.Output, tc.input, tc.output)
			}
			chats := 0
			for _, s := range convtest.Spans(res.Trace) {
				if s.Attr("gen_ai.operation.name") != "chat" {
					continue
				}
				chats++
				if in, out := s.Attr("gen_ai.usage.input_tokens"), s.Attr("gen_ai.usage.output_tokens"); in != tc.spanIn || out != tc.spanOut {
					t.Errorf("chat span input %s, output %s; want %s, %s", in, out, tc.spanIn, tc.spanOut)
				}
			}
			if chats != 1 {
				t.Errorf("%d chat spans, want 1", chats)
			}
		})
	}
}
