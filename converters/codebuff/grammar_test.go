package codebuff_test

import (
	"encoding/json"
	"fmt"

	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// grammar builds a Codebuff chat (reader.go, records.go): its folder
// projects/<project>/chats/<chat id>/, whose chat-messages.json is one JSON
// array of the CLI's chat messages, typed by variant: user prompts (with
// attachments), ai and agent replies whose blocks hold text (reasoning
// among them), tool calls (Codebuff's own tools, spawn_agents, skill, a
// custom or MCP tool; output, or an outputRaw error), agent blocks (a
// subagent under its spawn_agents call, its own blocks nested below),
// questions, plans, mode dividers, images, and whose usage is in
// metadata (model, usage and codebuff.usage under every name ccusage
// reads, a saved run state with knowledge files and the main agent's
// provider usage) or credits; error messages; and messages naming a role
// instead of a variant. By choice the chat has run-state.json beside it
// (a companion), holding knowledge files. The messages are perturbed as
// records, then written as the array Codebuff saves (compact or
// pretty-printed, now and then torn) or, the plainest choice, one a line.
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "codebuff")
	k := fuzzgen.NewClock(g)
	dir := "projects/b7e2c41d9a0f/chats/2026-03-14T09-00-00.000Z" // the folders are names the reader never reads: no canary
	g.Log.Main = dir + "/chat-messages.json"
	var msgs []fuzzgen.Rec
	at := func() any {
		if g.C.OneIn(8) {
			return k.EpochMs() // ccusage reads Unix times too
		}
		return k.Next()
	}
	for turns := 1 + g.C.Intn(3); turns > 0; turns-- {
		u := fuzzgen.Rec{"id": g.ID("user-"), "variant": "user", "content": g.Canary("prompt"), "timestamp": at()}
		if g.C.OneIn(4) {
			u[fuzzgen.Pick(g.C, "attachments", "fileAttachments", "textAttachments")] = []any{fuzzgen.Rec{"path": g.Canary("attachment"), "content": g.Canary("attached")}}
		}
		msgs = append(msgs, u)
		for replies := 1 + g.C.Intn(2); replies > 0; replies-- {
			msgs = append(msgs, reply(g, at))
		}
		switch g.C.Intn(8) { // mostly (and when the choices run out) neither
		case 6:
			msgs = append(msgs, fuzzgen.Rec{"id": g.ID("error-"), "variant": "error", "content": g.Canary("error"), "timestamp": at()})
		case 7: // a message naming its role, Codebuff's by its credits or usage
			r := fuzzgen.Rec{"role": fuzzgen.Pick(g.C, "assistant", "user", "ai"), "content": g.Canary("rolemsg"), "timestamp": at(), "credits": 0.4}
			if g.C.OneIn(2) {
				delete(r, "credits")
				r["metadata"] = fuzzgen.Rec{"codebuff": fuzzgen.Rec{"usage": usageObject(g)}}
			}
			msgs = append(msgs, r)
		}
	}
	g.Log.Files[g.Log.Main] = writeChat(g, g.Perturb(msgs))
	if !g.C.OneIn(3) {
		rs := runState(g)
		if g.C.OneIn(5) {
			g.MutateField(rs, 0)
		}
		p := dir + "/run-state.json"
		g.Log.Companions = append(g.Log.Companions, fuzzgen.Companion{Path: p, Rel: "run-state.json"})
		g.Log.Files[p], _ = json.MarshalIndent(rs, "", "  ")
	}
	return g.Log
}

// reply is an ai or agent message: its content, blocks and usage.
func reply(g *fuzzgen.Gen, at func() any) fuzzgen.Rec {
	r := fuzzgen.Rec{"id": g.ID("ai-"), "variant": fuzzgen.Pick(g.C, "ai", "ai", "agent"), "content": g.Canary("reply"), "timestamp": at(),
		"isComplete": !g.C.OneIn(6)}
	if r["variant"] == "agent" {
		r["agent"] = fuzzgen.Rec{"agentName": g.Canary("agentname"), "agentType": fuzzgen.Pick(g.C, "base", g.Canary("agenttype")), "responseCount": 2}
	}
	r["blocks"] = blocks(g, 0)
	md := fuzzgen.Rec{}
	switch g.C.Intn(5) {
	case 0:
		md["usage"] = usageObject(g)
	case 1:
		md["codebuff"] = fuzzgen.Rec{"usage": usageObject(g)}
	case 2:
		md["runState"] = fuzzgen.Rec{"sessionState": sessionState(g)}
	case 3:
		r["credits"] = fuzzgen.Pick(g.C, 0.2, 1.5, 0)
	}
	if g.C.OneIn(2) {
		md["model"] = model(g)
	}
	if len(md) > 0 {
		r["metadata"] = md
	}
	return r
}

// blocks are a message's content blocks, an agent block's own nested
// below it (depth bounded, as the reader bounds it).
func blocks(g *fuzzgen.Gen, depth int) []any {
	var out []any
	var spawn any // the last spawn_agents call: its subagents sit under it
	for n := g.C.Intn(4); n > 0; n-- {
		switch g.C.Intn(9) {
		case 0, 1, 2:
			id := g.ID("tool_")
			name, input := codebuffTool(g)
			if name == "spawn_agents" {
				spawn = id
			}
			b := fuzzgen.Rec{"type": "tool", "toolCallId": id, "toolName": name, "input": input}
			switch g.C.Intn(4) {
			case 2: // still running: no output
			case 3:
				b["output"] = g.Canary("output")
				b["outputRaw"] = []any{fuzzgen.Rec{"type": "json", "value": fuzzgen.Rec{"errorMessage": g.Canary("toolerror")}}}
			default:
				b["output"] = g.Canary("output")
			}
			out = append(out, b)
		case 3:
			if depth >= 3 {
				continue
			}
			b := fuzzgen.Rec{"type": "agent", "agentId": g.ID("agent_"), "agentName": g.Canary("agentname"),
				"agentType": fuzzgen.Pick(g.C, "file-picker", "reviewer", g.Canary("agenttype")), "content": g.Canary("agentresult"),
				"status": fuzzgen.Pick(g.C, "complete", "running", "failed", "cancelled", g.Canary("status")), "initialPrompt": g.Canary("agentprompt"),
				"blocks": blocks(g, depth+1)}
			if spawn != nil || g.C.OneIn(4) {
				b["spawnToolCallId"] = fuzzgen.Pick(g.C, spawn, any(g.Earlier("tool_")))
				b["spawnIndex"] = g.C.Intn(3)
			}
			out = append(out, b)
		case 4:
			out = append(out, fuzzgen.Rec{"type": "text", "content": g.Canary("text"), "textType": fuzzgen.Pick(g.C, "reasoning", "text", g.Canary("texttype"))})
		case 5:
			out = append(out, fuzzgen.Rec{"type": "ask-user", "question": g.Canary("question"), "skipped": g.C.OneIn(2)})
		case 6:
			out = append(out, fuzzgen.Rec{"type": fuzzgen.Pick(g.C, "mode-divider", "plan", "image", "gate-state", "agent-list", g.Canary("block")), "mode": g.Canary("mode")})
		default:
			out = append(out, fuzzgen.Rec{"type": "text", "content": g.Canary("text")})
		}
	}
	return out
}

// codebuffTool is a tool block's name and input: Codebuff's own tools,
// spawn_agents, skill (input.name or input.skill), an MCP server's or a
// custom tool.
func codebuffTool(g *fuzzgen.Gen) (string, fuzzgen.Rec) {
	switch g.C.Intn(6) {
	case 0:
		return "spawn_agents", fuzzgen.Rec{"agents": []any{fuzzgen.Rec{"agent_type": fuzzgen.Pick(g.C, "file-picker", g.Canary("agenttype")), "prompt": g.Canary("spawn")}}}
	case 1:
		return "skill", fuzzgen.Rec{fuzzgen.Pick(g.C, "name", "skill"): fuzzgen.Pick(g.C, "frontend-design", g.Canary("skill"))}
	case 2:
		return fuzzgen.Pick(g.C, "mcp__github__create_issue", g.Canary("tool")), fuzzgen.Rec{"x": g.Canary("arg")}
	}
	return fuzzgen.Pick(g.C, "read_files", "run_terminal_command", "str_replace", "write_file", "code_search", "find_files"),
		fuzzgen.Rec{"paths": []any{g.Raw("alice/src/app/main.go")}, "command": g.Canary("command")}
}

// usageObject is a usage under one of the names ccusage reads for each
// count, a fraction now and then (passed over).
func usageObject(g *fuzzgen.Gen) fuzzgen.Rec {
	u := fuzzgen.Rec{}
	count := func() any {
		if g.C.OneIn(8) {
			return 10.9
		}
		return g.C.Intn(9000)
	}
	u[fuzzgen.Pick(g.C, "inputTokens", "input_tokens", "promptTokens", "prompt_tokens")] = count()
	u[fuzzgen.Pick(g.C, "outputTokens", "output_tokens", "completionTokens", "completion_tokens")] = count()
	switch g.C.Intn(4) {
	case 0:
		u[fuzzgen.Pick(g.C, "cacheReadInputTokens", "cache_read_input_tokens")] = count()
	case 1:
		u["prompt_tokens_details"] = fuzzgen.Rec{"cached_tokens": count()}
	case 2:
		u["promptTokensDetails"] = fuzzgen.Rec{"cachedTokens": count()}
	}
	if g.C.OneIn(2) {
		u[fuzzgen.Pick(g.C, "cacheCreationInputTokens", "cache_creation_input_tokens", "cacheCreationTokens", "cache_creation_tokens",
			"cachedTokensCreated", "cached_tokens_created")] = count()
	}
	if g.C.OneIn(3) {
		u["model"] = model(g)
	}
	if g.C.OneIn(4) {
		u["credits"] = 0.3
	}
	return u
}

func model(g *fuzzgen.Gen) string {
	return fuzzgen.Pick(g.C, "openai/gpt-5", "anthropic/claude-sonnet-4.5", "claude-sonnet-4-20250514", g.Canary("model"))
}

// sessionState is the SDK's saved session: knowledge files (path to
// body) and the main agent's message history, its assistant messages
// carrying provider usage.
func sessionState(g *fuzzgen.Gen) fuzzgen.Rec {
	files := func() fuzzgen.Rec {
		out := fuzzgen.Rec{}
		for n := g.C.Intn(3); n > 0; n-- {
			out[g.Raw(fmt.Sprintf("alice/src/app/%s", fuzzgen.Pick(g.C, "knowledge.md", "AGENTS.md", "CLAUDE.md", "docs/knowledge.md")))] = g.Canary("knowledge")
		}
		return out
	}
	po := fuzzgen.Rec{"codebuff": fuzzgen.Rec{"model": model(g), "usage": usageObject(g)}}
	if g.C.OneIn(3) {
		po = fuzzgen.Rec{"usage": usageObject(g)}
	}
	return fuzzgen.Rec{
		"fileContext": fuzzgen.Rec{"projectRoot": g.Raw("alice/src/app"), "cwd": g.Raw("alice/src/app"),
			"knowledgeFiles": files(), "userKnowledgeFiles": files(), "fileTree": []any{fuzzgen.Rec{"name": g.Canary("file"), "type": "file"}}},
		"mainAgentState": fuzzgen.Rec{"agentId": g.Canary("agentid"), "agentType": "base", "messageHistory": []any{
			fuzzgen.Rec{"role": "user", "content": g.Canary("history")},
			fuzzgen.Rec{"role": "assistant", "content": g.Canary("history"), "providerOptions": po}}},
	}
}

// runState is the chat's run-state.json: {sessionState, output}.
func runState(g *fuzzgen.Gen) fuzzgen.Rec {
	return fuzzgen.Rec{"sessionState": sessionState(g), "output": fuzzgen.Rec{"type": "lastMessage", "value": g.Canary("output")}}
}

// writeChat writes the messages: one a line (the plainest choice, with the
// line damage Encode makes), or the JSON array Codebuff saves, compact or
// pretty-printed, now and then torn.
func writeChat(g *fuzzgen.Gen, msgs []fuzzgen.Rec) []byte {
	if g.C.Intn(4) == 0 {
		return g.Encode(msgs)
	}
	arr := make([]any, len(msgs))
	for i, m := range msgs {
		arr[i] = m
	}
	var b []byte
	if g.C.OneIn(2) {
		b, _ = json.Marshal(arr)
	} else {
		b, _ = json.MarshalIndent(arr, "", "  ")
	}
	if len(b) > 2 && g.C.OneIn(12) {
		b = b[:len(b)-1-g.C.Intn(min(16, len(b)-1))]
	}
	return b
}
