package fuzzgen

import (
	"strings"

	"github.com/contextreceipts/convert/internal/leak"
)

// Grammar is what a scenario converter reads: its record types (from the
// converter registry), the fields holding the type and the time, and the
// bundled samples' record sequences, from which a log's records are built.
type Grammar struct {
	Name        string
	TypeField   string
	TimeField   string
	Types       []string
	Sequences   [][]Rec    // each sample file's records, in order; a good one first
	PassThrough leak.Paths // fields whose values are not raw
}

// Scenario builds a scenario event log from g: one sample's sequence of
// moves as the skeleton (so the converter's invariants can hold), with
// records left out, repeated, replaced by another example of their type or
// by a record of another type, fields exchanged between examples of a
// type, raw string slots given canaries (the same canary for the same
// original value, so equalities the invariants check survive), and then
// perturbed like every generated log.
func Scenario(gr Grammar, data []byte) *Log {
	g := NewGen(NewChoices(data), gr.Name)
	g.Log.Main = gr.Name + ".jsonl"
	byType := map[string][]Rec{}
	var types []string
	for _, seq := range gr.Sequences {
		for _, r := range seq {
			if t, ok := r[gr.TypeField].(string); ok {
				if len(byType[t]) == 0 {
					types = append(types, t)
				}
				byType[t] = append(byType[t], r)
			}
		}
	}
	if len(gr.Sequences) == 0 || len(types) == 0 {
		g.Log.Files[g.Log.Main] = nil
		return g.Log
	}
	seq := gr.Sequences[0] // the good sample, mostly
	if g.C.OneIn(3) {
		seq = gr.Sequences[g.C.Intn(len(gr.Sequences))]
	}
	var recs []Rec
	for _, ex := range seq {
		r := clone(ex)
		switch g.C.Intn(32) {
		case 0: // left out
			continue
		case 1: // repeated
			recs = append(recs, g.canaries(clone(ex), "", gr).(Rec))
		case 2: // another record of any type first
			t := types[g.C.Intn(len(types))]
			recs = append(recs, g.canaries(clone(byType[t][g.C.Intn(len(byType[t]))]), "", gr).(Rec))
		case 3: // another example of its type, or one field of it
			if t, ok := r[gr.TypeField].(string); ok {
				other := byType[t][g.C.Intn(len(byType[t]))]
				if g.C.OneIn(2) {
					r = clone(other)
				} else if keys := sortedKeys(other); len(keys) > 0 {
					k := keys[g.C.Intn(len(keys))]
					r[k] = clone(Rec{"v": other[k]})["v"]
				}
			}
		}
		recs = append(recs, g.canaries(r, "", gr).(Rec))
	}
	g.Log.Files[g.Log.Main] = g.Encode(g.Perturb(recs))
	return g.Log
}

// canaries replaces the raw string leaves of v (those at no pass-through
// path) by canaries, keeping the type field.
func (g *Gen) canaries(v any, path string, gr Grammar) any {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if p == gr.TypeField || p == gr.TimeField {
				continue
			}
			x[k] = g.canaries(x[k], p, gr)
		}
		return x
	case []any:
		for i := range x {
			x[i] = g.canaries(x[i], path+".#", gr)
		}
		return x
	case string:
		if gr.PassThrough[strings.TrimPrefix(path, ".")] != leak.None || x == "" {
			return x
		}
		// The samples hold canaries in their raw slots already; categorical
		// raw values (a role, a policy) mostly stay as they are, or the
		// converter's invariants refuse the log at its first record. Each
		// value is decided once, so equal values stay equal.
		if v, ok := g.canaryOf[x]; ok {
			return v
		}
		if g.C.OneIn(12) {
			return g.Raw(x)
		}
		g.canaryOf[x] = x
		return x
	}
	return v
}
