package pipeline

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// TestGroupLayouts: the native layouts make one input of a session's files,
// whether the folder or the main file is given, and leave other files be.
func TestGroupLayouts(t *testing.T) {
	const cc, cur, other = "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b", "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "9e8d7c6b-2222-4333-8444-555566667777"
	root := t.TempDir()
	files := map[string]string{
		"claude/p/" + cc + ".jsonl":                                          `{"type":"user","sessionId":"` + cc + `"}`,
		"claude/p/" + cc + "/subagents/agent-a1.jsonl":                       `{"type":"user","sessionId":"` + cc + `"}`,
		"claude/p/" + cc + "/subagents/agent-a1.meta.json":                   `{"agentType":"Explore"}`,
		"claude/p/" + cc + "/subagents/workflows/w/agent-b.jsonl":            `{"type":"user"}`,
		"claude/p/" + cc + "/subagents/workflows/j/agent-c.jsonl":            `{"type":"user"}`,
		"claude/p/" + cc + "/subagents/workflows/j/journal.jsonl":            `{"type":"started","agentId":"c"}`,
		"claude/p/agent-s1.jsonl":                                            `{"type":"user","sessionId":"` + cc + `"}`,
		"claude/p/agent-s2.jsonl":                                            `{"type":"user","sessionId":"` + other + `"}`,
		"claude/p/notes.jsonl":                                               `{"type":"user","sessionId":"` + cc + `"}`,
		"cursor/agent-transcripts/" + cur + "/" + cur + ".jsonl":             `{"role":"user"}`,
		"cursor/agent-transcripts/" + cur + "/subagents/" + other + ".jsonl": `{"role":"user"}`,
		"codex/rollout-2026-07-01T10-00-00-" + other + ".jsonl":              `{"type":"session_meta"}`,
	}
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Each input as "rel: companion rel (meta), ...".
	show := func(ins []Input) []string {
		var out []string
		for _, in := range ins {
			s := filepath.ToSlash(in.Rel) + ":"
			for _, c := range in.Companions {
				s += " " + c.Rel
				if c.Meta != "" {
					s += " (" + filepath.Base(c.Meta) + ")"
				}
			}
			out = append(out, s)
		}
		sort.Strings(out)
		return out
	}
	// A workflow run is a session of its own: its journal the main file, or
	// in a folder without one its first agent transcript.
	claudeMain := cc + ".jsonl: " + cc + "/subagents/agent-a1.jsonl (agent-a1.meta.json) agent-s1.jsonl"
	workflows := []string{cc + "/subagents/workflows/j/journal.jsonl: agent-c.jsonl", cc + "/subagents/workflows/w/agent-b.jsonl:"}
	cursorMain := cur + ".jsonl: subagents/" + other + ".jsonl"
	tests := []struct {
		name string
		arg  string
		want []string
	}{
		{"a Claude Code project folder", "claude/p", append([]string{"agent-s2.jsonl:", "notes.jsonl:", claudeMain}, workflows...)},
		{"a workflow journal", "claude/p/" + cc + "/subagents/workflows/j/journal.jsonl", []string{"journal.jsonl: agent-c.jsonl"}},
		{"a Claude Code session file", "claude/p/" + cc + ".jsonl", []string{claudeMain}},
		{"a Cursor transcripts folder", "cursor", []string{"agent-transcripts/" + cur + "/" + cursorMain}},
		{"a Cursor session file", "cursor/agent-transcripts/" + cur + "/" + cur + ".jsonl", []string{cursorMain}},
		{"a Codex rollout stands alone", "codex", []string{"rollout-2026-07-01T10-00-00-" + other + ".jsonl:"}},
	}
	for _, tt := range tests {
		ins, err := Expand([]string{filepath.Join(root, filepath.FromSlash(tt.arg))})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		sort.Strings(tt.want)
		if got := show(ins); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}
