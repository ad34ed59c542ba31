package kimicli_test

import (
	"encoding/json"

	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// grammar builds a Kimi CLI session (records.go) or, one time in four, a
// Kimi Code agent's wire (code.go).
//
// Kimi CLI: sessions/<work dir hash>/<session id>/wire.jsonl, a metadata
// line then {timestamp (Unix seconds), message {type, payload}} lines:
// TurnBegin and SteerInput prompts (a string or content parts), StepBegin,
// ContentPart text and think, ToolCall (built-in tools, Task and Agent
// subagents with their SubagentEvents, MCP tools under their own names)
// and ToolResult joined by id, ApprovalRequest and ApprovalResponse,
// StatusUpdate token usage (now and then zero or repeated), compaction,
// interrupts, hooks and MCP loading; by choice, the context.jsonl beside
// it as a companion (messages, _checkpoint and _usage lines).
//
// Kimi Code: sessions/<work dir>/<session id>/agents/<agent>/wire.jsonl,
// a {type: metadata, protocolVersion} header then camelCase {type, time
// (Unix ms)} records: context.append_message (user prompts, the
// <system-reminder> bookkeeping, assistant replies) and usage.record of
// scope turn or session (the running sum), repeated now and then.
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "kimi_cli")
	if g.C.OneIn(4) {
		kimiCode(g)
		return g.Log
	}
	k := fuzzgen.NewClock(g)
	dir := "sessions/0f3c2b1a9e8d7c6b5a4f3e2d1c0b9a8f/" + g.ID("")
	g.Log.Main = dir + "/wire.jsonl"
	at := func() any {
		s := float64(k.EpochMs()) / 1000
		if g.C.OneIn(30) {
			return int64(s) // a whole second, written as an integer
		}
		return s
	}
	recs := []fuzzgen.Rec{{"type": "metadata", "protocol_version": fuzzgen.Pick(g.C, "1.3", "1.1", "2")}}
	wire := func(typ string, payload fuzzgen.Rec) {
		recs = append(recs, fuzzgen.Rec{"timestamp": at(), "message": fuzzgen.Rec{"type": typ, "payload": payload}})
	}
	var ctx []fuzzgen.Rec // context.jsonl
	checkpoint := 0
	ctx = append(ctx, fuzzgen.Rec{"role": "_checkpoint", "id": checkpoint})
	var usage fuzzgen.Rec // the last step's, for a repeat
	for turns := 1 + g.C.Intn(3); turns > 0; turns-- {
		prompt := g.Canary("prompt")
		var input any = prompt
		if g.C.OneIn(3) {
			input = []any{fuzzgen.Rec{"type": "text", "text": prompt}}
		}
		wire(fuzzgen.Pick(g.C, "TurnBegin", "TurnBegin", "TurnBegin", "SteerInput"), fuzzgen.Rec{"user_input": input})
		ctx = append(ctx, fuzzgen.Rec{"role": "user", "content": prompt})
		for n, steps := 1, 1+g.C.Intn(3); n <= steps; n++ {
			wire("StepBegin", fuzzgen.Rec{"n": n})
			var content []any
			if g.C.OneIn(3) {
				think := g.Canary("think")
				wire("ContentPart", fuzzgen.Rec{"type": "think", "think": think})
				content = append(content, fuzzgen.Rec{"type": "think", "think": think})
			}
			if !g.C.OneIn(4) {
				text := g.Canary("text")
				wire("ContentPart", fuzzgen.Rec{"type": "text", "text": text})
				content = append(content, fuzzgen.Rec{"type": "text", "text": text})
			}
			var calls []any
			var results []fuzzgen.Rec
			for c := g.C.Intn(3); c > 0; c-- {
				call := kimiCall(g)
				wire("ToolCall", call)
				calls = append(calls, call)
				id, _ := call["id"].(string)
				name := call["function"].(fuzzgen.Rec)["name"]
				if g.C.OneIn(4) {
					req := g.Canary("approval")
					wire("ApprovalRequest", fuzzgen.Rec{"id": req, "tool_call_id": id, "sender": g.Canary("sender"),
						"action": g.Canary("action"), "description": g.Canary("desc"), "display": []any{}})
					wire(fuzzgen.Pick(g.C, "ApprovalResponse", "ApprovalRequestResolved"), fuzzgen.Rec{"request_id": req,
						"response": fuzzgen.Pick(g.C, "approve", "approve_for_session", "reject", g.Canary("response"))})
				}
				if name == "Task" || name == "Agent" {
					kimiSubagent(g, wire, id)
				}
				if g.C.OneIn(6) { // now and then a call gets no result
					continue
				}
				if g.C.OneIn(10) {
					id = g.Earlier("tool_")
				}
				out := g.Canary("result")
				failed := g.C.OneIn(4)
				wire("ToolResult", fuzzgen.Rec{"tool_call_id": id, "return_value": fuzzgen.Rec{"is_error": failed,
					"output": out, "message": g.Canary("message"), "display": []any{}}})
				results = append(results, fuzzgen.Rec{"role": "tool", "content": out, "tool_call_id": id})
			}
			switch g.C.Intn(8) {
			case 0: // no usage
			case 1: // four zero counts: left out
				wire("StatusUpdate", fuzzgen.Rec{"context_usage": 0.01, "token_usage": fuzzgen.Rec{"input_other": 0, "output": 0,
					"input_cache_read": 0, "input_cache_creation": 0}})
			case 2: // the same update written again
				if usage != nil {
					recs = append(recs, usage)
					break
				}
				fallthrough
			default:
				wire("StatusUpdate", fuzzgen.Rec{"context_usage": 0.05, "context_tokens": g.C.Intn(200000), "max_context_tokens": 262144,
					"token_usage": fuzzgen.Rec{"input_other": g.C.Intn(90000), "output": g.C.Intn(9000),
						"input_cache_read": g.C.Intn(90000), "input_cache_creation": g.C.Intn(5000)},
					"message_id": fuzzgen.Pick(g.C, "chatcmpl-", "") + g.Canary("msgid")})
				usage = recs[len(recs)-1]
			}
			msg := fuzzgen.Rec{"role": "assistant", "content": content}
			if len(calls) > 0 {
				msg["tool_calls"] = calls
			}
			ctx = append(append(ctx, msg), results...)
			ctx = append(ctx, fuzzgen.Rec{"role": "_usage", "token_count": g.C.Intn(200000)})
			kimiAside(g, wire)
		}
		switch g.C.Intn(5) {
		case 0:
			wire("CompactionBegin", fuzzgen.Rec{})
			wire("CompactionEnd", fuzzgen.Rec{})
			checkpoint++
			ctx = append(ctx, fuzzgen.Rec{"role": "_checkpoint", "id": checkpoint},
				fuzzgen.Rec{"role": "user", "content": []any{fuzzgen.Rec{"type": "text", "text": g.Canary("summary")}}})
		case 1:
			wire("StepInterrupted", fuzzgen.Rec{})
		}
		wire("TurnEnd", fuzzgen.Rec{})
	}
	g.Log.Files[g.Log.Main] = g.Encode(g.Perturb(recs))
	if !g.C.OneIn(3) {
		path := dir + "/context.jsonl"
		g.Log.Files[path] = g.Encode(g.Perturb(ctx))
		g.Log.Companions = append(g.Log.Companions, fuzzgen.Companion{Path: path, Rel: "context.jsonl"})
	}
	return g.Log
}

// kimiCall is a ToolCall payload {type: function, id, function {name,
// arguments}}, its arguments a JSON document in a string: built-in tools,
// Task and Agent (a subagent), an MCP tool under its own name, now and
// then no id or arguments that are not JSON.
func kimiCall(g *fuzzgen.Gen) fuzzgen.Rec {
	var name string
	var args fuzzgen.Rec
	switch g.C.Intn(6) {
	case 0:
		name = fuzzgen.Pick(g.C, "Task", "Agent")
		args = fuzzgen.Rec{"description": g.Canary("d"), "prompt": g.Canary("task")}
		args[fuzzgen.Pick(g.C, "subagent_name", "subagent_type")] = fuzzgen.Pick(g.C, "coder", g.Canary("agent"))
	case 1:
		name, args = g.Canary("mcp"), fuzzgen.Rec{"q": g.Canary("q")}
	default:
		name = fuzzgen.Pick(g.C, "Shell", "ReadFile", "WriteFile", "StrReplaceFile", "Glob", "Grep", "SearchWeb", "FetchURL", "SetTodoList", "Think")
		args = fuzzgen.Rec{"command": g.Canary("cmd"), "path": g.Canary("path")}
	}
	b, _ := json.Marshal(args)
	arguments := string(b)
	if g.C.OneIn(10) {
		arguments = "{\"command\": \"" + g.Canary("cut") // cut off mid-stream
	}
	call := fuzzgen.Rec{"type": "function", "function": fuzzgen.Rec{"name": name, "arguments": arguments}}
	if !g.C.OneIn(12) {
		call["id"] = g.ID("tool_")
	}
	return call
}

// kimiSubagent adds a subagent's own events, nested in SubagentEvents
// that name the call that started it: its steps, text and usage.
func kimiSubagent(g *fuzzgen.Gen, wire func(string, fuzzgen.Rec), parent string) {
	agent, kind := g.Canary("agentid"), fuzzgen.Pick(g.C, "coder", g.Canary("agent"))
	sub := func(typ string, payload fuzzgen.Rec) {
		wire("SubagentEvent", fuzzgen.Rec{"parent_tool_call_id": parent, "agent_id": agent, "subagent_type": kind,
			"event": fuzzgen.Rec{"type": typ, "payload": payload}})
	}
	for n, steps := 1, g.C.Intn(3); n <= steps; n++ {
		sub("StepBegin", fuzzgen.Rec{"n": n})
		sub("ContentPart", fuzzgen.Rec{"type": "text", "text": g.Canary("subtext")})
		sub("StatusUpdate", fuzzgen.Rec{"token_usage": fuzzgen.Rec{"input_other": g.C.Intn(9000), "output": g.C.Intn(900),
			"input_cache_read": 0, "input_cache_creation": 0}, "message_id": g.Canary("submsg")})
	}
}

// kimiAside adds, by choice, a wire message the reader counts: a hook, a
// notification, MCP servers loading, a plan, or a type it does not know.
func kimiAside(g *fuzzgen.Gen, wire func(string, fuzzgen.Rec)) {
	switch g.C.Intn(10) {
	case 0:
		wire("HookTriggered", fuzzgen.Rec{"event": fuzzgen.Pick(g.C, "PreToolUse", "Stop"), "command": g.Canary("hook")})
		wire("HookResolved", fuzzgen.Rec{"output": g.Canary("hookout")})
	case 1:
		wire("Notification", fuzzgen.Rec{"text": g.Canary("note")})
	case 2:
		wire("MCPLoadingBegin", fuzzgen.Rec{"server": g.Canary("server")})
		wire("MCPLoadingEnd", fuzzgen.Rec{})
	case 3:
		wire(fuzzgen.Pick(g.C, "PlanDisplay", "QuestionRequest", "ToolCallPart", g.Canary("type")), fuzzgen.Rec{"text": g.Canary("aside")})
	}
}

// kimiCode builds one agent's Kimi Code wire.
func kimiCode(g *fuzzgen.Gen) {
	dir := "sessions/7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d/" + g.ID("") + "/agents/" + fuzzgen.Pick(g.C, "main", "explore-1")
	g.Log.Main = dir + "/wire.jsonl"
	k := fuzzgen.NewClock(g)
	at := func(r fuzzgen.Rec) fuzzgen.Rec {
		if g.C.OneIn(12) {
			r["timestamp"] = k.Next() // an ISO time instead
		} else {
			r["time"] = k.EpochMs()
		}
		return r
	}
	recs := []fuzzgen.Rec{at(fuzzgen.Rec{"type": "metadata", "protocolVersion": fuzzgen.Pick(g.C, 2, 3), "createdAt": k.Next()})}
	model := "kimi-code/" + fuzzgen.Pick(g.C, "kimi-k2.6", "kimi-k2.5", "kimi-for-coding")
	var sum [4]int
	var last fuzzgen.Rec
	for turns := 1 + g.C.Intn(4); turns > 0; turns-- {
		recs = append(recs, at(fuzzgen.Rec{"type": "context.append_message", "message": fuzzgen.Rec{"role": "user", "content": g.Canary("prompt")}}))
		if g.C.OneIn(3) {
			recs = append(recs, at(fuzzgen.Rec{"type": "context.append_message", "message": fuzzgen.Rec{"role": "user",
				"content": "<system-reminder>" + g.Canary("reminder") + "</system-reminder>"}}))
		}
		for steps := 1 + g.C.Intn(3); steps > 0; steps-- {
			u := [4]int{g.C.Intn(9000), g.C.Intn(900), g.C.Intn(20000), g.C.Intn(500)}
			if g.C.OneIn(8) {
				u = [4]int{}
			}
			for i := range sum {
				sum[i] += u[i]
			}
			if g.C.OneIn(6) {
				model = "kimi-code/" + fuzzgen.Pick(g.C, "kimi-k2.6", g.Canary("model"))
			}
			last = at(fuzzgen.Rec{"type": "usage.record", "model": model, "usageScope": "turn",
				"usage": fuzzgen.Rec{"inputOther": u[0], "output": u[1], "inputCacheRead": u[2], "inputCacheCreation": u[3]}})
			recs = append(recs, last)
			if g.C.OneIn(6) { // written twice
				recs = append(recs, last)
			}
			var content any = []any{fuzzgen.Rec{"type": "text", "text": g.Canary("reply")}}
			if g.C.OneIn(4) {
				content = g.Canary("reply")
			}
			recs = append(recs, at(fuzzgen.Rec{"type": "context.append_message", "message": fuzzgen.Rec{"role": fuzzgen.Pick(g.C, "assistant", "assistant", "tool"),
				"content": content}}))
		}
		if g.C.OneIn(3) {
			recs = append(recs, at(fuzzgen.Rec{"type": "usage.record", "model": model, "usageScope": fuzzgen.Pick[any](g.C, "session", nil),
				"usage": fuzzgen.Rec{"inputOther": sum[0], "output": sum[1], "inputCacheRead": sum[2], "inputCacheCreation": sum[3]}}))
		}
		if g.C.OneIn(5) {
			recs = append(recs, at(fuzzgen.Rec{"type": fuzzgen.Pick(g.C, "turn.end", g.Canary("type")), "data": g.Canary("data")}))
		}
	}
	g.Log.Files[g.Log.Main] = g.Encode(g.Perturb(recs))
}
