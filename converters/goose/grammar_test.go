package goose_test

import (
	"fmt"

	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// grammar builds the lines Goose's store writes for one session (store.go):
// the session row ({"goose_session": ...}: id, working directory, times,
// session type, provider, current and accumulated token columns, the
// parsed model_config), then its messages by id ({"goose_message": ...}:
// role, created_timestamp in Unix seconds, content blocks and, when the
// column holds JSON, metadata). Assistant messages hold text, thinking,
// redacted thinking and toolRequest blocks (an extension's tool, named
// <extension>__<tool>, or a bare name); user messages hold prompts, images
// and toolResponse blocks joined by id, success or error; now and then a
// compaction notice, a system notification or a confirmation request.
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "goose")
	k := fuzzgen.NewClock(g)
	session := fmt.Sprintf("20261120_%d", 1+g.C.Intn(40))
	g.Log.Main = "sessions/" + session + ".jsonl"
	recs := []fuzzgen.Rec{{"goose_session": gooseSession(g, k, session)}}
	id := 0
	msg := func(role string, content []any) {
		id++
		m := fuzzgen.Rec{"id": id, "role": role, "created_timestamp": k.EpochMs() / 1000, "content": content}
		if !g.C.OneIn(3) {
			m["metadata"] = fuzzgen.Rec{"userVisible": !g.C.OneIn(5), "agentVisible": !g.C.OneIn(5)}
		}
		recs = append(recs, fuzzgen.Rec{"goose_message": m})
	}
	for turns := 1 + g.C.Intn(4); turns > 0; turns-- {
		prompt := []any{fuzzgen.Rec{"type": "text", "text": g.Canary("prompt")}}
		if g.C.OneIn(6) {
			prompt = append(prompt, fuzzgen.Rec{"type": "image", "data": g.Canary("image"), "mimeType": "image/png"})
		}
		msg("user", prompt)
		for steps := 1 + g.C.Intn(3); steps > 0; steps-- {
			var content, results []any
			switch g.C.Intn(4) {
			case 0:
				content = append(content, fuzzgen.Rec{"type": "thinking", "thinking": g.Canary("thinking"), "signature": g.Canary("sig")})
			case 1:
				content = append(content, fuzzgen.Rec{"type": "redactedThinking", "data": g.Canary("redacted")})
			}
			content = append(content, fuzzgen.Rec{"type": "text", "text": g.Canary("reply")})
			for calls := g.C.Intn(3); calls > 0; calls-- {
				call := g.ID("toolu_")
				name, args := gooseTool(g)
				req := fuzzgen.Rec{"type": "toolRequest", "id": call, "toolCall": fuzzgen.Rec{"status": "success", "value": fuzzgen.Rec{"name": name, "arguments": args}}}
				if g.C.OneIn(8) { // a call Goose could not parse
					req["toolCall"] = fuzzgen.Rec{"status": "error", "error": g.Canary("callerr")}
				}
				content = append(content, req)
				if g.C.OneIn(6) { // now and then a call gets no response
					continue
				}
				res := fuzzgen.Rec{"status": "success", "value": []any{fuzzgen.Rec{"type": "text", "text": g.Canary("result")}}}
				if g.C.OneIn(4) {
					res = fuzzgen.Rec{"status": "error", "error": g.Canary("error")}
				}
				results = append(results, fuzzgen.Rec{"type": "toolResponse", "id": g.Earlier("toolu_"), "toolResult": res})
			}
			msg("assistant", content)
			if len(results) > 0 {
				msg("user", results)
			}
		}
		switch g.C.Intn(8) {
		case 0:
			msg("assistant", []any{fuzzgen.Rec{"type": "conversationCompacted", "msg": g.Canary("compacted")}})
		case 1:
			msg("user", []any{fuzzgen.Rec{"type": "summarizationRequested", "msg": g.Canary("summarize")}})
		case 2:
			msg("assistant", []any{fuzzgen.Rec{"type": "systemNotification", "notificationType": "inlineMessage", "msg": g.Canary("note")}})
		case 3:
			msg("assistant", []any{fuzzgen.Rec{"type": "toolConfirmationRequest", "id": g.Earlier("toolu_"), "toolName": g.Canary("confirm"),
				"arguments": fuzzgen.Rec{"x": g.Canary("arg")}, "prompt": g.Canary("ask")}})
		case 4:
			msg(fuzzgen.Pick(g.C, "system", g.Canary("role")), []any{fuzzgen.Rec{"type": "text", "text": g.Canary("other")}})
		}
	}
	g.Log.Files[g.Log.Main] = g.Encode(g.Perturb(recs))
	return g.Log
}

// gooseSession is the session row as the store writes it: the columns read,
// only those the table has (older schemas lack the model and the
// accumulated counts), model_config_json parsed into model_config.
func gooseSession(g *fuzzgen.Gen, k *fuzzgen.Clock, id string) fuzzgen.Rec {
	s := fuzzgen.Rec{"id": id, "working_dir": g.Raw("/Users/gus/src/proj"), "created_at": k.Next(), "updated_at": k.Next()}
	if g.C.OneIn(3) {
		s["created_at"] = "2026-11-20 10:00:00" // SQLite's own datetime layout
	}
	if !g.C.OneIn(4) {
		s["session_type"] = fuzzgen.Pick(g.C, "user", "sub_agent", "scheduled", "hidden")
		s["schedule_id"] = nil
	}
	if !g.C.OneIn(4) {
		s["provider_name"] = fuzzgen.Pick(g.C, "anthropic", "openai", "ollama")
		s["model_config"] = fuzzgen.Rec{"model_name": fuzzgen.Pick(g.C, "claude-sonnet-4-5", "gpt-5", "custom:"+g.Canary("model")),
			"context_limit": 200000, "temperature": nil}
	}
	in, out := g.C.Intn(9000), g.C.Intn(3000)
	s["input_tokens"], s["output_tokens"], s["total_tokens"] = in, out, in+out+g.C.Intn(500)
	if !g.C.OneIn(3) {
		in, out = in+g.C.Intn(90000), out+g.C.Intn(9000)
		s["accumulated_input_tokens"], s["accumulated_output_tokens"], s["accumulated_total_tokens"] = in, out, in+out+g.C.Intn(2000)
	}
	if g.C.OneIn(6) { // NULL counts in a fresh session
		s["input_tokens"], s["output_tokens"], s["total_tokens"] = nil, nil, nil
	}
	if g.C.OneIn(5) {
		g.MutateField(s, 0)
	}
	return s
}

// gooseTool is a tool request's name and arguments: the developer
// extension's tools, another extension's, a platform tool, or a name of
// the user's own.
func gooseTool(g *fuzzgen.Gen) (string, fuzzgen.Rec) {
	switch g.C.Intn(5) {
	case 0:
		return "platform__manage_extensions", fuzzgen.Rec{"action": "enable", "extension_name": g.Canary("ext")}
	case 1:
		return g.Canary("ext") + "__" + g.Canary("tool"), fuzzgen.Rec{"q": g.Canary("q")}
	case 2:
		return g.Canary("tool"), fuzzgen.Rec{"x": g.Canary("arg")}
	case 3:
		return "developer__text_editor", fuzzgen.Rec{"command": "view", "path": g.Raw("/Users/gus/src/proj/main.go")}
	}
	return fuzzgen.Pick(g.C, "developer__shell", "computercontroller__web_scrape", "memory__remember_memory"), fuzzgen.Rec{"command": g.Canary("cmd")}
}
