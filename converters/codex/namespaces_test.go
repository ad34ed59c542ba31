package codex_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
)

// TestCodexNamespacesAndSessionMetas reads samples/codex/v0146_namespaces,
// three 0.146 rollouts: a parent whose calls go by namespace (web,
// mcp__server, collaboration spawn/list/wait without the collab events),
// with world_state and inter_agent_communication_metadata records; its
// child, whose second session_meta is its parent's (source vscode); and a
// resumed thread that writes its session_meta four times.
func TestCodexNamespacesAndSessionMetas(t *testing.T) {
	testshared.InRepo(t)
	const parent, child, resumed = "019f4600-aaaa-7bbb-8ccc-000000000001", "019f4600-aaaa-7bbb-8ccc-000000000002", "019f4600-aaaa-7bbb-8ccc-000000000003"
	got := map[string]pipeline.Result{}
	for _, r := range convtest.Convert(t, "samples/codex/v0146_namespaces", pipeline.Options{}) {
		if r.Err != nil {
			t.Fatalf("%s: %v", r.Path, r.Err)
		}
		for _, out := range [][]byte{r.Receipt, r.Trace} {
			if strings.Contains(string(out), convtest.Canary) {
				t.Fatalf("canary in an output of %s", r.Path)
			}
		}
		base := filepath.Base(r.Path)
		got[base[len(base)-len(parent+".jsonl"):len(base)-len(".jsonl")]] = r
	}
	if len(got) != 3 {
		t.Fatalf("%d rollouts", len(got))
	}
	// The thread a rollout is attributed to: its root span's session.id.
	sessionOf := func(trace []byte) string {
		for _, s := range gjson.GetBytes(trace, "resourceSpans.#.scopeSpans.#.spans|@flatten|@flatten").Array() {
			if s.Get("parentSpanId").Str == "" {
				for _, a := range s.Get("attributes").Array() {
					if a.Get("key").Str == "session.id" {
						return a.Get("value.stringValue").Str
					}
				}
			}
		}
		return ""
	}

	// The child is the first session_meta's thread, its parent's meta a copy.
	c := got[child]
	spawned := convtest.Events(c.Receipt, "subagent.spawned")
	if len(spawned) != 1 || spawned[0].Get(`attributes.subagent\.parent_thread_id`).Str != parent {
		t.Errorf("child: subagent.spawned %v", spawned)
	}
	if s := sessionOf(c.Trace); s != child {
		t.Errorf("child attributed to %q", s)
	}
	if s := sessionOf(got[resumed].Trace); s != resumed {
		t.Errorf("resumed thread attributed to %q", s)
	}
	// A resumed process counts from zero again: 1000 in, then 2500 (1000
	// cached) after the resume; 50 out, then 120.
	if u := convtest.Usage(got[resumed].Receipt)[""]; !strings.HasPrefix(u, "in=3500 out=170 cache_read=1000 cache_write=0 ") {
		t.Errorf("resumed usage %s", u)
	}

	// The parent: the spawn call's output names the child, the wait's output
	// is what came back, the web namespace is web search and mcp__ an MCP
	// server.
	p := got[parent]
	sp := convtest.Events(p.Receipt, "subagent.spawned")
	if len(sp) != 1 || sp[0].Get(`attributes.subagent\.link`).Str != "spawn_call_id" {
		t.Errorf("parent: subagent.spawned %v", sp)
	}
	if rr := convtest.Events(p.Receipt, "subagent.result.returned"); len(rr) != 1 || rr[0].Get(`attributes.subagent\.result\.boundary`).Str != "final_text_returned_to_parent" {
		t.Errorf("parent: subagent.result.returned %v", rr)
	}
	if m := convtest.Events(p.Receipt, "mcp.tool_call.completed"); len(m) != 1 {
		t.Errorf("parent: %d MCP calls", len(m))
	}
	tools := map[string]bool{}
	links := 0
	for _, s := range gjson.GetBytes(p.Trace, "resourceSpans.#.scopeSpans.#.spans|@flatten|@flatten").Array() {
		links += len(s.Get("links").Array())
		for _, a := range s.Get("attributes").Array() {
			if a.Get("key").Str == "gen_ai.tool.name" {
				tools[a.Get("value.stringValue").Str] = true
			}
		}
	}
	for _, n := range []string{"web_search", "spawn_agent", "list_agents", "wait_agent"} {
		if !tools[n] {
			t.Errorf("parent: tool %s not in the trace (%v)", n, tools)
		}
	}
	if links != 1 {
		t.Errorf("parent: %d links, want the one to the child's trace", links)
	}
	sum := convtest.Events(p.Receipt, "convert.summary")[0]
	types := map[string]bool{}
	for _, v := range sum.Get(`attributes.convert\.input\.record_types`).Array() {
		types[v.Str] = true
	}
	for _, ty := range []string{"world_state=2", "inter_agent_communication_metadata=1"} {
		if !types[ty] {
			t.Errorf("parent: record type %s not counted by name (%v)", ty, types)
		}
	}
	if n := sum.Get(`attributes.convert\.input\.lines\.skipped`).Int(); n != 0 {
		t.Errorf("parent: %d lines skipped", n)
	}
}

// TestCodexAppNamespace reads samples/codex/v0150_codex_app, a Codex app
// rollout: calls in the codex_app namespace (create_thread,
// send_message_to_thread, and one this reader does not know), and outputs
// the app writes with no call before them (an automation's run, a task
// delegated from another thread), which entered the context.
func TestCodexAppNamespace(t *testing.T) {
	testshared.InRepo(t)
	res := convtest.Convert(t, "samples/codex/v0150_codex_app", pipeline.Options{})
	if len(res) != 1 {
		t.Fatalf("%d rollouts", len(res))
	}
	r := res[0]
	for _, out := range [][]byte{r.Receipt, r.Trace} {
		if strings.Contains(string(out), convtest.Canary) {
			t.Fatal("canary in an output")
		}
	}
	kinds := map[string]int{}
	for _, e := range convtest.Events(r.Receipt, "context.input.loaded") {
		if e.Get(`attributes.context\.input\.delivered\.via`).Str == "codex_app_output" {
			kinds[e.Get(`attributes.context\.input\.kind`).Str]++
		}
	}
	if kinds["automation_run"] != 1 || kinds["delegated_task"] != 1 || len(kinds) != 2 {
		t.Errorf("app outputs loaded as %v, want one automation_run and one delegated_task", kinds)
	}
	tools := map[string]int{}
	for _, s := range gjson.GetBytes(r.Trace, "resourceSpans.#.scopeSpans.#.spans|@flatten|@flatten").Array() {
		for _, a := range s.Get("attributes").Array() {
			if a.Get("key").Str == "gen_ai.tool.name" {
				name := a.Get("value.stringValue").Str
				if strings.HasPrefix(name, "sha256:") {
					name = "digest"
				}
				tools[name]++
			}
		}
	}
	want := map[string]int{"codex_app.create_thread": 1, "codex_app.send_message_to_thread": 1, "digest": 1}
	for k, n := range want {
		if tools[k] != n {
			t.Errorf("tool names %v, want %v", tools, want)
			break
		}
	}
	if got := convtest.Usage(r.Receipt)[""]; !strings.HasPrefix(got, "in=9000 out=420 cache_read=5000") {
		t.Errorf("usage %s", got)
	}
}
