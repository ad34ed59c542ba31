package droid_test

import (
	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// grammar builds a Factory Droid session (reader.go): a session_start line
// (a subagent's naming its calling session), message records whose user
// and assistant content holds text, thinking, images, tool_use (built-in,
// Task, Skill and MCP tools) and tool_result blocks joined by id,
// todo_state and compaction_state records, and, by choice, the
// <id>.settings.json sidecar with the session's model and token totals.
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "droid")
	k := fuzzgen.NewClock(g)
	session := g.ID("")
	dir := "sessions/-Users-alice-src-app" // the folder is named in messages: no canary
	g.Log.Main = dir + "/" + session + ".jsonl"
	start := fuzzgen.Rec{"type": "session_start", "id": session, "title": g.Canary("title"), "owner": g.Canary("owner"),
		"version": fuzzgen.Pick(g.C, 2, 1), "cwd": g.Raw("/Users/alice/src/app")}
	if g.C.OneIn(3) {
		start["sessionTitle"] = g.Canary("stitle")
	}
	if g.C.OneIn(3) {
		start["callingSessionId"] = g.ID("")
	}
	recs := []fuzzgen.Rec{start}
	var parent any
	msg := func(role string, content []any) {
		id := g.ID("f")
		r := fuzzgen.Rec{"type": "message", "id": id, "timestamp": k.Next(), "message": fuzzgen.Rec{"role": role, "content": content}}
		if parent != nil {
			r["parentId"] = parent
		}
		parent = id
		recs = append(recs, r)
	}
	for turns := 1 + g.C.Intn(4); turns > 0; turns-- {
		prompt := []any{fuzzgen.Rec{"type": "text", "text": g.Canary("prompt")}}
		if g.C.OneIn(6) {
			prompt = append(prompt, fuzzgen.Rec{"type": "image", "source": fuzzgen.Rec{"data": g.Canary("image")}})
		}
		msg("user", prompt)
		for steps := 1 + g.C.Intn(3); steps > 0; steps-- {
			var content []any
			if g.C.OneIn(3) {
				content = append(content, fuzzgen.Rec{"type": "thinking", "thinking": g.Canary("thinking")})
			}
			content = append(content, fuzzgen.Rec{"type": "text", "text": g.Canary("reply")})
			var results []any
			for calls := g.C.Intn(3); calls > 0; calls-- {
				id := g.ID("toolu_")
				name, input := droidTool(g)
				content = append(content, fuzzgen.Rec{"type": "tool_use", "id": id, "name": name, "input": input})
				if !g.C.OneIn(6) { // now and then a call gets no result
					res := fuzzgen.Rec{"type": "tool_result", "tool_use_id": g.Earlier("toolu_"), "content": g.Canary("result")}
					if g.C.OneIn(4) {
						res["is_error"] = true
					}
					results = append(results, res)
				}
			}
			msg("assistant", content)
			if len(results) > 0 {
				msg("user", results)
			}
		}
		switch g.C.Intn(6) {
		case 0:
			recs = append(recs, fuzzgen.Rec{"type": "todo_state", "id": g.ID("f"), "timestamp": k.Next(),
				"todos": fuzzgen.Rec{"todos": g.Canary("todo")}, "messageIndex": len(recs)})
		case 1:
			recs = append(recs, fuzzgen.Rec{"type": "compaction_state", "id": g.ID("f"), "timestamp": k.Next(),
				"summaryText": g.Canary("summary"), "summaryTokens": g.C.Intn(5000), "summaryKind": fuzzgen.Pick(g.C, "llm_summary", g.Canary("kind")),
				"removedCount": g.C.Intn(40), "anchorMessage": fuzzgen.Rec{"id": parent, "index": len(recs) - 1},
				"systemInfo": fuzzgen.Rec{"cwd": g.Raw("/Users/alice/src/app")}})
		}
	}
	g.Log.Files[g.Log.Main] = g.Encode(g.Perturb(recs))
	if !g.C.OneIn(4) {
		settings := fuzzgen.Rec{"model": fuzzgen.Pick(g.C, "claude-sonnet-4-5-20250929", "gpt-5-codex", "custom:"+g.Canary("model")),
			"providerLock": "anthropic", "providerLockTimestamp": k.Next(),
			"tokenUsage": fuzzgen.Rec{"inputTokens": g.C.Intn(90000), "outputTokens": g.C.Intn(9000), "cacheCreationTokens": g.C.Intn(5000),
				"cacheReadTokens": g.C.Intn(90000), "thinkingTokens": g.C.Intn(3000)}}
		if g.C.OneIn(3) {
			settings["tags"] = []any{fuzzgen.Rec{"name": fuzzgen.Pick(g.C, "subagent", g.Canary("tag"))}}
		}
		if g.C.OneIn(5) {
			g.MutateField(settings, 0)
		}
		g.Log.Meta = dir + "/" + session + ".settings.json"
		g.Log.Files[g.Log.Meta] = g.Encode([]fuzzgen.Rec{settings})
	}
	return g.Log
}

// droidTool is a tool call's name and input: built-in tools, the Task tool
// that starts a subagent session, the Skill tool, an MCP tool, or a name
// of the user's own.
func droidTool(g *fuzzgen.Gen) (string, fuzzgen.Rec) {
	switch g.C.Intn(6) {
	case 0:
		return "Task", fuzzgen.Rec{"subagent_type": fuzzgen.Pick(g.C, "worker", g.Canary("agent")), "description": g.Canary("desc"), "prompt": g.Canary("task")}
	case 1:
		return "Skill", fuzzgen.Rec{"skill": fuzzgen.Pick(g.C, "frontend-ui-integration", g.Canary("skill"))}
	case 2:
		return "mcp__github__create_issue", fuzzgen.Rec{"title": g.Canary("issue")}
	case 3:
		return g.Canary("tool"), fuzzgen.Rec{"x": g.Canary("arg")}
	}
	return fuzzgen.Pick(g.C, "Read", "Grep", "Edit", "Execute", "LS"), fuzzgen.Rec{"file_path": g.Raw("/Users/alice/src/app/main.go"), "pattern": g.Canary("pattern")}
}
