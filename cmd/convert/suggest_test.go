package main

import "testing"

func TestSuggest(t *testing.T) {
	flags := []string{"out", "jobs", "strict", "converter", "otel-format", "reveal", "json", "max-line-bytes", "force"}
	commands := []string{"run", "list", "validate", "leakcheck", "report", "prepare", "verify", "diff", "audit", "hook", "keygen", "sign"}
	names := []string{"claude_code", "codex", "copilot_cli", "cursor", "gemini_cli", "memory", "mcp_tool_search"}
	for _, tc := range []struct {
		word  string
		among []string
		want  string
	}{
		{"ouput", flags, "out"},
		{"jbos", flags, "jobs"},
		{"stirct", flags, "strict"},
		{"converer", flags, "converter"},
		{"bogus", flags, ""},
		{"x", flags, ""},
		{"reprot", commands, "report"},
		{"validte", commands, "validate"},
		{"frobnicate", commands, ""},
		{"claude", names, "claude_code"},
		{"codx", names, "codex"},
		{"c", names, ""},
		{"cu", names, ""},
		{"memroy", names, "memory"},
	} {
		if got := suggest(tc.word, tc.among); got != tc.want {
			t.Errorf("suggest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"ouput", "out", 2}, {"reprot", "report", 1}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"same", "same", 0}} {
		if got := editDistance(tc.a, tc.b); got != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
	}
}
