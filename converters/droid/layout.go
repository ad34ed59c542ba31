package droid

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/native"
)

// Factory Droid keeps one file per session under a folder named after the
// working directory, its token totals in a sidecar beside it:
//
//	~/.factory/sessions/<cwd with / as ->/<session uuid>.jsonl
//	~/.factory/sessions/<cwd with / as ->/<session uuid>.settings.json
//
// A subagent (the Task tool) runs as a session of its own in the same
// folder, its session_start naming the calling session: it is converted
// on its own, as ccusage counts it.
var droidLayout = converters.Layout{
	MainSidecar: func(main string) string {
		if !strings.HasSuffix(main, ".jsonl") {
			return ""
		}
		return strings.TrimSuffix(main, ".jsonl") + ".settings.json"
	},
	SessionID: func(base string) string {
		// A settings sidecar read as a session's input (its transcript is
		// gone) carries the session's id too.
		if stem, ok := strings.CutSuffix(base, ".settings.json"); ok {
			base = stem + ".jsonl"
		}
		sid, _ := native.SessionFileID(base)
		return sid
	},
}

// droidLocations: the sessions folder of Droid's home folder, or the one
// DROID_SESSIONS_DIR names (as ccusage reads it).
var droidLocations = []converters.Location{
	{Env: "DROID_SESSIONS_DIR", Default: ".factory/sessions", Below: ""},
}

// droidOrphanSettings reports a session's <session uuid>.settings.json
// whose transcript (<session uuid>.jsonl beside it) is gone: a walk picks
// it up and reads it as a session of its own, its tokens and an audit gap
// saying the transcript is missing, as ccusage, which reads only the
// sidecars, still counts it. A sidecar whose transcript is there is read
// with it (MainSidecar), never on its own; any other .settings.json (a
// name that is no session id) is not Droid's.
func droidOrphanSettings(p string) bool {
	base := filepath.Base(p)
	id, ok := strings.CutSuffix(base, ".settings.json")
	if !ok {
		return false
	}
	if _, ok := native.SessionFileID(id + ".jsonl"); !ok {
		return false
	}
	_, err := os.Lstat(filepath.Join(filepath.Dir(p), id+".jsonl"))
	return os.IsNotExist(err)
}
