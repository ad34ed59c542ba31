package piagent

import (
	"strings"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/native"
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
// A session is one file; the layout only names the session a file's name
// carries, which keeps it in one --shard.
var piLayout = converters.Layout{
	SessionID: func(base string) string {
		if i := strings.LastIndexByte(base, '_'); i >= 0 {
			base = base[i+1:]
		}
		sid, _ := native.SessionFileID(base)
		return sid
	},
}

// piLocations: pi's sessions under its agent folder (PI_CODING_AGENT_DIR
// moves it), and every OpenClaw agent's (OPENCLAW_STATE_DIR moves its
// state folder).
var piLocations = []converters.Location{
	{Env: "PI_CODING_AGENT_DIR", Default: ".pi/agent", Below: "sessions"},
	{Env: "OPENCLAW_STATE_DIR", Default: ".openclaw", Below: "agents/*/sessions"},
}
