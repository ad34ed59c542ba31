package claudecode_test

import (
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
)

// TestCompactSummaryWithoutBoundary: a compaction summary (a user line with
// isCompactSummary) says in an audit gap when no compact_boundary came
// before it (a transcript cut before its boundary): the summary is loaded,
// but what it replaced is not known. After a boundary it says nothing.
func TestCompactSummaryWithoutBoundary(t *testing.T) {
	boundary := claudeLine("01", `"type":"system","subtype":"compact_boundary","uuid":"c-1","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":167000}`)
	summary := claudeLine("02", `"type":"user","uuid":"u-1","isCompactSummary":true,"message":{"role":"user","content":"CANARY-summary of what came before"}`)
	for _, tc := range []struct {
		name  string
		lines []string
		gap   string
	}{
		{"summary alone", []string{summary}, "summary_without_compact_boundary"},
		{"after its boundary", []string{boundary, summary}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := convtest.ConvertLines(t, "claude_code", "5e551011-aaaa-4bbb-8ccc-000000000001.jsonl", tc.lines...)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			ev := convtest.Events(res.Receipt, "context.compaction.summary_loaded")
			if len(ev) != 1 {
				t.Fatalf("%d summary_loaded events, want 1", len(ev))
			}
			if got := convtest.Attr(ev[0], "context.compaction.audit_gap").Str; got != tc.gap {
				t.Errorf("audit gap %q, want %q", got, tc.gap)
			}
			convtest.NoCanary(t, res)
		})
	}
}
