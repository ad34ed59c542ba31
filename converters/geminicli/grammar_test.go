package geminicli_test

import (
	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// grammar builds a Gemini CLI chat (reader.go): the metadata line, user
// messages (prompts, slash commands, injected context, function
// responses), gemini messages with thoughts, tokens and tool calls (built-
// in, MCP, activate_skill, a subagent whose chat is a companion file under
// chats/<session id>/), a message recorded again with its final counts,
// info/error/warning messages, $set patches and $rewindTo.
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "gemini_cli")
	k := fuzzgen.NewClock(g)
	session := g.ID("")
	dir := "tmp/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08/chats"
	g.Log.Main = dir + "/session-2026-03-20T10-00-" + session[:8] + ".jsonl"
	recs := geminiChat(g, k, session, "main", 1+g.C.Intn(3), dir)
	g.Log.Files[g.Log.Main] = g.Encode(g.Perturb(recs))
	return g.Log
}

// geminiChat is one chat's records: the main one (kind "main"), whose
// subagent calls add companion chats, or a subagent's.
func geminiChat(g *fuzzgen.Gen, k *fuzzgen.Clock, session, kind string, turns int, dir string) []fuzzgen.Rec {
	recs := []fuzzgen.Rec{{"sessionId": session, "projectHash": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"startTime": k.Next(), "lastUpdated": k.Next(), "kind": kind}}
	for ; turns > 0; turns-- {
		var text string
		switch g.C.Intn(6) {
		case 0:
			text = "/stats " + g.Canary("cmd")
		case 1:
			text = "<session_context>\n" + g.Canary("env") + "\n</session_context>"
		default:
			text = g.Canary("prompt")
		}
		recs = append(recs, fuzzgen.Rec{"id": g.ID(""), "timestamp": k.Next(), "type": "user", "content": []any{fuzzgen.Rec{"text": text}}})
		var calls []any
		for n := g.C.Intn(3); n > 0; n-- {
			calls = append(calls, geminiCall(g, k, session, kind, dir))
		}
		msg := fuzzgen.Rec{"id": g.ID(""), "timestamp": k.Next(), "type": "gemini", "content": []any{fuzzgen.Rec{"text": g.Canary("answer")}},
			"thoughts": []any{}, "model": fuzzgen.Pick(g.C, "gemini-2.5-flash", "gemini-3-pro-preview", g.Canary("model"))}
		if len(calls) > 0 {
			msg["toolCalls"] = calls
		}
		if g.C.OneIn(3) {
			msg["thoughts"] = []any{fuzzgen.Rec{"subject": g.Canary("subject"), "description": g.Canary("thought"), "timestamp": k.Next()}}
		}
		if !g.C.OneIn(5) {
			msg["tokens"] = fuzzgen.Rec{"input": g.C.Intn(20000), "output": g.C.Intn(900), "cached": g.C.Intn(9000), "thoughts": g.C.Intn(90),
				"tool": g.C.Intn(9), "total": g.C.Intn(30000)}
		}
		recs = append(recs, msg)
		switch g.C.Intn(8) {
		case 0: // recorded again, whole, with its final counts
			again := fuzzgen.Rec{}
			for key, v := range msg {
				again[key] = v
			}
			again["tokens"] = fuzzgen.Rec{"input": g.C.Intn(20000), "output": g.C.Intn(900), "total": g.C.Intn(30000)}
			recs = append(recs, again)
		case 1:
			recs = append(recs, fuzzgen.Rec{"id": g.ID(""), "timestamp": k.Next(), "type": fuzzgen.Pick(g.C, "info", "error", "warning"), "content": g.Canary("info")})
		case 2:
			recs = append(recs, fuzzgen.Rec{"$set": fuzzgen.Rec{"lastUpdated": k.Next(), "summary": g.Canary("summary")}})
		case 3:
			recs = append(recs, fuzzgen.Rec{"$rewindTo": g.Earlier("")})
		}
	}
	return recs
}

// geminiCall is a tool call of a gemini message, its result inside it; a
// subagent's call names the agent whose chat is a companion file.
func geminiCall(g *fuzzgen.Gen, k *fuzzgen.Clock, session, kind, dir string) fuzzgen.Rec {
	var name string
	args := fuzzgen.Rec{}
	switch g.C.Intn(6) {
	case 0:
		name, args["name"] = "activate_skill", fuzzgen.Pick(g.C, "release-notes", g.Canary("skill"))
	case 1:
		name, args["sql"] = "mcp_ledger_query", g.Canary("sql")
	case 2:
		name, args["command"] = "run_shell_command", g.Canary("command")
	default:
		name, args["absolute_path"] = fuzzgen.Pick(g.C, "read_file", "glob", "codebase_investigator"), g.Raw("/Users/alice/src/ledger/ledger.go")
	}
	id := name + "-1774000008000-" + g.ID("")[:4]
	status := fuzzgen.Pick(g.C, "success", "success", "error", "cancelled", "awaiting_approval")
	call := fuzzgen.Rec{"id": id, "name": name, "args": args, "status": status, "timestamp": k.Next(),
		"result": []any{fuzzgen.Rec{"functionResponse": fuzzgen.Rec{"id": id, "name": name, "response": fuzzgen.Rec{"output": g.Canary("output")}}}}}
	if name == "codebase_investigator" && kind == "main" && g.C.OneIn(2) {
		agent := g.ID("")
		call["agentId"] = agent
		rel := session + "/" + agent + ".jsonl"
		sub := geminiChat(g, k, agent, "subagent", 1, dir)
		g.Log.Files[dir+"/"+rel] = g.Encode(sub)
		g.Log.Companions = append(g.Log.Companions, fuzzgen.Companion{Path: dir + "/" + rel, Rel: rel})
	}
	return call
}
