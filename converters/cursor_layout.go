package converters

import "path/filepath"

// Cursor keeps a session in its own folder:
//
//	agent-transcripts/<session-uuid>/<session-uuid>.jsonl
//	agent-transcripts/<session-uuid>/subagents/<uuid>.jsonl
//
// Every other .jsonl under the session's folder is a companion of the
// main transcript.
var cursorLayout = Layout{
	Session: func(p string, _ func(string) string) ([]string, bool) {
		sid, ok := sessionFileID(p)
		if dir := filepath.Dir(p); ok && filepath.Base(dir) == sid {
			return []string{dir}, true
		}
		return nil, false
	},
	SessionID: func(base string) string {
		sid, _ := sessionFileID(base)
		return sid
	},
}

// cursorLocations: the agent transcripts of every project Cursor knows.
var cursorLocations = []Location{{Default: ".cursor", Below: "projects/*/agent-transcripts"}}
