package claudecode

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/native"
)

// Claude Code keeps one session in several files (docs/converters.md, claude_code):
//
//	<project>/<session-uuid>.jsonl                    main transcript
//	<project>/agent-<id>.jsonl                        2.0.x subagents, sessionId inside
//	<project>/<session-uuid>/subagents/agent-<id>.jsonl (+ .meta.json)   2.1.2+ subagents
//	<project>/<session-uuid>/subagents/workflows/<wf>/agent-*.jsonl  (+ journal.jsonl)
//
// Every .jsonl under the session's own directory, and every sibling agent
// file whose sessionId names it, is a companion of the main transcript,
// except a workflow's folder: a workflow run (2.1.1xx+, the Workflow tool)
// is a session of its own, as ccusage 20.0.24 reports it (named by its
// folder). Its journal.jsonl (started and result records, one per agent)
// is the main file and its agent transcripts the companions; a folder with
// no journal has its first agent transcript (in name order) as the main.
var claudeLayout = converters.Layout{
	Session: func(p string, _ func(string) string) ([]string, bool) {
		if claudeWorkflowMain(p) {
			return []string{filepath.Dir(p)}, true
		}
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

// claudeWorkflowDir reports whether dir is a workflow run's folder:
// <session>/subagents/workflows/<wf>.
func claudeWorkflowDir(dir string) bool {
	up := filepath.Dir(dir)
	return filepath.Base(up) == "workflows" && filepath.Base(filepath.Dir(up)) == "subagents" && filepath.Base(dir) != "workflows"
}

// claudeWorkflowMain reports whether p is the main file of a workflow run:
// its journal, or, in a folder without one, its first agent transcript.
func claudeWorkflowMain(p string) bool {
	dir, base := filepath.Dir(p), filepath.Base(p)
	if !claudeWorkflowDir(dir) {
		return false
	}
	if base == claudeJournal {
		return true
	}
	if !strings.HasPrefix(base, "agent-") || !strings.HasSuffix(base, ".jsonl") {
		return false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries { // sorted by name
		n := e.Name()
		if n == claudeJournal {
			return false
		}
		if !e.IsDir() && strings.HasPrefix(n, "agent-") && strings.HasSuffix(n, ".jsonl") {
			if n != base {
				// an earlier agent transcript is the main, unless a
				// journal (sorting after it) is there
				return false
			}
			return !slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == claudeJournal })
		}
	}
	return false
}

// claudeJournal is a workflow run's journal file.
const claudeJournal = "journal.jsonl"

// claudeLocations: ~/.claude/projects and ~/.config/claude/projects (the
// XDG folder newer Claude Code writes; ccusage reads both), or
// $CLAUDE_CONFIG_DIR/projects (one folder, or several comma-separated).
var claudeLocations = []converters.Location{
	{Env: "CLAUDE_CONFIG_DIR", Default: ".claude", Below: "projects"},
	{Env: "CLAUDE_CONFIG_DIR", Default: ".config/claude", Below: "projects"},
}

// claudeAgentFileID is the agent id in a subagent file's name
// (agent-<id>.jsonl), from its path relative to the main transcript.
func claudeAgentFileID(rel string) string {
	return strings.TrimSuffix(strings.TrimPrefix(native.PathBase(rel), "agent-"), ".jsonl")
}

// claudeSubagentsDir reports whether a companion lies in a session's
// subagents/ directory (2.1.2+), rather than beside the main transcript.
func claudeSubagentsDir(rel string) bool { return strings.Contains(rel, "/subagents/") }
