package piagent

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/native"
	"github.com/contextreceipts/convert/internal/leak"
)

// pi keeps one file per session, under a folder named after the working
// directory:
//
//	~/.pi/agent/sessions/--<cwd with / as ->--/<time>_<session uuid>.jsonl
//
// and OpenClaw one per session of each agent:
//
//	~/.openclaw/agents/<agent>/sessions/<session uuid>.jsonl
//
// When OpenClaw resets or deletes a session it renames its transcript
// (archiveFileOnDisk: the path, the reason, the time as an ISO string with
// dashes for colons):
//
//	<session uuid>.jsonl.reset.2026-11-21T07-59-00.000Z
//	<session uuid>.jsonl.deleted.2026-11-22T10-00-00.000Z
//
// ccusage reads those archives and counts them in the session the name
// carries. So does this layout: an archive is a walk input (Format
// DocumentAt), read after the live transcript of its session when that is
// there, else after the first archive of its session in name order, which
// is then the session's input: one session, one receipt, as ccusage
// reports one. A live transcript claims its archives in a folder named
// sessions, as OpenClaw's are (agents/<agent>/sessions): other agents'
// <uuid>.jsonl files own no archive key. A session is otherwise one file; the layout names the
// session a file's name carries, which keeps it in one --shard.
var piLayout = converters.Layout{
	Session: func(p string, _ func(string) string) ([]string, bool) {
		base := filepath.Base(p)
		if id, ok := native.SessionFileID(base); ok && filepath.Base(filepath.Dir(p)) == "sessions" {
			// A live transcript in an OpenClaw sessions folder: its
			// archives, if any, are read with it. The folder is only a
			// key (it never exists).
			return []string{piArchives(filepath.Dir(p), id)}, true
		}
		if id, ok := piArchiveID(base); ok && piArchiveMain(p, id) {
			return []string{piArchives(filepath.Dir(p), id)}, true
		}
		return nil, false
	},
	Sibling: func(p string, _ func(string) string) string {
		if id, ok := piArchiveID(filepath.Base(p)); ok && !piArchiveMain(p, id) {
			return piArchives(filepath.Dir(p), id)
		}
		return ""
	},
	SessionID: func(base string) string {
		if id, ok := piArchiveID(base); ok {
			return id
		}
		if i := strings.LastIndexByte(base, '_'); i >= 0 {
			base = base[i+1:]
		}
		sid, _ := native.SessionFileID(base)
		return sid
	},
}

// piArchiveRe is an OpenClaw transcript archive's name: the session's
// uuid, .jsonl, the reason (reset or deleted) and the time it was
// archived.
var piArchiveRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([0-9A-Fa-f-]{36})\.jsonl\.(?:reset|deleted)\.[0-9][0-9TZ.:-]{0,40}$`)
})

// piArchiveID is the session id an archive's name carries.
func piArchiveID(base string) (string, bool) {
	m := piArchiveRe().FindStringSubmatch(base)
	if m == nil || !leak.UUID.Admit(m[1]) {
		return "", false
	}
	return m[1], true
}

// piArchive reports an OpenClaw transcript archive (Format.DocumentAt):
// a walk reads it, line by line, as the JSON Lines it is.
func piArchive(p string) bool {
	_, ok := piArchiveID(filepath.Base(p))
	return ok
}

// piArchiveMain reports whether the archive at p is its session's input:
// the live transcript is gone and it is the first of the session's
// archives by name.
func piArchiveMain(p, id string) bool {
	dir := filepath.Dir(p)
	if _, err := os.Lstat(filepath.Join(dir, id+".jsonl")); !os.IsNotExist(err) {
		return false
	}
	var names []string
	for _, reason := range []string{"reset", "deleted"} {
		found, _ := filepath.Glob(filepath.Join(dir, id+".jsonl."+reason+".*"))
		for _, f := range found {
			if b := filepath.Base(f); piArchive(b) {
				names = append(names, b)
			}
		}
	}
	sort.Strings(names)
	return len(names) == 0 || names[0] == filepath.Base(p)
}

// piArchives is the key that ties a session's archives to its input: a
// folder beside them that never exists.
func piArchives(dir, id string) string {
	return filepath.Join(dir, id+".jsonl.archives")
}

// piLocations: pi's sessions under its agent folder (PI_CODING_AGENT_DIR
// moves it), and every OpenClaw agent's transcripts and database under
// OpenClaw's state folder: OPENCLAW_STATE_DIR moves it (OpenClaw's own
// variable), OPENCLAW_DIR too (ccusage's), and ccusage 20.0.24 also reads
// the folders of OpenClaw's earlier names (~/.clawdbot, ~/.moltbot,
// ~/.moldbot). ccusage reads every .jsonl file below those folders; the
// transcripts are in agents/<agent>/sessions, the database in
// agents/<agent>/agent.
var piLocations = append([]converters.Location{
	{Env: "PI_CODING_AGENT_DIR", Default: ".pi/agent", Below: "sessions"},
}, clawLocations("OPENCLAW_STATE_DIR", "OPENCLAW_DIR", ".openclaw", ".clawdbot", ".moltbot", ".moldbot")...)

// clawLocations are the sessions folders and databases of OpenClaw's state
// folder, moved by each variable of envs, and of its earlier names.
func clawLocations(first, second string, state string, earlier ...string) []converters.Location {
	var out []converters.Location
	add := func(env, dir string) {
		out = append(out, converters.Location{Env: env, Default: dir, Below: "agents/*/sessions"},
			converters.Location{Env: env, Default: dir, Below: "agents/*/agent/" + clawStoreName})
	}
	add(first, state)
	add(second, state)
	for _, d := range earlier {
		add("", d)
	}
	return out
}
