// Package hook is what `convert hook` needs besides the pipeline: reading
// the payloads agents hand their hooks, finding the session file they name,
// the per-user data directory, merging the hook into an agent's settings,
// and a log that never holds raw content.
package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
)

// MaxPayload bounds what is read of a payload: Claude Code's are well under
// a kilobyte, Codex's carry the turn's messages.
const MaxPayload = 4 << 20

// Payload is what a hook needs of an agent's payload. Its fields are raw
// (the path names the user's project): they are used, never logged.
type Payload struct {
	Agent      string // "claude-code" or "codex"
	Event      string // hook_event_name (SessionEnd, Stop, ...) or Codex's type
	SessionID  string // Claude Code session_id, Codex thread-id
	Transcript string // Claude Code transcript_path; "" for Codex (found by FindRollout)
}

// Events are the Claude Code hook events a receipt is made on. Others are
// accepted too (the transcript is what counts), but these are the ones
// install writes or documents.
var Events = []string{"SessionEnd", "Stop", "SubagentStop", "PreCompact"}

var idRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z_-]{0,127}$`) })

// ParseClaude reads a Claude Code hook payload (JSON on stdin):
// session_id, transcript_path, hook_event_name (cwd and the rest are not
// needed). Errors never quote the payload.
func ParseClaude(b []byte) (Payload, error) {
	var p struct {
		SessionID      string `json:"session_id"`
		TranscriptPath string `json:"transcript_path"`
		HookEventName  string `json:"hook_event_name"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(b), &p); err != nil {
		return Payload{}, errors.New("the payload is not a JSON object with session_id and transcript_path")
	}
	if p.TranscriptPath == "" {
		return Payload{}, errors.New("the payload has no transcript_path")
	}
	if !filepath.IsAbs(p.TranscriptPath) || !strings.HasSuffix(p.TranscriptPath, ".jsonl") {
		return Payload{}, errors.New("transcript_path is not an absolute path to a .jsonl file")
	}
	if p.SessionID != "" && !idRe().MatchString(p.SessionID) {
		return Payload{}, errors.New("session_id is not an id")
	}
	return Payload{Agent: "claude-code", Event: token(p.HookEventName), SessionID: p.SessionID, Transcript: filepath.Clean(p.TranscriptPath)}, nil
}

// ParseCodex reads what Codex hands convert hook codex: the notify
// payload (JSON, the last argument: type agent-turn-complete and
// thread-id), or a lifecycle hook's payload on stdin (session_id, and
// transcript_path when Codex knows it). Errors never quote the payload.
func ParseCodex(b []byte) (Payload, error) {
	var p struct {
		Type           string  `json:"type"`
		ThreadID       string  `json:"thread-id"`
		SessionID      string  `json:"session_id"`
		TranscriptPath *string `json:"transcript_path"`
		HookEventName  string  `json:"hook_event_name"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(b), &p); err != nil {
		return Payload{}, errors.New("the payload is not a JSON object with type and thread-id")
	}
	if p.HookEventName != "" || p.SessionID != "" { // a lifecycle hook
		out := Payload{Agent: "codex", Event: token(p.HookEventName), SessionID: p.SessionID}
		if p.TranscriptPath != nil && *p.TranscriptPath != "" {
			tp := *p.TranscriptPath
			if !filepath.IsAbs(tp) || !(strings.HasSuffix(tp, ".jsonl") || strings.HasSuffix(tp, ".jsonl.zst")) {
				return Payload{}, errors.New("transcript_path is not an absolute path to a .jsonl file")
			}
			out.Transcript = filepath.Clean(tp)
			return out, nil
		}
		if !idRe().MatchString(p.SessionID) {
			return Payload{}, errors.New("the payload has no usable session_id")
		}
		return out, nil
	}
	if p.Type != "agent-turn-complete" {
		return Payload{Agent: "codex", Event: token(p.Type)}, fmt.Errorf("notification type %s names no finished turn", quoteToken(p.Type))
	}
	if !idRe().MatchString(p.ThreadID) {
		return Payload{}, errors.New("the payload has no usable thread-id")
	}
	return Payload{Agent: "codex", Event: p.Type, SessionID: p.ThreadID}, nil
}

// token keeps a categorical value (an event name) only when it is a short
// identifier; anything else is not written anywhere.
var tokenRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`) })

func token(s string) string {
	if len(s) <= 40 && tokenRe().MatchString(s) {
		return s
	}
	return ""
}

func quoteToken(s string) string {
	if t := token(s); t != "" {
		return t
	}
	return "(not an identifier)"
}

// FindRollout finds the rollout file of a Codex thread under
// codexHome/sessions/YYYY/MM/DD/rollout-*-<thread>.jsonl, newest day first
// (a plain file before a compressed one). It reads directory names only.
func FindRollout(codexHome, thread string) (string, error) {
	if !idRe().MatchString(thread) {
		return "", errors.New("not a thread id")
	}
	root := filepath.Join(codexHome, "sessions")
	years := subdirs(root)
	for i := len(years) - 1; i >= 0; i-- {
		months := subdirs(filepath.Join(root, years[i]))
		for j := len(months) - 1; j >= 0; j-- {
			days := subdirs(filepath.Join(root, years[i], months[j]))
			for d := len(days) - 1; d >= 0; d-- {
				dir := filepath.Join(root, years[i], months[j], days[d])
				for _, ext := range []string{".jsonl", ".jsonl.zst"} {
					m, _ := filepath.Glob(filepath.Join(dir, "rollout-*"+thread+ext))
					if len(m) > 0 {
						sort.Strings(m)
						return m[len(m)-1], nil
					}
				}
			}
		}
	}
	return "", errors.New("no rollout file of this thread under $CODEX_HOME/sessions")
}

func subdirs(dir string) []string {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range es {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

// CodexHome is $CODEX_HOME, or ~/.codex.
func CodexHome(getenv func(string) string, home string) string {
	if h := getenv("CODEX_HOME"); h != "" {
		return h
	}
	return filepath.Join(home, ".codex")
}

// SessionRef names a session file in logs and output names without raw
// content: its base name when that is the agent's own shape (a session id,
// a rollout name), else a digest of the path under h (keyed in keyed mode,
// so a guessed path cannot be confirmed from a file name).
func SessionRef(h receipt.Hasher, path string) string {
	base := filepath.Base(path)
	if refRe().MatchString(base) {
		return base
	}
	return h.Text(path)
}

// InputName is the name the hook converts a session file under, which
// names its receipt and trace: its base name when that is the agent's own
// shape (SessionRef), else "session-" and 12 hex digits of SessionRef's
// digest of its path (keyed in keyed mode), a name the pipeline keeps as
// it is (pipeline.IDShapedName) and that carries nothing of the name the
// user chose.
func InputName(h receipt.Hasher, path string) string {
	r := SessionRef(h, path)
	if !IsRef(r) {
		return r
	}
	_, hx, _ := strings.Cut(r, ":")
	return "session-" + hx[:12] + ".jsonl"
}

// IsRef reports whether ref, from SessionRef, is a digest rather than the
// agent's own file name.
func IsRef(ref string) bool { return receipt.IsDigest(ref) }

var refRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(rollout-[0-9T:-]+-)?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.jsonl(\.zst)?$`)
})

// rolloutIDRe takes the thread id out of a rollout file name.
var rolloutIDRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^rollout-.*([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl(\.zst)?$`)
})

// MaxSubagents bounds how many subagent rollouts one hook run converts.
const MaxSubagents = 256

// ClaudeWorkflows finds the workflow runs of a Claude Code session: each
// run (<session>/subagents/workflows/<wf>/) is a session of its own, whose
// main file is its journal.jsonl, or in a run without one its first agent
// transcript (the claude_code layout's rule), so the session's hook
// converts them beside it. At most MaxSubagents, in name order.
func ClaudeWorkflows(transcript string) []string {
	sid, ok := strings.CutSuffix(filepath.Base(transcript), ".jsonl")
	if !ok {
		return nil
	}
	runs, _ := filepath.Glob(filepath.Join(filepath.Dir(transcript), sid, "subagents", "workflows", "*"))
	sort.Strings(runs)
	var out []string
	for _, run := range runs {
		if len(out) >= MaxSubagents {
			break
		}
		if st, err := os.Stat(filepath.Join(run, "journal.jsonl")); err == nil && st.Mode().IsRegular() {
			out = append(out, filepath.Join(run, "journal.jsonl"))
			continue
		}
		if agents, _ := filepath.Glob(filepath.Join(run, "agent-*.jsonl")); len(agents) > 0 {
			sort.Strings(agents)
			out = append(out, agents[0])
		}
	}
	return out
}

// CodexSubagents finds the rollouts of the threads a Codex thread spawned
// (and those they spawned): Codex writes each subagent its own rollout,
// whose session_meta names its parent_thread_id. It looks in the thread's
// day folder and the next one (a session may pass midnight), reading the
// first line of each plain rollout there, in time order.
func CodexSubagents(rollout string) []string {
	m := rolloutIDRe().FindStringSubmatch(filepath.Base(rollout))
	if m == nil {
		return nil
	}
	parents := map[string]bool{strings.ToLower(m[1]): true}
	day := filepath.Dir(rollout)
	dirs := []string{day}
	if next := nextDay(day); next != "" {
		dirs = append(dirs, next)
	}
	var out []string
	for _, d := range dirs {
		files, _ := filepath.Glob(filepath.Join(d, "rollout-*.jsonl"))
		sort.Strings(files) // names start with the creation time
		for _, f := range files {
			id := rolloutIDRe().FindStringSubmatch(filepath.Base(f))
			if f == rollout || id == nil || len(out) >= MaxSubagents {
				continue
			}
			if p := parentThread(f); p != "" && parents[p] {
				out = append(out, f)
				parents[strings.ToLower(id[1])] = true
			}
		}
	}
	return out
}

// nextDay is the day folder after day (sessions/YYYY/MM/DD), "" if none.
func nextDay(day string) string {
	root := filepath.Dir(filepath.Dir(filepath.Dir(day)))
	var all []string
	for _, y := range subdirs(root) {
		for _, mo := range subdirs(filepath.Join(root, y)) {
			for _, d := range subdirs(filepath.Join(root, y, mo)) {
				all = append(all, filepath.Join(root, y, mo, d))
			}
		}
	}
	for i, d := range all {
		if d == day && i+1 < len(all) {
			return all[i+1]
		}
	}
	return ""
}

// parentThread reads a rollout's first line (its session_meta) for the
// thread that spawned it.
func parentThread(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 256<<10)
	n, _ := io.ReadFull(f, buf)
	line := buf[:n]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if gjson.GetBytes(line, "type").String() != "session_meta" {
		return ""
	}
	p := gjson.GetBytes(line, "payload.parent_thread_id").String()
	if p == "" {
		p = gjson.GetBytes(line, "payload.source.subagent.thread_spawn.parent_thread_id").String()
	}
	return strings.ToLower(p)
}
