package droid_test

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

// TestDroidSamples: Factory Droid's sessions are detected as droid, each
// session file (a Task subagent's too) is a session of its own, every
// assistant message is one chat span and every tool_use one execute_tool
// span, a Task call writes subagent.spawned and subagent.result.returned,
// the subagent's session names its caller, the token totals are the
// sidecar's, and no raw value of the log or its sidecar reaches an output.
func TestDroidSamples(t *testing.T) {
	testshared.InRepo(t)
	results := convtest.Convert(t, "samples/droid/basic", pipeline.Options{})
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
		for _, s := range convtest.Spans(res.Trace) {
			switch {
			case strings.HasPrefix(s.Name, "chat"):
				chats++
			case strings.HasPrefix(s.Name, "execute_tool"):
				tools++
			case s.Parent == "":
				if got := s.Attrs.Get(`#(key=="droid.calling_session_id").value.stringValue`).Str; got != caller {
					t.Errorf("%s: calling session %q, want %q", res.Path, got, caller)
				}
				if got := s.Attrs.Get(`#(key=="droid.subagent_session").value.boolValue`).Bool(); got != (caller != "") {
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
		if bytes.Contains(res.Receipt, []byte(convtest.Canary)) || bytes.Contains(res.Trace, []byte(convtest.Canary)) {
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
		if msg := res.Err.Error(); !strings.Contains(msg, "not a droid log") || strings.Contains(msg, convtest.Canary) {
			t.Errorf("%s: message %q", name, msg)
		}
	}
}

// TestDroidOrphanSettings: a session's <uuid>.settings.json whose
// transcript is gone is an input of its own in a walk (ccusage, which reads
// only the sidecars, still counts it): a droid receipt with the sidecar's
// tokens and an audit gap saying the transcript is missing. A sidecar
// whose transcript is there is read with it and never on its own, and a
// .settings.json not named by a session id is no input. Nothing raw of any
// of them reaches an output or a message.
func TestDroidOrphanSettings(t *testing.T) {
	testshared.InRepo(t)
	src, err := os.ReadFile("samples/droid/orphan_settings/sessions/-Users-erin-src-CANARY-api/7c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f.settings.json")
	if err != nil {
		t.Fatal(err)
	}
	live, err := os.ReadFile("samples/droid/basic/sessions/-Users-dana-src-CANARY-app/9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	liveSide, err := os.ReadFile("samples/droid/basic/sessions/-Users-dana-src-CANARY-app/9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.settings.json")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "sessions")
	proj := filepath.Join(root, "-CANARY-proj")
	files := map[string][]byte{
		"7c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f.settings.json": src,
		"9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.jsonl":         live,
		"9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.settings.json": liveSide,
		"CANARY-notes.settings.json":                         []byte(`{"tokenUsage":{"inputTokens":1,"outputTokens":2},"note":"CANARY-note"}`),
		// written before any usage: still Droid's, converted, not refused
		"0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e.settings.json": []byte(`{"model":"claude-sonnet-4-5-20250929","providerLock":"anthropic","autonomyLevel":"auto-low","tags":[{"name":"CANARY-tag"}]}`),
	}
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(proj, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ins, err := pipeline.Expand([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]pipeline.Result{}
	for _, in := range ins {
		res := pipeline.Convert(in, pipeline.Options{})
		if res.Err != nil {
			t.Fatalf("%s: %v", filepath.Base(in.Path), res.Err)
		}
		got[filepath.Base(in.Path)] = res
	}
	if len(got) != 3 {
		t.Fatalf("inputs %v, want the session and the two orphan sidecars", keysOf(got))
	}
	if early := got["0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e.settings.json"]; !bytes.Contains(early.Receipt, []byte(`"context.audit_gap":"token_usage_not_logged"`)) ||
		!bytes.Contains(early.Receipt, []byte(`"context.audit_gap":"transcript_missing"`)) {
		t.Errorf("a sidecar without usage: gaps missing:\n%s", early.Receipt)
	}
	orphan, ok := got["7c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f.settings.json"]
	if !ok {
		t.Fatalf("inputs %v: the orphan sidecar is not one", keysOf(got))
	}
	if _, ok := got["9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.jsonl"]; !ok {
		t.Fatalf("inputs %v: the session is not one", keysOf(got))
	}
	if orphan.Converter != "droid" {
		t.Fatalf("orphan sidecar read by %s", orphan.Converter)
	}
	if !bytes.Contains(orphan.Receipt, []byte(`"context.audit_gap":"transcript_missing"`)) {
		t.Errorf("orphan sidecar: no transcript_missing gap:\n%s", orphan.Receipt)
	}
	if !bytes.Contains(orphan.Receipt, []byte(`"session.id":"7c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f"`)) {
		t.Errorf("orphan sidecar: not named by its session id:\n%s", orphan.Receipt)
	}
	u := gjson.GetBytes(src, "tokenUsage")
	want := convtest.Figures{Input: u.Get("inputTokens").Int(), Output: u.Get("outputTokens").Int(),
		CacheRead: u.Get("cacheReadTokens").Int(), CacheWrite: u.Get("cacheCreationTokens").Int()}
	if f := convtest.Terms(orphan.Receipt, false); f != want {
		t.Errorf("orphan sidecar: tokens %+v, want %+v", f, want)
	}
	if bytes.Contains(got["9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d.jsonl"].Receipt, []byte("transcript_missing")) {
		t.Error("a session with its transcript says the transcript is missing")
	}
	for name, res := range got {
		for _, out := range [][]byte{res.Receipt, res.Trace} {
			if bytes.Contains(out, []byte(convtest.Canary)) {
				t.Errorf("%s: canary in the outputs", name)
			}
		}
	}
}

func keysOf(m map[string]pipeline.Result) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestDroidCompactionAndSkills: a compaction_state record (Droid's
// saveCompactionSummary) writes the compaction and its summary, digested;
// a successful Skill call writes context.skill.invoked, a duplicate when
// the skill is already in the context and selected again after a
// compaction; a failed one writes nothing. Nothing raw reaches an output.
func TestDroidCompactionAndSkills(t *testing.T) {
	testshared.InRepo(t)
	const log = `{"type":"session_start","id":"c0ffee00-1111-4222-8333-444455556666","title":"CANARY-title","owner":"CANARY-owner","version":2,"cwd":"/CANARY/proj"}
{"type":"message","id":"m1","timestamp":"2026-11-27T16:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"CANARY-prompt"}]}}
{"type":"message","id":"m2","timestamp":"2026-11-27T16:00:02.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Skill","input":{"skill":"CANARY-skill"}},{"type":"tool_use","id":"t2","name":"Skill","input":{"skill":"CANARY-skill"}},{"type":"tool_use","id":"t3","name":"Skill","input":{"skill":"CANARY-other"}}]}}
{"type":"message","id":"m3","timestamp":"2026-11-27T16:00:03.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"CANARY-body"},{"type":"tool_result","tool_use_id":"t2","content":"CANARY-body"},{"type":"tool_result","tool_use_id":"t3","content":"CANARY-no such skill","is_error":true}]}}
{"type":"compaction_state","id":"c1","timestamp":"2026-11-27T16:10:00.000Z","summaryText":"CANARY-summary","summaryTokens":12,"summaryKind":"llm_summary","removedCount":3,"anchorMessage":{"id":"m3","index":2},"systemInfo":{"cwd":"/CANARY/proj"}}
{"type":"message","id":"m4","timestamp":"2026-11-27T16:10:02.000Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t4","name":"Skill","input":{"skill":"CANARY-skill"}}]}}
{"type":"message","id":"m5","timestamp":"2026-11-27T16:10:03.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t4","content":"CANARY-body"}]}}
`
	p := filepath.Join(t.TempDir(), "c0ffee00-1111-4222-8333-444455556666.jsonl")
	if err := os.WriteFile(p, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	res := pipeline.Convert(pipeline.Input{Path: p, Rel: filepath.Base(p)}, pipeline.Options{})
	if res.Err != nil || res.Converter != "droid" {
		t.Fatalf("%s, %v", res.Converter, res.Err)
	}
	var roles []string
	started, summaries := 0, 0
	for _, l := range bytes.Split(res.Receipt, []byte{'\n'}) {
		e := gjson.ParseBytes(l)
		switch e.Get("name").Str {
		case "context.skill.invoked":
			roles = append(roles, e.Get(`attributes.context\.input\.duplicate\.role`).Str)
		case "context.compaction.started":
			started++
			if r := e.Get(`attributes.context\.compaction\.reason`).Str; r != "llm_summary" {
				t.Errorf("compaction reason %q", r)
			}
		case "context.compaction.summary_loaded":
			summaries++
		}
	}
	if got := strings.Join(roles, ","); got != "selected,duplicate,selected" {
		t.Errorf("skill loads %q, want selected,duplicate,selected", got)
	}
	if started != 1 || summaries != 1 {
		t.Errorf("%d compactions and %d summaries, want 1 and 1", started, summaries)
	}
	if bytes.Contains(res.Receipt, []byte(convtest.Canary)) || bytes.Contains(res.Trace, []byte(convtest.Canary)) {
		t.Error("canary in the outputs")
	}
}
