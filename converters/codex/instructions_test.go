package codex

import (
	"regexp"
	"testing"

	"github.com/contextreceipts/convert/converters/view"
)

// The patterns codexAgentsMD and codexUserInstructions replaced.
var (
	agentsMDPattern = regexp.MustCompile(`(?s)^# AGENTS\.md instructions for ([^\n]*)\n\n<INSTRUCTIONS>\n?(.*?)\n?</INSTRUCTIONS>\s*$`)
	userInsPattern  = regexp.MustCompile(`(?s)^<user_instructions>\s*(.*?)\s*</user_instructions>\s*$`)
)

// TestCodexInstructionParsers: on every sequence of up to four pieces
// (newlines, spaces, tabs, form feeds, vertical tabs, the tags, text)
// after each opening, the string parsers accept what the patterns accept
// and return the same directory and body.
func TestCodexInstructionParsers(t *testing.T) {
	pieces := []string{"\n", " ", "\t", "\f", "\v", "x", "<INSTRUCTIONS>", "</INSTRUCTIONS>", "</user_instructions>", "\u00a0"}
	openings := []string{"", "# AGENTS.md instructions for ", "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>", "# AGENTS.md instructions for d\n", "<user_instructions>"}
	var gen func(prefix string, n int)
	checked := 0
	gen = func(s string, n int) {
		checked++
		m := agentsMDPattern.FindStringSubmatch(s)
		dir, body, ok := codexAgentsMD(view.Borrow(s))
		if ok != (m != nil) || ok && (!dir.Is(m[1]) || !body.Is(m[2])) {
			t.Fatalf("codexAgentsMD(%q) = %q, %q, %v; pattern %q", s, dir.Own(), body.Own(), ok, m)
		}
		m = userInsPattern.FindStringSubmatch(s)
		body, ok = codexUserInstructions(view.Borrow(s))
		if ok != (m != nil) || ok && !body.Is(m[1]) {
			t.Fatalf("codexUserInstructions(%q) = %q, %v; pattern %q", s, body.Own(), ok, m)
		}
		if n == 0 {
			return
		}
		for _, p := range pieces {
			gen(s+p, n-1)
		}
	}
	for _, o := range openings {
		gen(o, 4)
	}
	if checked < 50000 {
		t.Fatalf("checked %d strings", checked)
	}
}
