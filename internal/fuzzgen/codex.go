package fuzzgen

import "fmt"

// Codex builds a Codex CLI rollout (docs/converters.md): the
// {timestamp,type,payload} envelope (or, by choice, the pre-envelope
// header of 0.3x), session_meta (with fork and subagent parents),
// turn_context, response_item payloads (messages with instruction and
// skill blocks, reasoning, function calls and outputs joined by call_id,
// custom and MCP tool calls, tool search), event_msg payloads (token_count
// with cumulative usage or null info, user and agent messages, context
// compaction) and compacted records with replacement history.
func Codex(data []byte) *Log {
	g := newGen(NewChoices(data), "codex")
	x := &codexGen{gen: g, clock: &clock{g: g}}
	thread := g.id("")
	g.log.Main = fmt.Sprintf("sessions/2026/03/14/rollout-2026-03-14T09-12-03-%s.jsonl", thread)
	var recs []Rec
	meta := Rec{"id": thread, "timestamp": x.clock.next(), "cwd": g.canary("cwd"), "originator": "codex_cli_rs",
		"cli_version": Pick(g.c, "0.146.0", "0.58.0", "0.77.0", "0.149.1"), "source": "cli", "model_provider": "openai"}
	if g.c.OneIn(2) {
		meta["base_instructions"] = Rec{"text": g.canary("instructions")}
	}
	if g.c.OneIn(3) {
		meta["forked_from_id"] = g.id("")
	}
	if g.c.OneIn(3) {
		meta["source"] = Rec{"subagent": Rec{"thread_spawn": Rec{"parent_thread_id": g.id(""), "depth": 1}}}
		meta["agent_nickname"] = g.canary("nick")
	}
	if g.c.OneIn(3) {
		meta["git"] = Rec{"commit_hash": g.canary("commit"), "branch": g.canary("branch"), "repository_url": g.canary("repo")}
	}
	preEnvelope := g.c.OneIn(8)
	if preEnvelope { // the 0.3x header: {id, timestamp, instructions, cwd?, git?}
		header := Rec{"id": thread, "timestamp": meta["timestamp"], "instructions": g.canary("agentsmd")}
		for _, k := range []string{"cwd", "git"} {
			if v, ok := meta[k]; ok && g.c.OneIn(2) {
				header[k] = v
			}
		}
		recs = append(recs, header)
	} else {
		recs = append(recs, x.rec("session_meta", meta))
	}
	for i, n := 0, 1+g.c.Intn(16); i < n; i++ {
		recs = append(recs, x.item()...)
	}
	if preEnvelope {
		for i := 1; i < len(recs); i++ { // 0.3x: payloads are the records
			if p, ok := recs[i]["payload"].(Rec); ok {
				recs[i] = p
			}
		}
	}
	g.log.Files[g.log.Main] = g.encode(g.perturb(recs))
	return g.log
}

type codexGen struct {
	*gen
	clock *clock
	total int
}

func (x *codexGen) rec(typ string, payload Rec) Rec {
	return Rec{"timestamp": x.clock.next(), "type": typ, "payload": payload}
}

func (x *codexGen) message(role string, text string) Rec {
	kind := "input_text"
	if role == "assistant" {
		kind = "output_text"
	}
	return Rec{"type": "message", "role": role, "content": []any{Rec{"type": kind, "text": text}}}
}

func (x *codexGen) item() []Rec {
	g := x.gen
	switch g.c.Intn(14) {
	case 0:
		tc := Rec{"turn_id": g.id("turn-"), "cwd": g.canary("cwd"), "approval_policy": "on-request", "model": Pick(g.c, "gpt-5.3-codex", "o3", g.canary("model")),
			"sandbox_policy": Rec{"type": "workspace-write", "network_access": false}}
		if g.c.OneIn(2) {
			tc["user_instructions"] = g.canary("agentsmd")
		}
		return []Rec{x.rec("turn_context", tc)}
	case 1:
		text := Pick(g.c, "# AGENTS.md instructions for "+g.canary("dir")+"\n\n<INSTRUCTIONS>\n"+g.canary("rules")+"\n</INSTRUCTIONS>",
			"<user_instructions>\n\n"+g.canary("rules")+"\n</user_instructions>",
			"<environment_context>\n  <cwd>"+g.canary("cwd")+"</cwd>\n</environment_context>",
			"<skill>\n<name>"+g.canary("skill")+"</name>\n<path>"+g.raw("/Users/dana/.codex/skills/a/SKILL.md")+"</path>\n"+g.canary("body")+"\n</skill>")
		return []Rec{x.rec("response_item", x.message(Pick(g.c, "user", "developer"), text))}
	case 2:
		return []Rec{x.rec("response_item", x.message("user", g.canary("prompt"))), x.rec("event_msg", Rec{"type": "user_message", "message": g.canary("prompt"), "images": []any{}})}
	case 3:
		return []Rec{x.rec("response_item", x.message("assistant", g.canary("answer"))), x.rec("event_msg", Rec{"type": "agent_message", "message": g.canary("answer")})}
	case 4:
		return []Rec{x.rec("response_item", Rec{"type": "reasoning", "summary": []any{Rec{"type": "summary_text", "text": g.canary("reasoning")}}, "content": nil, "encrypted_content": "gAAAA" + g.canary("enc")})}
	case 5, 6: // a function call and, mostly, its output
		call := g.id("call_")
		name := Pick(g.c, "shell", "exec_command", "apply_patch", "mcp__github__create_issue", g.canary("fn"))
		fc := Rec{"type": "function_call", "name": name, "arguments": "{\"command\":[\"bash\",\"-lc\",\"" + g.canary("cmd") + "\"]}", "call_id": call}
		if g.c.OneIn(3) {
			fc["namespace"] = Pick(g.c, "mcp__github", g.canary("ns"))
			fc["name"] = "create_issue"
		}
		if g.c.OneIn(8) {
			fc["arguments"] = nil
		}
		recs := []Rec{x.rec("response_item", fc)}
		if !g.c.OneIn(5) {
			var out any = "{\"output\":\"" + g.canary("out") + "\",\"metadata\":{\"exit_code\":0,\"duration_seconds\":0.5}}"
			if g.c.OneIn(3) {
				out = []any{Rec{"type": "input_text", "text": g.canary("out")}}
			}
			recs = append(recs, x.rec("response_item", Rec{"type": "function_call_output", "call_id": g.earlier("call_"), "output": out}))
		}
		return recs
	case 7:
		call := g.id("call_")
		return []Rec{x.rec("response_item", Rec{"type": "custom_tool_call", "name": "apply_patch", "input": g.canary("patch"), "status": "completed", "call_id": call}),
			x.rec("response_item", Rec{"type": "custom_tool_call_output", "call_id": call, "output": g.canary("patchout")})}
	case 8:
		return []Rec{x.rec("response_item", Rec{"type": Pick(g.c, "tool_search_call", "tool_search_output"), "call_id": g.earlier("call_"), "execution": "local",
			"arguments": Rec{"query": g.canary("query")}, "tools": []any{Rec{"name": g.canary("tool"), "defer_loading": true}}})}
	case 9, 10:
		x.total += g.c.Intn(20000)
		var info any = Rec{"total_token_usage": Rec{"input_tokens": x.total, "cached_input_tokens": x.total / 2, "output_tokens": x.total / 10, "reasoning_output_tokens": 0, "total_tokens": x.total + x.total/10},
			"last_token_usage": Rec{"input_tokens": 100, "output_tokens": 10}, "model_context_window": 258400}
		if g.c.OneIn(4) {
			info = nil
		}
		return []Rec{x.rec("event_msg", Rec{"type": "token_count", "info": info, "rate_limits": Rec{"primary": Rec{"used_percent": 52.0, "window_minutes": 300}}})}
	case 11:
		return []Rec{x.rec("compacted", Rec{"message": g.canary("compactsummary"), "replacement_history": []any{x.message("user", g.canary("kept"))}}),
			x.rec("event_msg", Rec{"type": "context_compacted"})}
	case 12:
		return []Rec{x.rec("event_msg", Rec{"type": "mcp_tool_call_end", "call_id": g.earlier("call_"), "invocation": Rec{"server": "github", "tool": "create_issue", "arguments": Rec{"title": g.canary("title")}},
			"result": Rec{"Ok": Rec{"content": []any{Rec{"type": "text", "text": g.canary("mcpout")}}, "isError": false}}})}
	}
	return []Rec{x.rec(Pick(g.c, "world_state", "inter_agent_communication_metadata", g.canary("type")), Rec{"full": true, "state": Rec{"agents_md": Rec{"directory": g.canary("dir"), "text": g.canary("agentsmd")}}})}
}
