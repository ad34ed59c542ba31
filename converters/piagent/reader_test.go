package piagent_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
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
			results := convtest.Convert(t, tc.sample, pipeline.Options{})
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
			for _, s := range convtest.Spans(res.Trace) {
				switch {
				case strings.HasPrefix(s.Name, "chat"):
					chats++
				case strings.HasPrefix(s.Name, "execute_tool"):
					tools++
				case s.Parent == "":
					if got := s.Attrs.Get(`#(key=="gen_ai.agent.name").value.stringValue`).Str; got != tc.agent {
						t.Errorf("agent %q, want %q", got, tc.agent)
					}
					if got := s.Attrs.Get(`#(key=="pi_agent.model_calls.count").value.intValue`).Int(); got != int64(len(assistants)) {
						t.Errorf("model calls %d, want %d", got, len(assistants))
					}
				}
			}
			if chats != len(assistants) || tools != len(calls) {
				t.Errorf("%d chat and %d tool spans, want %d and %d", chats, tools, len(assistants), len(calls))
			}
			if bytes.Contains(res.Receipt, []byte(convtest.Canary)) || bytes.Contains(res.Trace, []byte(convtest.Canary)) {
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
	if msg := res.Err.Error(); !strings.Contains(msg, "not a pi_agent log") || strings.Contains(msg, convtest.Canary) {
		t.Errorf("message %q", msg)
	}
	if res := pipeline.Convert(in, pipeline.Options{Converter: "auto"}); res.Err != nil || res.Converter != "droid" {
		t.Errorf("detected as %q (error %v), want droid", res.Converter, res.Err)
	}
}

// TestOpenClawArchives: OpenClaw renames a session's transcript on /reset
// or a delete (<uuid>.jsonl.reset.<time>, <uuid>.jsonl.deleted.<time>).
// A walk reads those archives and counts them in the session their name
// carries, as ccusage does: with the live transcript of that session when
// it is there (one input, the archive its companion), else as the
// session's own input (several archives of one session: one input). The
// tokens are every file's, no archive is an input beside its live
// transcript, an archive given by path converts alone, a name that is not
// an archive's is not walked, and nothing raw reaches an output.
func TestOpenClawArchives(t *testing.T) {
	testshared.InRepo(t)
	const sample = "samples/pi_agent/openclaw_archives/agents/main/sessions"
	entries, err := os.ReadDir(sample)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// The session each file belongs to, and the output tokens of its
	// assistant messages.
	want := map[string]int64{}
	files := map[string]int{}
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(sample, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		id, _, _ := strings.Cut(e.Name(), ".")
		files[id]++
		for _, l := range bytes.Split(bytes.TrimSpace(raw), []byte{'\n'}) {
			want[id] += gjson.GetBytes(l, "message.usage.output").Int()
		}
	}
	// Not an archive's name (no session id): never an input.
	if err := os.WriteFile(filepath.Join(dir, "CANARY-notes.jsonl.reset.2026-11-21T07-59-00.000Z"), []byte(`{"note":"CANARY-note"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ins, err := pipeline.Expand([]string{filepath.Dir(filepath.Dir(filepath.Dir(dir)))})
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != len(want) {
		t.Fatalf("%d inputs, want one per session (%d)", len(ins), len(want))
	}
	outputs := map[string]bool{}
	for _, in := range ins {
		base := filepath.Base(in.Path)
		id, _, _ := strings.Cut(base, ".")
		if got := 1 + len(in.Companions); got != files[id] {
			t.Errorf("%s: %d files read, want the session's %d", base, got, files[id])
		}
		if strings.Contains(base, ".jsonl.") && files[id] > 1 {
			if _, err := os.Stat(filepath.Join(dir, id+".jsonl")); err == nil {
				t.Errorf("%s: an archive read as an input beside its live transcript", base)
			}
		}
		res := pipeline.Convert(in, pipeline.Options{})
		if res.Err != nil || res.Converter != "pi_agent" {
			t.Fatalf("%s: %s, %v", base, res.Converter, res.Err)
		}
		var output int64
		for _, l := range bytes.Split(res.Receipt, []byte{'\n'}) {
			if e := gjson.ParseBytes(l); e.Get("name").Str == "gen_ai.token_usage.summarized" {
				output += e.Get(`attributes.gen_ai\.usage\.output_tokens`).Int()
			}
		}
		if output != want[id] {
			t.Errorf("%s: %d output tokens, want the session's files' %d", base, output, want[id])
		}
		if !bytes.Contains(res.Receipt, []byte(`"session.id":"`+id+`"`)) {
			t.Errorf("%s: receipt not of session %s", base, id)
		}
		o := pipeline.OutputName(in.Rel, ".receipt.ndjson")
		if outputs[o] {
			t.Errorf("%s: output %s written twice", base, o)
		}
		outputs[o] = true
		if bytes.Contains(res.Receipt, []byte(convtest.Canary)) || bytes.Contains(res.Trace, []byte(convtest.Canary)) || strings.Contains(o, convtest.Canary) {
			t.Errorf("%s: canary in the outputs", base)
		}
	}
	// An archive given by path is read alone, as the pi_agent log it is.
	p := filepath.Join(dir, "8a9b0c1d-2e3f-4a5b-8c6d-7e8f9a0b1c2d.jsonl.deleted.2026-11-22T10-00-00.000Z")
	res := pipeline.Convert(pipeline.Input{Path: p, Rel: filepath.Base(p)}, pipeline.Options{})
	if res.Err != nil || res.Converter != "pi_agent" || bytes.Contains(res.Receipt, []byte(convtest.Canary)) {
		t.Errorf("archive given by path: %s, %v", res.Converter, res.Err)
	}
}

// TestPiSubagentRuns: a parent's call of the subagent tool writes
// subagent.spawned and subagent.result.returned; the run, kept by the
// pi-subagents extension as subagent-artifacts/<run id>_<agent>_transcript.jsonl
// (records with a recordType, a role and a message, which Cursor's reader
// claimed before) and as a pi session under the parent's folder, is read by
// pi_agent as a session of its own that says it is a subagent run, with
// the usage of its assistant messages. Nothing raw reaches an output.
func TestPiSubagentRuns(t *testing.T) {
	testshared.InRepo(t)
	results := convtest.Convert(t, "samples/pi_agent/subagents", pipeline.Options{})
	if len(results) != 3 {
		t.Fatalf("%d sessions, want the parent and the run's two records", len(results))
	}
	runs := 0
	for _, res := range results {
		if res.Converter != "pi_agent" {
			t.Fatalf("%s: read by %s", res.Path, res.Converter)
		}
		raw, err := os.ReadFile(res.Path)
		if err != nil {
			t.Fatal(err)
		}
		calls, output := 0, int64(0)
		for _, l := range bytes.Split(bytes.TrimSpace(raw), []byte{'\n'}) {
			m := gjson.GetBytes(l, "message")
			if m.Get("role").Str != "assistant" {
				continue
			}
			output += m.Get("usage.output").Int()
			m.Get("content").ForEach(func(_, b gjson.Result) bool {
				if b.Get("type").Str == "toolCall" && b.Get("name").Str == "subagent" {
					calls++
				}
				return true
			})
		}
		if n := bytes.Count(res.Receipt, []byte(`"name":"subagent.spawned"`)); n != calls {
			t.Errorf("%s: %d subagent.spawned, want %d", filepath.Base(res.Path), n, calls)
		}
		if n := bytes.Count(res.Receipt, []byte(`"name":"subagent.result.returned"`)); n != calls {
			t.Errorf("%s: %d subagent.result.returned, want %d", filepath.Base(res.Path), n, calls)
		}
		var got int64
		for _, l := range bytes.Split(res.Receipt, []byte{'\n'}) {
			if e := gjson.ParseBytes(l); e.Get("name").Str == "gen_ai.token_usage.summarized" {
				got += e.Get(`attributes.gen_ai\.usage\.output_tokens`).Int()
			}
		}
		if got != output {
			t.Errorf("%s: %d output tokens, want %d", filepath.Base(res.Path), got, output)
		}
		run := bytes.Contains(res.Trace, []byte(`"key":"pi_agent.subagent_run","value":{"boolValue":true}`))
		if run {
			runs++
		}
		if run == (calls > 0) {
			t.Errorf("%s: subagent run %v with %d subagent calls", filepath.Base(res.Path), run, calls)
		}
		if bytes.Contains(res.Receipt, []byte(convtest.Canary)) || bytes.Contains(res.Trace, []byte(convtest.Canary)) {
			t.Errorf("%s: canary in the outputs", filepath.Base(res.Path))
		}
	}
	if runs != 2 {
		t.Errorf("%d subagent runs, want 2 (the transcript and the pi session)", runs)
	}
}

// TestOpenClawTrajectory: an OpenClaw trajectory (<session>.trajectory.jsonl)
// is read by pi_agent as OpenClaw's: its model.completed event is a chat
// span with its usage, its tool events execute_tool spans (the failed
// exec failed, the MCP call one mcp.tool_call.completed), its compiled
// system prompt a context load; its usage is in no total (ccusage counts
// none of a trajectory: the transcript's tokens are the run's), an audit
// gap says so; no canary reaches an output.
func TestOpenClawTrajectory(t *testing.T) {
	testshared.InRepo(t)
	results := convtest.Convert(t, "samples/pi_agent/openclaw_trajectory", pipeline.Options{})
	if len(results) != 1 || results[0].Converter != "pi_agent" {
		t.Fatalf("%d results (%+v), want one of pi_agent", len(results), results)
	}
	res := results[0]
	convtest.NoCanary(t, res)
	spans := gjson.GetBytes(res.Trace, "resourceSpans.0.scopeSpans.0.spans")
	attr := func(sp gjson.Result, k string) gjson.Result {
		return sp.Get(`attributes.#(key=="` + k + `").value`)
	}
	var chats, tools, failed int
	for _, sp := range spans.Array() {
		switch attr(sp, "gen_ai.operation.name").Get("stringValue").Str {
		case "invoke_agent":
			if a := attr(sp, "gen_ai.agent.name").Get("stringValue").Str; a != "openclaw" {
				t.Errorf("agent %q, want openclaw", a)
			}
		case "chat":
			chats++
			if in := attr(sp, "gen_ai.usage.input_tokens").Get("intValue").String(); in != "12200" {
				t.Errorf("chat input tokens %s, want 12200 (2400 + cache 9100 + 700)", in)
			}
		case "execute_tool":
			tools++
			if sp.Get("status.code").Int() == 2 {
				failed++
			}
		}
	}
	if chats != 1 || tools != 2 || failed != 1 {
		t.Errorf("%d chat spans, %d tool spans (%d failed), want 1, 2 (1)", chats, tools, failed)
	}
	if n := len(convtest.Events(res.Receipt, "gen_ai.token_usage.summarized")); n != 0 {
		t.Errorf("%d usage summaries, want none (ccusage counts no trajectory usage)", n)
	}
	if n := len(convtest.Events(res.Receipt, "mcp.tool_call.completed")); n != 1 {
		t.Errorf("%d MCP calls, want 1", n)
	}
	gaps := convtest.Events(res.Receipt, "context.audit_gap.recorded")
	if len(gaps) != 1 || convtest.Attr(gaps[0], "context.audit_gap").Str != "token_usage_not_counted" {
		t.Errorf("audit gaps %v, want token_usage_not_counted alone (the system prompt's load is recorded)", gaps)
	}
	loads := convtest.Events(res.Receipt, "context.input.loaded")
	if len(loads) != 1 || convtest.Attr(loads[0], "context.input.kind").Str != "system_prompt" {
		t.Errorf("context loads %v, want the system prompt", loads)
	}
}
