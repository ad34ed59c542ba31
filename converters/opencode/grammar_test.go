package opencode_test

import (
	"bytes"
	"encoding/json"

	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// grammar builds an `opencode export` document (reader.go, message-v2.ts
// shapes): one JSON document {info, messages: [{info, parts}]}, a child
// session's info naming its parent now and then, and a todo list. User
// messages hold text (typed, synthetic, ignored), file and agent parts and
// compaction requests; assistant messages of several providers and models,
// with tokens (a total alone now and then), errors and the summary flag,
// hold text, reasoning, step-start/step-finish and tool parts in every
// state: built-in tools, apply_patch, skill, task (a subagent's session in
// its metadata), MCP tools named <server>_<tool>, call ids repeated across
// messages (call_0 numbered per response) or missing. The document is
// written compacted or pretty-printed, as export prints it, and now and
// then torn or followed by junk.
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "opencode")
	k := fuzzgen.NewClock(g)
	session := g.ID("ses_")
	dir := "exports" // the folder is the user's choice, named in nothing the reader reads
	g.Log.Main = dir + "/" + fuzzgen.Pick(g.C, session+".json", "my-export.json", "session.json")
	cwd := g.Raw("/Users/alice/src/ledger")
	info := fuzzgen.Rec{"id": session, "slug": g.Canary("slug"), "version": fuzzgen.Pick(g.C, "1.2.27", "1.2.26", "0.15.8", "1.0.0"),
		"projectID": g.Canary("project"), "directory": cwd, "title": g.Canary("title"),
		"time": fuzzgen.Rec{"created": k.EpochMs(), "updated": k.EpochMs()}}
	if g.C.OneIn(4) {
		info["parentID"] = g.ID("ses_") // a task tool's child session, exported on its own
	}
	if g.C.OneIn(4) {
		info["summary"] = fuzzgen.Rec{"additions": g.C.Intn(90), "deletions": g.C.Intn(90), "files": g.C.Intn(9)}
	}
	var msgs []fuzzgen.Rec
	for turns := 1 + g.C.Intn(4); turns > 0; turns-- {
		user := ocUserMsg(g, k, session)
		msgs = append(msgs, user)
		uid := user["info"].(fuzzgen.Rec)["id"]
		for steps := 1 + g.C.Intn(3); steps > 0; steps-- {
			msgs = append(msgs, ocAssistantMsg(g, k, session, uid, cwd, false))
		}
		if g.C.OneIn(5) { // a compaction: the request, then the summary message
			req := ocMsg(g, k, session, "user", fuzzgen.Rec{"agent": "compaction"})
			req["parts"] = []any{ocPart(g, session, req, fuzzgen.Rec{"type": "compaction", "auto": g.C.OneIn(2), "overflow": g.C.OneIn(3)})}
			msgs = append(msgs, req, ocAssistantMsg(g, k, session, req["info"].(fuzzgen.Rec)["id"], cwd, true))
		}
	}
	for _, m := range msgs {
		if parts, ok := m["parts"].([]any); ok && g.C.OneIn(4) {
			m["parts"] = recsAny(g.Perturb(anyRecs(parts)))
		}
	}
	msgs = g.Perturb(msgs)
	doc := fuzzgen.Rec{"info": info, "messages": recsAny(msgs)}
	if g.C.OneIn(3) {
		doc["todos"] = []any{fuzzgen.Rec{"id": "1", "content": g.Canary("todo"), "status": fuzzgen.Pick(g.C, "pending", "completed"), "priority": "high"}}
	}
	if g.C.OneIn(8) {
		g.MutateField(info, 0)
	}
	g.Log.Files[g.Log.Main] = ocEncode(g, doc)
	return g.Log
}

// ocEncode writes the document: compacted on one line (the plainest),
// pretty-printed as `opencode export` prints it (JSON.stringify(data,
// null, 2)), or damaged: torn short, or followed by a junk line.
func ocEncode(g *fuzzgen.Gen, doc fuzzgen.Rec) []byte {
	compact, err := json.Marshal(doc)
	if err != nil {
		return []byte("{}")
	}
	var pretty bytes.Buffer
	json.Indent(&pretty, compact, "", "  ")
	switch g.C.Intn(10) {
	case 0:
		return append(compact, '\n')
	case 7: // torn while written
		b := pretty.Bytes()
		return b[:len(b)/2+g.C.Intn(len(b)/2)]
	case 8:
		return append(pretty.Bytes(), []byte("\nnot json "+g.Canary("junk")+"\n")...)
	case 9:
		return append(compact, []byte("\r\n")...)
	}
	return append(pretty.Bytes(), '\n')
}

// ocMsg is a message of role with its info (MessageV2.Info); its parts
// are added by the caller.
func ocMsg(g *fuzzgen.Gen, k *fuzzgen.Clock, session, role string, extra fuzzgen.Rec) fuzzgen.Rec {
	info := fuzzgen.Rec{"id": g.ID("msg_"), "sessionID": session, "role": role, "time": fuzzgen.Rec{"created": k.EpochMs()}}
	for key, v := range extra {
		info[key] = v
	}
	return fuzzgen.Rec{"info": info}
}

// ocUserMsg is a user message: a prompt (typed, or synthetic or ignored
// text a command or plugin added), files and agents attached, a subtask.
func ocUserMsg(g *fuzzgen.Gen, k *fuzzgen.Clock, session string) fuzzgen.Rec {
	provider, model := ocModel(g)
	m := ocMsg(g, k, session, "user", fuzzgen.Rec{"agent": fuzzgen.Pick(g.C, "build", "plan", g.Canary("agent")),
		"model": fuzzgen.Rec{"providerID": provider, "modelID": model}})
	text := fuzzgen.Rec{"type": "text", "text": g.Canary("prompt")}
	switch g.C.Intn(6) {
	case 1:
		text["synthetic"] = true
	case 2:
		text["ignored"] = true
	}
	parts := []any{ocPart(g, session, m, text)}
	switch g.C.Intn(5) {
	case 1:
		parts = append(parts, ocPart(g, session, m, fuzzgen.Rec{"type": "file", "mime": "text/plain", "filename": g.Canary("file"),
			"url": "file://" + g.Raw("/Users/alice/src/ledger/notes.md")}))
	case 2:
		parts = append(parts, ocPart(g, session, m, fuzzgen.Rec{"type": "agent", "name": fuzzgen.Pick(g.C, "general", g.Canary("agent"))}))
	case 3:
		parts = append(parts, ocPart(g, session, m, fuzzgen.Rec{"type": "subtask", "prompt": g.Canary("subtask"),
			"description": g.Canary("desc"), "agent": "general"}))
	}
	m["parts"] = parts
	return m
}

// ocAssistantMsg is an assistant message answering parent: its model,
// tokens, an error now and then, and its parts. A summary message (after
// a compaction) holds the summary's text.
func ocAssistantMsg(g *fuzzgen.Gen, k *fuzzgen.Clock, session string, parent any, cwd string, summary bool) fuzzgen.Rec {
	provider, model := ocModel(g)
	extra := fuzzgen.Rec{"parentID": parent, "modelID": model, "providerID": provider, "mode": fuzzgen.Pick(g.C, "build", "plan"),
		"agent": "build", "path": fuzzgen.Rec{"cwd": cwd, "root": cwd}, "cost": float64(g.C.Intn(1000)) / 1000}
	if summary {
		extra["summary"] = true
	}
	switch g.C.Intn(6) {
	case 0, 1, 2:
		extra["tokens"] = fuzzgen.Rec{"input": g.C.Intn(20000), "output": g.C.Intn(900), "reasoning": g.C.Intn(300),
			"cache": fuzzgen.Rec{"read": g.C.Intn(90000), "write": g.C.Intn(5000)}}
	case 3: // a total alone (older versions)
		extra["tokens"] = fuzzgen.Rec{"input": 0, "output": 0, "reasoning": g.C.Intn(300), "cache": fuzzgen.Rec{"read": 0, "write": 0},
			"total": g.C.Intn(30000)}
	case 4: // none
	default:
		extra["tokens"] = fuzzgen.Rec{"input": 0, "output": 0, "reasoning": 0, "cache": fuzzgen.Rec{"read": 0, "write": 0}}
	}
	if g.C.OneIn(6) {
		extra["error"] = fuzzgen.Rec{"name": fuzzgen.Pick(g.C, "MessageAbortedError", "APIError", "ProviderAuthError", g.Canary("error")),
			"data": fuzzgen.Rec{"message": g.Canary("errmsg")}}
	} else {
		extra["finish"] = fuzzgen.Pick(g.C, "stop", "tool-calls", "length")
	}
	m := ocMsg(g, k, session, "assistant", extra)
	m["info"].(fuzzgen.Rec)["time"].(fuzzgen.Rec)["completed"] = k.EpochMs()
	parts := []any{ocPart(g, session, m, fuzzgen.Rec{"type": "step-start", "snapshot": g.Canary("snapshot")})}
	if summary {
		parts = append(parts, ocPart(g, session, m, fuzzgen.Rec{"type": "text", "text": g.Canary("summary")}))
	} else {
		if g.C.OneIn(3) {
			parts = append(parts, ocPart(g, session, m, fuzzgen.Rec{"type": "reasoning", "text": g.Canary("reasoning"),
				"time": fuzzgen.Rec{"start": k.EpochMs(), "end": k.EpochMs()}}))
		}
		parts = append(parts, ocPart(g, session, m, fuzzgen.Rec{"type": "text", "text": g.Canary("answer")}))
		for n := g.C.Intn(4); n > 0; n-- {
			parts = append(parts, ocToolPart(g, k, session, m))
		}
	}
	if !g.C.OneIn(5) {
		parts = append(parts, ocPart(g, session, m, fuzzgen.Rec{"type": "step-finish", "reason": fuzzgen.Pick(g.C, "stop", "tool-calls"),
			"cost": 0.01, "tokens": fuzzgen.Rec{"input": g.C.Intn(900), "output": g.C.Intn(90)}}))
	}
	m["parts"] = parts
	return m
}

// ocToolPart is a tool part, in the state the export kept last: pending,
// running, completed or error.
func ocToolPart(g *fuzzgen.Gen, k *fuzzgen.Clock, session string, m fuzzgen.Rec) fuzzgen.Rec {
	name, input := ocToolCall(g)
	status := fuzzgen.Pick(g.C, "completed", "completed", "error", "running", "pending", g.Canary("status"))
	state := fuzzgen.Rec{"status": status, "input": input}
	switch status {
	case "pending":
		state["raw"] = g.Canary("raw")
	case "running":
		state["time"] = fuzzgen.Rec{"start": k.EpochMs()}
		state["title"] = g.Canary("title")
	case "completed":
		state["output"] = g.Canary("output")
		state["title"] = g.Canary("title")
		state["time"] = fuzzgen.Rec{"start": k.EpochMs(), "end": k.EpochMs()}
		meta := fuzzgen.Rec{"truncated": g.C.OneIn(4)}
		if name == "task" {
			meta["sessionId"] = g.ID("ses_")
		}
		state["metadata"] = meta
	case "error":
		state["error"] = g.Canary("error")
		state["time"] = fuzzgen.Rec{"start": k.EpochMs(), "end": k.EpochMs()}
	}
	p := fuzzgen.Rec{"type": "tool", "tool": name, "state": state}
	switch g.C.Intn(6) {
	case 0: // a provider numbering each response's calls repeats them in every message
		p["callID"] = fuzzgen.Pick(g.C, "call_0", "call_1")
	case 1: // none
	default:
		p["callID"] = g.ID(fuzzgen.Pick(g.C, "toolu_", "call_"))
	}
	return ocPart(g, session, m, p)
}

// ocToolCall is a tool's name and input: built-in tools, apply_patch, skill,
// task (a subagent), an MCP tool (<server>_<tool>), a custom tool.
func ocToolCall(g *fuzzgen.Gen) (string, fuzzgen.Rec) {
	switch g.C.Intn(8) {
	case 0:
		return "task", fuzzgen.Rec{"description": g.Canary("desc"), "prompt": g.Canary("task"),
			"subagent_type": fuzzgen.Pick(g.C, "general", "explore", g.Canary("agent"))}
	case 1:
		return "skill", fuzzgen.Rec{"name": fuzzgen.Pick(g.C, "release-notes", g.Canary("skill"))}
	case 2:
		return "apply_patch", fuzzgen.Rec{"patchText": g.Canary("patch")}
	case 3:
		return fuzzgen.Pick(g.C, "github_create_issue", "context7_resolve-library-id", g.Raw("ledger")+"_query"), fuzzgen.Rec{"q": g.Canary("query")}
	case 4:
		return g.Canary("tool"), fuzzgen.Rec{"x": g.Canary("arg")}
	case 5:
		return "bash", fuzzgen.Rec{"command": g.Canary("command"), "description": g.Canary("desc")}
	}
	return fuzzgen.Pick(g.C, "read", "edit", "write", "grep", "glob", "list", "todowrite", "webfetch"),
		fuzzgen.Rec{"filePath": g.Raw("/Users/alice/src/ledger/ledger.go"), "pattern": g.Canary("pattern")}
}

// ocModel is a provider and model: several of each, a model of the
// user's own config now and then.
func ocModel(g *fuzzgen.Gen) (string, string) {
	switch g.C.Intn(5) {
	case 1:
		return "openai", fuzzgen.Pick(g.C, "gpt-5.1-codex", "gpt-5")
	case 2:
		return "google", "gemini-2.5-pro"
	case 3:
		return fuzzgen.Pick(g.C, "opencode", "openrouter"), fuzzgen.Pick(g.C, "qwen3-coder", "", g.Canary("model"))
	}
	return "anthropic", fuzzgen.Pick(g.C, "claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1")
}

// ocPart is a part of message m: its id (missing now and then), session
// and message ids, and its fields.
func ocPart(g *fuzzgen.Gen, session string, m, fields fuzzgen.Rec) fuzzgen.Rec {
	p := fuzzgen.Rec{"sessionID": session, "messageID": m["info"].(fuzzgen.Rec)["id"]}
	if !g.C.OneIn(12) {
		p["id"] = g.ID("prt_")
	}
	for key, v := range fields {
		p[key] = v
	}
	return p
}

func anyRecs(xs []any) []fuzzgen.Rec {
	var out []fuzzgen.Rec
	for _, x := range xs {
		if r, ok := x.(fuzzgen.Rec); ok {
			out = append(out, r)
		}
	}
	return out
}

func recsAny(rs []fuzzgen.Rec) []any {
	out := make([]any, len(rs))
	for i, r := range rs {
		out[i] = r
	}
	return out
}
