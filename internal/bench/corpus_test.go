package bench

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestRewriterLine(t *testing.T) {
	const sid = "847ff7d2-1111-4222-8333-444455556666"
	pin := map[string]string{sid: "00000000-0000-4000-8000-000000000000"}
	cases := []struct {
		name, in string
		same     []string // substrings that must survive unchanged
		gone     []string // ids that must be replaced
	}{
		{"uuid fields", `{"uuid":"0b9a0e1c-2d3f-4a5b-9c6d-7e8f90a1b2c3","parentUuid":null}`, []string{`"parentUuid":null`}, []string{"0b9a0e1c-2d3f-4a5b-9c6d-7e8f90a1b2c3"}},
		{"prefixed ids", `{"id":"msg_01XyZabc123456789","requestId":"req_011CXabcdefghijkl","t":"toolu_01AbCdEfGhIjKlMn"}`, nil, []string{"msg_01XyZabc123456789", "req_011CXabcdefghijkl", "toolu_01AbCdEfGhIjKlMn"}},
		{"codex ids", `{"call_id":"call_AbCdEfGhIjKlMnOp","id":"fc_0fc8668ac7066e58016a437fba3"}`, []string{`"call_id":`}, []string{"call_AbCdEfGhIjKlMnOp", "fc_0fc8668ac7066e58016a437fba3"}},
		{"ids inside text", `{"text":"see toolu_01AbCdEfGhIjKlMn and 0b9a0e1c-2d3f-4a5b-9c6d-7e8f90a1b2c3."}`, []string{"see toolu_", " and "}, []string{"01AbCdEfGhIjKlMn", "0b9a0e1c-2d3f"}},
		{"agent id", `{"toolUseResult":{"agentId":"afba179"}}`, []string{`"agentId":"`}, []string{"afba179"}},
		{"pinned session", `{"sessionId":"` + sid + `"}`, []string{`"sessionId":"00000000-0000-4000-8000-000000000000"`}, []string{sid}},
		{"not ids", `{"a":"msg_short","b":"my_toolu_01AbCdEfGhIjKl","c":"x0b9a0e1c-2d3f-4a5b-9c6d-7e8f90a1b2c3","d":"hello_world_example"}`,
			[]string{"msg_short", "my_toolu_01AbCdEfGhIjKl", "x0b9a0e1c-2d3f-4a5b-9c6d-7e8f90a1b2c3", "hello_world_example"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := string(newRewriter([16]byte{1}, pin).line(nil, []byte(c.in)))
			a2 := string(newRewriter([16]byte{1}, pin).line(nil, []byte(c.in)))
			b := string(newRewriter([16]byte{2}, pin).line(nil, []byte(c.in)))
			if a != a2 {
				t.Errorf("same key, different output:\n%s\n%s", a, a2)
			}
			if len(a) != len(c.in) || !json.Valid([]byte(a)) {
				t.Errorf("shape changed: %s", a)
			}
			for _, s := range c.same {
				if !strings.Contains(a, s) {
					t.Errorf("%q lost: %s", s, a)
				}
			}
			for _, g := range c.gone {
				if strings.Contains(a, g) {
					t.Errorf("%q kept: %s", g, a)
				}
			}
			if len(c.gone) > 0 && !strings.Contains(c.in, sid) && a == b {
				t.Errorf("two copies share ids: %s", a)
			}
			if len(c.gone) == 0 && a != c.in {
				t.Errorf("changed:\n%s\n%s", c.in, a)
			}
		})
	}
}

// TestRewriterKeepsPairs: within a copy a tool_use and its tool_result, a
// uuid and the parentUuid naming it, still match; UUIDs keep their form.
func TestRewriterKeepsPairs(t *testing.T) {
	rw := newRewriter([16]byte{7}, nil)
	use := rw.line(nil, []byte(`{"uuid":"0b9a0e1c-2d3f-4a5b-9c6d-7e8f90a1b2c3","message":{"content":[{"type":"tool_use","id":"toolu_01AbCdEfGhIjKlMn"}]}}`))
	res := rw.line(nil, []byte(`{"parentUuid":"0b9a0e1c-2d3f-4a5b-9c6d-7e8f90a1b2c3","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_01AbCdEfGhIjKlMn"}]}}`))
	if u, p := gjson.GetBytes(use, "uuid").Str, gjson.GetBytes(res, "parentUuid").Str; u != p || u == "0b9a0e1c-2d3f-4a5b-9c6d-7e8f90a1b2c3" {
		t.Errorf("uuid %s, parentUuid %s", u, p)
	}
	if u, r := gjson.GetBytes(use, "message.content.0.id").Str, gjson.GetBytes(res, "message.content.0.tool_use_id").Str; u != r || !strings.HasPrefix(u, "toolu_") {
		t.Errorf("tool_use %s, tool_result %s", u, r)
	}
	if u := gjson.GetBytes(use, "uuid").Str; !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-9[0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(u) {
		t.Errorf("uuid form lost: %s", u)
	}
}

// writeSeeds makes a small seed set: Claude Code sessions with tool pairs
// and usage, Codex rollouts with a session_meta line.
func writeSeeds(t *testing.T) string {
	dir := t.TempDir()
	for i := range 3 {
		sid := fmt.Sprintf("%08x-1111-4222-8333-444455556666", i)
		var b strings.Builder
		parent := "null"
		for j := range 60 {
			u := fmt.Sprintf(`"%08x-%04x-4000-8000-000000000000"`, i, j)
			fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,"sessionId":"%s","version":"2.1.62","type":"assistant","uuid":%s,"requestId":"req_%020d","message":{"id":"msg_%020d","model":"claude-opus-4-6","content":[{"type":"tool_use","id":"toolu_%020d","name":"Bash","input":{"command":"ls %s"}}],"usage":{"input_tokens":3,"output_tokens":5}}}`+"\n",
				parent, sid, u, i*100+j, i*100+j, i*100+j, strings.Repeat("x", 200*(j%7)))
			fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,"sessionId":"%s","version":"2.1.62","type":"user","uuid":"%08x-%04x-4000-9000-000000000000","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%020d","content":"ok"}]}}`+"\n",
				u, sid, i, j, i*100+j)
			parent = u
		}
		writeFile(t, filepath.Join(dir, "claude-code", fmt.Sprintf("cc-%d.jsonl", i)), b.String())
	}
	for i := range 2 {
		sid := fmt.Sprintf("019e%04x-1cf7-72a3-92f5-c0aa98fb134e", i)
		var b strings.Builder
		fmt.Fprintf(&b, `{"timestamp":"2026-06-18T04:57:49.150Z","type":"session_meta","payload":{"id":"%s","cwd":"/srv/x"}}`+"\n", sid)
		for j := range 80 {
			fmt.Fprintf(&b, `{"type":"response_item","payload":{"type":"function_call","name":"shell","call_id":"call_%020d","arguments":"{}"}}`+"\n", i*100+j)
			fmt.Fprintf(&b, `{"type":"response_item","payload":{"type":"function_call_output","call_id":"call_%020d","output":"%s"}}`+"\n", i*100+j, strings.Repeat("y", 300))
		}
		writeFile(t, filepath.Join(dir, "codex", fmt.Sprintf("codex-%d.jsonl", i)), b.String())
	}
	return dir
}

func writeFile(t *testing.T, p, s string) {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func treeSum(t *testing.T, dir string) string {
	h := sha256.New()
	files, _, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	for _, f := range files {
		b, _ := os.ReadFile(f)
		rel, _ := filepath.Rel(dir, f)
		fmt.Fprintf(h, "%s %x\n", rel, sha256.Sum256(b))
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

func TestGenerate(t *testing.T) {
	seeds := writeSeeds(t)
	dir := filepath.Join(t.TempDir(), "corpus")
	spec := Spec{Seeds: seeds, TotalBytes: 8 << 20, BigBytes: 1 << 20, Seed: 7}
	c, err := Generate(dir, spec)
	if err != nil {
		t.Fatal(err)
	}
	if c.ClaudeShape.Sessions < 10 || c.CodexShape.Sessions < 5 || c.ClaudeShape.SubagentFiles == 0 {
		t.Fatalf("shape: %+v %+v", c.ClaudeShape, c.CodexShape)
	}
	if c.ClaudeShape.Median > c.ClaudeShape.P90 || c.ClaudeShape.P90 > c.ClaudeShape.Max || c.ClaudeShape.Median > 200<<10 {
		t.Errorf("not long-tailed: %+v", c.ClaudeShape)
	}
	if total := c.ClaudeShape.Bytes + c.CodexShape.Bytes; total < spec.TotalBytes || total > spec.TotalBytes*2 {
		t.Errorf("history is %d bytes, want about %d", total, spec.TotalBytes)
	}
	if c.BigBytes < spec.BigBytes {
		t.Errorf("big session %d bytes, want %d", c.BigBytes, spec.BigBytes)
	}

	seen := map[string]string{} // message id + request id -> file: dedup keys are per copy
	files, _, err := Files(c.Claude, c.Codex, c.Big)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		sid := uuidRE.FindString(filepath.Base(f))
		if strings.Contains(f, "/subagents/") {
			sid = filepath.Base(filepath.Dir(filepath.Dir(f)))
		}
		uses, results := map[string]bool{}, map[string]bool{}
		for i, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			if !json.Valid(l) {
				t.Fatalf("%s:%d: not JSON", f, i+1)
			}
			r := gjson.ParseBytes(l)
			if strings.Contains(f, "codex") {
				if i == 0 && (r.Get("type").Str != "session_meta" || r.Get("payload.id").Str != sid) {
					t.Errorf("%s: first line %.100s", f, l)
				}
				if i > 0 && r.Get("type").Str == "session_meta" {
					t.Errorf("%s:%d: a second session_meta", f, i+1)
				}
				if id := r.Get("payload.call_id").Str; id != "" {
					if r.Get("payload.type").Str == "function_call" {
						uses[id] = true
					} else {
						results[id] = true
					}
				}
				continue
			}
			if s := r.Get("sessionId").Str; s != sid {
				t.Errorf("%s:%d: sessionId %s", f, i+1, s)
			}
			if strings.Contains(f, "/subagents/") && (!r.Get("isSidechain").Bool() || !strings.Contains(f, "agent-"+r.Get("agentId").Str+".jsonl")) {
				t.Errorf("%s:%d: not a subagent line: %.120s", f, i+1, l)
			}
			if key := r.Get("message.id").Str + r.Get("requestId").Str; key != "" {
				if prev, ok := seen[key]; ok && prev != f {
					t.Errorf("dedup key %s in %s and %s", key, prev, f)
				}
				seen[key] = f
			}
			if id := r.Get("message.content.0.id").Str; id != "" {
				uses[id] = true
			}
			if id := r.Get("message.content.0.tool_use_id").Str; id != "" {
				results[id] = true
			}
			if bytes.Contains(l, []byte("00000000-1111-4222")) || bytes.Contains(l, []byte("toolu_0000")) {
				t.Errorf("%s:%d: a seed id survived: %.120s", f, i+1, l)
			}
		}
		matched := 0
		for id := range results {
			if uses[id] {
				matched++
			}
		}
		if len(results) > 2 && matched < len(results)-2 { // a cut may orphan the first and last
			t.Errorf("%s: %d of %d tool results match a tool use", f, matched, len(results))
		}
	}

	// The same Spec gives the same bytes, and a corpus already there is reused.
	sum := treeSum(t, dir)
	dir2 := filepath.Join(t.TempDir(), "corpus")
	if _, err := Generate(dir2, spec); err != nil {
		t.Fatal(err)
	}
	if treeSum(t, dir2) != sum {
		t.Error("same Spec, different corpus")
	}
	marker := filepath.Join(dir, "claude", "marker.jsonl")
	writeFile(t, marker, "{}\n")
	if c2, err := Generate(dir, spec); err != nil || c2.ClaudeShape.Sessions != c.ClaudeShape.Sessions {
		t.Fatalf("reuse: %v", err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Error("an unchanged Spec rebuilt the corpus")
	}
	spec.Seed++
	if _, err := Generate(dir, spec); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a changed Spec reused the corpus")
	}
}
