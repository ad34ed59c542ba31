package pipeline

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared/ocdb"
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

// TestOneNamingRule (item 1, one naming rule for everything written): a
// folder, file or manifest name derived from the input is an id the value
// kinds accept for that agent, or a digest (keyed in keyed mode). Each
// layout puts a canary where a user's or project's name sits: a Cursor
// project folder with one dash (a session opened in the home folder), a
// Claude Code working directory one level deep, a Windows Claude Code
// folder, an OpenClaw agent id, an opencode.db session id of OpenCode's
// prefix and anything after it, and files named by 32 and 40 hex digits
// (an API key's and a token's form). No canary, no such hex and, keyed,
// no plain sha256 of any input-derived text reaches an output, an output
// name, a message or the manifest; every session converts.
func TestOneNamingRule(t *testing.T) {
	const (
		hex32 = "0123456789abcdef0123456789abcdef"
		hex40 = "da39a3ee5e6b4b0d3255bfef95601890afd80709"
		sesID = "ses_PLANTEDpayrollQ3alice"
	)
	ccSample := repoPath("samples/claude_code/basic/-Users-alice-src-acme-ledger")
	ccMain := "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl"
	layouts := []struct {
		name   string
		make   func(t *testing.T, home string) string // returns the argument given to run
		extras []string                               // canaries of this layout besides CANARY
	}{
		{"cursor project folder with one dash", func(t *testing.T, home string) string {
			root := filepath.Join(home, ".cursor", "projects")
			copyTree(t, repoPath("samples/cursor/transcripts/projects/home-ivy-src-app"), filepath.Join(root, "Users-PLANTEDname"))
			return root
		}, nil},
		{"claude code cwd one level deep", func(t *testing.T, home string) string {
			root := filepath.Join(home, ".claude", "projects")
			copyTree(t, ccSample, filepath.Join(root, "-PLANTEDproject"))
			return root
		}, nil},
		{"windows claude code folder", func(t *testing.T, home string) string {
			root := filepath.Join(home, ".claude", "projects")
			copyTree(t, ccSample, filepath.Join(root, "c--Users-PLANTEDname-Documents-PLANTEDproject"))
			return root
		}, nil},
		{"openclaw agent id", func(t *testing.T, home string) string {
			root := filepath.Join(home, ".openclaw", "agents")
			copyTree(t, repoPath("samples/pi_agent/openclaw/agents/main"), filepath.Join(root, "PLANTEDagent"))
			return root
		}, nil},
		{"files named by 32 and 40 hex digits", func(t *testing.T, home string) string {
			root := filepath.Join(home, "logs")
			b, err := os.ReadFile(filepath.Join(ccSample, ccMain))
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []string{hex32, hex40} {
				writeFile(t, root, n+".jsonl", string(b))
			}
			return root
		}, []string{hex32, hex40}},
		{"opencode.db session id", func(t *testing.T, home string) string {
			p := filepath.Join(home, "opencode", "opencode.db")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			ocdb.Build(t, p, func(db *sql.DB) {
				var id string
				if err := db.QueryRow("SELECT id FROM session ORDER BY id LIMIT 1").Scan(&id); err != nil {
					t.Fatal(err)
				}
				for _, q := range []string{"UPDATE session SET id = ? WHERE id = ?", "UPDATE message SET session_id = ? WHERE session_id = ?",
					"UPDATE part SET session_id = ? WHERE session_id = ?", "UPDATE session SET parent_id = ? WHERE parent_id = ?"} {
					if _, err := db.Exec(q, sesID, id); err != nil {
						t.Fatal(err)
					}
				}
			})
			return p
		}, []string{sesID}},
	}
	for _, l := range layouts {
		for _, m := range modes(t) {
			t.Run(l.name+" "+m.name, func(t *testing.T) {
				home := t.TempDir()
				arg := l.make(t, home)
				ins, err := Expand([]string{arg})
				if err != nil {
					t.Fatal(err)
				}
				out := t.TempDir()
				var msgs strings.Builder
				oc := Run(context.Background(), ins, RunOptions{Options: m.opt, Out: out, Jobs: 1}, &msgs)
				if oc.Converted != len(ins) || oc.Failed+oc.Leaks+oc.SchemaErrors != 0 {
					t.Fatalf("converted %d of %d: %v", oc.Converted, len(ins), oc.Failures)
				}
				all := msgs.String() + strings.Join(oc.Failures, "\n")
				var names []string
				filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
					if err != nil {
						t.Fatal(err)
					}
					rel, _ := filepath.Rel(out, p)
					names = append(names, filepath.ToSlash(rel))
					if !d.IsDir() {
						b, err := os.ReadFile(p)
						if err != nil {
							t.Fatal(err)
						}
						all += string(b)
					}
					return nil
				})
				all += strings.Join(names, "\n")
				// The samples' own canaries sit in names, which --reveal
				// names writes in clear by design; a name of a folder or
				// file never is.
				bad := append([]string{"PLANTED", "planted"}, l.extras...)
				if !m.opt.Reveal {
					bad = append(bad, "CANARY", "canary")
				}
				for _, bad := range bad {
					if strings.Contains(all, bad) {
						t.Errorf("%q reached an output, a name, a message or the manifest (names %q)", bad, names)
					}
				}
				if !strings.HasPrefix(m.name, "keyed") {
					return
				}
				// Every input-derived text a guesser would try, each folder
				// and file name and path of every input.
				guesses := append([]string(nil), l.extras...)
				for _, in := range ins {
					for _, p := range append(inputPaths(in), in.Rel) {
						rel, _ := filepath.Rel(home, p)
						guesses = append(guesses, p, filepath.ToSlash(rel), filepath.Base(p))
						for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
							guesses = append(guesses, part, strings.TrimSuffix(part, ".jsonl"))
						}
					}
				}
				for _, g := range guesses {
					sum := sha256.Sum256([]byte(g))
					if x := hex.EncodeToString(sum[:]); strings.Contains(all, x[:12]) {
						i := strings.Index(all, x[:12])
						t.Errorf("keyed: the plain sha256 of %q is in an output, a name or the manifest: …%s…", g, all[max(0, i-200):i+20])
					}
				}
			})
		}
	}
}

// TestKindsFromKnowledge (item 2): a value is written in clear for what it
// is known to be, not for its shape. A model name the catalog does not
// know is a digest unless names are revealed, and a path, an intranet
// e-mail or a phone number as a model is never in clear; a version with
// words after its numbers, a tool call id that is a password or a
// Mailgun key, a UUID (a Heroku key's form) where the agent's id is no
// UUID, and under --reveal names a skill or an MCP server that is a path
// or an e-mail never reach an output. Each session converts, in every
// mode.
func TestKindsFromKnowledge(t *testing.T) {
	asst := func(model, content string) string {
		return ccRec(`,"requestId":"req_01K","message":{"role":"assistant","model":` + quoteJSON(model) + `,"id":"msg_01K","content":[` + content + `],"usage":{"input_tokens":10,"output_tokens":2}}`)
	}
	tool := func(id, name, input string) string {
		return `{"type":"tool_use","id":` + quoteJSON(id) + `,"name":` + quoteJSON(name) + `,"input":` + input + `}`
	}
	const text = `{"type":"text","text":"CANARY-answer"}`
	cases := []struct {
		name  string
		lines []string
		never []string // in no mode
		plain []string // only under --reveal names
	}{
		{"a path as the model", []string{asst("home/PLANTEDuser/payroll/q3-salaries.xlsx", text)}, []string{"PLANTED", "q3-salaries"}, nil},
		{"an intranet e-mail as the model", []string{asst("alice.PLANTED@acme", text)}, []string{"PLANTED"}, nil},
		{"a national phone number as the model", []string{asst("tel-02079460958", text)}, []string{"02079460958"}, nil},
		{"a local model nobody publishes", []string{asst("llama-planted-7b", text)}, nil, []string{"llama-planted-7b"}},
		{"a version with a name after its numbers", []string{strings.Replace(asst("claude-opus-4-6", text), `"version":"2.1.50"`, `"version":"2.1.39-alice.PLANTED.payroll"`, 1)},
			[]string{"PLANTED"}, nil},
		{"a password as a tool call id", []string{asst("claude-opus-4-6", tool("mysql:root:PLANTEDpw1", "Bash", `{"command":"CANARY"}`))}, []string{"PLANTED"}, nil},
		{"a password after words as a tool call id", []string{asst("claude-opus-4-6", tool("mysql-root-planted7", "Bash", `{"command":"CANARY"}`))}, []string{"planted7"}, nil},
		{"a Mailgun key as a tool call id", []string{asst("claude-opus-4-6", tool("key-0123456789abcdef0123456789abcdef", "Bash", `{}`))}, []string{"0123456789abcdef0123456789abcdef"}, nil},
		{"a Heroku key as a request id", []string{strings.Replace(asst("claude-opus-4-6", text), `"requestId":"req_01K"`, `"requestId":"9b7c6d5e-1111-4222-8333-444455556666"`, 1)},
			[]string{"9b7c6d5e-1111-4222-8333-444455556666"}, nil},
		{"a path as a skill", []string{asst("claude-opus-4-6", tool("toolu_01S", "Skill", `{"skill":"home/PLANTEDuser/skills/payroll"}`))}, []string{"PLANTED"}, nil},
		{"an e-mail as an MCP server", []string{asst("claude-opus-4-6", tool("toolu_01M", "mcp__alice.PLANTED@acme__list", `{}`))}, []string{"PLANTED"}, nil},
	}
	for _, tc := range cases {
		for _, m := range modes(t) {
			t.Run(tc.name+" "+m.name, func(t *testing.T) {
				p := writeFile(t, t.TempDir(), sid+".jsonl", strings.Join(tc.lines, "\n")+"\n")
				res := Convert(Input{Path: p, Rel: filepath.Base(p)}, m.opt)
				if res.Err != nil {
					t.Fatalf("refused: %v", res.Err)
				}
				all := everything(&res)
				for _, bad := range append([]string{"CANARY", "canary"}, tc.never...) {
					if strings.Contains(all, bad) {
						t.Errorf("%q reached an output or message", bad)
					}
				}
				for _, v := range tc.plain {
					if got := strings.Contains(all, `"`+v+`"`); got != m.opt.Reveal {
						t.Errorf("%q in clear: %v, want %v (only under --reveal names)", v, got, m.opt.Reveal)
					}
				}
			})
		}
	}
}
