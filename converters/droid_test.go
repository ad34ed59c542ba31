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

// TestDroidSamples: Factory Droid's sessions are detected as droid, each
// session file (a Task subagent's too) is a session of its own, every
// assistant message is one chat span and every tool_use one execute_tool
// span, a Task call writes subagent.spawned and subagent.result.returned,
// the subagent's session names its caller, the token totals are the
// sidecar's, and no raw value of the log or its sidecar reaches an output.
func TestDroidSamples(t *testing.T) {
	testshared.InRepo(t)
	results := convertDir(t, "samples/droid/basic", pipeline.Options{})
	if len(results) != 2 {
		t.Fatalf("%d sessions, want 2 (the main session and its subagent's)", len(results))
	}
	for _, res := range results {
		if res.Converter != "droid" || res.Err != nil {
			t.Fatalf("%s: detected as %s (%v)", res.Path, res.Converter, res.Err)
		}
		raw, err := os.ReadFile(res.Path)
		if err != nil {
			t.Fatal(err)
		}
		side, err := os.ReadFile(strings.TrimSuffix(res.Path, ".jsonl") + ".settings.json")
		if err != nil {
			t.Fatal(err)
		}
		assistants, calls, tasks := 0, 0, 0
		var caller string
		for _, l := range bytes.Split(bytes.TrimSpace(raw), []byte{'\n'}) {
			e := gjson.ParseBytes(l)
			if e.Get("type").Str == "session_start" {
				caller = e.Get("callingSessionId").Str
			}
			if e.Get("message.role").Str == "assistant" {
				assistants++
				e.Get("message.content").ForEach(func(_, b gjson.Result) bool {
					if b.Get("type").Str == "tool_use" {
						calls++
						if b.Get("name").Str == "Task" {
							tasks++
						}
					}
					return true
				})
			}
		}
		chats, tools := 0, 0
		for _, s := range spansOf(t, res.Trace) {
			switch {
			case strings.HasPrefix(s.name, "chat"):
				chats++
			case strings.HasPrefix(s.name, "execute_tool"):
				tools++
			case s.parent == "":
				if got := s.attrs.Get(`#(key=="droid.calling_session_id").value.stringValue`).Str; got != caller {
					t.Errorf("%s: calling session %q, want %q", res.Path, got, caller)
				}
				if got := s.attrs.Get(`#(key=="droid.subagent_session").value.boolValue`).Bool(); got != (caller != "") {
					t.Errorf("%s: subagent session %v", res.Path, got)
				}
			}
		}
		if chats != assistants || tools != calls {
			t.Errorf("%s: %d chat and %d tool spans, want %d and %d", res.Path, chats, tools, assistants, calls)
		}
		if n := bytes.Count(res.Receipt, []byte(`"name":"subagent.spawned"`)); n != tasks {
			t.Errorf("%s: %d subagent.spawned, want %d", res.Path, n, tasks)
		}
		if n := bytes.Count(res.Receipt, []byte(`"name":"subagent.result.returned"`)); n != tasks {
			t.Errorf("%s: %d subagent.result.returned, want %d", res.Path, n, tasks)
		}
		u := gjson.GetBytes(side, "tokenUsage")
		var summary gjson.Result
		for _, l := range bytes.Split(res.Receipt, []byte{'\n'}) {
			if e := gjson.ParseBytes(l); e.Get("name").Str == "gen_ai.token_usage.summarized" {
				summary = e.Get("attributes")
			}
		}
		if summary.Get(`gen_ai\.usage\.output_tokens`).Int() != u.Get("outputTokens").Int() ||
			summary.Get(`gen_ai\.usage\.cache_creation\.input_tokens`).Int() != u.Get("cacheCreationTokens").Int() {
			t.Errorf("%s: usage %s, the sidecar's %s", res.Path, summary.Raw, u.Raw)
		}
		if bytes.Contains(res.Receipt, []byte(canary)) || bytes.Contains(res.Trace, []byte(canary)) {
			t.Errorf("%s: canary in the outputs", res.Path)
		}
	}
}

// TestDroidClaimsOnlyItsShape: Droid's reader refuses lines that share its
// type names but not its shape (pi's messages, which carry their own time;
// Droid's exec stream-json, whose messages are flat), even asked for by
// name.
func TestDroidClaimsOnlyItsShape(t *testing.T) {
	for name, log := range map[string]string{
		"pi": `{"type":"message","id":"a1","parentId":null,"timestamp":"2026-11-20T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"CANARY-prompt"}],"timestamp":1795168801000}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-11-20T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"CANARY-answer"}],"timestamp":1795168802000}}
`,
		"stream": `{"type":"message","role":"user","id":"d1","text":"CANARY-prompt","timestamp":1795168801000,"session_id":"CANARY-s1"}
{"type":"message","role":"assistant","id":"d4","text":"CANARY-answer","timestamp":1795168804000,"session_id":"CANARY-s1"}
`,
	} {
		p := filepath.Join(t.TempDir(), name+".jsonl")
		if err := os.WriteFile(p, []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
		res := pipeline.Convert(pipeline.Input{Path: p, Rel: filepath.Base(p)}, pipeline.Options{Converter: "droid"})
		if res.Err == nil || res.Receipt != nil {
			t.Fatalf("%s: converted as droid", name)
		}
		if msg := res.Err.Error(); !strings.Contains(msg, "not a droid log") || strings.Contains(msg, canary) {
			t.Errorf("%s: message %q", name, msg)
		}
	}
}
