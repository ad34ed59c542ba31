package droid

import (
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
		sid, _ := native.SessionFileID(base)
		return sid
	},
}

// droidLocations: the sessions folder of Droid's home folder, or the one
// DROID_SESSIONS_DIR names (as ccusage reads it).
var droidLocations = []converters.Location{
	{Env: "DROID_SESSIONS_DIR", Default: ".factory/sessions", Below: ""},
}
