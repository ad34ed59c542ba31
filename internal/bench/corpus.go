// Package bench generates a deterministic corpus of agent logs with the
// real shape (big tool results, base64 images, subagents, file-history
// snapshots) and measures convert against baselines on it. It backs
// `make bench`; nothing here is used by convert itself.
package bench

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// Corpus describes what Generate wrote.
type Corpus struct {
	Dir         string // root: projects/ (Claude Code tree) and codex/ (rollouts)
	ClaudeBytes int64  // bytes under projects/, the part ccusage reads
	CodexBytes  int64
	BigFile     string // the single large Claude Code session
	Files       int
}

// Spec sets the corpus size.
type Spec struct {
	TotalBytes int64 // many sessions, Claude Code and Codex, about this much in all
	BigBytes   int64 // plus one Claude Code session of about this size (0: none)
	Seed       uint64
}

// gen writes records with a seeded generator: the same Spec always gives
// the same bytes.
type gen struct {
	r   *rand.Rand
	w   *bufio.Writer
	n   int64
	sid string
	t   int64 // seconds since the session start
}

var words = []string{"refund", "ledger", "retry", "idempotency", "webhook", "invoice", "tenant", "handler", "test",
	"cache", "timeout", "deploy", "config", "schema", "migration", "token", "session", "client", "server", "queue"}

func (g *gen) text(n int) string {
	b := make([]byte, 0, n+16)
	for len(b) < n {
		b = append(b, words[g.r.IntN(len(words))]...)
		b = append(b, ' ')
	}
	return string(b[:n])
}

func (g *gen) id(prefix string) string {
	return fmt.Sprintf("%s%016x%08x", prefix, g.r.Uint64(), g.r.Uint32())
}

func (g *gen) ts() string {
	g.t += int64(1 + g.r.IntN(20))
	return fmt.Sprintf("2026-05-%02dT%02d:%02d:%02d.%03dZ", 1+g.t/86400%28, g.t/3600%24, g.t/60%60, g.t%60, g.r.IntN(1000))
}

func (g *gen) line(v any) {
	b, _ := json.Marshal(v)
	g.w.Write(b)
	g.w.WriteByte('\n')
	g.n += int64(len(b) + 1)
}

// claudeSession writes one Claude Code session of about size bytes into
// project, with a subagent transcript in the 2.1 layout.
func (g *gen) claudeSession(project string, size int64) (int64, int, error) {
	g.sid = fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", g.r.Uint32(), g.r.IntN(1<<16), g.r.IntN(1<<12), g.r.IntN(1<<12), g.r.Uint64()&(1<<48-1))
	g.t = 0
	main := filepath.Join(project, g.sid+".jsonl")
	n, err := g.writeFile(main, size*9/10, false)
	if err != nil {
		return 0, 0, err
	}
	sub := filepath.Join(project, g.sid, "subagents", "agent-"+g.id("a")[:18]+".jsonl")
	m, err := g.writeFile(sub, size/10, true)
	return n + m, 2, err
}

func (g *gen) writeFile(path string, size int64, sidechain bool) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	fh, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	g.w, g.n = bufio.NewWriterSize(fh, 1<<20), 0
	env := func(t, uuid string) map[string]any {
		return map[string]any{"type": t, "uuid": uuid, "parentUuid": nil, "isSidechain": sidechain, "sessionId": g.sid,
			"version": "2.1.114", "cwd": "/Users/dev/" + g.text(12), "gitBranch": "main", "userType": "external", "timestamp": g.ts()}
	}
	for g.n < size {
		if g.r.IntN(8) == 0 {
			g.line(map[string]any{"type": "file-history-snapshot", "messageId": g.id("m"), "snapshot": map[string]any{
				"trackedFileBackups": map[string]any{"/Users/dev/src/" + g.text(10): map[string]any{"backupFileName": g.id("") + "@v2", "version": 2}}}})
		}
		u := env("user", g.id("u"))
		u["message"] = map[string]any{"role": "user", "content": g.text(80 + g.r.IntN(400))}
		if g.r.IntN(40) == 0 { // a pasted screenshot
			img := make([]byte, 200<<10+g.r.IntN(1<<20))
			for i := range img {
				img[i] = byte(g.r.Uint32())
			}
			u["message"] = map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": g.text(60)},
				map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": base64.StdEncoding.EncodeToString(img)}}}}
		}
		g.line(u)
		mid, rid := g.id("msg_"), g.id("req_")
		usage := map[string]any{"input_tokens": g.r.IntN(50), "cache_creation_input_tokens": g.r.IntN(5000),
			"cache_read_input_tokens": g.r.IntN(90000), "output_tokens": 50 + g.r.IntN(2000)}
		for _, blk := range []map[string]any{
			{"type": "thinking", "thinking": g.text(200 + g.r.IntN(800)), "signature": g.id("sig")},
			{"type": "text", "text": g.text(100 + g.r.IntN(600))},
		} {
			a := env("assistant", g.id("a"))
			a["requestId"] = rid
			a["message"] = map[string]any{"id": mid, "type": "message", "role": "assistant", "model": "claude-opus-4-7",
				"content": []any{blk}, "stop_reason": nil, "usage": usage}
			g.line(a)
		}
		tid := g.id("toolu_")
		tool := []string{"Read", "Bash", "Grep", "Edit", "mcp__jira__search_issues"}[g.r.IntN(5)]
		a := env("assistant", g.id("a"))
		a["requestId"] = rid
		a["message"] = map[string]any{"id": mid, "type": "message", "role": "assistant", "model": "claude-opus-4-7",
			"content":     []any{map[string]any{"type": "tool_use", "id": tid, "name": tool, "input": map[string]any{"command": g.text(60)}}},
			"stop_reason": "tool_use", "usage": usage}
		g.line(a)
		res := g.text(500 + g.r.IntN(4000))
		if g.r.IntN(10) == 0 {
			res = g.text(64<<10 + g.r.IntN(512<<10)) // a big tool result
		}
		r := env("user", g.id("u"))
		r["message"] = map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": tid, "content": res}}}
		r["toolUseResult"] = map[string]any{"stdout": res, "stderr": "", "interrupted": false}
		g.line(r)
	}
	if err := g.w.Flush(); err != nil {
		fh.Close()
		return 0, err
	}
	return g.n, fh.Close()
}

// codexRollout writes one Codex-like rollout of about size bytes.
func (g *gen) codexRollout(path string, size int64) (int64, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	fh, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	g.w, g.n, g.t = bufio.NewWriterSize(fh, 1<<20), 0, 0
	sid := g.id("")
	g.line(map[string]any{"timestamp": g.ts(), "type": "session_meta", "payload": map[string]any{"id": sid, "cwd": "/Users/dev/" + g.text(10),
		"originator": "codex_cli_rs", "cli_version": "0.63.0", "instructions": g.text(2000)}})
	var total int64
	for g.n < size {
		g.line(map[string]any{"timestamp": g.ts(), "type": "response_item", "payload": map[string]any{"type": "message", "role": "user",
			"content": []any{map[string]any{"type": "input_text", "text": g.text(100 + g.r.IntN(500))}}}})
		call := g.id("call_")
		g.line(map[string]any{"timestamp": g.ts(), "type": "response_item", "payload": map[string]any{"type": "function_call", "name": "shell",
			"arguments": fmt.Sprintf(`{"command":["bash","-lc",%q]}`, g.text(60)), "call_id": call}})
		out := g.text(300 + g.r.IntN(3000))
		if g.r.IntN(10) == 0 {
			out = g.text(64<<10 + g.r.IntN(256<<10))
		}
		g.line(map[string]any{"timestamp": g.ts(), "type": "response_item", "payload": map[string]any{"type": "function_call_output", "call_id": call,
			"output": out}})
		total += int64(1000 + g.r.IntN(5000))
		g.line(map[string]any{"timestamp": g.ts(), "type": "event_msg", "payload": map[string]any{"type": "token_count", "info": map[string]any{
			"total_token_usage": map[string]any{"input_tokens": total, "cached_input_tokens": total / 2, "output_tokens": total / 10, "reasoning_output_tokens": total / 20, "total_tokens": total + total/10},
			"last_token_usage":  map[string]any{"input_tokens": 1000, "cached_input_tokens": 500, "output_tokens": 100, "reasoning_output_tokens": 50, "total_tokens": 1100}}}})
	}
	if err := g.w.Flush(); err != nil {
		fh.Close()
		return 0, err
	}
	return g.n, fh.Close()
}

// Generate writes the corpus under dir (emptied first).
func Generate(dir string, spec Spec) (Corpus, error) {
	if err := os.RemoveAll(dir); err != nil {
		return Corpus{}, err
	}
	g := &gen{r: rand.New(rand.NewPCG(spec.Seed, spec.Seed^0x9e3779b97f4a7c15))}
	c := Corpus{Dir: dir}
	claudeBudget := spec.TotalBytes * 7 / 10
	for p := 0; c.ClaudeBytes < claudeBudget; p++ {
		project := filepath.Join(dir, "projects", fmt.Sprintf("-home-dev-project-%02d", p%40))
		n, files, err := g.claudeSession(project, 200<<10+int64(g.r.IntN(6<<20)))
		if err != nil {
			return c, err
		}
		c.ClaudeBytes += n
		c.Files += files
	}
	for i := 0; c.CodexBytes < spec.TotalBytes-c.ClaudeBytes; i++ {
		p := filepath.Join(dir, "codex", "sessions", "2026", "05", fmt.Sprintf("%02d", 1+i%28), fmt.Sprintf("rollout-2026-05-%02dT10-00-00-%s.jsonl", 1+i%28, g.id("")[:12]))
		n, err := g.codexRollout(p, 100<<10+int64(g.r.IntN(4<<20)))
		if err != nil {
			return c, err
		}
		c.CodexBytes += n
		c.Files++
	}
	if spec.BigBytes > 0 {
		project := filepath.Join(dir, "projects", "-home-dev-big")
		n, files, err := g.claudeSession(project, spec.BigBytes)
		if err != nil {
			return c, err
		}
		c.ClaudeBytes += n
		c.Files += files
		c.BigFile = filepath.Join(project, g.sid+".jsonl")
	}
	return c, nil
}
