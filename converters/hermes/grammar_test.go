package hermes_test

import (
	"encoding/json"
	"fmt"

	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// grammar builds the lines Hermes Agent's store writes for one session
// (store.go): the session row ({"hermes_session": ...}: id, source, model,
// parent session, start and end in Unix seconds, end reason, counts,
// input, output, cache and reasoning tokens, cost, cwd), then its messages
// by id ({"hermes_message": ...}): user prompts, assistant messages whose
// tool_calls (built-in tools, skills, memory, delegate_task, MCP and the
// user's own) carry JSON-text arguments, tool messages joined to them by
// tool_call_id, system messages and compressed summaries.
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "hermes")
	k := fuzzgen.NewClock(g)
	session := fmt.Sprintf("20261120_1000%02d_a1b2c%d", g.C.Intn(60), g.C.Intn(10))
	g.Log.Main = "sessions/" + session + ".jsonl"
	start := k.EpochMs()
	recs := []fuzzgen.Rec{{"hermes_session": hermesSession(g, session, start)}}
	id := 0
	msg := func(m fuzzgen.Rec) {
		id++
		m["id"], m["timestamp"] = id, float64(k.EpochMs())/1000
		if g.C.OneIn(8) {
			m["timestamp"] = k.EpochMs() / 1000 // an INTEGER cell
		}
		recs = append(recs, fuzzgen.Rec{"hermes_message": m})
	}
	if g.C.OneIn(6) {
		msg(fuzzgen.Rec{"role": "system", "content": g.Canary("system")})
	}
	for turns := 1 + g.C.Intn(4); turns > 0; turns-- {
		msg(fuzzgen.Rec{"role": "user", "content": g.Canary("prompt")})
		for steps := 1 + g.C.Intn(3); steps > 0; steps-- {
			a := fuzzgen.Rec{"role": "assistant", "content": fuzzgen.Pick(g.C, g.Canary("reply"), ""), "finish_reason": "stop"}
			var calls []any
			var results []fuzzgen.Rec
			for n := g.C.Intn(3); n > 0; n-- {
				call := g.ID("call_")
				name, args := hermesTool(g)
				text, _ := json.Marshal(args)
				calls = append(calls, fuzzgen.Rec{"id": call, "type": "function", "function": fuzzgen.Rec{"name": name, "arguments": string(text)}})
				if !g.C.OneIn(6) { // now and then a call gets no result
					results = append(results, fuzzgen.Rec{"role": "tool", "content": g.Canary("result"), "tool_call_id": g.Earlier("call_"), "tool_name": name})
				}
			}
			if len(calls) > 0 {
				a["tool_calls"], a["finish_reason"] = calls, "tool_calls"
			} else if g.C.OneIn(6) {
				a["finish_reason"] = fuzzgen.Pick[any](g.C, "length", nil)
			}
			msg(a)
			for _, r := range results {
				msg(r)
			}
		}
		if g.C.OneIn(6) {
			msg(fuzzgen.Rec{"role": fuzzgen.Pick(g.C, "user", "assistant"), "content": g.Canary("summary"), "compressed_summary": true})
		}
	}
	g.Log.Files[g.Log.Main] = g.Encode(g.Perturb(recs))
	return g.Log
}

// hermesSession is the session row with the columns the store reads that
// its table has (an older schema lacks the cache, reasoning and cost
// columns); a child session names its parent.
func hermesSession(g *fuzzgen.Gen, id string, startMs int64) fuzzgen.Rec {
	s := fuzzgen.Rec{"id": id, "source": fuzzgen.Pick(g.C, "cli", "telegram", "discord", "slack", "cron", g.Canary("source")),
		"started_at": float64(startMs) / 1000, "cwd": g.Raw("/Users/hana/src/repo"),
		"input_tokens": g.C.Intn(90000), "output_tokens": g.C.Intn(9000), "message_count": g.C.Intn(40), "tool_call_count": g.C.Intn(20)}
	if !g.C.OneIn(4) {
		s["model"] = fuzzgen.Pick(g.C, "claude-sonnet-4-5", "anthropic/claude-opus-4", "gpt-5", g.Canary("model"))
		s["billing_provider"] = fuzzgen.Pick(g.C, "anthropic", "openrouter", "nous")
	}
	if !g.C.OneIn(3) {
		s["cache_read_tokens"], s["cache_write_tokens"], s["reasoning_tokens"] = g.C.Intn(90000), g.C.Intn(9000), g.C.Intn(3000)
		s["estimated_cost_usd"] = float64(g.C.Intn(1000)) / 100
		if g.C.OneIn(3) {
			s["actual_cost_usd"] = float64(g.C.Intn(1000)) / 100
		}
	}
	if g.C.OneIn(3) {
		s["ended_at"] = float64(startMs)/1000 + float64(g.C.Intn(9000))
		s["end_reason"] = fuzzgen.Pick(g.C, "compression", "user_exit", g.Canary("reason"))
	}
	if g.C.OneIn(4) {
		s["parent_session_id"] = fmt.Sprintf("20261119_0900%02d_f0e1d%d", g.C.Intn(60), g.C.Intn(10))
	}
	if g.C.OneIn(5) {
		g.MutateField(s, 0)
	}
	return s
}

// hermesTool is a tool call's name and arguments: Hermes's own tools
// (terminal, files, skills, memory, delegation), an MCP server's tool
// (mcp_<server>_<tool>), or a name of the user's own.
func hermesTool(g *fuzzgen.Gen) (string, fuzzgen.Rec) {
	switch g.C.Intn(7) {
	case 0:
		return "skill_view", fuzzgen.Rec{"name": g.Canary("skill")}
	case 1:
		return "memory", fuzzgen.Rec{"action": "add", "target": "memory", "content": g.Canary("memory")}
	case 2:
		return "delegate_task", fuzzgen.Rec{"goal": g.Canary("goal"), "context": g.Canary("ctx")}
	case 3:
		return "mcp_" + g.Canary("server") + "_lookup", fuzzgen.Rec{"q": g.Canary("q")}
	case 4:
		return g.Canary("tool"), fuzzgen.Rec{"x": g.Canary("arg")}
	case 5:
		return fuzzgen.Pick(g.C, "read_file", "write_file", "patch", "search_files"), fuzzgen.Rec{"path": g.Raw("/Users/hana/src/repo/main.py"), "content": g.Canary("body")}
	}
	return "terminal", fuzzgen.Rec{"command": g.Canary("cmd")}
}
