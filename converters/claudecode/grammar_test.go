package claudecode_test

import (
	"fmt"

	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// grammar builds a Claude Code session (docs/converters.md): a
// main transcript of user, assistant (one content block per line,
// streaming rows repeating a message id and its usage), system
// (compaction boundaries, hook summaries), attachment, summary and other
// metadata records on a parentUuid chain, and, by choice, subagents as
// inline sidechains, 2.0 sibling agent-*.jsonl files or 2.1
// <session>/subagents/ files with .meta.json sidecars.
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "claude_code")
	c := &claudeGen{Gen: g, clock: fuzzgen.NewClock(g), version: fuzzgen.Pick(g.C, "2.1.114", "1.0.17", "2.0.37", "2.1.17", "2.1.221")}
	c.session = g.ID("")
	dir := "projects/-Users-alice-src-" + fmt.Sprint(1+g.C.Intn(3))
	g.Log.Main = dir + "/" + c.session + ".jsonl"
	main := c.transcript("", 1+g.C.Intn(14))
	g.Log.Files[g.Log.Main] = g.Encode(g.Perturb(main))
	for i := 0; i < len(c.spawned) && i < 3; i++ {
		agent := c.spawned[i]
		recs := g.Perturb(c.transcript(agent, 1+g.C.Intn(5)))
		var rel string
		switch g.C.Intn(3) {
		case 0: // 2.0.x: a sibling of the session file
			rel = "agent-" + agent + ".jsonl"
		default: // 2.1.x: <session>/subagents/
			rel = c.session + "/subagents/agent-" + agent + ".jsonl"
		}
		comp := fuzzgen.Companion{Path: dir + "/" + rel, Rel: rel}
		if g.C.Intn(3) > 0 && rel != "agent-"+agent+".jsonl" {
			meta := fuzzgen.Rec{"agentType": fuzzgen.Pick(g.C, "general-purpose", "Explore", g.Canary("agenttype")), "description": g.Canary("agentdesc")}
			if g.C.OneIn(2) {
				meta["toolUseId"] = g.Earlier("toolu_")
			}
			if g.C.OneIn(3) {
				meta["worktreePath"] = g.Canary("worktree")
			}
			if g.C.OneIn(8) {
				g.MutateField(meta, 0)
			}
			comp.Meta = dir + "/" + c.session + "/subagents/agent-" + agent + ".meta.json"
			b := g.Encode([]fuzzgen.Rec{meta})
			if g.C.OneIn(16) {
				b = []byte("{not json " + g.Canary("meta"))
			}
			g.Log.Files[comp.Meta] = b
		}
		g.Log.Files[comp.Path] = g.Encode(recs)
		g.Log.Companions = append(g.Log.Companions, comp)
	}
	return g.Log
}

type claudeGen struct {
	*fuzzgen.Gen
	clock   *fuzzgen.Clock
	version string
	session string
	last    any // parentUuid of the next record
	spawned []string
	tools   []string // tool_use ids issued, for results
}

// transcript builds n conversation turns; agent is "" for the main file.
func (c *claudeGen) transcript(agent string, n int) []fuzzgen.Rec {
	c.last = nil
	var recs []fuzzgen.Rec
	for i := 0; i < n; i++ {
		recs = append(recs, c.turn(agent)...)
	}
	return recs
}

func (c *claudeGen) envelope(typ, agent string) fuzzgen.Rec {
	uuid := c.ID("")
	r := fuzzgen.Rec{"type": typ, "uuid": uuid, "parentUuid": c.last, "sessionId": c.session, "timestamp": c.clock.Next(),
		"cwd": c.Canary("cwd"), "version": c.version, "userType": "external", "isSidechain": agent != ""}
	if agent != "" {
		r["agentId"] = agent
	} else if c.C.OneIn(10) { // a 1.0.x inline sidechain, rooted at null
		r["isSidechain"], r["parentUuid"] = true, nil
	}
	if c.C.OneIn(3) {
		r["gitBranch"] = c.Canary("branch")
	}
	if c.C.OneIn(6) {
		r["isMeta"] = true
	}
	c.last = uuid
	return r
}

func (c *claudeGen) turn(agent string) []fuzzgen.Rec {
	switch c.C.Intn(12) {
	case 0, 1: // a typed prompt
		r := c.envelope("user", agent)
		var content any = c.Canary("prompt")
		if c.C.OneIn(2) {
			blocks := []any{fuzzgen.Rec{"type": "text", "text": c.Canary("prompt")}}
			if c.C.OneIn(3) {
				blocks = append(blocks, fuzzgen.Rec{"type": "image", "source": fuzzgen.Rec{"type": "base64", "media_type": "image/png", "data": c.Canary("image")}})
			}
			content = blocks
		}
		r["message"] = fuzzgen.Rec{"role": "user", "content": content}
		return []fuzzgen.Rec{r}
	case 2, 3, 4: // an API response, one block per line
		return c.response(agent)
	case 5: // a tool result
		r := c.envelope("user", agent)
		id := c.Earlier("toolu_")
		var content any = c.Canary("result")
		if c.C.OneIn(3) {
			content = []any{fuzzgen.Rec{"type": "text", "text": c.Canary("result")}, fuzzgen.Rec{"type": "tool_reference", "tool_name": c.Canary("toolref")}}
		}
		block := fuzzgen.Rec{"type": "tool_result", "tool_use_id": id, "content": content}
		if c.C.OneIn(4) {
			block["is_error"] = true
		}
		r["message"] = fuzzgen.Rec{"role": "user", "content": []any{block}}
		switch c.C.Intn(4) {
		case 0:
			r["toolUseResult"] = fuzzgen.Rec{"stdout": c.Canary("stdout"), "stderr": "", "interrupted": false}
		case 1:
			r["toolUseResult"] = c.Canary("tooluseresult")
		case 2:
			r["toolUseResult"] = fuzzgen.Rec{"status": "completed", "agentId": c.subagent(), "totalTokens": 1234, "content": []any{fuzzgen.Rec{"type": "text", "text": c.Canary("agentresult")}}}
		}
		return []fuzzgen.Rec{r}
	case 6: // system records
		r := c.envelope("system", agent)
		switch c.C.Intn(4) {
		case 0:
			r["subtype"] = "compact_boundary"
			r["content"] = "Conversation compacted"
			r["logicalParentUuid"] = r["parentUuid"]
			r["parentUuid"] = nil
			r["compactMetadata"] = fuzzgen.Rec{"trigger": fuzzgen.Pick(c.C, "auto", "manual"), "preTokens": 150000 + c.C.Intn(9999)}
			summary := c.envelope("user", agent)
			summary["isCompactSummary"] = true
			summary["message"] = fuzzgen.Rec{"role": "user", "content": "This session is being continued from a previous conversation. " + c.Canary("summary")}
			return []fuzzgen.Rec{r, summary}
		case 1:
			r["subtype"] = "turn_duration"
			r["durationMs"] = c.C.Intn(100000)
		case 2:
			r["subtype"] = "stop_hook_summary"
			r["hookCount"] = 1
			r["hookInfos"] = []any{fuzzgen.Rec{"command": c.Canary("hookcmd"), "durationMs": 12}}
		default:
			r["content"] = "Running \u001b[1mPostToolUse:Edit\u001b[22m " + c.Canary("hook")
			r["level"] = "info"
		}
		return []fuzzgen.Rec{r}
	case 7: // context injected by attachments
		r := c.envelope("attachment", agent)
		switch c.C.Intn(6) {
		case 0:
			p := c.Raw("/Users/alice/src/app/CLAUDE.md")
			r["attachment"] = fuzzgen.Rec{"type": "nested_memory", "path": p, "displayPath": p, "content": fuzzgen.Rec{"path": p, "type": "Project", "content": c.Canary("claudemd")}}
		case 1:
			r["attachment"] = fuzzgen.Rec{"type": "skill_listing", "content": c.Canary("skills"), "skillCount": 3, "isInitial": true}
		case 2:
			r["attachment"] = fuzzgen.Rec{"type": "invoked_skills", "skills": []any{fuzzgen.Rec{"name": fuzzgen.Pick(c.C, "refund-audit", c.Canary("skill")), "path": c.Raw("/Users/alice/.claude/skills/x/SKILL.md"), "content": c.Canary("skillbody")}}}
		case 3:
			r["attachment"] = fuzzgen.Rec{"type": "deferred_tools_delta", "addedNames": []any{"mcp__github__create_issue", c.Canary("tool")}, "addedLines": []any{c.Canary("toolline")}, "removedNames": []any{}}
		case 4:
			r["attachment"] = fuzzgen.Rec{"type": "mcp_instructions_delta", "addedNames": []any{"github"}, "addedBlocks": []any{c.Canary("mcpinstr")}, "removedNames": []any{}}
		default:
			r["attachment"] = fuzzgen.Rec{"type": fuzzgen.Pick(c.C, "hook_additional_context", "hook_success"), "hookName": "SessionStart:startup", "hookEvent": "SessionStart", "content": []any{c.Canary("hookctx")}, "stdout": c.Canary("hookout")}
		}
		return []fuzzgen.Rec{r}
	case 8:
		return []fuzzgen.Rec{{"type": "summary", "summary": c.Canary("summary"), "leafUuid": c.Earlier("")}}
	case 9:
		return []fuzzgen.Rec{{"type": fuzzgen.Pick(c.C, "file-history-snapshot", "queue-operation", "last-prompt", "ai-title"), "messageId": c.Earlier(""),
			"snapshot": fuzzgen.Rec{"trackedFileBackups": fuzzgen.Rec{c.Canary("file"): fuzzgen.Rec{"backupFileName": c.Canary("backup")}}}, "lastPrompt": c.Canary("lastprompt")}}
	case 10:
		r := c.envelope("progress", agent)
		r["data"] = fuzzgen.Rec{"type": "hook_progress", "hookEvent": "PreToolUse", "hookName": "PreToolUse:Bash", "command": c.Canary("hookcmd")}
		return []fuzzgen.Rec{r}
	}
	r := c.envelope(fuzzgen.Pick(c.C, "agent-name", "worktree-state", c.Canary("type")), agent)
	r["payload"] = c.Canary("unknown")
	return []fuzzgen.Rec{r}
}

// response writes one API response: its blocks on lines of their own that
// share message.id, requestId and the same usage, with now and then a
// streaming snapshot of fewer output tokens first.
func (c *claudeGen) response(agent string) []fuzzgen.Rec {
	msg, req := c.ID("msg_"), c.ID("req_")
	usage := fuzzgen.Rec{"input_tokens": c.C.Intn(5000), "output_tokens": c.C.Intn(3000), "cache_read_input_tokens": c.C.Intn(200000),
		"cache_creation_input_tokens": c.C.Intn(30000), "service_tier": "standard"}
	model := fuzzgen.Pick(c.C, "claude-opus-4-7", "claude-sonnet-4-5-20250929", "<synthetic>", c.Canary("model"))
	var recs []fuzzgen.Rec
	for i, n := 0, 1+c.C.Intn(4); i < n; i++ {
		r := c.envelope("assistant", agent)
		r["requestId"] = req
		var block fuzzgen.Rec
		switch c.C.Intn(5) {
		case 0:
			block = fuzzgen.Rec{"type": "text", "text": c.Canary("answer")}
		case 1:
			block = fuzzgen.Rec{"type": "thinking", "thinking": c.Canary("thinking"), "signature": c.Canary("signature")}
		default:
			block = c.toolUse()
		}
		stop := any(fuzzgen.Pick(c.C, "tool_use", "end_turn"))
		u := usage
		if c.C.OneIn(5) { // streaming snapshot
			stop, u = nil, fuzzgen.Rec{"input_tokens": usage["input_tokens"], "output_tokens": 1}
		}
		r["message"] = fuzzgen.Rec{"id": msg, "type": "message", "role": "assistant", "model": model, "content": []any{block}, "stop_reason": stop, "usage": u}
		recs = append(recs, r)
	}
	return recs
}

func (c *claudeGen) toolUse() fuzzgen.Rec {
	id := c.ID("toolu_")
	c.tools = append(c.tools, id)
	name := fuzzgen.Pick(c.C, "Bash", "Read", "Skill", "Task", "Agent", "ToolSearch", "mcp__github__create_issue", "Write", c.Canary("toolname"))
	input := fuzzgen.Rec{"command": c.Canary("command"), "description": c.Canary("desc")}
	switch name {
	case "Read", "Write":
		input = fuzzgen.Rec{"file_path": c.Raw("/Users/alice/src/app/CLAUDE.md"), "content": c.Canary("content")}
	case "Skill":
		input = fuzzgen.Rec{"skill": fuzzgen.Pick(c.C, "refund-audit", c.Canary("skill")), "args": c.Canary("args")}
	case "Task", "Agent":
		input = fuzzgen.Rec{"subagent_type": fuzzgen.Pick(c.C, "general-purpose", "Explore", c.Canary("agenttype")), "prompt": c.Canary("agentprompt"), "description": c.Canary("agentdesc")}
		c.subagent()
	case "ToolSearch":
		input = fuzzgen.Rec{"query": "select:" + c.Canary("query"), "max_results": 4}
	}
	return fuzzgen.Rec{"type": "tool_use", "id": id, "name": name, "input": input}
}

// subagent names a subagent, spawning a new one most of the time.
func (c *claudeGen) subagent() string {
	if len(c.spawned) > 0 && c.C.OneIn(3) {
		return c.spawned[c.C.Intn(len(c.spawned))]
	}
	a := fmt.Sprintf("a%016x", uint64(len(c.spawned)+1)*0x2545f4914f6cdd1d)[:fuzzgen.Pick(c.C, 8, 17)]
	c.spawned = append(c.spawned, a)
	return a
}
