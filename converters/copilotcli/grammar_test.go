package copilotcli_test

import (
	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// grammar builds a GitHub Copilot CLI events.jsonl (reader.go): the
// {type, data, id, timestamp, parentId} envelope, session.start with its
// context, system and user messages, turns of assistant messages whose
// toolRequests start tool executions (built-in, MCP, the task tool with a
// subagent's records under its agentId) that complete with a result or an
// error, reasoning, skill.invoked, compaction, usage checkpoints, resumes,
// assistant.usage records and session.shutdown with its modelMetrics.
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "copilot_cli")
	c := &copilotGen{g: g, k: fuzzgen.NewClock(g)}
	session := g.ID("")
	g.Log.Main = "session-state/" + session + "/events.jsonl"
	c.event("session.start", fuzzgen.Rec{"sessionId": session, "version": 1, "producer": "copilot-agent",
		"copilotVersion": fuzzgen.Pick(g.C, "1.0.68", "0.0.354", "1.0.90"), "startTime": c.k.Next(),
		"selectedModel": fuzzgen.Pick(g.C, "claude-sonnet-4.5", "gpt-5-mini", g.Canary("model")),
		"context":       fuzzgen.Rec{"cwd": g.Raw("/Users/alice/src/app"), "branch": g.Canary("branch")}})
	if g.C.OneIn(2) {
		c.event("system.message", fuzzgen.Rec{"content": g.Canary("system"), "role": "system"})
	}
	for turns := 1 + g.C.Intn(3); turns > 0; turns-- {
		c.event("user.message", fuzzgen.Rec{"content": g.Canary("prompt"), "source": "user"})
		c.turn("")
		switch g.C.Intn(8) {
		case 0:
			c.event("skill.invoked", fuzzgen.Rec{"name": g.Canary("skill"), "path": g.Raw("/Users/alice/.copilot/skills/x/SKILL.md"), "content": g.Canary("skillbody")})
		case 1:
			c.event("session.compaction_start", fuzzgen.Rec{"conversationTokens": g.C.Intn(200000)})
			c.event("session.compaction_complete", fuzzgen.Rec{"success": true, "preCompactionTokens": g.C.Intn(200000),
				"postCompactionTokens": g.C.Intn(20000), "summaryContent": g.Canary("summary")})
		case 2:
			c.event("session.usage_checkpoint", fuzzgen.Rec{"totalPremiumRequests": g.C.Intn(9), "totalNanoAiu": g.C.Intn(9000000)})
		case 3:
			c.shutdown()
			c.event("session.resume", fuzzgen.Rec{"resumeTime": c.k.Next(), "eventCount": len(c.recs)})
		}
	}
	if !g.C.OneIn(4) {
		c.shutdown()
	}
	g.Log.Files[g.Log.Main] = g.Encode(g.Perturb(c.recs))
	return g.Log
}

type copilotGen struct {
	g      *fuzzgen.Gen
	k      *fuzzgen.Clock
	recs   []fuzzgen.Rec
	parent any
}

// event appends an event of the main agent.
func (c *copilotGen) event(typ string, data fuzzgen.Rec) fuzzgen.Rec {
	id := c.g.ID("")
	r := fuzzgen.Rec{"type": typ, "data": data, "id": id, "timestamp": c.k.Next(), "parentId": c.parent}
	c.parent = id
	c.recs = append(c.recs, r)
	return r
}

// turn is one assistant turn of an agent ("" the main one, or a
// subagent's id): reasoning, a message with tool requests, their
// executions and their results.
func (c *copilotGen) turn(agent string) {
	g := c.g
	tag := func(r fuzzgen.Rec) {
		if agent != "" {
			r["agentId"] = agent
		}
	}
	tag(c.event("assistant.turn_start", fuzzgen.Rec{"turnId": g.ID("")}))
	if g.C.OneIn(3) {
		tag(c.event("assistant.reasoning", fuzzgen.Rec{"reasoningId": g.ID("rs_"), "content": g.Canary("reasoning")}))
	}
	var requests []any
	type call struct {
		id, name string
		args     fuzzgen.Rec
		mcp      bool
	}
	var calls []call
	for n := g.C.Intn(3); n > 0; n-- {
		cl := call{id: g.ID("toolu_")}
		switch g.C.Intn(5) {
		case 0:
			cl.name, cl.args = "task", fuzzgen.Rec{"agent_type": fuzzgen.Pick(g.C, "explore", g.Canary("agent")), "prompt": g.Canary("task"), "description": g.Canary("desc")}
		case 1:
			cl.name, cl.args, cl.mcp = "gh-list_issues", fuzzgen.Rec{"repo": g.Canary("repo")}, true
		case 2:
			cl.name, cl.args = g.Canary("tool"), fuzzgen.Rec{"x": g.Canary("arg")}
		default:
			cl.name, cl.args = fuzzgen.Pick(g.C, "view", "bash", "grep", "edit"), fuzzgen.Rec{"path": g.Raw("/Users/alice/src/app/main.go")}
		}
		calls = append(calls, cl)
		requests = append(requests, fuzzgen.Rec{"toolCallId": cl.id, "name": cl.name, "arguments": cl.args, "type": "function"})
	}
	tag(c.event("assistant.message", fuzzgen.Rec{"messageId": g.ID("msg_"), "content": g.Canary("answer"), "toolRequests": requests, "outputTokens": g.C.Intn(900)}))
	if g.C.OneIn(4) {
		tag(c.event("assistant.usage", fuzzgen.Rec{"model": "claude-sonnet-4.5", "inputTokens": g.C.Intn(90000), "outputTokens": g.C.Intn(900),
			"cacheReadTokens": g.C.Intn(50000), "cacheWriteTokens": g.C.Intn(5000)}))
	}
	for _, cl := range calls {
		start := fuzzgen.Rec{"toolCallId": cl.id, "toolName": cl.name, "arguments": cl.args}
		if cl.mcp {
			start["mcpServerName"], start["mcpToolName"] = "gh", "list_issues"
		}
		tag(c.event("tool.execution_start", start))
		if cl.name == "task" && agent == "" {
			sub := "agent-" + g.ID("")[:8]
			c.event("subagent.started", fuzzgen.Rec{"toolCallId": cl.id, "agentName": "explore", "agentDisplayName": g.Canary("display")})
			c.turn(sub)
			c.event("subagent.completed", fuzzgen.Rec{"toolCallId": cl.id, "agentName": "explore"})
		}
		done := fuzzgen.Rec{"toolCallId": cl.id, "success": true, "result": fuzzgen.Rec{"content": g.Canary("result")}}
		if g.C.OneIn(4) {
			done = fuzzgen.Rec{"toolCallId": g.Earlier("toolu_"), "success": false, "error": fuzzgen.Rec{"message": g.Canary("error"), "code": "failure"}}
		}
		tag(c.event("tool.execution_complete", done))
	}
	tag(c.event("assistant.turn_end", fuzzgen.Rec{"turnId": g.ID("")}))
}

// shutdown is a session.shutdown with the session's model metrics.
func (c *copilotGen) shutdown() {
	g := c.g
	metrics := fuzzgen.Rec{}
	for n := 1 + g.C.Intn(2); n > 0; n-- {
		metrics[fuzzgen.Pick(g.C, "claude-sonnet-4.5", "gpt-5-mini", g.Canary("model"))] = fuzzgen.Rec{
			"requests": fuzzgen.Rec{"count": g.C.Intn(9), "cost": g.C.Intn(9)},
			"usage": fuzzgen.Rec{"inputTokens": g.C.Intn(200000), "outputTokens": g.C.Intn(9000), "cacheReadTokens": g.C.Intn(90000),
				"cacheWriteTokens": g.C.Intn(9000), "reasoningTokens": g.C.Intn(900)}}
	}
	c.event("session.shutdown", fuzzgen.Rec{"shutdownType": fuzzgen.Pick(g.C, "routine", "error"), "totalPremiumRequests": g.C.Intn(9),
		"codeChanges": fuzzgen.Rec{"linesAdded": g.C.Intn(90), "filesModified": []any{g.Raw("/Users/alice/src/app/main.go")}}, "modelMetrics": metrics})
}
