package fuzzgen

import "fmt"

// ClaudeCode builds a Claude Code session (docs/converters.md): a
// main transcript of user, assistant (one content block per line,
// streaming rows repeating a message id and its usage), system
// (compaction boundaries, hook summaries), attachment, summary and other
// metadata records on a parentUuid chain, and, by choice, subagents as
// inline sidechains, 2.0 sibling agent-*.jsonl files or 2.1
// <session>/subagents/ files with .meta.json sidecars.
func ClaudeCode(data []byte) *Log {
	g := newGen(NewChoices(data), "claude_code")
	c := &claudeGen{gen: g, clock: &clock{g: g}, version: Pick(g.c, "2.1.114", "1.0.17", "2.0.37", "2.1.17", "2.1.221")}
	c.session = g.id("")
	dir := "projects/-Users-alice-src-" + fmt.Sprint(1+g.c.Intn(3))
	g.log.Main = dir + "/" + c.session + ".jsonl"
	main := c.transcript("", 1+g.c.Intn(14))
	g.log.Files[g.log.Main] = g.encode(g.perturb(main))
	for i := 0; i < len(c.spawned) && i < 3; i++ {
		agent := c.spawned[i]
		recs := g.perturb(c.transcript(agent, 1+g.c.Intn(5)))
		var rel string
		switch g.c.Intn(3) {
		case 0: // 2.0.x: a sibling of the session file
			rel = "agent-" + agent + ".jsonl"
		default: // 2.1.x: <session>/subagents/
			rel = c.session + "/subagents/agent-" + agent + ".jsonl"
		}
		comp := Companion{Path: dir + "/" + rel, Rel: rel}
		if g.c.Intn(3) > 0 && rel != "agent-"+agent+".jsonl" {
			meta := Rec{"agentType": Pick(g.c, "general-purpose", "Explore", g.canary("agenttype")), "description": g.canary("agentdesc")}
			if g.c.OneIn(2) {
				meta["toolUseId"] = g.earlier("toolu_")
			}
			if g.c.OneIn(3) {
				meta["worktreePath"] = g.canary("worktree")
			}
			if g.c.OneIn(8) {
				g.mutateField(meta, 0)
			}
			comp.Meta = dir + "/" + c.session + "/subagents/agent-" + agent + ".meta.json"
			b := g.encode([]Rec{meta})
			if g.c.OneIn(16) {
				b = []byte("{not json " + g.canary("meta"))
			}
			g.log.Files[comp.Meta] = b
		}
		g.log.Files[comp.Path] = g.encode(recs)
		g.log.Companions = append(g.log.Companions, comp)
	}
	return g.log
}

type claudeGen struct {
	*gen
	clock   *clock
	version string
	session string
	last    any // parentUuid of the next record
	spawned []string
	tools   []string // tool_use ids issued, for results
}

// transcript builds n conversation turns; agent is "" for the main file.
func (c *claudeGen) transcript(agent string, n int) []Rec {
	c.last = nil
	var recs []Rec
	for i := 0; i < n; i++ {
		recs = append(recs, c.turn(agent)...)
	}
	return recs
}

func (c *claudeGen) envelope(typ, agent string) Rec {
	uuid := c.id("")
	r := Rec{"type": typ, "uuid": uuid, "parentUuid": c.last, "sessionId": c.session, "timestamp": c.clock.next(),
		"cwd": c.canary("cwd"), "version": c.version, "userType": "external", "isSidechain": agent != ""}
	if agent != "" {
		r["agentId"] = agent
	} else if c.c.OneIn(10) { // a 1.0.x inline sidechain, rooted at null
		r["isSidechain"], r["parentUuid"] = true, nil
	}
	if c.c.OneIn(3) {
		r["gitBranch"] = c.canary("branch")
	}
	if c.c.OneIn(6) {
		r["isMeta"] = true
	}
	c.last = uuid
	return r
}

func (c *claudeGen) turn(agent string) []Rec {
	switch c.c.Intn(12) {
	case 0, 1: // a typed prompt
		r := c.envelope("user", agent)
		var content any = c.canary("prompt")
		if c.c.OneIn(2) {
			blocks := []any{Rec{"type": "text", "text": c.canary("prompt")}}
			if c.c.OneIn(3) {
				blocks = append(blocks, Rec{"type": "image", "source": Rec{"type": "base64", "media_type": "image/png", "data": c.canary("image")}})
			}
			content = blocks
		}
		r["message"] = Rec{"role": "user", "content": content}
		return []Rec{r}
	case 2, 3, 4: // an API response, one block per line
		return c.response(agent)
	case 5: // a tool result
		r := c.envelope("user", agent)
		id := c.earlier("toolu_")
		var content any = c.canary("result")
		if c.c.OneIn(3) {
			content = []any{Rec{"type": "text", "text": c.canary("result")}, Rec{"type": "tool_reference", "tool_name": c.canary("toolref")}}
		}
		block := Rec{"type": "tool_result", "tool_use_id": id, "content": content}
		if c.c.OneIn(4) {
			block["is_error"] = true
		}
		r["message"] = Rec{"role": "user", "content": []any{block}}
		switch c.c.Intn(4) {
		case 0:
			r["toolUseResult"] = Rec{"stdout": c.canary("stdout"), "stderr": "", "interrupted": false}
		case 1:
			r["toolUseResult"] = c.canary("tooluseresult")
		case 2:
			r["toolUseResult"] = Rec{"status": "completed", "agentId": c.subagent(), "totalTokens": 1234, "content": []any{Rec{"type": "text", "text": c.canary("agentresult")}}}
		}
		return []Rec{r}
	case 6: // system records
		r := c.envelope("system", agent)
		switch c.c.Intn(4) {
		case 0:
			r["subtype"] = "compact_boundary"
			r["content"] = "Conversation compacted"
			r["logicalParentUuid"] = r["parentUuid"]
			r["parentUuid"] = nil
			r["compactMetadata"] = Rec{"trigger": Pick(c.c, "auto", "manual"), "preTokens": 150000 + c.c.Intn(9999)}
			summary := c.envelope("user", agent)
			summary["isCompactSummary"] = true
			summary["message"] = Rec{"role": "user", "content": "This session is being continued from a previous conversation. " + c.canary("summary")}
			return []Rec{r, summary}
		case 1:
			r["subtype"] = "turn_duration"
			r["durationMs"] = c.c.Intn(100000)
		case 2:
			r["subtype"] = "stop_hook_summary"
			r["hookCount"] = 1
			r["hookInfos"] = []any{Rec{"command": c.canary("hookcmd"), "durationMs": 12}}
		default:
			r["content"] = "Running \u001b[1mPostToolUse:Edit\u001b[22m " + c.canary("hook")
			r["level"] = "info"
		}
		return []Rec{r}
	case 7: // context injected by attachments
		r := c.envelope("attachment", agent)
		switch c.c.Intn(6) {
		case 0:
			p := c.raw("/Users/alice/src/app/CLAUDE.md")
			r["attachment"] = Rec{"type": "nested_memory", "path": p, "displayPath": p, "content": Rec{"path": p, "type": "Project", "content": c.canary("claudemd")}}
		case 1:
			r["attachment"] = Rec{"type": "skill_listing", "content": c.canary("skills"), "skillCount": 3, "isInitial": true}
		case 2:
			r["attachment"] = Rec{"type": "invoked_skills", "skills": []any{Rec{"name": Pick(c.c, "refund-audit", c.canary("skill")), "path": c.raw("/Users/alice/.claude/skills/x/SKILL.md"), "content": c.canary("skillbody")}}}
		case 3:
			r["attachment"] = Rec{"type": "deferred_tools_delta", "addedNames": []any{"mcp__github__create_issue", c.canary("tool")}, "addedLines": []any{c.canary("toolline")}, "removedNames": []any{}}
		case 4:
			r["attachment"] = Rec{"type": "mcp_instructions_delta", "addedNames": []any{"github"}, "addedBlocks": []any{c.canary("mcpinstr")}, "removedNames": []any{}}
		default:
			r["attachment"] = Rec{"type": Pick(c.c, "hook_additional_context", "hook_success"), "hookName": "SessionStart:startup", "hookEvent": "SessionStart", "content": []any{c.canary("hookctx")}, "stdout": c.canary("hookout")}
		}
		return []Rec{r}
	case 8:
		return []Rec{{"type": "summary", "summary": c.canary("summary"), "leafUuid": c.earlier("")}}
	case 9:
		return []Rec{{"type": Pick(c.c, "file-history-snapshot", "queue-operation", "last-prompt", "ai-title"), "messageId": c.earlier(""),
			"snapshot": Rec{"trackedFileBackups": Rec{c.canary("file"): Rec{"backupFileName": c.canary("backup")}}}, "lastPrompt": c.canary("lastprompt")}}
	case 10:
		r := c.envelope("progress", agent)
		r["data"] = Rec{"type": "hook_progress", "hookEvent": "PreToolUse", "hookName": "PreToolUse:Bash", "command": c.canary("hookcmd")}
		return []Rec{r}
	}
	r := c.envelope(Pick(c.c, "agent-name", "worktree-state", c.canary("type")), agent)
	r["payload"] = c.canary("unknown")
	return []Rec{r}
}

// response writes one API response: its blocks on lines of their own that
// share message.id, requestId and the same usage, with now and then a
// streaming snapshot of fewer output tokens first.
func (c *claudeGen) response(agent string) []Rec {
	msg, req := c.id("msg_"), c.id("req_")
	usage := Rec{"input_tokens": c.c.Intn(5000), "output_tokens": c.c.Intn(3000), "cache_read_input_tokens": c.c.Intn(200000),
		"cache_creation_input_tokens": c.c.Intn(30000), "service_tier": "standard"}
	model := Pick(c.c, "claude-opus-4-7", "claude-sonnet-4-5-20250929", "<synthetic>", c.canary("model"))
	var recs []Rec
	for i, n := 0, 1+c.c.Intn(4); i < n; i++ {
		r := c.envelope("assistant", agent)
		r["requestId"] = req
		var block Rec
		switch c.c.Intn(5) {
		case 0:
			block = Rec{"type": "text", "text": c.canary("answer")}
		case 1:
			block = Rec{"type": "thinking", "thinking": c.canary("thinking"), "signature": c.canary("signature")}
		default:
			block = c.toolUse()
		}
		stop := any(Pick(c.c, "tool_use", "end_turn"))
		u := usage
		if c.c.OneIn(5) { // streaming snapshot
			stop, u = nil, Rec{"input_tokens": usage["input_tokens"], "output_tokens": 1}
		}
		r["message"] = Rec{"id": msg, "type": "message", "role": "assistant", "model": model, "content": []any{block}, "stop_reason": stop, "usage": u}
		recs = append(recs, r)
	}
	return recs
}

func (c *claudeGen) toolUse() Rec {
	id := c.id("toolu_")
	c.tools = append(c.tools, id)
	name := Pick(c.c, "Bash", "Read", "Skill", "Task", "Agent", "ToolSearch", "mcp__github__create_issue", "Write", c.canary("toolname"))
	input := Rec{"command": c.canary("command"), "description": c.canary("desc")}
	switch name {
	case "Read", "Write":
		input = Rec{"file_path": c.raw("/Users/alice/src/app/CLAUDE.md"), "content": c.canary("content")}
	case "Skill":
		input = Rec{"skill": Pick(c.c, "refund-audit", c.canary("skill")), "args": c.canary("args")}
	case "Task", "Agent":
		input = Rec{"subagent_type": Pick(c.c, "general-purpose", "Explore", c.canary("agenttype")), "prompt": c.canary("agentprompt"), "description": c.canary("agentdesc")}
		c.subagent()
	case "ToolSearch":
		input = Rec{"query": "select:" + c.canary("query"), "max_results": 4}
	}
	return Rec{"type": "tool_use", "id": id, "name": name, "input": input}
}

// subagent names a subagent, spawning a new one most of the time.
func (c *claudeGen) subagent() string {
	if len(c.spawned) > 0 && c.c.OneIn(3) {
		return c.spawned[c.c.Intn(len(c.spawned))]
	}
	a := fmt.Sprintf("a%016x", uint64(len(c.spawned)+1)*0x2545f4914f6cdd1d)[:Pick(c.c, 8, 17)]
	c.spawned = append(c.spawned, a)
	return a
}
