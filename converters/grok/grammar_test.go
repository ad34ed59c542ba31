package grok_test

import (
	"encoding/json"
	"strconv"

	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// grammar builds a Grok Build session folder (reader.go, records.go):
// updates.jsonl, the ACP stream of session updates (user, agent and
// thought chunks, plans, mode and command updates, tool_call and
// tool_call_update for built-in, MCP <server>__<tool>, task (subagent),
// skill and unknown tools, turn_completed with its usage, per model or
// not, in the odd number forms ccusage reads as 0, and the copies a
// retried notification leaves), Unix-second or RFC 3339 times; by choice
// summary.json beside it (its sidecar) and events.jsonl, a further file of
// the folder that is counted, never read.
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "grok")
	k := fuzzgen.NewClock(g)
	session := g.ID("")
	dir := "sessions/work%2Fapp/" + session // a folder named in messages: no canary
	g.Log.Main = dir + "/updates.jsonl"
	models := []string{"grok-4.5-build", "grok-code-fast-1", g.Canary("model")}
	events := 0
	rec := func(method string, update fuzzgen.Rec) fuzzgen.Rec {
		p := fuzzgen.Rec{"sessionId": session, "update": update}
		if !g.C.OneIn(6) { // now and then a line without an event id
			events++
			p["_meta"] = fuzzgen.Rec{"eventId": session + "-" + strconv.Itoa(events)}
		}
		return fuzzgen.Rec{"timestamp": grokTime(g, k), "method": method, "params": p}
	}
	update := func(kind string, fields fuzzgen.Rec) fuzzgen.Rec {
		fields["sessionUpdate"] = kind
		return rec("session/update", fields)
	}
	text := func(slot string) fuzzgen.Rec { return fuzzgen.Rec{"type": "text", "text": g.Canary(slot)} }
	var recs []fuzzgen.Rec
	for turn, turns := 0, 1+g.C.Intn(4); turn < turns; turn++ {
		prompt := g.ID("")
		user := fuzzgen.Rec{"content": text("prompt")}
		if !g.C.OneIn(3) { // the model a modelUsage key names, in a declared field
			user["_meta"] = fuzzgen.Rec{"modelId": fuzzgen.Pick(g.C, models...), "promptIndex": turn}
		}
		recs = append(recs, update("user_message_chunk", user))
		switch g.C.Intn(5) {
		case 1:
			recs = append(recs, update("available_commands_update", fuzzgen.Rec{"availableCommands": []any{
				fuzzgen.Rec{"name": g.Canary("command"), "description": g.Canary("cmddesc")}}}))
		case 2:
			recs = append(recs, update("current_mode_update", fuzzgen.Rec{"currentModeId": g.Canary("mode")}))
		}
		if g.C.OneIn(2) {
			recs = append(recs, update("agent_thought_chunk", fuzzgen.Rec{"content": text("thought")}))
		}
		for calls := g.C.Intn(4); calls > 0; calls-- {
			recs = append(recs, grokToolCall(g, update)...)
		}
		if g.C.OneIn(3) {
			recs = append(recs, update("plan", fuzzgen.Rec{"entries": []any{fuzzgen.Rec{"content": g.Canary("step"),
				"priority": fuzzgen.Pick(g.C, "high", "medium", "low"), "status": fuzzgen.Pick(g.C, "pending", "in_progress", "completed")}}}))
		}
		recs = append(recs, update("agent_message_chunk", fuzzgen.Rec{"content": text("answer")}))
		done := fuzzgen.Rec{"sessionUpdate": "turn_completed", "prompt_id": prompt,
			"stop_reason": fuzzgen.Pick(g.C, "end_turn", "end_turn", "cancelled", "max_tokens", "refusal")}
		if !g.C.OneIn(8) {
			done["usage"] = grokUsage(g, models)
		}
		end := rec("_x.ai/session_notification", done)
		recs = append(recs, end)
		switch g.C.Intn(6) {
		case 1: // the notification sent again: the same event id, counted once
			recs = append(recs, end)
		case 2: // its _meta not an object: ccusage drops the line
			bad := fuzzgen.Rec{"timestamp": end["timestamp"], "method": end["method"],
				"params": fuzzgen.Rec{"sessionId": session, "update": done, "_meta": fuzzgen.Pick[any](g.C, "x", 7, []any{1})}}
			recs = append(recs, bad)
		}
	}
	g.Log.Files[g.Log.Main] = g.Encode(g.Perturb(recs))
	if !g.C.OneIn(4) {
		cwd := g.Raw("dev/app")
		info := fuzzgen.Rec{"id": session, "title": g.Canary("title")}
		if !g.C.OneIn(4) {
			info["cwd"] = cwd
		}
		summary := fuzzgen.Rec{"info": info, "git_root_dir": cwd, "current_model_id": fuzzgen.Pick(g.C, models...),
			"created_at": k.Next(), "last_active_at": k.Next()}
		if g.C.OneIn(5) {
			g.MutateField(summary, 0)
		}
		g.Log.Meta = dir + "/summary.json"
		g.Log.Files[g.Log.Meta] = g.Encode([]fuzzgen.Rec{summary})
	}
	if g.C.OneIn(3) {
		var lines []fuzzgen.Rec
		for n := 1 + g.C.Intn(3); n > 0; n-- {
			lines = append(lines, fuzzgen.Rec{"type": fuzzgen.Pick(g.C, "phase_changed", "turn_started", "permission_requested"),
				"ts": k.EpochMs() / 1000, "prompt": g.Canary("copy"), "tool": g.Canary("tool")})
		}
		p := dir + "/events.jsonl"
		g.Log.Files[p] = g.Encode(lines)
		g.Log.Companions = append(g.Log.Companions, fuzzgen.Companion{Path: p, Rel: "events.jsonl"})
	}
	return g.Log
}

// grokTime is a line's timestamp: Unix seconds, whole or not, or a string
// (RFC 3339, or now and then no time at all).
func grokTime(g *fuzzgen.Gen, k *fuzzgen.Clock) any {
	switch g.C.Intn(8) {
	case 6:
		return k.Next()
	case 7:
		return float64(k.EpochMs()) / 1000
	}
	return k.EpochMs() / 1000
}

// grokToolCall is a tool_call and, mostly, its updates: a built-in tool, an
// MCP tool named <server>__<tool> (or without a server), a task (a
// subagent), a skill, or a name of the user's own; closed by a status
// completed or failed in the update or in its _meta copy, or left open.
func grokToolCall(g *fuzzgen.Gen, update func(string, fuzzgen.Rec) fuzzgen.Rec) []fuzzgen.Rec {
	id := g.ID("call-")
	tool := fuzzgen.Rec{"read_only": g.C.OneIn(2), "version": 1}
	input := fuzzgen.Rec{"target_file": g.Raw("dev/app/main.go"), "limit": 80}
	switch g.C.Intn(6) {
	case 0:
		tool["name"], tool["namespace"], tool["kind"] = g.Canary("server")+"__"+g.Canary("mcptool"), "mcp", "other"
		input = fuzzgen.Rec{"variant": "MCPTool", "tool_name": g.Canary("tool"), "tool_input": fuzzgen.Rec{"q": g.Canary("q")}}
	case 1:
		tool["name"], tool["namespace"], tool["kind"] = g.Canary("plainmcp"), "mcp", "other"
	case 2:
		tool["name"], tool["namespace"], tool["kind"] = "task", "grok_build", "task"
		input = fuzzgen.Rec{"variant": "Task", "description": g.Canary("desc"), "prompt": g.Canary("subprompt")}
		if g.C.OneIn(3) {
			delete(input, "prompt")
		}
	case 3:
		tool["name"], tool["namespace"], tool["kind"] = "skill", "grok_build", "skill"
		input = fuzzgen.Rec{"skill": g.Canary("skill")}
	case 4:
		tool["name"], tool["namespace"], tool["kind"] = g.Canary("own"), fuzzgen.Pick(g.C, "grok_build", g.Canary("ns")), "other"
	default:
		tool["name"] = fuzzgen.Pick(g.C, "read_file", "search_replace", "run_terminal_command", "grep", "list_dir", "write", "web_fetch", "todo_write")
		tool["namespace"], tool["kind"] = "grok_build", fuzzgen.Pick(g.C, "read", "edit", "execute", "search", "fetch", "think")
		tool["label"] = "Read"
	}
	call := fuzzgen.Rec{"toolCallId": id, "title": g.Canary("title"), "kind": tool["kind"],
		"status": fuzzgen.Pick(g.C, "pending", "in_progress", "pending", "completed"), "rawInput": input,
		"_meta": fuzzgen.Rec{"x.ai/tool": tool}}
	recs := []fuzzgen.Rec{update("tool_call", call)}
	if g.C.OneIn(3) {
		recs = append(recs, update("tool_call_update", fuzzgen.Rec{"toolCallId": id, "status": "in_progress",
			"content": []any{fuzzgen.Rec{"type": "content", "content": fuzzgen.Rec{"type": "text", "text": g.Canary("progress")}}}}))
	}
	if g.C.OneIn(6) {
		return recs // left open
	}
	status := fuzzgen.Pick(g.C, "completed", "completed", "failed")
	result := fuzzgen.Rec{"toolCallId": g.Earlier("call-"), "rawOutput": fuzzgen.Rec{"type": "ReadFile", "content": g.Canary("output")},
		"locations": []any{fuzzgen.Rec{"path": g.Raw("dev/app/main.go"), "line": 1}}}
	done := update("tool_call_update", result)
	if g.C.OneIn(4) { // the status only in _meta's copy, capitalized
		p := done["params"].(fuzzgen.Rec)
		meta, ok := p["_meta"].(fuzzgen.Rec)
		if !ok {
			meta = fuzzgen.Rec{}
			p["_meta"] = meta
		}
		meta["updateParams"] = fuzzgen.Rec{"status": map[string]string{"completed": "Completed", "failed": "Failed"}[status], "toolCallId": id}
	} else {
		result["status"] = status
	}
	return append(recs, done)
}

// grokUsage is a turn_completed's usage: the turn's totals and, mostly,
// modelUsage, one row a model (a model the stream names, summary.json's, or
// one it does not: its name is raw); counts now and then in forms ccusage
// reads as 0 (a string, 2.0, 1e2, -5), a row of zeros, a row that is no
// object, or no object at all.
func grokUsage(g *fuzzgen.Gen, models []string) any {
	row := func() fuzzgen.Rec {
		in := g.C.Intn(90000)
		r := fuzzgen.Rec{"inputTokens": in, "outputTokens": g.C.Intn(5000), "cachedReadTokens": g.C.Intn(in + 2000),
			"reasoningTokens": g.C.Intn(900), "totalTokens": in + g.C.Intn(5000)}
		if g.C.OneIn(2) {
			r["cacheCreationTokens"] = g.C.Intn(3000)
		}
		if g.C.OneIn(4) {
			odd := fuzzgen.Pick[any](g.C, "700", json.Number("2.0"), json.Number("1e2"), json.Number("-5"), nil, 0)
			r[fuzzgen.Pick(g.C, "inputTokens", "outputTokens", "cachedReadTokens", "cacheCreationTokens", "reasoningTokens")] = odd
		}
		return r
	}
	switch g.C.Intn(10) {
	case 8:
		return fuzzgen.Pick[any](g.C, []any{1, 2, g.Canary("usage")}, "x", 3)
	case 9:
		return fuzzgen.Rec{"inputTokens": 0, "outputTokens": 0, "modelUsage": fuzzgen.Rec{models[0]: fuzzgen.Rec{"inputTokens": 0, "outputTokens": 0}}}
	}
	u := row()
	u["costUsdTicks"] = g.C.Intn(1 << 20)
	u["modelCalls"] = 1 + g.C.Intn(5)
	if g.C.OneIn(4) {
		return u // no breakdown: counted under summary.json's model
	}
	byModel := fuzzgen.Rec{}
	for n := 1 + g.C.Intn(2); n > 0; n-- {
		byModel[fuzzgen.Pick(g.C, models...)] = row()
	}
	if g.C.OneIn(12) {
		byModel[models[1]] = fuzzgen.Pick[any](g.C, 7, "x", []any{1})
	}
	u["modelUsage"] = byModel
	return u
}
