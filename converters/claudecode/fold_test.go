package claudecode_test

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

const sid = "2b3c4d5e-6f70-4a81-9b92-a3b4c5d6e7f8"

// row is one transcript line of the session; every text is a canary.
func row(uuid, parent, typ, ts, agent, body string) string {
	side := ""
	if agent != "" {
		side = `,"isSidechain":true,"agentId":"` + agent + `"`
	}
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"parentUuid":` + p + `,"type":"` + typ + `","uuid":"` + uuid + `","timestamp":"2026-11-02T09:00:` + ts + `.000Z","sessionId":"` + sid +
		`","version":"2.1.230","cwd":"/Users/CANARY-fay/src/app","userType":"external","entrypoint":"cli"` + side + `,` + body + `}`
}

func prompt(text string) string {
	return `"message":{"role":"user","content":[{"type":"text","text":"CANARY ` + text + `"}]}`
}

// answer is a streamed row of response msg_<id> (request req_<req>) with
// the usage written so far.
func answer(id, req string, output int) string {
	rq := ""
	if req != "" {
		rq = `"requestId":"req_` + req + `",`
	}
	return rq + `"message":{"id":"msg_` + id + `","type":"message","role":"assistant","model":"claude-opus-4-7","content":[{"type":"text","text":"CANARY answer"}],` +
		`"stop_reason":null,"usage":{"input_tokens":8,"cache_creation_input_tokens":0,"cache_read_input_tokens":30000,"output_tokens":` + fmt.Sprint(output) + `}}`
}

// TestReplayKeepsLargestUsage: a response is one message id (and request
// id) across the files of one session. A subagent whose transcript repeats
// the parent's responses under fresh record uuids (aside_question) may hold
// a copy with the final output count where the parent's transcript kept
// only a streamed, partial row, or the other way round: the response keeps
// its largest usage either way, and counts once. A copy under another
// request id is another request: not folded into this response.
func TestReplayKeepsLargestUsage(t *testing.T) {
	for _, tc := range []struct {
		name           string
		main, sub      int    // output of msg_A's row in each transcript
		subReq         string // request id of the copy
		output         int64  // the session's output tokens
		responses      int64
		replayedCounts bool
	}{
		{"the parent's row is partial", 40, 900, "A", 900 + 70, 2, true},
		{"the subagent's copy is partial", 900, 40, "A", 900 + 70, 2, true},
		{"the copy names no request id", 40, 900, "", 900 + 70, 2, true},
		{"the copy is another request's", 40, 900, "Z", 40 + 70, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proj := filepath.Join(t.TempDir(), "projects", "-Users-CANARY-fay-src-app")
			sub := filepath.Join(proj, sid, "subagents")
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			main := []string{
				row("u-1", "", "user", "01", "", prompt("question")),
				row("a-1", "u-1", "assistant", "05", "", answer("A", "A", tc.main)),
				row("u-2", "a-1", "user", "20", "", prompt("follow-up")),
				row("a-2", "u-2", "assistant", "25", "", answer("B", "B", 70)),
			}
			aside := []string{
				row("x-1", "", "user", "10", "aside01", prompt("by the way")),
				row("x-2", "x-1", "assistant", "11", "aside01", answer("A", tc.subReq, tc.sub)),
			}
			files := map[string]string{
				filepath.Join(proj, sid+".jsonl"):             strings.Join(main, "\n") + "\n",
				filepath.Join(sub, "agent-aside01.jsonl"):     strings.Join(aside, "\n") + "\n",
				filepath.Join(sub, "agent-aside01.meta.json"): `{"agentType":"aside_question","description":"CANARY aside"}`,
			}
			for p, body := range files {
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ins, err := pipeline.Expand([]string{filepath.Join(proj, sid+".jsonl")})
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
			var responses int64
			for _, l := range bytes.Split(res.Receipt, []byte{'\n'}) {
				if gjson.GetBytes(l, "name").Str != "gen_ai.token_usage.summarized" {
					continue
				}
				a := gjson.GetBytes(l, "attributes")
				_, u := usage.Summary(func(k string) gjson.Result { return a.Get(gjson.Escape(k)) })
				got.Add(u)
				responses += a.Get(`gen_ai\.usage\.responses`).Int()
			}
			if got.Output != tc.output || responses != tc.responses || got.CacheRead != 60000 {
				t.Errorf("output %d over %d responses (cache read %d), want %d over %d", got.Output, responses, got.CacheRead, tc.output, tc.responses)
			}
			replayed := bytes.Contains(res.Trace, []byte(`"claude_code.replayed_messages.count"`))
			if replayed != tc.replayedCounts {
				t.Errorf("replayed messages counted: %v", replayed)
			}
		})
	}
}
