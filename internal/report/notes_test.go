package report

import (
	"strings"
	"testing"
)

// TestPageNotes: the report explains its own rows. Grouped by a period,
// the groups table says sessions count where they start and tokens where
// each response was made; no bucket is named 0; a span name holding a
// digest shows it short, as the tables do, not as a withheld value.
func TestPageNotes(t *testing.T) {
	for _, by := range Bys {
		g := groupsTable(&Report{By: by})
		note := strings.Join(g.Notes, "\n")
		period := by == "day" || by == "week" || by == "month"
		if got := strings.Contains(note, "sessions are counted in the "+by+" they started"); got != period {
			t.Errorf("--by %s: the note on sessions and tokens is there: %v, want %v (%q)", by, got, period, note)
		}
	}
	if got := bucketCounts([]Count{{"0", 3}, {"under_50k", 2}}); got != "none 3, under_50k 2" {
		t.Errorf("bucketCounts = %q", got)
	}
	digest := "sha256:afd834a1e653d61dcf18e56771ace5cf1d210022854de7bc4d47741dea2fa322"
	for name, want := range map[string]string{
		"execute_tool Read":                              "execute_tool Read",
		"execute_tool " + digest:                         "execute_tool sha256:afd834a1e653…",
		"chat claude-opus-4-7":                           "chat claude-opus-4-7",
		"execute_tool alice@example.com":                 "execute_tool sha256:", // no tool name: withheld
		"CANARY-prompt-word x":                           "sha256:",
		"execute_tool mcp__playwright__browser_navigate": "execute_tool mcp__playwright__browser_navigate",
		"invoke_agent claude-code":                       "invoke_agent claude-code",
	} {
		got := spanName(name)
		if !strings.HasPrefix(got, want) || strings.Contains(got, "CANARY") {
			t.Errorf("spanName(%q) = %q, want %q", name, got, want)
		}
	}
}
