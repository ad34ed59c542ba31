package claudecode

import (
	"path/filepath"
	"strings"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/native"
)

// Claude Code keeps one session in several files (log-formats.md 1.1, 1.9):
//
//	<project>/<session-uuid>.jsonl                    main transcript
//	<project>/agent-<id>.jsonl                        2.0.x subagents, sessionId inside
//	<project>/<session-uuid>/subagents/agent-<id>.jsonl (+ .meta.json)   2.1.2+ subagents
//	<project>/<session-uuid>/subagents/workflows/<wf>/agent-*.jsonl
//
// Every .jsonl under the session's own directory, and every sibling agent
// file whose sessionId names it, is a companion of the main transcript.
var claudeLayout = converters.Layout{
	Session: func(p string, _ func(string) string) ([]string, bool) {
		sid, ok := native.SessionFileID(p)
		if !ok {
			return nil, false
		}
		return []string{filepath.Join(filepath.Dir(p), sid)}, true
	},
	Sibling: func(p string, peek func(string) string) string {
		if !strings.HasPrefix(filepath.Base(p), "agent-") {
			return ""
		}
		if sid := peek("sessionId"); sid != "" {
			return filepath.Join(filepath.Dir(p), sid)
		}
		return ""
	},
	Sidecar: func(p string) string {
		return strings.TrimSuffix(p, ".jsonl") + ".meta.json"
	},
	SessionID: func(base string) string {
		sid, _ := native.SessionFileID(base)
		return sid
	},
}

// claudeLocations: ~/.claude/projects, or $CLAUDE_CONFIG_DIR/projects.
var claudeLocations = []converters.Location{{Env: "CLAUDE_CONFIG_DIR", Default: ".claude", Below: "projects"}}

// claudeAgentFileID is the agent id in a subagent file's name
// (agent-<id>.jsonl), from its path relative to the main transcript.
func claudeAgentFileID(rel string) string {
	return strings.TrimSuffix(strings.TrimPrefix(native.PathBase(rel), "agent-"), ".jsonl")
}

// claudeSubagentsDir reports whether a companion lies in a session's
// subagents/ directory (2.1.2+), rather than beside the main transcript.
func claudeSubagentsDir(rel string) bool { return strings.Contains(rel, "/subagents/") }
