package amp_test

import (
	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// grammar builds an Amp thread (reader.go, records.go): one JSON document,
// threads/T-<uuid>.json, {v, id, created, title, agentMode, env, messages,
// usageLedger}. Its messages are user prompts (text, images, the guidance
// files Amp found), assistant responses (text, thinking, tool_use blocks:
// built-in tools, Task and the built-in subagents, skill, MCP tools, a name
// of the user's own; usage on the message; a subagent's response naming
// the call that runs it by parentToolUseId), user tool_result blocks
// joined by toolUseID (done, error, cancelled, rejected-by-user; a Read's
// result listing guidance files) and info messages whose summary replaced
// the context. By choice the thread has a usage ledger whose events name
// the assistant messages by toMessageId. The messages and the ledger's
// events are perturbed as records; the document is written on one line.
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "amp")
	k := fuzzgen.NewClock(g)
	id := "T-" + g.ID("")
	g.Log.Main = "threads/" + id + ".json"
	root := "file://alice/src/app" // a workspace path: raw
	var msgs []fuzzgen.Rec
	var ledger []fuzzgen.Rec
	seq := 0
	sent := func() any {
		if g.C.OneIn(8) {
			return k.Next() // now and then not the Unix milliseconds Amp writes
		}
		return k.EpochMs()
	}
	msg := func(role string, content []any) fuzzgen.Rec {
		m := fuzzgen.Rec{"role": role, "messageId": seq, "content": content, "meta": fuzzgen.Rec{"sentAt": sent()}}
		seq++
		msgs = append(msgs, m)
		return m
	}
	model := func() string {
		return fuzzgen.Pick(g.C, "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001", "gpt-5", g.Canary("model"))
	}
	guides := func() []any {
		var out []any
		for n := 1 + g.C.Intn(2); n > 0; n-- {
			out = append(out, fuzzgen.Rec{"uri": g.Raw(root + fuzzgen.Pick(g.C, "/AGENTS.md", "/internal/AGENTS.md", "/CLAUDE.md")), "lineCount": g.C.Intn(200)})
		}
		return out
	}
	var subagent any // the Task call whose subagent is running, by id
	for turns := 1 + g.C.Intn(3); turns > 0; turns-- {
		prompt := []any{fuzzgen.Rec{"type": "text", "text": g.Canary("prompt")}}
		if g.C.OneIn(6) {
			prompt = append(prompt, fuzzgen.Rec{"type": "image", "source": fuzzgen.Rec{"data": g.Canary("image")}})
		}
		u := msg("user", prompt)
		if g.C.OneIn(3) {
			u["discoveredGuidanceFiles"] = guides()
		}
		for steps := 1 + g.C.Intn(3); steps > 0; steps-- {
			var content []any
			if g.C.OneIn(3) {
				content = append(content, fuzzgen.Rec{"type": fuzzgen.Pick(g.C, "thinking", "redacted_thinking"), "thinking": g.Canary("thinking")})
			}
			content = append(content, fuzzgen.Rec{"type": "text", "text": g.Canary("reply")})
			var results []any
			for calls := g.C.Intn(3); calls > 0; calls-- {
				callID := g.ID("toolu_")
				name, input := ampTool(g)
				content = append(content, fuzzgen.Rec{"type": "tool_use", "id": callID, "name": name, "input": input})
				if name == "Task" {
					subagent = callID
				}
				if g.C.OneIn(6) {
					continue // now and then a call gets no result
				}
				run := fuzzgen.Rec{"status": fuzzgen.Pick(g.C, "done", "done", "error", "cancelled", "rejected-by-user", "in-progress")}
				switch {
				case run["status"] == "error":
					run["error"] = fuzzgen.Rec{"message": g.Canary("error")}
				case name == "Read" && g.C.OneIn(2):
					run["result"] = fuzzgen.Rec{"content": g.Canary("file"), "absolutePath": g.Raw("alice/src/app/main.go"), "discoveredGuidanceFiles": guides()}
				default:
					run["result"] = g.Canary("result")
				}
				res := fuzzgen.Rec{"type": "tool_result", "toolUseID": g.Earlier("toolu_"), "run": run}
				if g.C.OneIn(8) { // the Anthropic API's names
					res = fuzzgen.Rec{"type": "tool_result", "tool_use_id": res["toolUseID"], "content": g.Canary("result"), "is_error": g.C.OneIn(2)}
				}
				results = append(results, res)
			}
			a := msg("assistant", content)
			a["state"] = fuzzgen.Rec{"type": fuzzgen.Pick(g.C, "complete", "complete", "cancelled", "error"),
				"stopReason": fuzzgen.Pick(g.C, "end_turn", "tool_use", "max_tokens", g.Canary("stop"))}
			if subagent != nil && g.C.OneIn(3) {
				a["parentToolUseId"] = subagent // a subagent's own response, inline
			}
			m := model()
			if !g.C.OneIn(5) {
				a["usage"] = fuzzgen.Rec{"model": m, "inputTokens": g.C.Intn(5000), "outputTokens": g.C.Intn(2000),
					"cacheCreationInputTokens": g.C.Intn(20000), "cacheReadInputTokens": g.C.Intn(90000),
					"totalInputTokens": g.C.Intn(90000), "maxInputTokens": 168000, "timestamp": k.Next()}
				if g.C.OneIn(4) {
					a["usage"].(fuzzgen.Rec)["totalTokens"] = g.C.Intn(200000)
				}
			}
			ev := fuzzgen.Rec{"id": g.ID(""), "timestamp": k.Next(), "model": m, "credits": 0.25,
				"tokens":        fuzzgen.Rec{"input": g.C.Intn(5000), "output": g.C.Intn(2000)},
				"operationType": fuzzgen.Pick(g.C, "inference", "oracle", "subagent", g.Canary("op")), "fromMessageId": seq - 2, "toMessageId": seq - 1}
			if g.C.OneIn(4) {
				ev["tokens"].(fuzzgen.Rec)["total"] = g.C.Intn(9000)
			}
			ledger = append(ledger, ev)
			if len(results) > 0 {
				r := msg("user", results)
				if a["parentToolUseId"] != nil {
					r["parentToolUseId"] = a["parentToolUseId"]
				}
			}
		}
		if g.C.OneIn(4) {
			summary := fuzzgen.Rec{"type": fuzzgen.Pick(g.C, "message", "message", "thread", g.Canary("kind")), "summary": g.Canary("summary")}
			msg("info", []any{fuzzgen.Rec{"type": "summary", "summary": summary}})
		}
	}
	thread := fuzzgen.Rec{"v": 1 + g.C.Intn(60), "id": id, "created": k.EpochMs(), "title": g.Canary("title"),
		"agentMode": fuzzgen.Pick(g.C, "smart", "rush", "free", g.Canary("mode")),
		"env": fuzzgen.Rec{"initial": fuzzgen.Rec{
			"trees":    []any{fuzzgen.Rec{"displayName": g.Canary("project"), "uri": g.Raw(root), "repository": fuzzgen.Rec{"type": "git", "url": g.Canary("repo"), "ref": g.Canary("ref")}}},
			"platform": fuzzgen.Rec{"os": fuzzgen.Pick(g.C, "linux", "darwin"), "client": fuzzgen.Pick(g.C, "CLI", "vscode"), "clientVersion": fuzzgen.Pick(g.C, "0.0.1795269600", g.Canary("version"))}}},
		"messages": recsOf(g.Perturb(msgs))}
	if !g.C.OneIn(4) { // a thread without a ledger counts its messages' usage
		thread["usageLedger"] = fuzzgen.Rec{"events": recsOf(g.Perturb(ledger))}
	}
	if g.C.OneIn(6) {
		g.MutateField(thread, 0)
	}
	g.Log.Files[g.Log.Main] = g.Encode([]fuzzgen.Rec{thread})
	return g.Log
}

// ampTool is a tool call's name and input: Amp's built-in tools, Task and
// the built-in subagents, skill, an MCP server's tool, or a name of the
// user's own.
func ampTool(g *fuzzgen.Gen) (string, fuzzgen.Rec) {
	switch g.C.Intn(7) {
	case 0:
		return "Task", fuzzgen.Rec{"prompt": g.Canary("task"), "description": g.Canary("desc")}
	case 1:
		return fuzzgen.Pick(g.C, "oracle", "librarian", "finder", "codebase_search_agent"), fuzzgen.Rec{"task": g.Canary("task"), "query": g.Canary("query")}
	case 2:
		return "skill", fuzzgen.Rec{"name": fuzzgen.Pick(g.C, "frontend-design", g.Canary("skill"))}
	case 3:
		return fuzzgen.Pick(g.C, "mcp__github__create_issue", "mcp__"+g.Canary("server")+"__search"), fuzzgen.Rec{"query": g.Canary("arg")}
	case 4:
		return g.Canary("tool"), fuzzgen.Rec{"x": g.Canary("arg")}
	}
	return fuzzgen.Pick(g.C, "Read", "Bash", "Grep", "edit_file", "create_file", "glob"),
		fuzzgen.Rec{"path": g.Raw("alice/src/app/main.go"), "cmd": g.Canary("cmd")}
}

// recsOf is a record list as the JSON array it is written as.
func recsOf(recs []fuzzgen.Rec) []any {
	out := make([]any, len(recs))
	for i, r := range recs {
		out[i] = r
	}
	return out
}
