package opencode

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/contextreceipts/convert/converters"
)

// OpenCode before its SQLite database kept a session as JSON files, one
// document each, pretty-printed, under ~/.local/share/opencode/storage:
//
//	session/<project id>/<session id>.json      the session (Session.Info)
//	message/<session id>/<message id>.json      its messages (MessageV2.Info)
//	part/<message id>/<part id>.json            each message's parts
//
// The session file is the input; its message folder and the part folders
// of its messages are its own, read after it (messages first, then parts,
// each in id order, which is time order). An `opencode export` document
// holds the same session in one file.
var opencodeLayout = converters.Layout{
	Session: func(p string, _ func(string) string) ([]string, bool) {
		base := filepath.Base(p)
		sessions := filepath.Dir(filepath.Dir(p))
		if !opencodeDocument(base) || !strings.HasPrefix(base, "ses_") || filepath.Base(sessions) != "session" {
			return nil, false
		}
		storage := filepath.Dir(sessions)
		messages := filepath.Join(storage, "message", strings.TrimSuffix(base, ".json"))
		dirs := []string{messages}
		// The part folders are named by message ids, which only the
		// message folder's listing gives: names are read, not contents.
		entries, _ := os.ReadDir(messages)
		for _, e := range entries {
			if name := e.Name(); !e.IsDir() && strings.HasPrefix(name, "msg_") && strings.HasSuffix(name, ".json") {
				dirs = append(dirs, filepath.Join(storage, "part", strings.TrimSuffix(name, ".json")))
			}
		}
		return dirs, true
	},
	// A session's other files, named by its id beside the tree's other
	// kinds (todo/<session id>.json, session_diff/<session id>.json,
	// share/<session id>.json), belong to it: in a walk they are read with
	// it (JSON arrays or records of no known type: skipped and counted)
	// rather than refused as inputs of no known kind.
	Sibling: func(p string, _ func(string) string) string {
		base := filepath.Base(p)
		kind := filepath.Base(filepath.Dir(p))
		if !strings.HasPrefix(base, "ses_") || !strings.HasSuffix(base, ".json") || !opencodeSessionKinds[kind] {
			return ""
		}
		return filepath.Join(filepath.Dir(filepath.Dir(p)), "message", strings.TrimSuffix(base, ".json"))
	},
	SessionID: func(base string) string {
		if strings.HasPrefix(base, "ses_") && strings.HasSuffix(base, ".json") {
			return strings.TrimSuffix(base, ".json")
		}
		return ""
	},
}

// opencodeDocument: the files that hold one JSON document each: a
// storage/ tree's session, message and part files, and an export saved
// under the name a session id gives it (ses_<id>.json). `opencode export`
// writes to standard output, so an export may have any name: a file given
// by path is read as a document when its first line opens one and holds
// nothing else (the pipeline's check).
func opencodeDocument(base string) bool {
	if !strings.HasSuffix(base, ".json") {
		return false
	}
	return strings.HasPrefix(base, "ses_") || strings.HasPrefix(base, "msg_") || strings.HasPrefix(base, "prt_")
}

// opencodeLocations: the storage tree under the XDG data directory
// (~/.local/share/opencode/storage, or $XDG_DATA_HOME/opencode/storage),
// and the databases newer versions keep beside it (opencode.db, and
// opencode-<channel>.db), there or in $OPENCODE_DATA_DIR, the data
// directory ccusage also reads.
var opencodeLocations = []converters.Location{
	{Env: "XDG_DATA_HOME", Default: ".local/share", Below: "opencode/storage"},
	{Env: "XDG_DATA_HOME", Default: ".local/share", Below: "opencode/opencode*.db"},
	{Env: "OPENCODE_DATA_DIR", Default: ".local/share/opencode", Below: "opencode*.db"},
}

// opencodeSessionKinds are the storage folders whose files are named by a
// session id and are not the session itself.
var opencodeSessionKinds = map[string]bool{"todo": true, "session_diff": true, "share": true, "session_share": true}
