package geminicli_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/usage"
	"github.com/tidwall/gjson"

	_ "github.com/contextreceipts/convert/converters/all"
)

// document is a legacy Gemini CLI session document with one prompt and one
// answer whose TokensSummary is tokens. Every content is a canary.
func document(tokens string) string {
	return `{"sessionId":"5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d","projectHash":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",` +
		`"startTime":"2025-09-03T10:00:00.000Z","lastUpdated":"2025-09-03T10:00:30.000Z","messages":[` +
		`{"id":"6b7c8d9e-0201-4f0a-9b1c-2d3e4f5a6b01","timestamp":"2025-09-03T10:00:01.000Z","type":"user","content":"CANARY prompt"},` +
		`{"id":"6b7c8d9e-0202-4f0a-9b1c-2d3e4f5a6b02","timestamp":"2025-09-03T10:00:09.000Z","type":"gemini","content":"CANARY answer","model":"gemini-2.5-pro","tokens":` + tokens + `}]}`
}

// TestTokensSummaryShapes: a message's TokensSummary, as ccusage 20.0.24
// reads it and as the log means it. Input is the prompt count (cached
// tokens inside it, taken out in the one token model) plus the tool-use
// prompt count. A summary without an output count (or with 0) still has
// its total, which Gemini counts as prompt + output + thoughts + tool: the
// output is what the total leaves, as ccusage derives it. The older names
// ccusage also reads (prompt, candidates, *_tokens) count the same.
func TestTokensSummaryShapes(t *testing.T) {
	for _, tc := range []struct {
		name, tokens string
		want         usage.Tokens // in the one token model
	}{
		{"as the CLI writes it", `{"input":1000,"output":100,"cached":400,"thoughts":20,"tool":30,"total":1150}`,
			usage.Tokens{Input: 630, Output: 100, CacheRead: 400, Reasoning: 20}},
		{"no output: what the total leaves", `{"input":1000,"cached":0,"thoughts":20,"tool":0,"total":1120}`,
			usage.Tokens{Input: 1000, Output: 100, Reasoning: 20}},
		{"output 0: what the total leaves", `{"input":1000,"output":0,"cached":0,"thoughts":0,"tool":30,"total":1600}`,
			usage.Tokens{Input: 1030, Output: 570}},
		{"no output, cached inside the prompt count", `{"input":1000,"cached":400,"thoughts":20,"tool":0,"total":1600}`,
			usage.Tokens{Input: 600, Output: 580, CacheRead: 400, Reasoning: 20}},
		{"no output and no total", `{"input":1000,"cached":0,"thoughts":20,"tool":0}`,
			usage.Tokens{Input: 1000, Reasoning: 20}},
		{"a total short of the rest", `{"input":1000,"cached":0,"thoughts":20,"tool":0,"total":900}`,
			usage.Tokens{Input: 1000, Reasoning: 20}},
		{"prompt and candidates", `{"prompt":1000,"candidates":100,"cached":0,"thoughts":0,"tool":0,"total":1100}`,
			usage.Tokens{Input: 1000, Output: 100}},
		{"the *_tokens names", `{"prompt_tokens":1000,"candidates_tokens":100,"cached_tokens":300,"thoughts_tokens":7,"tool_tokens":5,"total_tokens":1112}`,
			usage.Tokens{Input: 705, Output: 100, CacheRead: 300, Reasoning: 7}},
		{"the CLI's names first", `{"input":700,"prompt":1000,"output":50,"candidates":100,"total":1100}`,
			usage.Tokens{Input: 700, Output: 50}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "tmp", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "chats")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "session-2025-09-03T10-00-5a6b7c8d.json")
			if err := os.WriteFile(p, []byte(document(tc.tokens)), 0o644); err != nil {
				t.Fatal(err)
			}
			ins, err := pipeline.Expand([]string{p})
			if err != nil || len(ins) != 1 {
				t.Fatalf("%d inputs, %v", len(ins), err)
			}
			res := pipeline.Convert(ins[0], pipeline.Options{})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			for _, out := range [][]byte{res.Receipt, res.Trace, []byte(strings.Join(res.Diags, "\n"))} {
				if bytes.Contains(bytes.ToUpper(out), []byte("CANARY")) {
					t.Fatal("a canary reached an output")
				}
			}
			var got usage.Tokens
			n := 0
			for _, l := range bytes.Split(res.Receipt, []byte{'\n'}) {
				if gjson.GetBytes(l, "name").Str != "gen_ai.token_usage.summarized" {
					continue
				}
				a := gjson.GetBytes(l, "attributes")
				_, u := usage.Summary(func(k string) gjson.Result { return a.Get(gjson.Escape(k)) })
				got.Add(u)
				n++
			}
			if n != 1 || got != tc.want {
				t.Errorf("%d usage events, %+v; want %+v", n, got, tc.want)
			}
			if len(res.Diags) > 0 {
				t.Errorf("warnings: %s", fmt.Sprint(res.Diags))
			}
		})
	}
}
