package fuzzgen

// Cursor builds a Cursor log (docs/converters.md): by choice the
// stream-json capture of cursor-agent (system/init, user, thinking deltas,
// assistant, tool_call started/completed with a one-key tool union and a
// one-key result union, a terminal result with usage, notice lines that
// are not JSON) or an on-disk agent transcript (role records with
// text/tool_use/tool_call/tool-result blocks, turn_ended, subagent files).
func Cursor(data []byte) *Log {
	g := newGen(NewChoices(data), "cursor")
	k := &clock{g: g}
	if g.c.OneIn(2) {
		return cursorTranscript(g)
	}
	session := g.id("")
	g.log.Main = "cursor-stream.jsonl"
	recs := []Rec{{"type": "system", "subtype": "init", "apiKeySource": "login", "cwd": g.canary("cwd"), "session_id": session,
		"model": Pick(g.c, "Auto", "gpt-5.3-codex", g.canary("model")), "permissionMode": "default", "timestamp_ms": k.epochMs()}}
	for i, n := 0, 1+g.c.Intn(12); i < n; i++ {
		switch g.c.Intn(7) {
		case 0:
			recs = append(recs, Rec{"type": "user", "message": Rec{"role": "user", "content": []any{Rec{"type": "text", "text": g.canary("prompt")}}}, "session_id": session})
		case 1:
			recs = append(recs, Rec{"type": "thinking", "subtype": Pick(g.c, "delta", "completed"), "text": g.canary("thinking"), "session_id": session, "timestamp_ms": k.epochMs()})
		case 2:
			recs = append(recs, Rec{"type": "assistant", "message": Rec{"role": "assistant", "content": []any{Rec{"type": "text", "text": g.canary("answer")}}},
				"session_id": session, "model_call_id": g.earlier("mc-"), "timestamp_ms": k.epochMs()})
		case 3, 4:
			call := g.id("call_") + "\nfc_" + g.id("")[:8]
			tool, args := cursorTool(g)
			started := Rec{"type": "tool_call", "subtype": "started", "call_id": call, "tool_call": Rec{tool: Rec{"args": args}}, "session_id": session, "timestamp_ms": k.epochMs()}
			recs = append(recs, started)
			if !g.c.OneIn(4) {
				res := Pick(g.c, Rec{"success": Rec{"stdout": g.canary("stdout"), "exitCode": Pick(g.c, 0, 1)}},
					Rec{"rejected": Rec{"command": g.canary("cmd"), "reason": g.canary("reason")}},
					Rec{"error": Rec{"message": g.canary("err")}})
				done := Rec{"type": "tool_call", "subtype": "completed", "call_id": Pick(g.c, call, g.earlier("call_")),
					"tool_call": Rec{tool: Rec{"args": args, "result": res}}, "session_id": session, "timestamp_ms": k.epochMs()}
				if g.c.OneIn(3) {
					done["tool_call"].(Rec)["startedAtMs"] = "1786000000000"
				}
				recs = append(recs, done)
			}
		case 5:
			recs = append(recs, Rec{"type": Pick(g.c, "retry", "connection", "interaction_query", g.canary("type")), "subtype": "starting", "attempt": 1, "endpoint_url": g.canary("url")})
		default:
			recs = append(recs, Rec{"type": "system", "subtype": Pick(g.c, "task_notification", "background_shell_timeout"), "message": g.canary("notice"), "session_id": session})
		}
	}
	if !g.c.OneIn(4) {
		r := Rec{"type": "result", "subtype": Pick(g.c, "success", "error"), "duration_ms": 13039, "is_error": false, "result": g.canary("resulttext"), "session_id": session, "request_id": g.id("")}
		if g.c.OneIn(2) {
			r["usage"] = Rec{"inputTokens": g.c.Intn(100000), "outputTokens": g.c.Intn(9000), "cacheReadTokens": g.c.Intn(50000)}
		}
		recs = append(recs, r)
	}
	b := g.encode(g.perturb(recs))
	if g.c.OneIn(3) {
		b = append([]byte("Checking for updates... "+g.canary("notice")+"\n"), b...)
	}
	g.log.Files[g.log.Main] = b
	return g.log
}

func cursorTool(g *gen) (string, Rec) {
	switch g.c.Intn(5) {
	case 0:
		return "mcpToolCall", Rec{"name": "github-create_issue", "toolName": "create_issue", "providerIdentifier": Pick(g.c, "github", g.canary("server")), "args": Rec{"title": g.canary("title")}}
	case 1:
		return "readToolCall", Rec{"path": g.raw("/Users/gus/shop/AGENTS.md")}
	case 2:
		return "taskToolCall", Rec{"description": g.canary("desc"), "prompt": g.canary("agentprompt"), "subagentType": Rec{"unspecified": Rec{}}, "agentId": g.id("")}
	case 3:
		return Pick(g.c, "editToolCall", g.canary("tool")+"ToolCall"), Rec{"path": g.canary("path"), "diffString": g.canary("diff")}
	}
	return "shellToolCall", Rec{"command": g.canary("command"), "workingDirectory": "", "timeout": 10000, "simpleCommands": []any{g.canary("simple")}}
}

func cursorTranscript(g *gen) *Log {
	session := g.id("")
	dir := "projects/home-ivy-src-app/agent-transcripts/" + session
	g.log.Main = dir + "/" + session + ".jsonl"
	file := func(n int) []byte {
		var recs []Rec
		for i := 0; i < n; i++ {
			switch g.c.Intn(5) {
			case 0:
				recs = append(recs, Rec{"role": "user", "message": Rec{"content": []any{Rec{"type": "text", "text": "<user_query>\n" + g.canary("prompt") + "\n</user_query>"}}}})
			case 1:
				recs = append(recs, Rec{"role": "assistant", "message": Rec{"content": []any{Rec{"type": "text", "text": g.canary("answer")},
					Rec{"type": "tool_use", "name": Pick(g.c, "Shell", "Read", "Task", g.canary("tool")), "input": Rec{"command": g.canary("command")}}}}})
			case 2:
				id := g.id("tc-")
				recs = append(recs, Rec{"role": "assistant", "message": Rec{"content": []any{Rec{"type": "tool_call", "id": id, "toolName": "Grep", "args": Rec{"pattern": g.canary("pattern")}},
					Rec{"type": "custom_block", "data": g.canary("custom")}}}},
					Rec{"role": "user", "message": Rec{"content": []any{Rec{"type": "tool-result", "toolCallId": g.earlier("tc-"), "content": g.canary("result")}}}})
			case 3:
				recs = append(recs, Rec{"type": "turn_ended", "status": Pick(g.c, "success", "error", g.canary("status"))})
			default:
				recs = append(recs, Rec{"role": "assistant", "message": Rec{"content": []any{Rec{"type": "text", "text": g.canary("answer")}}}, "timestamp_ms": 1781000000000 + int64(g.c.Intn(99999))})
			}
		}
		return g.encode(g.perturb(recs))
	}
	g.log.Files[g.log.Main] = file(1 + g.c.Intn(10))
	for i, n := 0, g.c.Intn(3); i < n; i++ {
		sub := g.id("")
		rel := "subagents/" + sub + ".jsonl"
		if _, dup := g.log.Files[dir+"/"+rel]; dup {
			continue
		}
		g.log.Files[dir+"/"+rel] = file(1 + g.c.Intn(4))
		g.log.Companions = append(g.log.Companions, Companion{Path: dir + "/" + rel, Rel: rel})
	}
	return g.log
}
