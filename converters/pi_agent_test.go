package converters_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
	"github.com/tidwall/gjson"
)

// TestPiAgentSamples: pi's and OpenClaw's sessions are detected as
// pi_agent, the trace names the agent the log shows (an OpenClaw-only
// custom entry makes it openclaw), every assistant entry is one chat span
// and one model call (an entry written twice is not two), and every tool
// call id one execute_tool span.
func TestPiAgentSamples(t *testing.T) {
	testshared.InRepo(t)
	for _, tc := range []struct{ sample, agent string }{
		{"samples/pi_agent/basic", "pi-agent"},
		{"samples/pi_agent/openclaw", "openclaw"},
	} {
		t.Run(tc.sample, func(t *testing.T) {
			results := convertDir(t, tc.sample, pipeline.Options{})
			if len(results) != 1 {
				t.Fatalf("%d sessions, want 1", len(results))
			}
			res := results[0]
			if res.Converter != "pi_agent" {
				t.Fatalf("detected as %s", res.Converter)
			}
			raw, err := os.ReadFile(res.Path)
			if err != nil {
				t.Fatal(err)
			}
			// What the sample holds, read from it: distinct assistant
			// entries, tool calls (by id), duplicated lines.
			assistants, calls, repeated := map[string]bool{}, map[string]bool{}, 0
			seen := map[string]bool{}
			for _, l := range bytes.Split(bytes.TrimSpace(raw), []byte{'\n'}) {
				if seen[string(l)] {
					repeated++
					continue
				}
				seen[string(l)] = true
				e := gjson.ParseBytes(l)
				if e.Get("message.role").Str == "assistant" {
					assistants[e.Get("id").Str] = true
					e.Get("message.content").ForEach(func(_, b gjson.Result) bool {
						if b.Get("type").Str == "toolCall" {
							calls[b.Get("id").Str] = true
						}
						return true
					})
				}
			}
			if repeated == 0 {
				t.Fatal("the sample lost its repeated entry")
			}
			chats, tools := 0, 0
			for _, s := range spansOf(t, res.Trace) {
				switch {
				case strings.HasPrefix(s.name, "chat"):
					chats++
				case strings.HasPrefix(s.name, "execute_tool"):
					tools++
				case s.parent == "":
					if got := s.attrs.Get(`#(key=="gen_ai.agent.name").value.stringValue`).Str; got != tc.agent {
						t.Errorf("agent %q, want %q", got, tc.agent)
					}
					if got := s.attrs.Get(`#(key=="pi_agent.model_calls.count").value.intValue`).Int(); got != int64(len(assistants)) {
						t.Errorf("model calls %d, want %d", got, len(assistants))
					}
				}
			}
			if chats != len(assistants) || tools != len(calls) {
				t.Errorf("%d chat and %d tool spans, want %d and %d", chats, tools, len(assistants), len(calls))
			}
			if bytes.Contains(res.Receipt, []byte(canary)) || bytes.Contains(res.Trace, []byte(canary)) {
				t.Error("canary in the outputs")
			}
		})
	}
}

// TestPiAgentClaimsOnlyItsShape: lines that share pi's type names but not
// its entry tree (no parentId, no message time: Factory Droid's records)
// are not pi_agent's, even asked for by name; detection hands them to the
// reader whose shape they are, Droid's.
func TestPiAgentClaimsOnlyItsShape(t *testing.T) {
	log := `{"type":"session","id":"CANARY-s","title":"CANARY-title"}
{"type":"message","id":"m1","timestamp":"2026-11-20T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"CANARY-prompt"}]}}
{"type":"message","id":"m2","parentId":"m1","timestamp":"2026-11-20T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"CANARY-reply"}]}}
{"type":"compaction","id":"m3","timestamp":"2026-11-20T10:00:03.000Z","summary":"CANARY-summary"}
`
	p := filepath.Join(t.TempDir(), "other.jsonl")
	if err := os.WriteFile(p, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	in := pipeline.Input{Path: p, Rel: "other.jsonl"}
	res := pipeline.Convert(in, pipeline.Options{Converter: "pi_agent"})
	if res.Err == nil || res.Receipt != nil {
		t.Fatal("converted as pi_agent")
	}
	if msg := res.Err.Error(); !strings.Contains(msg, "not a pi_agent log") || strings.Contains(msg, canary) {
		t.Errorf("message %q", msg)
	}
	if res := pipeline.Convert(in, pipeline.Options{Converter: "auto"}); res.Err != nil || res.Converter != "droid" {
		t.Errorf("detected as %q (error %v), want droid", res.Converter, res.Err)
	}
}
