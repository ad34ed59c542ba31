package piagent_test

import (
	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// grammar builds a pi session file (reader.go): the session header (v3
// with ids and parents, or v1 without, the model in the header), model and
// thinking-level changes, user, assistant and toolResult messages (text,
// thinking and toolCall blocks, usage with costs, stop reasons), custom
// messages, compactions, branch summaries, labels and session infos.
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "pi_agent")
	k := fuzzgen.NewClock(g)
	session := g.ID("")
	g.Log.Main = "sessions/--Users-alice-src-app--/2026-11-26T09-00-00-000Z_" + session + ".jsonl"
	v1 := g.C.OneIn(4)
	head := fuzzgen.Rec{"type": "session", "id": session, "timestamp": k.Next(), "cwd": g.Raw("/Users/alice/src/app")}
	if v1 {
		head["provider"], head["modelId"], head["thinkingLevel"] = "anthropic", "claude-opus-4-5", "off"
	} else {
		head["version"] = 3
	}
	recs := []fuzzgen.Rec{head}
	var parent any
	entry := func(r fuzzgen.Rec) {
		r["timestamp"] = k.Next()
		if !v1 {
			id := g.ID("p")
			r["id"], r["parentId"] = id, parent
			parent = id
		}
		recs = append(recs, r)
	}
	msg := func(m fuzzgen.Rec) { m["timestamp"] = k.EpochMs(); entry(fuzzgen.Rec{"type": "message", "message": m}) }
	if !v1 {
		entry(fuzzgen.Rec{"type": "model_change", "provider": "anthropic", "modelId": fuzzgen.Pick(g.C, "claude-sonnet-4-5", "gpt-5", g.Canary("model"))})
	}
	for turns := 1 + g.C.Intn(3); turns > 0; turns-- {
		msg(fuzzgen.Rec{"role": "user", "content": fuzzgen.Pick[any](g.C, g.Canary("prompt"), []any{fuzzgen.Rec{"type": "text", "text": g.Canary("prompt")}})})
		for steps := 1 + g.C.Intn(3); steps > 0; steps-- {
			content := []any{fuzzgen.Rec{"type": "text", "text": g.Canary("answer")}}
			if g.C.OneIn(3) {
				content = append(content, fuzzgen.Rec{"type": "thinking", "thinking": g.Canary("thinking")})
			}
			var calls []fuzzgen.Rec
			for n := g.C.Intn(3); n > 0; n-- {
				name := fuzzgen.Pick(g.C, "read", "bash", "edit", "subagent", "mcp__github__create_issue", g.Canary("tool"))
				call := fuzzgen.Rec{"type": "toolCall", "id": g.ID("toolu_"), "name": name, "arguments": fuzzgen.Rec{"path": g.Raw("/Users/alice/src/app/main.go"), "task": g.Canary("args")}}
				content = append(content, call)
				calls = append(calls, call)
			}
			usage := fuzzgen.Rec{"input": g.C.Intn(9000), "output": g.C.Intn(900), "cacheRead": g.C.Intn(9000), "cacheWrite": g.C.Intn(900),
				"totalTokens": g.C.Intn(20000), "cost": fuzzgen.Rec{"total": float64(g.C.Intn(100)) / 1000}}
			stop := "stop"
			if len(calls) > 0 {
				stop = "toolUse"
			}
			msg(fuzzgen.Rec{"role": "assistant", "content": content, "api": "anthropic-messages", "provider": "anthropic",
				"model": fuzzgen.Pick(g.C, "claude-sonnet-4-5", "claude-opus-4-5"), "usage": usage, "stopReason": fuzzgen.Pick(g.C, stop, stop, "error", "aborted")})
			for _, call := range calls {
				msg(fuzzgen.Rec{"role": "toolResult", "toolCallId": fuzzgen.Pick[any](g.C, call["id"], call["id"], g.Earlier("toolu_")), "toolName": call["name"],
					"content": []any{fuzzgen.Rec{"type": "text", "text": g.Canary("result")}}, "isError": g.C.OneIn(4)})
			}
		}
		switch g.C.Intn(8) {
		case 0:
			entry(fuzzgen.Rec{"type": "compaction", "summary": g.Canary("summary"), "tokensBefore": g.C.Intn(200000), "fromHook": g.C.OneIn(3)})
		case 1:
			entry(fuzzgen.Rec{"type": "branch_summary", "summary": g.Canary("branch"), "fromId": g.Earlier("p")})
		case 2:
			entry(fuzzgen.Rec{"type": "custom_message", "customType": g.Canary("custom"), "content": g.Canary("extension"), "display": false})
		case 3:
			entry(fuzzgen.Rec{"type": fuzzgen.Pick(g.C, "label", "session_info", "thinking_level_change"), "label": g.Canary("label"), "name": g.Canary("name"), "thinkingLevel": "high"})
		}
	}
	g.Log.Files[g.Log.Main] = g.Encode(g.Perturb(recs))
	return g.Log
}
