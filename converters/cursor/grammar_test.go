package cursor_test

import "github.com/contextreceipts/convert/internal/fuzzgen"

// grammar builds a Cursor log (docs/converters.md): by choice the
// stream-json capture of cursor-agent (system/init, user, thinking deltas,
// assistant, tool_call started/completed with a one-key tool union and a
// one-key result union, a terminal result with usage, notice lines that
// are not JSON) or an on-disk agent transcript (role records with
// text/tool_use/tool_call/tool-result blocks, turn_ended, subagent files).
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "cursor")
	k := fuzzgen.NewClock(g)
	if g.C.OneIn(2) {
		return cursorTranscript(g)
	}
	session := g.ID("")
	g.Log.Main = "cursor-stream.jsonl"
	recs := []fuzzgen.Rec{{"type": "system", "subtype": "init", "apiKeySource": "login", "cwd": g.Canary("cwd"), "session_id": session,
		"model": fuzzgen.Pick(g.C, "Auto", "gpt-5.3-codex", g.Canary("model")), "permissionMode": "default", "timestamp_ms": k.EpochMs()}}
	for i, n := 0, 1+g.C.Intn(12); i < n; i++ {
		switch g.C.Intn(7) {
		case 0:
			recs = append(recs, fuzzgen.Rec{"type": "user", "message": fuzzgen.Rec{"role": "user", "content": []any{fuzzgen.Rec{"type": "text", "text": g.Canary("prompt")}}}, "session_id": session})
		case 1:
			recs = append(recs, fuzzgen.Rec{"type": "thinking", "subtype": fuzzgen.Pick(g.C, "delta", "completed"), "text": g.Canary("thinking"), "session_id": session, "timestamp_ms": k.EpochMs()})
		case 2:
			recs = append(recs, fuzzgen.Rec{"type": "assistant", "message": fuzzgen.Rec{"role": "assistant", "content": []any{fuzzgen.Rec{"type": "text", "text": g.Canary("answer")}}},
				"session_id": session, "model_call_id": g.Earlier("mc-"), "timestamp_ms": k.EpochMs()})
		case 3, 4:
			call := g.ID("call_") + "\nfc_" + g.ID("")[:8]
			tool, args := cursorTool(g)
			started := fuzzgen.Rec{"type": "tool_call", "subtype": "started", "call_id": call, "tool_call": fuzzgen.Rec{tool: fuzzgen.Rec{"args": args}}, "session_id": session, "timestamp_ms": k.EpochMs()}
			recs = append(recs, started)
			if !g.C.OneIn(4) {
				res := fuzzgen.Pick(g.C, fuzzgen.Rec{"success": fuzzgen.Rec{"stdout": g.Canary("stdout"), "exitCode": fuzzgen.Pick(g.C, 0, 1)}},
					fuzzgen.Rec{"rejected": fuzzgen.Rec{"command": g.Canary("cmd"), "reason": g.Canary("reason")}},
					fuzzgen.Rec{"error": fuzzgen.Rec{"message": g.Canary("err")}})
				done := fuzzgen.Rec{"type": "tool_call", "subtype": "completed", "call_id": fuzzgen.Pick(g.C, call, g.Earlier("call_")),
					"tool_call": fuzzgen.Rec{tool: fuzzgen.Rec{"args": args, "result": res}}, "session_id": session, "timestamp_ms": k.EpochMs()}
				if g.C.OneIn(3) {
					done["tool_call"].(fuzzgen.Rec)["startedAtMs"] = "1786000000000"
				}
				recs = append(recs, done)
			}
		case 5:
			recs = append(recs, fuzzgen.Rec{"type": fuzzgen.Pick(g.C, "retry", "connection", "interaction_query", g.Canary("type")), "subtype": "starting", "attempt": 1, "endpoint_url": g.Canary("url")})
		default:
			recs = append(recs, fuzzgen.Rec{"type": "system", "subtype": fuzzgen.Pick(g.C, "task_notification", "background_shell_timeout"), "message": g.Canary("notice"), "session_id": session})
		}
	}
	if !g.C.OneIn(4) {
		r := fuzzgen.Rec{"type": "result", "subtype": fuzzgen.Pick(g.C, "success", "error"), "duration_ms": 13039, "is_error": false, "result": g.Canary("resulttext"), "session_id": session, "request_id": g.ID("")}
		if g.C.OneIn(2) {
			r["usage"] = fuzzgen.Rec{"inputTokens": g.C.Intn(100000), "outputTokens": g.C.Intn(9000), "cacheReadTokens": g.C.Intn(50000)}
		}
		recs = append(recs, r)
	}
	b := g.Encode(g.Perturb(recs))
	if g.C.OneIn(3) {
		b = append([]byte("Checking for updates... "+g.Canary("notice")+"\n"), b...)
	}
	g.Log.Files[g.Log.Main] = b
	return g.Log
}

func cursorTool(g *fuzzgen.Gen) (string, fuzzgen.Rec) {
	switch g.C.Intn(5) {
	case 0:
		return "mcpToolCall", fuzzgen.Rec{"name": "github-create_issue", "toolName": "create_issue", "providerIdentifier": fuzzgen.Pick(g.C, "github", g.Canary("server")), "args": fuzzgen.Rec{"title": g.Canary("title")}}
	case 1:
		return "readToolCall", fuzzgen.Rec{"path": g.Raw("/Users/gus/shop/AGENTS.md")}
	case 2:
		return "taskToolCall", fuzzgen.Rec{"description": g.Canary("desc"), "prompt": g.Canary("agentprompt"), "subagentType": fuzzgen.Rec{"unspecified": fuzzgen.Rec{}}, "agentId": g.ID("")}
	case 3:
		return fuzzgen.Pick(g.C, "editToolCall", g.Canary("tool")+"ToolCall"), fuzzgen.Rec{"path": g.Canary("path"), "diffString": g.Canary("diff")}
	}
	return "shellToolCall", fuzzgen.Rec{"command": g.Canary("command"), "workingDirectory": "", "timeout": 10000, "simpleCommands": []any{g.Canary("simple")}}
}

func cursorTranscript(g *fuzzgen.Gen) *fuzzgen.Log {
	session := g.ID("")
	dir := "projects/home-ivy-src-app/agent-transcripts/" + session
	g.Log.Main = dir + "/" + session + ".jsonl"
	file := func(n int) []byte {
		var recs []fuzzgen.Rec
		for i := 0; i < n; i++ {
			switch g.C.Intn(5) {
			case 0:
				recs = append(recs, fuzzgen.Rec{"role": "user", "message": fuzzgen.Rec{"content": []any{fuzzgen.Rec{"type": "text", "text": "<user_query>\n" + g.Canary("prompt") + "\n</user_query>"}}}})
			case 1:
				recs = append(recs, fuzzgen.Rec{"role": "assistant", "message": fuzzgen.Rec{"content": []any{fuzzgen.Rec{"type": "text", "text": g.Canary("answer")},
					fuzzgen.Rec{"type": "tool_use", "name": fuzzgen.Pick(g.C, "Shell", "Read", "Task", g.Canary("tool")), "input": fuzzgen.Rec{"command": g.Canary("command")}}}}})
			case 2:
				id := g.ID("tc-")
				recs = append(recs, fuzzgen.Rec{"role": "assistant", "message": fuzzgen.Rec{"content": []any{fuzzgen.Rec{"type": "tool_call", "id": id, "toolName": "Grep", "args": fuzzgen.Rec{"pattern": g.Canary("pattern")}},
					fuzzgen.Rec{"type": "custom_block", "data": g.Canary("custom")}}}},
					fuzzgen.Rec{"role": "user", "message": fuzzgen.Rec{"content": []any{fuzzgen.Rec{"type": "tool-result", "toolCallId": g.Earlier("tc-"), "content": g.Canary("result")}}}})
			case 3:
				recs = append(recs, fuzzgen.Rec{"type": "turn_ended", "status": fuzzgen.Pick(g.C, "success", "error", g.Canary("status"))})
			default:
				recs = append(recs, fuzzgen.Rec{"role": "assistant", "message": fuzzgen.Rec{"content": []any{fuzzgen.Rec{"type": "text", "text": g.Canary("answer")}}}, "timestamp_ms": 1781000000000 + int64(g.C.Intn(99999))})
			}
		}
		return g.Encode(g.Perturb(recs))
	}
	g.Log.Files[g.Log.Main] = file(1 + g.C.Intn(10))
	for i, n := 0, g.C.Intn(3); i < n; i++ {
		sub := g.ID("")
		rel := "subagents/" + sub + ".jsonl"
		if _, dup := g.Log.Files[dir+"/"+rel]; dup {
			continue
		}
		g.Log.Files[dir+"/"+rel] = file(1 + g.C.Intn(4))
		g.Log.Companions = append(g.Log.Companions, fuzzgen.Companion{Path: dir + "/" + rel, Rel: rel})
	}
	return g.Log
}
