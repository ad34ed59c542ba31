package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestLegacyGenAINamesFlag: a trace carries only the current GenAI names by
// default; --legacy-genai-names (or CONVERT_LEGACY_GENAI_NAMES) adds the
// old name of each renamed attribute next to it, and the receipt is the same.
func TestLegacyGenAINamesFlag(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	in := filepath.Join(repo, "samples", "claude_code", "basic")
	tests := []struct {
		name   string
		args   []string
		env    string
		legacy bool
	}{
		{"default", nil, "", false},
		{"flag", []string{"--legacy-genai-names"}, "", true},
		{"environment", nil, "true", true},
	}
	var receipts []string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CONVERT_LEGACY_GENAI_NAMES", tt.env)
			out := t.TempDir()
			if code, _, se := runCLI(t, "", append([]string{"run", in, "--out", out, "-q"}, tt.args...)...); code != 0 {
				t.Fatalf("run: %d %s", code, se)
			}
			var trace, rec []byte
			filepath.Walk(out, func(p string, _ os.FileInfo, _ error) error {
				switch {
				case strings.HasSuffix(p, ".otel.jsonl"):
					trace, _ = os.ReadFile(p)
				case strings.HasSuffix(p, ".receipt.ndjson"):
					rec, _ = os.ReadFile(p)
				}
				return nil
			})
			receipts = append(receipts, string(rec))
			// Span attributes only: span events are receipt lines, in the
			// receipt's vocabulary, whatever the option.
			cur, old := 0, 0
			gjson.GetBytes(trace, "resourceSpans.0.scopeSpans.0.spans.#.attributes.#.key").ForEach(func(_, keys gjson.Result) bool {
				for _, k := range keys.Array() {
					switch k.Str {
					case "gen_ai.usage.cache_write.input_tokens":
						cur++
					case "gen_ai.usage.cache_creation.input_tokens":
						old++
					}
				}
				return true
			})
			if cur == 0 {
				t.Fatal("no chat span has gen_ai.usage.cache_write.input_tokens")
			}
			want := 0
			if tt.legacy {
				want = cur
			}
			if old != want {
				t.Errorf("%d spans with the old name, want %d", old, want)
			}
		})
	}
	for _, r := range receipts[1:] {
		if r != receipts[0] {
			t.Error("the legacy option changed the receipt")
		}
	}
}

// TestHookLegacyGenAINames: the hook, run by the agent, honours
// CONVERT_LEGACY_GENAI_NAMES from the agent's environment as convert run does.
func TestHookLegacyGenAINames(t *testing.T) {
	home, transcript := hookHome(t)
	t.Setenv("CONVERT_LEGACY_GENAI_NAMES", "true")
	if code, so, se := runHook(t, strings.NewReader(claudePayload(transcript)), "hook", "claude-code", "--foreground"); code != 0 || so+se != "" {
		t.Fatalf("exit %d, %q %q", code, so, se)
	}
	b, err := os.ReadFile(filepath.Join(home, "data", "receipts", "claude-code", ccSession+".otel.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	keys := gjson.GetBytes(b, "resourceSpans.0.scopeSpans.0.spans.#.attributes.#.key").String()
	if !strings.Contains(keys, `"gen_ai.usage.cache_creation.input_tokens"`) || !strings.Contains(keys, `"gen_ai.usage.cache_write.input_tokens"`) {
		t.Errorf("span attributes lack the old or the new name: %s", keys)
	}
}
