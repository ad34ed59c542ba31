package pipeline

import (
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/jsonscan"
)

// TestDeepNestingIsSkippedNotFatal: a line nested millions of levels deep
// used to end the whole process with a fatal stack overflow (gjson's
// validator and every reader after it recurse); now it is skipped as
// nested_too_deeply, with auto-detection and with the converter named, and
// the rest of the session converts. A line just inside the bound converts.
func TestDeepNestingIsSkippedNotFatal(t *testing.T) {
	head := `{"type":"user","sessionId":"s-1","uuid":"u-%d","timestamp":"2025-06-01T10:00:0%dZ","message":{"role":"user","content":`
	line := func(n, depth int) string {
		h := strings.Replace(strings.Replace(head, "%d", string(rune('0'+n)), 1), "%d", string(rune('0'+n)), 1)
		return h + strings.Repeat("[", depth) + `"CANARY_deep"` + strings.Repeat("]", depth) + `}}`
	}
	doc := strings.Join([]string{line(1, 1), line(2, 3_000_000), line(3, jsonscan.MaxDepth-3), line(4, 1)}, "\n") + "\n"
	for _, conv := range []string{"auto", "claude_code"} {
		res := ConvertFiles(Files{"s.jsonl": []byte(doc)}, Input{Path: "s.jsonl", Rel: "s.jsonl"}, Options{Converter: conv})
		if res.Err != nil {
			t.Fatalf("%s: %v", conv, res.Err)
		}
		if got := res.Stats.SkipReasons["nested_too_deeply"]; got != 1 {
			t.Errorf("%s: nested_too_deeply %d, want 1 (reasons %v)", conv, got, res.Stats.SkipReasons)
		}
		if res.Stats.Records != 3 {
			t.Errorf("%s: %d records converted, want 3", conv, res.Stats.Records)
		}
		out := string(res.Receipt) + string(res.Trace) + strings.Join(res.Diags, "\n")
		if !strings.Contains(out, "s.jsonl:2: claude_code: skipped line: nested_too_deeply") {
			t.Errorf("%s: no positioned warning for line 2 in %q", conv, res.Diags)
		}
		if strings.Contains(out, "CANARY") {
			t.Errorf("%s: canary in the output", conv)
		}
	}
}
