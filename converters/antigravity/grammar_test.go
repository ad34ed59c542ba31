package antigravity_test

import (
	"sort"

	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// grammar builds the lines the store writes of one conversation database
// (store.go, proto.go): the conversation ({id, created}), its steps by idx
// (step type, status, subtrajectory, time, model label, id and provider,
// the response's usage and its retries) and its generations by idx (time,
// model label or id, usage, retries). Usages come in the forms ccusage
// counts: every count zero (no response), a total output below the visible
// output and reasoning or none at all, response, provider and message ids
// (raw) that make a generation's usage a copy of a step's or a retry's,
// larger or smaller. Model labels are Antigravity's own or not a model at
// all (raw).
func grammar(data []byte) *fuzzgen.Log {
	g := fuzzgen.NewGen(fuzzgen.NewChoices(data), "antigravity")
	k := fuzzgen.NewClock(g)
	conv := g.ID("")
	g.Log.Main = "conversations/" + conv + ".jsonl" // the database's name is the conversation's: no canary
	labels := []string{"gemini-3-flash-a", "gemini-3.1-pro-high", "claude-sonnet-4-5", g.Canary("label")}
	var usages []fuzzgen.Rec // the usages so far: a later one may be a copy
	usage := func() fuzzgen.Rec {
		if len(usages) > 0 && g.C.OneIn(3) {
			return agCopy(g, usages[g.C.Intn(len(usages))])
		}
		u := agUsage(g)
		usages = append(usages, u)
		return u
	}
	retries := func() []any {
		var rs []any
		for n := g.C.Intn(4) - 1; n > 0; n-- {
			rs = append(rs, usage())
		}
		return rs
	}
	head := fuzzgen.Rec{"id": fuzzgen.Pick(g.C, conv, conv, conv, "conversation")}
	if !g.C.OneIn(4) {
		head["created"] = k.Next()
	}
	recs := []fuzzgen.Rec{{"antigravity_conversation": head}}
	steps := 1 + g.C.Intn(7)
	if g.C.OneIn(6) {
		steps = 0 // generations only
	}
	for idx := 0; idx < steps; idx++ {
		s := fuzzgen.Rec{"idx": idx, "step_type": fuzzgen.Pick(g.C, 14, 15, 15, 21, 9, 98), "status": fuzzgen.Pick(g.C, 3, 3, 2, 4)}
		if !g.C.OneIn(5) { // the column may be absent
			s["subtrajectory"] = g.C.OneIn(5)
		}
		if !g.C.OneIn(6) {
			s["time"] = k.Next()
		}
		if !g.C.OneIn(2) { // a model response
			s["usage"] = usage()
			if !g.C.OneIn(4) {
				s["model"] = fuzzgen.Pick(g.C, labels...)
			}
			if g.C.OneIn(2) {
				s["model_id"] = 1000 + g.C.Intn(40)
				s["provider"] = fuzzgen.Pick(g.C, 24, 7)
			}
		}
		if rs := retries(); len(rs) > 0 {
			s["retries"] = rs
		}
		recs = append(recs, fuzzgen.Rec{"antigravity_step": s})
	}
	for idx, n := 0, g.C.Intn(5); idx < n; idx++ {
		gen := fuzzgen.Rec{"idx": idx}
		if !g.C.OneIn(4) {
			gen["time"] = k.Next()
		}
		switch g.C.Intn(4) {
		case 0, 1:
			gen["model"] = fuzzgen.Pick(g.C, labels...)
		case 2:
			gen["model_id"] = 1000 + g.C.Intn(40)
		}
		if !g.C.OneIn(5) {
			gen["usage"] = usage()
		}
		if rs := retries(); len(rs) > 0 {
			gen["retries"] = rs
		}
		recs = append(recs, fuzzgen.Rec{"antigravity_generation": gen})
	}
	g.Log.Files[g.Log.Main] = g.Encode(g.Perturb(recs))
	return g.Log
}

// agUsage is a ModelUsage as the store writes it: the six counts always
// (zero when unset), the model id and provider when set, the raw response,
// message and provider's message ids when set.
func agUsage(g *fuzzgen.Gen) fuzzgen.Rec {
	visible, reasoning := g.C.Intn(3000), fuzzgen.Pick(g.C, 0, 0, g.C.Intn(900))
	total := visible + reasoning
	switch g.C.Intn(4) {
	case 0:
		total = 0 // no total: the visible output and reasoning are
	case 1:
		total = g.C.Intn(total + 1) // below its parts
	}
	u := fuzzgen.Rec{"input": g.C.Intn(90000), "total_output": total, "cache_creation": fuzzgen.Pick(g.C, 0, 0, g.C.Intn(900)),
		"cache_read": g.C.Intn(40000), "reasoning": reasoning, "visible_output": visible}
	if g.C.OneIn(8) { // no count at all: no response
		for _, k := range []string{"input", "total_output", "cache_creation", "cache_read", "reasoning", "visible_output"} {
			u[k] = 0
		}
	}
	if g.C.OneIn(3) {
		u["model_id"] = 1000 + g.C.Intn(40)
		u["provider"] = 24
	}
	for i, id := range []string{"response_id", "message_id", "provider_message_id"} {
		if i == 0 && !g.C.OneIn(3) || i > 0 && g.C.OneIn(3) {
			u[id] = g.Canary(id)
		}
	}
	return u
}

// agCopy is another record of the response u: its ids (all or some), its
// counts now larger, now smaller.
func agCopy(g *fuzzgen.Gen, u fuzzgen.Rec) fuzzgen.Rec {
	keys := make([]string, 0, len(u))
	for k := range u {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same choices, the same copy
	c := fuzzgen.Rec{}
	for _, k := range keys {
		v := u[k]
		n, ok := v.(int)
		switch {
		case !ok:
			if g.C.OneIn(4) && len(c) > 0 {
				continue // one id fewer
			}
			c[k] = v
		case g.C.OneIn(3):
			c[k] = n + g.C.Intn(200)
		case g.C.OneIn(3):
			c[k] = n / 2
		default:
			c[k] = n
		}
	}
	return c
}
