package qwencode_test

import (
	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// grammar builds a Qwen Code chat recording (records.go): one JSONL file
// under projects/<cwd>/chats/, named by its session id, of ChatRecords
// {uuid, parentUuid, sessionId, timestamp, type, cwd, version, ...}: user
// prompts (text, inline data, the text of files an @-reference read),
// assistant responses whose parts hold text, thoughts and functionCalls
// (built-in, skill, agent/task, save_memory, MCP and unknown tools) with
// usageMetadata (now and then all zero, absent or repeated), tool_result
// records joined to their call by toolCallResult.callId or
// functionResponse.id, and system records (chat_compression, at_command,
// slash_command, ui_telemetry, session_approval_mode, rewind and a
// subtype Qwen may add later).
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "qwen_code")
	k := fuzzgen.NewClock(g)
	session := g.ID("")
	dir := "projects/-Users-alice-src-app/chats"
	g.Log.Main = dir + "/" + session + ".jsonl"
	cwd := g.Raw("/Users/alice/src/app")
	branch := g.Canary("branch")
	version := fuzzgen.Pick(g.C, "0.14.2", "0.0.9", "1.2.0-nightly.20261120")
	var recs []fuzzgen.Rec
	var parent any
	rec := func(typ string, fields fuzzgen.Rec) fuzzgen.Rec {
		id := g.ID("")
		r := fuzzgen.Rec{"uuid": id, "parentUuid": parent, "sessionId": session, "timestamp": k.Next(), "type": typ,
			"cwd": cwd, "version": version}
		if g.C.OneIn(3) {
			r["gitBranch"] = branch
		}
		if g.C.OneIn(10) {
			r["isSidechain"] = true
			r["agentId"] = g.ID("agent-")
		}
		for key, v := range fields {
			r[key] = v
		}
		parent = id
		recs = append(recs, r)
		return r
	}
	system := func(sub string, payload fuzzgen.Rec) {
		rec("system", fuzzgen.Rec{"subtype": sub, "systemPayload": payload})
	}
	if !g.C.OneIn(3) {
		system("session_approval_mode", fuzzgen.Rec{"mode": fuzzgen.Pick(g.C, "default", "plan", "auto-edit", "yolo", g.Canary("mode"))})
	}
	model := fuzzgen.Pick(g.C, "qwen3-coder-plus", "qwen3-coder-flash", "qwen3-max")
	var usage fuzzgen.Rec // the last response's, for a repeat
	for turns := 1 + g.C.Intn(4); turns > 0; turns-- {
		qwenPrompt(g, rec, system)
		for steps := 1 + g.C.Intn(3); steps > 0; steps-- {
			var parts []any
			if g.C.OneIn(3) {
				parts = append(parts, fuzzgen.Rec{"text": g.Canary("thought"), "thought": true})
			}
			if !g.C.OneIn(4) {
				parts = append(parts, fuzzgen.Rec{"text": g.Canary("answer")})
			}
			var calls []fuzzgen.Rec
			for n := g.C.Intn(3); n > 0; n-- {
				call := qwenCall(g)
				calls = append(calls, call)
				parts = append(parts, fuzzgen.Rec{"functionCall": call})
			}
			if g.C.OneIn(5) {
				model = fuzzgen.Pick(g.C, "qwen3-coder-plus", "qwen3-coder-flash", "openai/"+g.Canary("model"))
			}
			fields := fuzzgen.Rec{"model": model, "message": fuzzgen.Rec{"role": "model", "parts": parts}}
			if g.C.OneIn(4) {
				fields["contextWindowSize"] = fuzzgen.Pick(g.C, 1000000, 131072)
			}
			switch g.C.Intn(8) {
			case 0: // no usage
			case 1: // four zero counts: left out
				fields["usageMetadata"] = fuzzgen.Rec{"promptTokenCount": 0, "candidatesTokenCount": 0}
			case 2: // the previous response's counts again
				if usage != nil {
					fields["usageMetadata"] = usage
					break
				}
				fallthrough
			default:
				usage = qwenUsage(g)
				fields["usageMetadata"] = usage
			}
			rec("assistant", fields)
			for _, call := range calls {
				if g.C.OneIn(6) { // now and then a call gets no result
					continue
				}
				qwenResult(g, rec, call)
			}
		}
		qwenSystem(g, system)
	}
	g.Log.Files[g.Log.Main] = g.Encode(g.Perturb(recs))
	return g.Log
}

// qwenPrompt adds a user prompt: text, now and then an attachment, and,
// after an @-reference, the files it read as a further part and the
// at_command record naming them.
func qwenPrompt(g *fuzzgen.Gen, rec func(string, fuzzgen.Rec) fuzzgen.Rec, system func(string, fuzzgen.Rec)) {
	parts := []any{fuzzgen.Rec{"text": g.Canary("prompt")}}
	at := g.C.OneIn(4)
	if at {
		parts = append(parts, fuzzgen.Rec{"text": fuzzgen.Pick(g.C, "\n", "") + "--- Content from referenced files ---\n" + g.Canary("file") + "\n--- End of content ---"})
	}
	if g.C.OneIn(6) {
		parts = append(parts, fuzzgen.Rec{"inlineData": fuzzgen.Rec{"mimeType": "image/png", "data": g.Canary("image")}})
	}
	rec("user", fuzzgen.Rec{"message": fuzzgen.Rec{"role": "user", "parts": parts}})
	if at {
		system("at_command", fuzzgen.Rec{"filesRead": []any{g.Canary("path"), g.Canary("path")}, "status": fuzzgen.Pick(g.C, "success", "error"),
			"userText": g.Canary("usertext")})
	}
}

// qwenCall is a functionCall {id, name, args}: built-in tools, the skill
// tool, the agent tool (task in older builds) that runs a subagent,
// save_memory, an MCP tool, an older build's MCP name, or a name of the
// user's own; now and then without an id.
func qwenCall(g *fuzzgen.Gen) fuzzgen.Rec {
	var name string
	var args fuzzgen.Rec
	switch g.C.Intn(8) {
	case 0:
		name, args = "skill", fuzzgen.Rec{"skill": fuzzgen.Pick(g.C, "pdf", g.Canary("skill"))}
	case 1:
		name = fuzzgen.Pick(g.C, "agent", "task")
		args = fuzzgen.Rec{"subagent_type": fuzzgen.Pick(g.C, "general-purpose", g.Canary("agent")), "description": g.Canary("desc"), "prompt": g.Canary("task")}
	case 2:
		name, args = "save_memory", fuzzgen.Rec{"fact": g.Canary("fact")}
	case 3:
		name, args = "mcp__"+fuzzgen.Pick(g.C, "github", g.Canary("server"))+"__"+fuzzgen.Pick(g.C, "create_issue", g.Canary("mcptool")), fuzzgen.Rec{"query": g.Canary("query")}
	case 4:
		name, args = g.Canary("tool"), fuzzgen.Rec{"x": g.Canary("arg")}
	default:
		name = fuzzgen.Pick(g.C, "read_file", "run_shell_command", "edit", "grep_search", "glob", "web_fetch", "todo_write", "replace")
		args = fuzzgen.Rec{"absolute_path": g.Canary("path"), "command": g.Canary("cmd")}
	}
	call := fuzzgen.Rec{"name": name, "args": args}
	if !g.C.OneIn(10) {
		call["id"] = g.ID("call_")
	}
	return call
}

// qwenUsage is a response's usageMetadata: the prompt count holds the
// cached count, thoughts apart.
func qwenUsage(g *fuzzgen.Gen) fuzzgen.Rec {
	prompt, out := 1+g.C.Intn(90000), g.C.Intn(9000)
	u := fuzzgen.Rec{"promptTokenCount": prompt, "candidatesTokenCount": out, "totalTokenCount": prompt + out}
	if g.C.OneIn(2) {
		u["cachedContentTokenCount"] = g.C.Intn(prompt + 1)
	}
	if g.C.OneIn(3) {
		u["thoughtsTokenCount"] = g.C.Intn(3000)
	}
	if g.C.OneIn(8) {
		u["toolUsePromptTokenCount"] = g.C.Intn(500)
	}
	return u
}

// qwenResult adds the tool_result record of a call: its functionResponse
// and toolCallResult {callId, status, error?, resultDisplay}; a subagent's
// report is its result.
func qwenResult(g *fuzzgen.Gen, rec func(string, fuzzgen.Rec) fuzzgen.Rec, call fuzzgen.Rec) {
	id, _ := call["id"].(string)
	if id == "" || g.C.OneIn(10) {
		id = g.Earlier("call_")
	}
	status := fuzzgen.Pick(g.C, "success", "success", "success", "error", "cancelled")
	resp := fuzzgen.Rec{"output": g.Canary("result")}
	tr := fuzzgen.Rec{"status": status, "resultDisplay": g.Canary("display")}
	if status == "error" {
		resp = fuzzgen.Rec{"error": g.Canary("error")}
		tr["error"] = fuzzgen.Rec{"message": g.Canary("errmsg")}
		tr["errorType"] = g.Canary("errtype")
	}
	if call["name"] == "agent" || call["name"] == "task" {
		tr["resultDisplay"] = fuzzgen.Rec{"type": "task_execution", "subagentName": g.Canary("agent"), "result": g.Canary("report")}
	}
	fr := fuzzgen.Rec{"id": id, "name": call["name"], "response": resp}
	switch g.C.Intn(6) {
	case 0: // the call named only in the response
	case 1: // only in toolCallResult
		delete(fr, "id")
		tr["callId"] = id
	default:
		tr["callId"] = id
	}
	rec("tool_result", fuzzgen.Rec{"message": fuzzgen.Rec{"role": "user", "parts": []any{fuzzgen.Rec{"functionResponse": fr}}}, "toolCallResult": tr})
}

// qwenSystem adds, by choice, a system record after a turn: a
// compression with its summary, a slash command, telemetry, an approval
// mode change, a rewind, or a subtype this reader does not know.
func qwenSystem(g *fuzzgen.Gen, system func(string, fuzzgen.Rec)) {
	switch g.C.Intn(9) {
	case 0:
		orig := g.C.Intn(200000)
		history := []any{fuzzgen.Rec{"role": "user", "parts": []any{fuzzgen.Rec{"text": g.Canary("summary")}}},
			fuzzgen.Rec{"role": "model", "parts": []any{fuzzgen.Rec{"text": g.Canary("ack")}}}}
		if g.C.OneIn(5) {
			history = nil // a compression that kept no summary
		}
		system("chat_compression", fuzzgen.Rec{"info": fuzzgen.Rec{"originalTokenCount": orig, "newTokenCount": g.C.Intn(orig + 1), "compressionStatus": 1},
			"compressedHistory": history})
	case 1:
		system("slash_command", fuzzgen.Rec{"phase": fuzzgen.Pick(g.C, "invocation", "result"), "rawCommand": "/" + g.Canary("command")})
	case 2:
		system("ui_telemetry", fuzzgen.Rec{"uiEvent": fuzzgen.Rec{"event.name": "qwen-code.api_response", "input_token_count": g.C.Intn(9000),
			"prompt_id": g.Canary("promptid")}})
	case 3:
		system("session_approval_mode", fuzzgen.Rec{"mode": fuzzgen.Pick(g.C, "default", "plan", "auto-edit", "yolo")})
	case 4:
		system("rewind", fuzzgen.Rec{"targetUuid": g.Earlier("")})
	case 5:
		system(fuzzgen.Pick(g.C, "custom_title", "session_notes", "notification", g.Canary("subtype")), fuzzgen.Rec{"text": g.Canary("note")})
	}
}
