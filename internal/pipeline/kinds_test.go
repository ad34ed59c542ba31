package pipeline

import (
	"path/filepath"
	"strings"
	"testing"
)

// Issue #49: values judged by what they are, not by how they look.

// modes are the four ways a session is converted: plain and keyed, with
// and without --reveal names.
func modes(t *testing.T) []struct {
	name string
	opt  Options
} {
	k := testKey(t)
	return []struct {
		name string
		opt  Options
	}{{"plain", Options{}}, {"plain-reveal", Options{Reveal: true}}, {"keyed", Options{Hash: k}}, {"keyed-reveal", Options{Hash: k, Reveal: true}}}
}

// everything is what a conversion wrote and said.
func everything(res *Result) string {
	s := string(res.Receipt) + string(res.Trace) + strings.Join(res.Diags, "\n")
	if res.Err != nil {
		s += res.Err.Error()
	}
	return s
}

// TestComputedNumbersConvert (item 3, numbers by provenance): a number the
// program computed is never probed as a raw copy. An honest session whose
// tool call waits "timeout": 600000 and whose two requests sum to 600000
// input tokens (or whose cache reads do) converts in every mode, writes its
// total, and no canary reaches an output.
func TestComputedNumbersConvert(t *testing.T) {
	asst := func(n int, tool, usage string) string {
		content := `[{"type":"text","text":"CANARY-answer"}]`
		if tool != "" {
			content = `[{"type":"tool_use","id":"toolu_01N` + string(rune('A'+n)) + `","name":"Bash","input":` + tool + `}]`
		}
		return ccRec(`,"requestId":"req_01N` + string(rune('A'+n)) + `","message":{"role":"assistant","model":"claude-opus-4-5","id":"msg_01N` + string(rune('A'+n)) +
			`","content":` + content + `,"usage":` + usage + `}`)
	}
	cases := []struct {
		name, total string
		lines       []string
	}{
		{"input tokens sum to a timeout", `"gen_ai.usage.input_tokens":600000`, []string{
			asst(0, `{"command":"CANARY make test","timeout":600000}`, `{"input_tokens":300000,"output_tokens":10}`),
			asst(1, "", `{"input_tokens":300000,"output_tokens":10}`)}},
		{"cache reads sum to a file size", `"gen_ai.usage.cache_read.input_tokens":1048576`, []string{
			asst(0, `{"command":"CANARY head -c 1048576 /dev/zero","bytes":1048576}`, `{"input_tokens":5,"cache_read_input_tokens":524288,"output_tokens":10}`),
			asst(1, "", `{"input_tokens":5,"cache_read_input_tokens":524288,"output_tokens":10}`)}},
	}
	for _, tc := range cases {
		for _, m := range modes(t) {
			t.Run(tc.name+" "+m.name, func(t *testing.T) {
				p := writeFile(t, t.TempDir(), sid+".jsonl", strings.Join(tc.lines, "\n")+"\n")
				res := Convert(Input{Path: p, Rel: filepath.Base(p)}, m.opt)
				if res.Err != nil {
					t.Fatalf("honest session refused: %v", res.Err)
				}
				all := everything(&res)
				if !strings.Contains(string(res.Receipt), tc.total) {
					t.Errorf("receipt lacks %s", tc.total)
				}
				for _, bad := range []string{"CANARY", "canary"} {
					if strings.Contains(all, bad) {
						t.Errorf("%q reached an output or message", bad)
					}
				}
			})
		}
	}
}
