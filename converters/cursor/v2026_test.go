package cursor_test

import (
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/testshared"

	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/internal/pipeline"
)

// TestCursorTranscript2026 reads samples/cursor/transcripts_2026_08, an
// agent transcript of today's shape (written from public descriptions):
// user text wrapped in <timestamp> and <user_query>, redacted thinking as a
// trailing [REDACTED] marker, a marker-only turn and a redacted block, and a
// command_output block (no call id) answering a Shell call. No line has a
// time: the trace is on the record clock.
func TestCursorTranscript2026(t *testing.T) {
	testshared.InRepo(t)
	res := convtest.Convert(t, "samples/cursor/transcripts_2026_08", pipeline.Options{})
	if len(res) != 1 {
		t.Fatalf("%d inputs", len(res))
	}
	spans := gjson.GetBytes(res[0].Trace, "resourceSpans.0.scopeSpans.0.spans").Array()
	root := spans[0].Get("attributes")
	for key, want := range map[string]string{
		"cursor.wrapped_queries.count":     "1",
		"cursor.redacted_blocks.count":     "3",
		"cursor.command_outputs.count":     "1",
		"cursor.tool_calls.without_result": "1", // Read: transcripts write no result for it
		"convert.trace.time_source":        "record_order_clock",
	} {
		v := root.Get(`#(key=="` + key + `").value`)
		if got := v.Get("stringValue").Str + v.Get("intValue").Str; got != want {
			t.Errorf("root %s = %q, want %q", key, got, want)
		}
	}
	for _, sp := range spans {
		if sp.Get("name").Str == "execute_tool Shell" {
			if sp.Get("status.code").Int() != 2 || sp.Get("endTimeUnixNano").Int() <= sp.Get("startTimeUnixNano").Int() {
				t.Errorf("Shell span %s: its command_output (exit 2, the next line) should close it as an error", sp.Raw)
			}
			return
		}
	}
	t.Error("no Shell span")
}
