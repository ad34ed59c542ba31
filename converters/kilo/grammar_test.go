package kilo_test

import (
	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// grammar builds a Kilo session as kilo.db's store gives it to the reader
// (opencode.Variant, converters/opencode/variant.go): one JSON line per
// row, each marked {"$store":"kilo"}: the session row (Session.Info), its
// message rows (MessageV2.Info: user, assistant with model, provider,
// tokens, an error, the summary flag), then each message's part rows
// (text, reasoning, step-start/step-finish, tool parts in every state:
// built-in, apply_patch, skill, task with its child session, MCP tools
// named <server>_<tool>, call ids repeated or missing; compaction).
// The shapes are those of OpenCode's grammar (converters/opencode/
// grammar_test.go), which a test package cannot import; the database
// itself is not built (ocdb builds it in kilo_test.go): this fuzzes the
// reader on the lines the store writes.
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "kilo")
	k := fuzzgen.NewClock(g)
	session := g.ID("ses_")
	g.Log.Main = "kilo/" + session + ".jsonl"
	cwd := g.Raw("/Users/alice/src/ledger")
	info := fuzzgen.Rec{"id": session, "slug": g.Canary("slug"), "version": fuzzgen.Pick(g.C, "1.2.27", "0.9.0"),
		"projectID": g.Canary("project"), "directory": cwd, "title": g.Canary("title"),
		"time": fuzzgen.Rec{"created": k.EpochMs(), "updated": k.EpochMs()}}
	if g.C.OneIn(4) {
		info["parentID"] = g.ID("ses_")
	}
	msgs := []fuzzgen.Rec{info}
	var parts []fuzzgen.Rec
	row := func(role string, fields fuzzgen.Rec) string {
		id := g.ID("msg_")
		m := fuzzgen.Rec{"id": id, "sessionID": session, "role": role, "time": fuzzgen.Rec{"created": k.EpochMs()}}
		for key, v := range fields {
			m[key] = v
		}
		msgs = append(msgs, m)
		return id
	}
	part := func(msg string, fields fuzzgen.Rec) {
		p := fuzzgen.Rec{"sessionID": session, "messageID": msg}
		if !g.C.OneIn(12) {
			p["id"] = g.ID("prt_")
		}
		for key, v := range fields {
			p[key] = v
		}
		parts = append(parts, p)
	}
	for turns := 1 + g.C.Intn(4); turns > 0; turns-- {
		provider, model := kiloModel(g)
		compact := g.C.OneIn(5)
		u := row("user", fuzzgen.Rec{"agent": fuzzgen.Pick(g.C, "code", "build", "compaction"), "model": fuzzgen.Rec{"providerID": provider, "modelID": model}})
		part(u, fuzzgen.Rec{"type": "text", "text": g.Canary("prompt"), "synthetic": g.C.OneIn(6)})
		if compact {
			part(u, fuzzgen.Rec{"type": "compaction", "auto": g.C.OneIn(2), "overflow": g.C.OneIn(3)})
		}
		for steps := 1 + g.C.Intn(3); steps > 0; steps-- {
			provider, model = kiloModel(g)
			a := fuzzgen.Rec{"parentID": u, "modelID": model, "providerID": provider, "mode": "code", "agent": "code",
				"path": fuzzgen.Rec{"cwd": cwd, "root": cwd}, "cost": 0.01, "summary": compact && steps == 1,
				"tokens": fuzzgen.Rec{"input": g.C.Intn(20000), "output": g.C.Intn(900), "reasoning": g.C.Intn(300),
					"cache": fuzzgen.Rec{"read": g.C.Intn(90000), "write": g.C.Intn(5000)}}}
			if g.C.OneIn(6) {
				a["error"] = fuzzgen.Rec{"name": fuzzgen.Pick(g.C, "APIError", g.Canary("error")), "data": fuzzgen.Rec{"message": g.Canary("errmsg")}}
			}
			id := row("assistant", a)
			part(id, fuzzgen.Rec{"type": "step-start", "snapshot": g.Canary("snapshot")})
			if g.C.OneIn(3) {
				part(id, fuzzgen.Rec{"type": "reasoning", "text": g.Canary("reasoning")})
			}
			part(id, fuzzgen.Rec{"type": "text", "text": g.Canary("answer")})
			for n := g.C.Intn(4); n > 0; n-- {
				part(id, kiloTool(g, k))
			}
			part(id, fuzzgen.Rec{"type": "step-finish", "reason": fuzzgen.Pick(g.C, "stop", "tool-calls")})
		}
	}
	recs := append(msgs, parts...) // the store's order: the session, its messages, then their parts
	for _, r := range recs {
		r["$store"] = "kilo"
	}
	g.Log.Files[g.Log.Main] = g.Encode(g.Perturb(recs))
	return g.Log
}

// kiloTool is a tool part in the state the store kept last.
func kiloTool(g *fuzzgen.Gen, k *fuzzgen.Clock) fuzzgen.Rec {
	var name string
	input := fuzzgen.Rec{}
	switch g.C.Intn(7) {
	case 0:
		name, input["subagent_type"], input["prompt"] = "task", fuzzgen.Pick(g.C, "general", g.Canary("agent")), g.Canary("task")
	case 1:
		name, input["name"] = "skill", fuzzgen.Pick(g.C, "release-notes", g.Canary("skill"))
	case 2:
		name, input["patchText"] = "apply_patch", g.Canary("patch")
	case 3:
		name, input["q"] = fuzzgen.Pick(g.C, "github_create_issue", g.Raw("ledger")+"_query"), g.Canary("query")
	case 4:
		name, input["x"] = g.Canary("tool"), g.Canary("arg")
	default:
		name, input["filePath"] = fuzzgen.Pick(g.C, "read", "edit", "bash", "grep"), g.Raw("/Users/alice/src/ledger/ledger.go")
	}
	status := fuzzgen.Pick(g.C, "completed", "completed", "error", "running", "pending")
	state := fuzzgen.Rec{"status": status, "input": input, "time": fuzzgen.Rec{"start": k.EpochMs(), "end": k.EpochMs()}}
	switch status {
	case "completed":
		state["output"], state["title"] = g.Canary("output"), g.Canary("title")
		if name == "task" {
			state["metadata"] = fuzzgen.Rec{"sessionId": g.ID("ses_")}
		}
	case "error":
		state["error"] = g.Canary("error")
	}
	p := fuzzgen.Rec{"type": "tool", "tool": name, "state": state}
	switch g.C.Intn(5) {
	case 0:
		p["callID"] = "call_0" // numbered per response: repeated in every message
	case 1: // none
	default:
		p["callID"] = g.ID("toolu_")
	}
	return p
}

// kiloModel is a provider and model Kilo routes to.
func kiloModel(g *fuzzgen.Gen) (string, string) {
	switch g.C.Intn(4) {
	case 1:
		return "kilo", fuzzgen.Pick(g.C, "anthropic/claude-sonnet-4.5", "x-ai/grok-code-fast-1")
	case 2:
		return "openai", fuzzgen.Pick(g.C, "gpt-5.1-codex", g.Canary("model"))
	}
	return "anthropic", "claude-sonnet-4-5"
}
