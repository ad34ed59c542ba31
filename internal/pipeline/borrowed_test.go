package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/gate"
	"github.com/contextreceipts/convert/internal/jsonl"
	"github.com/contextreceipts/convert/internal/receipt"
)

// borrowedSession is a Claude Code session whose line after the first
// holds a value the receipt keeps (site), padded so that the value falls at
// a different offset of the read buffer in each of 40 sessions, then 200
// ordinary prompts that refill that buffer. A reader that keeps a view of
// the value past its line then writes bytes of a later prompt (or refuses
// the session when those bytes break the schema).
func borrowedSession(site string, pad int) string {
	const sid = "11111111-2222-4333-8444-555566667777"
	var b strings.Builder
	n := 0
	line := func(typ, extra string) {
		n++
		fmt.Fprintf(&b, `{"parentUuid":null,"isSidechain":false,"type":%q,"uuid":"u-%04d","timestamp":"2026-07-01T10:%02d:%02d.000Z","sessionId":%q,"version":"2.1.114","cwd":"/Users/x/p","userType":"external","entrypoint":"cli",%s}`+"\n",
			typ, n, n/60%60, n%60, sid, extra)
	}
	line("user", fmt.Sprintf(`"message":{"role":"user","content":"hello %s"}`, strings.Repeat("p", pad)))
	switch site {
	case "skill":
		line("assistant", `"requestId":"req_1","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-4-7","content":[{"type":"tool_use","id":"toolu_01Skill","name":"Skill","input":{"skill":"pdfkit"}}],"usage":{"input_tokens":1,"output_tokens":2}}`)
		line("user", `"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01Skill","content":"Launching skill: pdfkit"}]}`)
	case "init":
		line("user", `"message":{"role":"user","content":"<command-name>/init</command-name><command-args></command-args>"}`)
	case "toolsearch":
		line("assistant", `"requestId":"req_1","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-4-7","content":[{"type":"tool_use","id":"toolu_01TS","name":"ToolSearch","input":{"query":"select:WebFetch"}}],"usage":{"input_tokens":1,"output_tokens":2}}`)
		line("user", `"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01TS","content":[{"type":"tool_reference","tool_name":"WebFetch"}]}]}`)
	case "nested":
		line("attachment", `"attachment":{"type":"nested_memory","path":"CLAUDE.md","content":{"path":"CLAUDE.md","type":"Project","content":"rules"}}`)
	}
	words := []string{"billing", "module", "please", "review", "ledger", "OTHERSESSIONSECRET"}
	for i := range 200 {
		line("user", fmt.Sprintf(`"message":{"role":"user","content":"please review the %s module ledger %d %s"}`, words[i%len(words)], i, strings.Repeat("q", i%37)))
	}
	return b.String()
}

// TestBorrowedSites: the four places issue #33 found a reader keeping a
// view of a line past it (a skill name under --reveal names, /init's command
// name, a ToolSearch built-in's name, a nested CLAUDE.md's path), each at
// 40 offsets in the read buffer: every session converts, and its receipt
// names the right value.
func TestBorrowedSites(t *testing.T) {
	for _, tc := range []struct{ site, want string }{
		{"skill", `"context.skill.name":"pdfkit"`},
		{"init", `"context.input.command.name":"/init"`},
		{"toolsearch", `"gen_ai.tool.name":"WebFetch"`},
		{"nested", `"context.input.source.path":"CLAUDE.md"`},
	} {
		t.Run(tc.site, func(t *testing.T) {
			dir := t.TempDir()
			for pad := range 40 {
				p := filepath.Join(dir, fmt.Sprintf("pad%02d", pad), "11111111-2222-4333-8444-555566667777.jsonl")
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(borrowedSession(tc.site, pad*97)), 0o644); err != nil {
					t.Fatal(err)
				}
				res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{Converter: "claude_code", Reveal: true})
				if res.Err != nil {
					t.Fatalf("padding %d: %v", pad*97, res.Err)
				}
				if !strings.Contains(string(res.Receipt), tc.want) {
					t.Fatalf("padding %d: the receipt lacks %s", pad*97, tc.want)
				}
				for _, w := range []string{"billin", "OTHERSESSION", "illing", "please"} {
					if strings.Contains(string(res.Receipt), w) || strings.Contains(string(res.Trace), w) {
						t.Fatalf("padding %d: a later prompt's bytes (%q) reached an output", pad*97, w)
					}
				}
			}
		})
	}
}

// keepsView is a converter with the bug on purpose: it keeps a string of
// the line past it, through the one door package view cannot close
// (Check's argument), to prove the pipeline's alias check fails it closed.
type keepsView struct{ kept string }

func (k *keepsView) Record(r converters.Record, out *converters.Output) error {
	if name := r.Get("name").Str(); !name.Empty() {
		name.Check(func(s string) bool { k.kept = s; return true })
	}
	return nil
}

func (k *keepsView) End(out *converters.Output) error {
	out.Span.Set("test.kept", receipt.S(k.kept))
	return nil
}

func init() {
	converters.Register(converters.Converter{
		Name: "test_keeps_view", Doc: "test only: keeps a view of a line", SpanName: "invoke_agent",
		TypeField: "type", Types: []string{"kv.record"},
		New: func(converters.Env) converters.State { return &keepsView{} },
	})
}

// TestRegisteredConverterWordsAreKnown: Register gives the gate the words
// of a converter defined outside package converters (the gate imports no
// converter), segments included: the test converter above is one.
func TestRegisteredConverterWordsAreKnown(t *testing.T) {
	for _, w := range []string{"test_keeps_view", gate.ScopePrefix + "test_keeps_view", "kv.record", "kv", "record"} {
		if w != "record" && gate.IsWord(w) {
			t.Errorf("%q is in the generated table: the test proves nothing", w)
		}
		if !gate.Known(w) {
			t.Errorf("%q, a registered converter's word, is not the gate's", w)
		}
	}
}

// TestBorrowedCheckFires: an output string that points into a read buffer
// fails the input closed with an internal error that names the attribute
// key, never the value, and nothing is written.
func TestBorrowedCheckFires(t *testing.T) {
	p := filepath.Join(t.TempDir(), "kv.jsonl")
	body := `{"type":"kv.record","name":"CANARYVIEW"}` + "\n" + `{"type":"kv.record","other":"x"}` + "\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	res := Convert(Input{Path: p, Rel: "kv.jsonl"}, Options{Converter: "test_keeps_view"})
	if !errors.Is(res.Err, ErrBorrowed) {
		t.Fatalf("err = %v, want ErrBorrowed", res.Err)
	}
	var le *LeakError
	if errors.As(res.Err, &le) {
		t.Fatalf("reported as a leak: %v", res.Err)
	}
	msg := res.Err.Error()
	if !strings.Contains(msg, "internal error") || !strings.Contains(msg, "test.kept") || strings.Contains(msg, "CANARY") {
		t.Fatalf("message: %s", msg)
	}
	if res.Receipt != nil || res.Trace != nil {
		t.Fatal("outputs were built")
	}
}

// TestBorrowedNotOwned: view's exits return strings that do not point into
// the line (Own, Admit), or the list's own word (Word).
func TestBorrowedNotOwned(t *testing.T) {
	line := []byte(`{"name":"pdfkit"}`)
	v := view.Parse(bytesView(line)).Get("name").Str()
	spans := [][]byte{line[:0]}
	for name, s := range map[string]string{"Own": v.Own(), "Word": func() string { w, _ := v.Word("x", "pdfkit"); return w }()} {
		if s != "pdfkit" {
			t.Fatalf("%s = %q", name, s)
		}
		if jsonl.Aliases(spans, s) {
			t.Fatalf("%s returned a view of the line", name)
		}
	}
	if !jsonl.Aliases(spans, bytesView(line[9:15])) {
		t.Fatal("a view of the line was not found")
	}
}
