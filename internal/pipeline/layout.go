package pipeline

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/contextreceipts/convert/internal/jsonl"
	"github.com/tidwall/gjson"
)

// Claude Code keeps one session in several files (log-formats.md 1.1, 1.9):
//
//	<project>/<session-uuid>.jsonl                    main transcript
//	<project>/agent-<id>.jsonl                        2.0.x subagents, sessionId inside
//	<project>/<session-uuid>/subagents/agent-<id>.jsonl (+ .meta.json)   2.1.2+ subagents
//	<project>/<session-uuid>/subagents/workflows/<wf>/agent-*.jsonl
//
// Cursor keeps a session in its own folder:
//
//	agent-transcripts/<session-uuid>/<session-uuid>.jsonl
//	agent-transcripts/<session-uuid>/subagents/<uuid>.jsonl
//
// group turns a list of inputs into sessions: every .jsonl under a session's
// own directory, and every sibling agent file whose sessionId names it,
// becomes a companion of that session instead of an input of its own.

var sessionFileRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.jsonl$`)

// group attaches companions to their sessions. ins hold slash-relative Rel
// paths; the result keeps the input order of the remaining inputs.
func group(ins []Input) []Input {
	mains := map[string]int{} // directory + "/" + session id -> index in ins
	for i, in := range ins {
		if sessionFileRe.MatchString(path.Base(in.Path)) {
			dir, sid := filepath.Dir(in.Path), strings.TrimSuffix(path.Base(in.Path), ".jsonl")
			mains[sessionKey(dir, sid)] = i
			if filepath.Base(dir) == sid { // Cursor: the session's folder is named after it
				mains[sessionKey(filepath.Dir(dir), sid)] = i
			}
		} else if sid := geminiSessionID(in.Path); sid != "" {
			mains[sessionKey(filepath.Dir(in.Path), sid)] = i
		}
	}
	if len(mains) == 0 {
		return ins
	}
	owner := make([]int, len(ins))
	for i, in := range ins {
		owner[i] = -1
		if m, ok := sessionDirOwner(in.Path, i, mains); ok {
			owner[i] = m
		} else if strings.HasPrefix(path.Base(in.Path), "agent-") {
			if sid := peekSessionID(in.Path); sid != "" {
				if m, ok := mains[sessionKey(filepath.Dir(in.Path), sid)]; ok {
					owner[i] = m
				}
			}
		}
	}
	var out []Input
	index := map[int]int{}
	for i, in := range ins {
		if owner[i] < 0 {
			index[i] = len(out)
			out = append(out, in)
		}
	}
	for i, in := range ins {
		if m := owner[i]; m >= 0 {
			main := &out[index[m]]
			main.Companions = append(main.Companions, companion(main.Path, in.Path))
		}
	}
	for i := range out {
		sort.Slice(out[i].Companions, func(a, b int) bool { return out[i].Companions[a].Rel < out[i].Companions[b].Rel })
	}
	return out
}

// geminiSessionID is the session id of a Gemini CLI chat
// (chats/session-<time>-<id8>.jsonl), whose subagent chats live in
// chats/<session id>/ (gemini_cli reader; readers branch).
func geminiSessionID(p string) string {
	base := path.Base(filepath.ToSlash(p))
	if !strings.HasPrefix(base, "session-") || !strings.HasSuffix(base, ".jsonl") {
		return ""
	}
	return peekSessionID(p)
}

func sessionKey(dir, sid string) string { return filepath.Clean(dir) + "\x00" + sid }

// sessionDirOwner finds the session (other than self) whose own directory
// holds p.
func sessionDirOwner(p string, self int, mains map[string]int) (int, bool) {
	dir := filepath.Dir(p)
	for {
		parent := filepath.Dir(dir)
		if parent == dir {
			return 0, false
		}
		if m, ok := mains[sessionKey(parent, filepath.Base(dir))]; ok && m != self {
			return m, true
		}
		dir = parent
	}
}

// companion describes p as a companion of main, with its sidecar if any.
func companion(main, p string) Companion {
	rel, err := filepath.Rel(filepath.Dir(main), p)
	if err != nil {
		rel = filepath.Base(p)
	}
	c := Companion{Path: p, Rel: filepath.ToSlash(rel)}
	meta := strings.TrimSuffix(p, ".jsonl") + ".meta.json"
	if st, err := os.Stat(meta); err == nil && st.Mode().IsRegular() {
		c.Meta = meta
	}
	return c
}

// peekSessionID returns the sessionId of the first of the first 64 lines
// that has one.
func peekSessionID(p string) string {
	fh, err := openInput(p, false)
	if err != nil {
		return ""
	}
	defer fh.Close()
	r := jsonl.NewReader(fh, 1<<20)
	for i := 0; i < 64; i++ {
		l, err := r.Next()
		if err != nil {
			return ""
		}
		if v := gjson.GetBytes(l.Bytes, "sessionId"); v.Type == gjson.String && v.Str != "" {
			return v.Str
		}
	}
	return ""
}

// companionsOf finds the companions of a session file given on its own:
// the files under its session directory and its sibling agent files.
func companionsOf(main string) []Companion {
	base := path.Base(filepath.ToSlash(main))
	if !sessionFileRe.MatchString(base) {
		return nil
	}
	dir, sid := filepath.Dir(main), strings.TrimSuffix(base, ".jsonl")
	var found []string
	walk := func(root string) {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") && p != main {
				found = append(found, p)
			}
			return nil
		})
	}
	walk(filepath.Join(dir, sid))
	if filepath.Base(dir) == sid { // Cursor's session folder
		walk(filepath.Join(dir, "subagents"))
	}
	siblings, _ := filepath.Glob(filepath.Join(dir, "agent-*.jsonl"))
	for _, s := range siblings {
		if peekSessionID(s) == sid {
			found = append(found, s)
		}
	}
	var out []Companion
	for _, p := range found {
		out = append(out, companion(main, p))
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Rel < out[b].Rel })
	return out
}
