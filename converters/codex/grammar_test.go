package codex_test

import (
	"fmt"

	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// grammar builds a Codex CLI rollout (docs/converters.md): the
// {timestamp,type,payload} envelope (or, by choice, the pre-envelope
// header of 0.3x), session_meta (with fork and subagent parents),
// turn_context, response_item payloads (messages with instruction and
// skill blocks, reasoning, function calls and outputs joined by call_id,
// custom and MCP tool calls, tool search), event_msg payloads (token_count
// with cumulative usage or null info, user and agent messages, context
// compaction) and compacted records with replacement history.
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "codex")
	x := &codexGen{Gen: g, clock: fuzzgen.NewClock(g)}
	thread := g.ID("")
	g.Log.Main = fmt.Sprintf("sessions/2026/03/14/rollout-2026-03-14T09-12-03-%s.jsonl", thread)
	var recs []fuzzgen.Rec
	meta := fuzzgen.Rec{"id": thread, "timestamp": x.clock.Next(), "cwd": g.Canary("cwd"), "originator": "codex_cli_rs",
		"cli_version": fuzzgen.Pick(g.C, "0.146.0", "0.58.0", "0.77.0", "0.149.1"), "source": "cli", "model_provider": "openai"}
	if g.C.OneIn(2) {
		meta["base_instructions"] = fuzzgen.Rec{"text": g.Canary("instructions")}
	}
	if g.C.OneIn(3) {
		meta["forked_from_id"] = g.ID("")
	}
	if g.C.OneIn(3) {
		meta["source"] = fuzzgen.Rec{"subagent": fuzzgen.Rec{"thread_spawn": fuzzgen.Rec{"parent_thread_id": g.ID(""), "depth": 1}}}
		meta["agent_nickname"] = g.Canary("nick")
	}
	if g.C.OneIn(3) {
		meta["git"] = fuzzgen.Rec{"commit_hash": g.Canary("commit"), "branch": g.Canary("branch"), "repository_url": g.Canary("repo")}
	}
	preEnvelope := g.C.OneIn(8)
	if preEnvelope { // the 0.3x header: {id, timestamp, instructions, cwd?, git?}
		header := fuzzgen.Rec{"id": thread, "timestamp": meta["timestamp"], "instructions": g.Canary("agentsmd")}
		for _, k := range []string{"cwd", "git"} {
			if v, ok := meta[k]; ok && g.C.OneIn(2) {
				header[k] = v
			}
		}
		recs = append(recs, header)
	} else {
		recs = append(recs, x.rec("session_meta", meta))
	}
	for i, n := 0, 1+g.C.Intn(16); i < n; i++ {
		recs = append(recs, x.item()...)
	}
	if preEnvelope {
		for i := 1; i < len(recs); i++ { // 0.3x: payloads are the records
			if p, ok := recs[i]["payload"].(fuzzgen.Rec); ok {
				recs[i] = p
			}
		}
	}
	g.Log.Files[g.Log.Main] = g.Encode(g.Perturb(recs))
	return g.Log
}

type codexGen struct {
	*fuzzgen.Gen
	clock *fuzzgen.Clock
	total int
}

func (x *codexGen) rec(typ string, payload fuzzgen.Rec) fuzzgen.Rec {
	return fuzzgen.Rec{"timestamp": x.clock.Next(), "type": typ, "payload": payload}
}

func (x *codexGen) message(role string, text string) fuzzgen.Rec {
	kind := "input_text"
	if role == "assistant" {
		kind = "output_text"
	}
	return fuzzgen.Rec{"type": "message", "role": role, "content": []any{fuzzgen.Rec{"type": kind, "text": text}}}
}

func (x *codexGen) item() []fuzzgen.Rec {
	g := x.Gen
	switch g.C.Intn(14) {
	case 0:
		tc := fuzzgen.Rec{"turn_id": g.ID("turn-"), "cwd": g.Canary("cwd"), "approval_policy": "on-request", "model": fuzzgen.Pick(g.C, "gpt-5.3-codex", "o3", g.Canary("model")),
			"sandbox_policy": fuzzgen.Rec{"type": "workspace-write", "network_access": false}}
		if g.C.OneIn(2) {
			tc["user_instructions"] = g.Canary("agentsmd")
		}
		return []fuzzgen.Rec{x.rec("turn_context", tc)}
	case 1:
		text := fuzzgen.Pick(g.C, "# AGENTS.md instructions for "+g.Canary("dir")+"\n\n<INSTRUCTIONS>\n"+g.Canary("rules")+"\n</INSTRUCTIONS>",
			"<user_instructions>\n\n"+g.Canary("rules")+"\n</user_instructions>",
			"<environment_context>\n  <cwd>"+g.Canary("cwd")+"</cwd>\n</environment_context>",
			"<skill>\n<name>"+g.Canary("skill")+"</name>\n<path>"+g.Raw("/Users/dana/.codex/skills/a/SKILL.md")+"</path>\n"+g.Canary("body")+"\n</skill>")
		return []fuzzgen.Rec{x.rec("response_item", x.message(fuzzgen.Pick(g.C, "user", "developer"), text))}
	case 2:
		return []fuzzgen.Rec{x.rec("response_item", x.message("user", g.Canary("prompt"))), x.rec("event_msg", fuzzgen.Rec{"type": "user_message", "message": g.Canary("prompt"), "images": []any{}})}
	case 3:
		return []fuzzgen.Rec{x.rec("response_item", x.message("assistant", g.Canary("answer"))), x.rec("event_msg", fuzzgen.Rec{"type": "agent_message", "message": g.Canary("answer")})}
	case 4:
		return []fuzzgen.Rec{x.rec("response_item", fuzzgen.Rec{"type": "reasoning", "summary": []any{fuzzgen.Rec{"type": "summary_text", "text": g.Canary("reasoning")}}, "content": nil, "encrypted_content": "gAAAA" + g.Canary("enc")})}
	case 5, 6: // a function call and, mostly, its output
		call := g.ID("call_")
		name := fuzzgen.Pick(g.C, "shell", "exec_command", "apply_patch", "mcp__github__create_issue", g.Canary("fn"))
		fc := fuzzgen.Rec{"type": "function_call", "name": name, "arguments": "{\"command\":[\"bash\",\"-lc\",\"" + g.Canary("cmd") + "\"]}", "call_id": call}
		if g.C.OneIn(3) {
			fc["namespace"] = fuzzgen.Pick(g.C, "mcp__github", g.Canary("ns"))
			fc["name"] = "create_issue"
		}
		if g.C.OneIn(8) {
			fc["arguments"] = nil
		}
		recs := []fuzzgen.Rec{x.rec("response_item", fc)}
		if !g.C.OneIn(5) {
			var out any = "{\"output\":\"" + g.Canary("out") + "\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.5}}"
			if g.C.OneIn(3) {
				out = []any{fuzzgen.Rec{"type": "input_text", "text": g.Canary("out")}}
			}
			recs = append(recs, x.rec("response_item", fuzzgen.Rec{"type": "function_call_output", "call_id": g.Earlier("call_"), "output": out}))
		}
		return recs
	case 7:
		call := g.ID("call_")
		return []fuzzgen.Rec{x.rec("response_item", fuzzgen.Rec{"type": "custom_tool_call", "name": "apply_patch", "input": g.Canary("patch"), "status": "completed", "call_id": call}),
			x.rec("response_item", fuzzgen.Rec{"type": "custom_tool_call_output", "call_id": call, "output": g.Canary("patchout")})}
	case 8:
		return []fuzzgen.Rec{x.rec("response_item", fuzzgen.Rec{"type": fuzzgen.Pick(g.C, "tool_search_call", "tool_search_output"), "call_id": g.Earlier("call_"), "execution": "local",
			"arguments": fuzzgen.Rec{"query": g.Canary("query")}, "tools": []any{fuzzgen.Rec{"name": g.Canary("tool"), "defer_loading": true}}})}
	case 9, 10:
		x.total += g.C.Intn(20000)
		var info any = fuzzgen.Rec{"total_token_usage": fuzzgen.Rec{"input_tokens": x.total, "cached_input_tokens": x.total / 2, "output_tokens": x.total / 10, "reasoning_output_tokens": 0, "total_tokens": x.total + x.total/10},
			"last_token_usage": fuzzgen.Rec{"input_tokens": 100, "output_tokens": 10}, "model_context_window": 258400}
		if g.C.OneIn(4) {
			info = nil
		}
		return []fuzzgen.Rec{x.rec("event_msg", fuzzgen.Rec{"type": "token_count", "info": info, "rate_limits": fuzzgen.Rec{"primary": fuzzgen.Rec{"used_percent": 52.0, "window_minutes": 300}}})}
	case 11:
		return []fuzzgen.Rec{x.rec("compacted", fuzzgen.Rec{"message": g.Canary("compactsummary"), "replacement_history": []any{x.message("user", g.Canary("kept"))}}),
			x.rec("event_msg", fuzzgen.Rec{"type": "context_compacted"})}
	case 12:
		return []fuzzgen.Rec{x.rec("event_msg", fuzzgen.Rec{"type": "mcp_tool_call_end", "call_id": g.Earlier("call_"), "invocation": fuzzgen.Rec{"server": "github", "tool": "create_issue", "arguments": fuzzgen.Rec{"title": g.Canary("title")}},
			"result": fuzzgen.Rec{"Ok": fuzzgen.Rec{"content": []any{fuzzgen.Rec{"type": "text", "text": g.Canary("mcpout")}}, "isError": false}}})}
	}
	return []fuzzgen.Rec{x.rec(fuzzgen.Pick(g.C, "world_state", "inter_agent_communication_metadata", g.Canary("type")), fuzzgen.Rec{"full": true, "state": fuzzgen.Rec{"agents_md": fuzzgen.Rec{"directory": g.Canary("dir"), "text": g.Canary("agentsmd")}}})}
}
