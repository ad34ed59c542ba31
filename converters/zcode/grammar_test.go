package zcode_test

import (
	"fmt"

	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// grammar builds the lines ZCode's store writes for one session
// (store.go): the session row when the session table has one
// ({"zcode_session": {id, directory, version}}), then the session's
// model_usage rows by start and id ({"zcode_model_usage": ...}): turns of
// one or more attempts (completed, error, cancelled), main turns and
// title calls, started_at in Unix milliseconds with completed_at or
// duration_ms, input, output, cache and reasoning tokens and
// computed_total_tokens, and, in older builds, only ccusage's own
// columns. The ledger holds no messages or tool calls: its raw slots are
// the directory and the model, provider and query source names.
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "zcode")
	k := fuzzgen.NewClock(g)
	session := fmt.Sprintf("sess_%012x", 0x7f3a9c2e1b4d+g.C.Intn(4096))
	g.Log.Main = "sessions/" + session + ".jsonl"
	var recs []fuzzgen.Rec
	if !g.C.OneIn(5) { // a usage row whose session has no row of its own
		s := fuzzgen.Rec{"id": session, "directory": g.Raw("/Users/lin/src/app")}
		if !g.C.OneIn(3) {
			s["version"] = fuzzgen.Pick(g.C, 1, 2)
		}
		recs = append(recs, fuzzgen.Rec{"zcode_session": s})
	}
	full := !g.C.OneIn(4) // a build that writes more than ccusage's columns
	row := 0
	for turns := 1 + g.C.Intn(4); turns > 0; turns-- {
		turn := g.ID("turn_")
		source := fuzzgen.Pick(g.C, "main_turn", "main_turn", "title", g.Canary("source"))
		for attempt, n := 0, 1+g.C.Intn(3); attempt < n; attempt++ {
			row++
			recs = append(recs, fuzzgen.Rec{"zcode_model_usage": zcodeUsage(g, k, session, row, turn, source, attempt, full)})
		}
	}
	g.Log.Files[g.Log.Main] = g.Encode(g.Perturb(recs))
	return g.Log
}

// zcodeUsage is one model_usage row: one model call of a turn's attempt.
func zcodeUsage(g *fuzzgen.Gen, k *fuzzgen.Clock, session string, row int, turn, source string, attempt int, full bool) fuzzgen.Rec {
	start := k.EpochMs()
	in := g.C.Intn(90000)
	cr, cw := g.C.Intn(in+1), g.C.Intn(5000)
	u := fuzzgen.Rec{"id": fmt.Sprintf("mu_%02da2b3c4d5e6", row), "session_id": session, "started_at": start,
		"model_id":     fuzzgen.Pick(g.C, "glm-4.6", "glm-4.5-air", "glm-4.6", "custom:"+g.Canary("model")),
		"status":       fuzzgen.Pick(g.C, "completed", "completed", "completed", "error", "cancelled", g.Canary("status")),
		"input_tokens": in, "output_tokens": g.C.Intn(9000)}
	if g.C.OneIn(8) {
		delete(u, "model_id") // a row without a model is not counted
	}
	if g.C.OneIn(3) {
		u["cache_read_input_tokens"], u["cache_creation_input_tokens"] = cr, cw
		u["computed_total_tokens"] = in + u["output_tokens"].(int) + g.C.Intn(2000)
	}
	if g.C.OneIn(3) {
		u["provider_id"] = fuzzgen.Pick(g.C, "builtin:zai-coding-plan", "builtin:bigmodel-coding-plan", "zai", g.Canary("provider"))
	}
	if full {
		u["turn_id"], u["attempt_index"], u["query_source"] = turn, attempt, source
		u["reasoning_tokens"] = g.C.Intn(3000)
		u["time_to_first_token_ms"] = g.C.Intn(2000)
		switch g.C.Intn(3) {
		case 0:
			u["completed_at"] = start + int64(g.C.Intn(20000))
		case 1:
			u["duration_ms"] = g.C.Intn(20000)
		}
	}
	if g.C.OneIn(6) {
		g.MutateField(u, 0)
	}
	return u
}
