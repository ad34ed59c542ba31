package cursor

import (
	"path/filepath"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/native"
)

// Cursor keeps a session in its own folder:
//
//	agent-transcripts/<session-uuid>/<session-uuid>.jsonl
//	agent-transcripts/<session-uuid>/subagents/<uuid>.jsonl
//
// Every other .jsonl under the session's folder is a companion of the
// main transcript.
var cursorLayout = converters.Layout{
	Session: func(p string, _ func(string) string) ([]string, bool) {
		sid, ok := native.SessionFileID(p)
		if dir := filepath.Dir(p); ok && filepath.Base(dir) == sid {
			return []string{dir}, true
		}
		return nil, false
	},
	SessionID: func(base string) string {
		sid, _ := native.SessionFileID(base)
		return sid
	},
}

// cursorLocations: the agent transcripts of every project Cursor knows.
var cursorLocations = []converters.Location{{Default: ".cursor", Below: "projects/*/agent-transcripts"}}
