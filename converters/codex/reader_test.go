package codex_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/testshared"

	"github.com/klauspost/compress/zstd"
	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/internal/pipeline"
)

// usageByModel reads the token summaries of a receipt.
func usageByModel(receipt []byte) map[string]string {
	got := map[string]string{}
	for _, l := range bytes.Split(receipt, []byte{'\n'}) {
		e := gjson.ParseBytes(l)
		if e.Get("name").Str != "gen_ai.token_usage.summarized" {
			continue
		}
		a := e.Get("attributes")
		got[a.Get(`gen_ai\.request\.model`).Str] = fmt.Sprintf("in=%d cached=%d cache_write=%d out=%d reasoning=%d",
			a.Get(`gen_ai\.usage\.input_tokens`).Int(), a.Get(`gen_ai\.usage\.cache_read\.input_tokens`).Int(),
			a.Get(`gen_ai\.usage\.cache_creation\.input_tokens`).Int(), a.Get(`gen_ai\.usage\.output_tokens`).Int(),
			a.Get(`gen_ai\.usage\.reasoning\.output_tokens`).Int())
	}
	return got
}

// TestCodexTokenTotals: token_count totals are cumulative and written about
// twice per request; each thread's usage is the growth of its total, split
// by the model of the turn. Copied parent history in a subagent's rollout
// (before subagent_history_start_ordinal) is not counted again. Figures
// worked out by hand from the samples.
func TestCodexTokenTotals(t *testing.T) {
	testshared.InRepo(t)
	tests := []struct {
		file string
		want map[string]string
	}{
		{"samples/codex/basic/sessions/2026/03/14/rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl", map[string]string{
			"gpt-5.3-codex":      "in=41000 cached=30000 cache_write=900 out=900 reasoning=260",
			"gpt-5.3-codex-mini": "in=6000 cached=4000 cache_write=0 out=200 reasoning=40",
		}},
		{"samples/codex/basic/sessions/2026/03/14/rollout-2026-03-14T09-12-12-0199a1b2-c3d4-7e5f-8a9b-cccccccccccc.jsonl", map[string]string{
			"gpt-5.3-codex-mini": "in=9000 cached=4000 cache_write=0 out=700 reasoning=150",
		}},
		{"samples/codex/v058_envelope", map[string]string{
			"gpt-5-codex": "in=20500 cached=9984 cache_write=0 out=410 reasoning=256",
		}},
		{"samples/codex/v0149_world_state", map[string]string{
			"gpt-5.5": "in=30000 cached=25000 cache_write=3000 out=800 reasoning=500",
		}},
		{"samples/codex/v03_pre_envelope.jsonl", map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			res := convtest.Convert(t, tt.file, pipeline.Options{})
			if len(res) != 1 || res[0].Converter != "codex" {
				t.Fatalf("%d results, converter %q", len(res), res[0].Converter)
			}
			got := usageByModel(res[0].Receipt)
			for m, w := range tt.want {
				if got[m] != w {
					t.Errorf("%s: %s, want %s", m, got[m], w)
				}
			}
			if len(got) != len(tt.want) {
				t.Errorf("models: %v", got)
			}
		})
	}
}

// TestCodexInstructionPlaces: AGENTS.md and user instructions are found in
// every place a version put them, each load naming its place; the same
// text repeated by every turn context is written once.
func TestCodexInstructionPlaces(t *testing.T) {
	testshared.InRepo(t)
	tests := []struct {
		sample string
		want   []string // kind/via, in order
	}{
		{"samples/codex/v03_pre_envelope.jsonl", []string{"user_instructions/session_header_instructions", "environment_context/environment_context_message"}},
		{"samples/codex/v058_envelope", []string{"user_instructions/session_meta_instructions", "environment_context/environment_context_message"}},
		{"samples/codex/v077_agents_messages", []string{"agents_md/user_instructions_message", "agents_md/agents_md_message"}},
		{"samples/codex/v0149_world_state", []string{"agents_md/world_state_agents_md", "user_instructions/turn_context_user_instructions", "developer_instructions/collaboration_mode_developer_instructions"}},
		{"samples/codex/basic/sessions/2026/03/14/rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl", []string{
			"system_prompt/session_meta_base_instructions", "user_instructions/turn_context_user_instructions",
			"developer_instructions/turn_context_developer_instructions", "developer_instructions/developer_message",
			"agents_md/agents_md_message", "environment_context/environment_context_message"}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.sample), func(t *testing.T) {
			res := convtest.Convert(t, tt.sample, pipeline.Options{})
			var got []string
			for _, l := range bytes.Split(res[0].Receipt, []byte{'\n'}) {
				e := gjson.ParseBytes(l)
				if e.Get("name").Str == "context.input.loaded" {
					a := e.Get("attributes")
					got = append(got, a.Get(`context\.input\.kind`).Str+"/"+a.Get(`context\.input\.delivered\.via`).Str)
					if !strings.HasPrefix(a.Get(`context\.input\.source\.bytes_hash`).Str, "sha256:") || !strings.HasPrefix(a.Get(`context\.input\.delivered\.hash`).Str, "sha256:") {
						t.Errorf("load without source and delivered hashes: %s", l)
					}
				}
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("loads:\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

// TestCodexSpans: tool calls hang from the root, a subagent from the call
// that spawned it, a failed command carries an error status; the child
// rollout names its parent thread and a fork only its origin.
func TestCodexSpans(t *testing.T) {
	testshared.InRepo(t)
	res := convtest.Convert(t, "samples/codex/basic", pipeline.Options{})
	if len(res) != 3 {
		t.Fatalf("%d results, want parent, child and fork", len(res))
	}
	byName := map[string]pipeline.Result{}
	for _, r := range res {
		byName[filepath.Base(r.Rel)] = r
	}
	parent := byName["rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"]
	spans := convtest.Spans(parent.Trace)
	ids := convtest.WithEvent(spans, "subagent.spawned")
	if len(ids) != 1 || convtest.Chain(spans, ids[0]) != "invoke_agent < execute_tool spawn_agent < invoke_agent codex" {
		t.Errorf("subagent spans %v", ids)
	}
	for _, want := range []string{"execute_tool shell < invoke_agent codex", "execute_tool apply_patch < invoke_agent codex", "execute_tool tool_search < invoke_agent codex"} {
		found := false
		for id := range spans {
			if convtest.Chain(spans, id) == want {
				found = true
			}
		}
		if !found {
			t.Errorf("no span %s", want)
		}
	}
	if !bytes.Contains(parent.Trace, []byte(`"code":2`)) {
		t.Error("the failed make test call has no error status")
	}
	child := byName["rollout-2026-03-14T09-12-12-0199a1b2-c3d4-7e5f-8a9b-cccccccccccc.jsonl"]
	if !bytes.Contains(child.Receipt, []byte(`"subagent.parent_thread_id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"`)) {
		t.Error("the child rollout does not name its parent thread")
	}
	fork := byName["rollout-2026-03-14T10-00-00-0199a1b2-c3d4-7e5f-8a9b-ffffffffffff.jsonl"]
	for _, s := range convtest.Spans(fork.Trace) {
		if s.Parent != "" {
			continue
		}
		if got := s.Attr("session.id"); got != "0199a1b2-c3d4-7e5f-8a9b-ffffffffffff" {
			t.Errorf("fork session %s: a fork keeps its own id, not the copied parent session_meta's", got)
		}
		if got := s.Attr("codex.forked_from_id"); got != "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b" {
			t.Errorf("fork origin %q", got)
		}
	}
	if bytes.Contains(fork.Receipt, []byte("subagent.spawned")) {
		t.Error("a fork is provenance, not a subagent")
	}
}

// TestCodexZstd: a compressed rollout (.jsonl.zst, as Codex writes for idle
// sessions) is found by a directory walk, read as a stream and gives the
// same events as the plain file.
func TestCodexZstd(t *testing.T) {
	src := testshared.Repo(t) + "/samples/codex/basic/sessions/2026/03/14/rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "sessions", "2026", "03", "14")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	enc, _ := zstd.NewWriter(nil)
	if err := os.WriteFile(filepath.Join(dir, filepath.Base(src)+".zst"), enc.EncodeAll(raw, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	zres := convtest.Convert(t, filepath.Dir(filepath.Dir(filepath.Dir(dir))), pipeline.Options{})
	pres := convtest.Convert(t, src, pipeline.Options{})
	if len(zres) != 1 || zres[0].Converter != "codex" {
		t.Fatalf("compressed rollout: %d results", len(zres))
	}
	if !bytes.Contains(zres[0].Receipt, []byte(`"convert.input.compression":"zstd"`)) {
		t.Error("summary does not record the compression")
	}
	events := func(rec []byte) string {
		lines := bytes.Split(bytes.TrimSpace(rec), []byte{'\n'})
		return string(bytes.Join(lines[:len(lines)-1], []byte{'\n'}))
	}
	if events(zres[0].Receipt) != events(pres[0].Receipt) {
		t.Error("the compressed rollout converts differently from the plain one")
	}
}

// TestCodexHugeLines: a compacted record with MiB-sized replacement history
// (data: image URLs) and a huge tool output convert, hashed, within the line
// cap; over a smaller cap they are skipped and counted. Nothing raw reaches
// an output either way.
func TestCodexHugeLines(t *testing.T) {
	img := "data:image/png;base64," + strings.Repeat("Q0FOQVJZ", (6<<20)/8)
	big := strings.Repeat("CANARY build log line\n", (3<<20)/22)
	lines := []string{
		`{"timestamp":"2026-03-01T00:00:00.000Z","type":"session_meta","payload":{"id":"0199ffff-0000-7000-8000-000000000001","cwd":"/CANARY","originator":"codex_cli_rs","cli_version":"0.146.0"}}`,
		`{"timestamp":"2026-03-01T00:00:01.000Z","type":"turn_context","payload":{"model":"gpt-5.3-codex"}}`,
		`{"timestamp":"2026-03-01T00:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":\"CANARY make\"}","call_id":"call_big"}}`,
		fmt.Sprintf(`{"timestamp":"2026-03-01T00:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_big","output":%q}}`, big),
		fmt.Sprintf(`{"timestamp":"2026-03-01T00:00:04.000Z","type":"compacted","payload":{"message":"","replacement_history":[{"type":"message","role":"user","content":[{"type":"input_image","image_url":%q}]}]}}`, img),
	}
	p := filepath.Join(t.TempDir(), "rollout-2026-03-01T00-00-00-0199ffff-0000-7000-8000-000000000001.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		max     int
		skipped int64
	}{{0, 0}, {1 << 20, 2}} {
		res := pipeline.Convert(pipeline.Input{Path: p, Rel: filepath.Base(p)}, pipeline.Options{MaxLine: tc.max})
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		if res.Stats.Skipped != tc.skipped || res.Converter != "codex" {
			t.Errorf("cap %d: skipped %d (want %d), converter %s", tc.max, res.Stats.Skipped, tc.skipped, res.Converter)
		}
		if tc.max == 0 && !bytes.Contains(res.Receipt, []byte("context.compaction.summary_loaded")) {
			t.Error("the huge compaction was not converted")
		}
		for _, out := range [][]byte{res.Receipt, res.Trace, []byte(strings.Join(res.Diags, "\n"))} {
			if bytes.Contains(out, []byte("CANARY")) || bytes.Contains(out, []byte("Q0FOQVJZQ0FOQVJZ")) {
				t.Fatal("raw content reached an output")
			}
		}
	}
}

// TestCodexRevealNames: MCP server and tool names are digests unless
// --reveal names; content never appears.
func TestCodexRevealNames(t *testing.T) {
	testshared.InRepo(t)
	f := "samples/codex/basic/sessions/2026/03/14/rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"
	plain := convtest.Convert(t, f, pipeline.Options{})[0]
	shown := convtest.Convert(t, f, pipeline.Options{Reveal: true})[0]
	if bytes.Contains(plain.Receipt, []byte("jira")) || bytes.Contains(plain.Trace, []byte("jira")) {
		t.Error("an MCP name is in clear without --reveal names")
	}
	for _, name := range []string{`"mcp.server.name":"CANARY-jira"`, `"mcp.tool.name":"CANARY_search_issues"`} {
		if !bytes.Contains(shown.Receipt, []byte(name)) {
			t.Errorf("with --reveal names the receipt lacks %s", name)
		}
	}
	for _, raw := range []string{"CANARY-LEDGER", "CANARY-result", "CANARY skill body", "CANARY-agents", "CANARY review", "CANARY-refund-audit"} {
		if bytes.Contains(shown.Receipt, []byte(raw)) || bytes.Contains(shown.Trace, []byte(raw)) {
			t.Errorf("--reveal names revealed content %s", raw)
		}
	}
}

// TestCodexTokenEdgeCases: the usage of a rollout is the growth of its
// cumulative total. Repeated counts, rate-limit-only counts (info null)
// and counts with only last_token_usage are handled without counting a
// request twice; a total that shrinks (a restarted thread) starts a new
// baseline; 0.5x per-turn usage is summed when there are no totals.
func TestCodexTokenEdgeCases(t *testing.T) {
	const head = `{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"0199eeee-0000-7000-8000-000000000001"}}
{"timestamp":"2026-01-01T00:00:01.000Z","type":"turn_context","payload":{"model":"gpt-5"}}
`
	total := func(in, out int) string {
		return fmt.Sprintf(`{"timestamp":"2026-01-01T00:00:02.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d,"cached_input_tokens":0,"output_tokens":%d,"reasoning_output_tokens":0,"total_tokens":%d}}}}`, in, out, in+out)
	}
	last := func(in, out int) string {
		return fmt.Sprintf(`{"timestamp":"2026-01-01T00:00:02.000Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":%d,"output_tokens":%d,"total_tokens":%d}}}}`, in, out, in+out)
	}
	turn := func(in, out int) string {
		return fmt.Sprintf(`{"timestamp":"2026-01-01T00:00:02.000Z","type":"event_msg","payload":{"type":"turn.completed","usage":{"input_tokens":%d,"cached_input_tokens":0,"output_tokens":%d}}}`, in, out)
	}
	null := `{"timestamp":"2026-01-01T00:00:02.000Z","type":"event_msg","payload":{"type":"token_count","info":null}}`
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"repeated totals", []string{total(100, 10), total(100, 10), null, total(250, 30), total(250, 30)}, "in=250 cached=0 cache_write=0 out=30 reasoning=0"},
		{"restarted total", []string{total(100, 10), total(40, 4), total(60, 6)}, "in=160 cached=0 cache_write=0 out=16 reasoning=0"},
		{"last usage only", []string{last(100, 10), last(50, 5)}, "in=150 cached=0 cache_write=0 out=15 reasoning=0"},
		{"legacy per-turn usage", []string{turn(100, 10), turn(20, 2)}, "in=120 cached=0 cache_write=0 out=12 reasoning=0"},
		{"no usage", []string{null}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "rollout.jsonl")
			if err := os.WriteFile(p, []byte(head+strings.Join(tt.lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res := pipeline.Convert(pipeline.Input{Path: p, Rel: "rollout.jsonl"}, pipeline.Options{})
			if res.Err != nil || res.Converter != "codex" {
				t.Fatalf("%v %s", res.Err, res.Converter)
			}
			if got := usageByModel(res.Receipt)["gpt-5"]; got != tt.want {
				t.Errorf("%s, want %s", got, tt.want)
			}
		})
	}
}

// TestCodexToolOutputFailure: a call fails when its output says so, as an
// object or as JSON inside the output string: a non-zero exit code, an
// error flag or success false. Text that only looks like it does not.
func TestCodexToolOutputFailure(t *testing.T) {
	const head = `{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"0199eeee-0000-7000-8000-000000000002"}}
{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"make\"]}","call_id":"call_1"}}
`
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	deep := strings.Repeat(`[`, 10001) + strings.Repeat(`]`, 10001)
	for _, tc := range []struct {
		name   string
		output string // the output field's JSON
		failed bool
	}{
		{"exit code in a JSON string", str(`{"output":"` + strings.Repeat("x", 5000) + `","metadata":{"exit_code":2,"duration_seconds":0.1}}`), true},
		{"exit code zero", str(`{"output":"ok","metadata":{"exit_code":0}}`), false},
		{"isError in a JSON string", str(`{"content":[{"type":"text","text":"no"}],"isError":true}`), true},
		{"success false in a JSON string", str(`{"success":false,"output":"x"}`), true},
		{"success false as an object", `{"success":false}`, true},
		{"exit code as an object", `{"metadata":{"exit_code":1}}`, true},
		{"plain text", str(`exit_code 1: "success":false`), false},
		{"nested past a line's depth, then success false", str(`{"a":` + deep + `,"success":false}`), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			line := `{"timestamp":"2026-01-01T00:00:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":` + tc.output + `}}`
			p := filepath.Join(t.TempDir(), "rollout.jsonl")
			if err := os.WriteFile(p, []byte(head+line+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res := pipeline.Convert(pipeline.Input{Path: p, Rel: "rollout.jsonl"}, pipeline.Options{})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if got := bytes.Contains(res.Trace, []byte(`"code":2`)); got != tc.failed {
				t.Errorf("error status %v, want %v", got, tc.failed)
			}
		})
	}
}
