package claudecode_test

import (
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
)

// TestClaudeCodeAdvisorAndNewRecords reads samples/claude_code/v21_227_advisor,
// a 2.1.227 session: a response that consults the advisor (server_tool_use
// and advisor_tool_result blocks, usage.iterations with an advisor_message
// inference under another model), a response whose advisor iteration names
// no model, the tools of 2.1.167-2.1.237 and the record types they brought.
// Figures are worked out by hand from the sample (and equal ccusage's,
// testdata/ccusage.json).
func TestClaudeCodeAdvisorAndNewRecords(t *testing.T) {
	testshared.InRepo(t)
	res := convtest.Convert(t, "samples/claude_code/v21_227_advisor", pipeline.Options{})
	if len(res) != 1 {
		t.Fatalf("%d inputs", len(res))
	}
	r := res[0]
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	for _, out := range [][]byte{r.Receipt, r.Trace} {
		if strings.Contains(string(out), convtest.Canary) {
			t.Fatal("canary in an output")
		}
	}
	// Per model: the executor's top-level usage of three responses (the
	// "message" iterations restate it), and the advisor's one inference
	// under its own model; the advisor iteration without a model is not
	// counted.
	want := map[string]string{
		"claude-sonnet-4-6": "in=7 out=415 cache_read=6500 cache_write=610 responses=3",
		"claude-opus-4-6":   "in=5200 out=640 cache_read=0 cache_write=0 responses=1",
	}
	got := map[string]string{}
	for _, e := range convtest.Events(r.Receipt, "gen_ai.token_usage.summarized") {
		got[e.Get(`attributes.gen_ai\.request\.model`).Str] = convtest.Usage([]byte(e.Raw))[""]
	}
	if len(got) != len(want) {
		t.Errorf("models %v, want %v", got, want)
	}
	for m, w := range want {
		if got[m] != w {
			t.Errorf("%s: %s, want %s", m, got[m], w)
		}
	}
	// The new tools are built-ins: their names pass through.
	names := map[string]bool{}
	for _, s := range gjson.GetBytes(r.Trace, "resourceSpans.#.scopeSpans.#.spans|@flatten|@flatten").Array() {
		for _, a := range s.Get("attributes").Array() {
			if a.Get("key").Str == "gen_ai.tool.name" {
				names[a.Get("value.stringValue").Str] = true
			}
		}
	}
	for _, n := range []string{"Workflow", "Monitor", "ScheduleWakeup", "CronCreate", "TeamCreate", "SendMessage", "StructuredOutput", "EnterWorktree"} {
		if !names[n] {
			t.Errorf("tool %s not named in the trace (names: %v)", n, names)
		}
	}
	// The new record types are known: counted by name, nothing skipped.
	sum := convtest.Events(r.Receipt, "convert.summary")
	if len(sum) != 1 {
		t.Fatalf("%d summaries", len(sum))
	}
	types := map[string]bool{}
	for _, v := range sum[0].Get(`attributes.convert\.input\.record_types`).Array() {
		types[v.Str] = true
	}
	for _, ty := range []string{"fork-context-ref=1", "atis-latch=1", "agent-setting=1", "relocated=1", "worktree-state=1", "frame-link=1"} {
		if !types[ty] {
			t.Errorf("record type %s not counted by name: %v", ty, types)
		}
	}
	if n := sum[0].Get(`attributes.convert\.input\.lines\.skipped`).Int(); n != 0 {
		t.Errorf("%d lines skipped", n)
	}
}
