package geminicli

import (
	"path/filepath"
	"strings"

	"github.com/contextreceipts/convert/converters"
)

// Gemini CLI records a session's chats under its project's folder:
//
//	~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl   main chat
//	~/.gemini/tmp/<project>/chats/<session id>/<agent>.jsonl   subagent chats
//
// The subagents' folder is named by the full session id, which only the
// main chat's lines hold (its name has the first eight characters), so the
// layout peeks at it.
var geminiLayout = converters.Layout{
	Session: func(p string, peek func(string) string) ([]string, bool) {
		base := filepath.Base(p)
		if !strings.HasPrefix(base, "session-") || !strings.HasSuffix(base, ".jsonl") {
			return nil, false
		}
		sid := peek("sessionId")
		if sid == "" || sid == "." || sid == ".." || strings.ContainsAny(sid, `/\`) {
			return nil, false
		}
		return []string{filepath.Join(filepath.Dir(p), sid)}, true
	},
}

// geminiDocument: before 0.40 a chat was one JSON document,
// session-<time>-<id8>.json, pretty-printed over many lines.
func geminiDocument(base string) bool {
	return strings.HasPrefix(base, "session-") && strings.HasSuffix(base, ".json")
}

// geminiSubagentDocument: a subagent chat of a chat kept as one document,
// chats/<parent session id>/<id>.json. It is read as a session of its own,
// as ccusage 20.0.24 reports it (and as a subagent's .jsonl chat given
// alone is read).
func geminiSubagentDocument(p string) bool {
	if !strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".otel.json") {
		return false
	}
	up := filepath.Dir(filepath.Dir(p))
	return filepath.Base(up) == "chats" && filepath.Base(filepath.Dir(p)) != "chats"
}

// geminiLocations: every project's chats under ~/.gemini/tmp, where the
// home is GEMINI_CLI_HOME when set (the CLI's own home override).
var geminiLocations = []converters.Location{{Env: "GEMINI_CLI_HOME", Below: ".gemini/tmp"}}
