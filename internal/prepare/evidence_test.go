package prepare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestSearchEvidence(t *testing.T) {
	recs := []rec{
		mem(scopeA, "m", 1, body(100, "ledger", "alpha")),
		mem(scopeB, "m", 1, body(100, "ledger", "beta")),
	}
	timeoutOn := func(n int) func(int) error {
		return func(call int) error {
			if call == n {
				return fmt.Errorf("embed: %w", ErrInferenceTimeout)
			}
			return nil
		}
	}
	g := DefaultGatePolicy()
	g.ID, g.MinCandidates = "test.always-thin.v1", 99 // always thin: forces expansion rounds
	tests := []struct {
		name     string
		opt      func() Options
		sections string
		want     []SearchGroup
		rounds   []RecallRound
	}{
		{name: "memory selector is atomic-memory, text mode is fts", opt: func() Options { return Options{} }, sections: "memory",
			want: []SearchGroup{{0, FamilyMemory, ModeFTS, OutcomeCompleted, FallbackNone, 2}}},
		{name: "hybrid and fts fallback in two scopes in one round", opt: func() Options { return Options{Embedder: &countingEmbedder{fail: timeoutOn(2)}} }, sections: "memory",
			want: []SearchGroup{{0, FamilyMemory, ModeFTS, OutcomeCompleted, FallbackTimeout, 1}, {0, FamilyMemory, ModeHybrid, OutcomeCompleted, FallbackNone, 1}}},
		{name: "a scope without a vector deployment uses fts normally", opt: func() Options {
			return Options{Embedder: HashEmbedder{}, VectorScopes: map[string]bool{scopeA: true}}
		}, sections: "memory",
			want: []SearchGroup{{0, FamilyMemory, ModeFTS, OutcomeCompleted, FallbackNone, 1}, {0, FamilyMemory, ModeHybrid, OutcomeCompleted, FallbackNone, 1}}},
		{name: "inference unavailable", opt: func() Options {
			return Options{Embedder: &countingEmbedder{fail: func(int) error { return errors.New("no model") }}}
		}, sections: "memory",
			want: []SearchGroup{{0, FamilyMemory, ModeFTS, OutcomeCompleted, FallbackUnavailable, 2}}},
		{name: "zero-hit completed versus not-run", opt: func() Options { return Options{NoReader: map[string]bool{FamilyExperience: true}} }, sections: "topic-memory,experience",
			want: []SearchGroup{{0, FamilyTopic, ModeFTS, OutcomeCompleted, FallbackNone, 1}, {0, FamilyExperience, ModeNone, OutcomeNotRun, FallbackNone, 2}}},
		{name: "later rounds reuse the fts fallback", opt: func() Options {
			return Options{Embedder: &countingEmbedder{fail: timeoutOn(1)}, Gate: &g}
		}, sections: "memory",
			want: []SearchGroup{
				{0, FamilyMemory, ModeFTS, OutcomeCompleted, FallbackTimeout, 1}, {0, FamilyMemory, ModeHybrid, OutcomeCompleted, FallbackNone, 1},
				{1, FamilyMemory, ModeFTS, OutcomeCompleted, FallbackReusedFTS, 1}, {1, FamilyMemory, ModeHybrid, OutcomeCompleted, FallbackNone, 1},
				{2, FamilyMemory, ModeFTS, OutcomeCompleted, FallbackReusedFTS, 1}, {2, FamilyMemory, ModeHybrid, OutcomeCompleted, FallbackNone, 1}},
			// Both expansions found only round 0's entries again: completed,
			// but they contribute nothing, so they are not retained.
			rounds: []RecallRound{{0, RoundCompleted, true}, {1, RoundCompleted, false}, {2, RoundCompleted, false}}},
		{name: "failed expansion keeps round zero only", opt: func() Options {
			return Options{Gate: &g, searchFault: func(round int, fam, scope string) error {
				if round == 1 && scope == scopeB {
					return errors.New("backend down")
				}
				return nil
			}}
		}, sections: "memory",
			want:   []SearchGroup{{0, FamilyMemory, ModeFTS, OutcomeCompleted, FallbackNone, 2}, {1, FamilyMemory, ModeFTS, OutcomeCompleted, FallbackNone, 1}, {1, FamilyMemory, ModeFTS, OutcomeFailed, FallbackNone, 1}},
			rounds: []RecallRound{{0, RoundCompleted, true}, {1, RoundExpansionFailed, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := openWith(t, recs...)
			secs, _ := ParseSections(tt.sections)
			req := Request{ScopeIDs: []string{scopeA, scopeB}, Query: "ledger", IncludeReceipt: true, Sections: secs}
			res := doPrepare(t, st, tt.opt(), req)
			render(t, st, res, req)
			r := res.Context.Receipt
			if r == nil {
				t.Fatalf("no receipt: %s", res.Diagnostic)
			}
			if !slices.Equal(r.Retrieval.Searches, tt.want) {
				t.Fatalf("searches\n got %+v\nwant %+v", r.Retrieval.Searches, tt.want)
			}
			if tt.rounds == nil {
				tt.rounds = []RecallRound{{0, RoundCompleted, true}}
			}
			if !slices.Equal(r.Retrieval.Rounds, tt.rounds) {
				t.Fatalf("rounds %+v, want %+v", r.Retrieval.Rounds, tt.rounds)
			}
			if strings.Contains(tt.name, "zero-hit") {
				if omitted(r, FamilyTopic, OmitNotRetrieved) != 1 || omitted(r, FamilyExperience, OmitNotRetrieved) != 1 {
					t.Fatalf("empty-set flags: %+v", r.Omitted)
				}
			}
			if strings.Contains(tt.name, "failed expansion") {
				plain := doPrepare(t, st, Options{}, req)
				if !reflect.DeepEqual(plain.Context.Receipt.Selected, r.Selected) || *plain.Context.Content != *res.Context.Content {
					t.Fatal("a failed expansion must return the round-zero result")
				}
				if !slices.Equal(plain.Context.Receipt.Omitted, r.Omitted) {
					t.Fatalf("abandoned round counted: %+v vs %+v", r.Omitted, plain.Context.Receipt.Omitted)
				}
			}
		})
	}
}

// scopedReranker declares per-scope evidence.
type scopedReranker struct {
	ev    map[string]*RerankEvidence
	calls int
}

func (s *scopedReranker) ModelBacked() bool { return true }

func (s *scopedReranker) Rerank(_ context.Context, _ string, c []Candidate) RerankResult {
	s.calls++
	return RerankResult{Order: identity(len(c)), Outcome: RerankSelected, FallbackReason: FallbackNone, Evidence: s.ev[c[0].Addr.ScopeID]}
}

func TestRerankConfigs(t *testing.T) {
	st := openWith(t, mem(scopeA, "m", 1, body(100, "ledger")), mem(scopeB, "m", 1, body(100, "ledger")))
	run := func(ev map[string]*RerankEvidence) Result {
		req := Request{ScopeIDs: []string{scopeA, scopeB}, Query: "ledger", IncludeReceipt: true}
		res := doPrepare(t, st, Options{Reranker: &scopedReranker{ev: ev}}, req)
		render(t, st, res, req)
		return res
	}
	same := modelEvidence("acme:rerank-1", 0, scopeA, "compiled-1")
	prompt2 := modelEvidence("acme:rerank-1", 0, scopeB, "compiled-1")
	prompt2.Prompt.Selection, prompt2.Prompt.SelectedVersion = "artifact", 4
	prompt2.Prompt.ArtifactAddress = &Address{scopeB, "prompt", "memory-rerank", 4}
	tests := []struct {
		name    string
		ev      map[string]*RerankEvidence
		configs int
		groups  []int // counts per group
	}{
		{"repeated config is deduplicated", map[string]*RerankEvidence{scopeA: same, scopeB: same}, 1, []int{2}},
		{"inherited model vs separate model and settings", map[string]*RerankEvidence{scopeA: same, scopeB: modelEvidence("acme:rerank-2", 0.2, scopeA, "compiled-1")}, 2, []int{1, 1}},
		{"distinct scope prompts and revisions", map[string]*RerankEvidence{scopeA: same, scopeB: prompt2}, 2, []int{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(tt.ev).Context.Receipt
			if r == nil || len(r.Retrieval.RerankConfigs) != tt.configs || len(r.Retrieval.Reranks) != len(tt.groups) {
				t.Fatalf("configs/groups: %+v", r)
			}
			for i, g := range r.Retrieval.Reranks {
				if g.Count != tt.groups[i] {
					t.Fatalf("group %d count %d, want %d", i, g.Count, tt.groups[i])
				}
			}
			if !r.NonDeterministic || !r.Retrieval.RerankConfigs[0].NonDeterministic {
				t.Fatal("a model-backed reranker at temperature zero is non-deterministic")
			}
		})
	}
	t.Run("digest changes with settings and compiled prompt", func(t *testing.T) {
		base, _ := configOf(modelEvidence("acme:r", 0, scopeA, "c1"))
		for name, ev := range map[string]*RerankEvidence{
			"temperature":     modelEvidence("acme:r", 0.5, scopeA, "c1"),
			"compiled prompt": modelEvidence("acme:r", 0, scopeA, "c2"),
			"prompt scope":    modelEvidence("acme:r", 0, scopeB, "c1"),
			"model":           modelEvidence("acme:r2", 0, scopeA, "c1"),
		} {
			c, err := configOf(ev)
			if err != nil || c.ConfigDigest == base.ConfigDigest || c.ConfigID != c.ConfigDigest {
				t.Errorf("%s: digest must change (err %v)", name, err)
			}
		}
		again, _ := configOf(modelEvidence("acme:r", 0, scopeA, "c1"))
		if again.ConfigDigest != base.ConfigDigest {
			t.Error("the digest must be stable")
		}
	})
	t.Run("missing evidence fails open", func(t *testing.T) {
		bad := map[string]func(e *RerankEvidence){
			"none":                  nil,
			"undeclared":            func(e *RerankEvidence) { e.Declared = false },
			"model without prompt":  func(e *RerankEvidence) { e.Prompt = nil },
			"model without name":    func(e *RerankEvidence) { e.Model = nil },
			"setting not allowed":   func(e *RerankEvidence) { e.Settings["api_key"] = "x" },
			"setting wrong type":    func(e *RerankEvidence) { e.Settings["temperature"] = "0" },
			"deterministic unnamed": func(e *RerankEvidence) { e.ModelBacked, e.Model, e.Prompt = false, nil, nil },
		}
		plain := doPrepare(t, st, Options{}, Request{ScopeIDs: []string{scopeA, scopeB}, Query: "ledger"})
		for name, mut := range bad {
			var ev *RerankEvidence
			if mut != nil {
				ev = modelEvidence("acme:r", 0, scopeA, "c1")
				mut(ev)
			}
			res := run(map[string]*RerankEvidence{scopeA: ev, scopeB: same})
			if res.Context.Receipt != nil || res.Diagnostic == "" {
				t.Errorf("%s: want the receipt dropped with a diagnostic", name)
			}
			if *res.Context.Content != *plain.Context.Content {
				t.Errorf("%s: injection changed", name)
			}
		}
	})
}

func TestBudgetDrops(t *testing.T) {
	st := openWith(t,
		mem(scopeA, "m", 1, body(400, "ledger")),
		art(FamilyTopic, scopeA, "t", 1, body(50, "ledger")),
		art(FamilyExperience, scopeA, "x", 1, body(300, "ledger")),
	)
	g := DefaultGatePolicy()
	req := Request{ScopeIDs: []string{scopeA}, Query: "ledger", MaxBytes: 512, IncludeReceipt: true}
	res := doPrepare(t, st, Options{Gate: &g}, req)
	render(t, st, res, req)
	r, e := res.Context.Receipt, res.Effort
	if omitted(r, FamilyTopic, OmitBelowMinBytes) != 1 || omitted(r, FamilyExperience, OmitNoFittingTruncation) != 1 {
		t.Fatalf("drops: %+v", r.Omitted)
	}
	if omitted(r, FamilyTopic, OmitNotRetrieved) != 0 || omitted(r, FamilyExperience, OmitNotRetrieved) != 0 || omitted(r, FamilyProfile, OmitNotRetrieved) != 1 {
		t.Fatalf("not_retrieved is absent for a family whose candidates were all dropped: %+v", r.Omitted)
	}
	if e.DroppedBelowMinBytes != 1 || e.DroppedNoFittingTruncation != 1 || e.DroppedItems != 2 || e.Assessment != "budget-bound" || e.Rounds != 1 {
		t.Fatalf("effort: %+v", e)
	}
	if res.Context.ContentBytes > 512 {
		t.Fatal("over budget")
	}
}

func TestCountCaps(t *testing.T) {
	ok := func() *Receipt {
		return &Receipt{Schema: ReceiptSchema, Selected: []SelectedItem{}, Omitted: []OmittedGroup{}, Stages: []StageTiming{}}
	}
	cfg := func(i int) RerankConfig {
		d := digest([]byte{byte(i)})
		return RerankConfig{ConfigID: d, ConfigDigest: d}
	}
	tests := []struct {
		name string
		max  int
		grow func(r *Receipt, i int)
	}{
		{"rounds", MaxRounds, func(r *Receipt, i int) { r.Retrieval.Rounds = append(r.Retrieval.Rounds, RecallRound{Round: i}) }},
		{"searches", MaxSearchGroups, func(r *Receipt, i int) { r.Retrieval.Searches = append(r.Retrieval.Searches, SearchGroup{Count: 1}) }},
		{"rerank_configs", MaxRerankConfigs, func(r *Receipt, i int) { r.Retrieval.RerankConfigs = append(r.Retrieval.RerankConfigs, cfg(i)) }},
		{"reranks", MaxRerankGroups, func(r *Receipt, i int) {
			if i == 0 {
				r.Retrieval.RerankConfigs = []RerankConfig{cfg(0)}
			}
			r.Retrieval.Reranks = append(r.Retrieval.Reranks, RerankGroup{ConfigID: cfg(0).ConfigID, Count: 1})
		}},
		{"selected", MaxSelected, func(r *Receipt, i int) {
			r.Selected = append(r.Selected, SelectedItem{ArtifactAddress: &Address{"s", FamilyMemory, "a", 1}, RenderedBytes: 1})
		}},
		{"omitted", MaxOmitted, func(r *Receipt, i int) { r.Omitted = append(r.Omitted, OmittedGroup{Count: 1}) }},
		{"stages", MaxStages, func(r *Receipt, i int) { r.Stages = append(r.Stages, StageTiming{Count: 1}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ok()
			for i := range tt.max {
				tt.grow(r, i)
			}
			if err := CheckCaps(r); err != nil {
				t.Fatalf("at the cap: %v", err)
			}
			tt.grow(r, tt.max)
			if err := CheckCaps(r); !errors.Is(err, ErrCap) || !strings.Contains(err.Error(), tt.name) {
				t.Fatalf("over the cap: %v", err)
			}
		})
	}
	t.Run("rerank group without config", func(t *testing.T) {
		r := ok()
		r.Retrieval.Reranks = []RerankGroup{{ConfigID: cfg(1).ConfigID, Count: 1}}
		if !errors.Is(CheckCaps(r), ErrRefs) {
			t.Fatal("want ErrRefs")
		}
	})
}

// TestPayloadSizes measures serialized receipts for representative mixed
// family, cross-scope, reranked workloads with real identity lengths (UUID
// artifact, entry and version ids, a 40-hex fingerprint, ordinary paths) and
// pins the sizes docs/usage.md quotes. The cap was revised from seed 000's
// 8192 bytes because the explicit assembly maximum (26 historical + 4 code)
// measures 9,696 bytes with one model rerank config: it never fit.
func TestPayloadSizes(t *testing.T) {
	full := "memory:8,topic-memory:8,profile:8,experience:2,code:4"
	tests := []struct {
		name     string
		sections string // "" is the default assembly
		prompts  int    // distinct rerank Prompts (one per scope)
		gate     bool   // gate on, forced through both expansion rounds
		want     int    // serialized bytes, pinned
	}{
		{"default assembly (8 historical + 4 code)", "", 1, false, 5786},
		{"18 historical + 4 code", "memory:8,topic-memory:8,experience:2,code:4", 1, false, 8117},
		{"26 historical + 4 code", full, 1, false, 9696},
		{"26 historical + 4 code, two Prompts, three rounds", full, 2, true, 10890},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, req := uuidWorkload(t, full)
			if tt.sections == "" {
				req.Sections = nil
			} else {
				req.Sections, _ = ParseSections(tt.sections)
			}
			cur, ref := req.ScopeIDs[0], req.ScopeIDs[1]
			ev := map[string]*RerankEvidence{cur: modelEvidence("acme:rerank-large-2026-09", 0, cur, "c"), ref: modelEvidence("acme:rerank-large-2026-09", 0, cur, "c")}
			if tt.prompts == 2 {
				ev[ref] = modelEvidence("acme:rerank-large-2026-09", 0, ref, "c2")
			}
			opt := Options{Reranker: &scopedReranker{ev: ev}, Embedder: HashEmbedder{}}
			if tt.gate {
				g := DefaultGatePolicy()
				g.ID, g.MinCandidates, g.AllowRerankCalls = "test.always-thin.v1", 99, true
				opt.Gate = &g
			}
			res := doPrepare(t, st, opt, req)
			render(t, st, res, req)
			if res.Context.Receipt == nil {
				t.Fatalf("dropped: %s", res.Diagnostic)
			}
			b, _ := jsonMarshal(res.Context.Receipt)
			t.Logf("%s: %d selected, %d bytes of %d", tt.name, len(res.Context.Receipt.Selected), len(b), ReceiptByteCap)
			if len(b) != tt.want {
				t.Errorf("measured %d bytes, docs/usage.md quotes %d: update both", len(b), tt.want)
			}
		})
	}
	t.Run("128-byte ids overflow and drop the whole receipt", func(t *testing.T) {
		recs, scopes, ev := longIDRecs()
		st := openWith(t, recs...)
		secs, _ := ParseSections(full)
		rr := &scopedReranker{ev: ev}
		req := Request{ScopeIDs: scopes, Query: "ledger team", MaxBytes: MaxMaxBytes, IncludeReceipt: true, Sections: secs}
		res := doPrepare(t, st, Options{Reranker: rr, Embedder: HashEmbedder{}}, req)
		out := render(t, st, res, req)
		req.IncludeReceipt = false
		plain := doPrepare(t, st, Options{Reranker: rr, Embedder: HashEmbedder{}}, req)
		if res.Context.Receipt != nil || !strings.Contains(res.Diagnostic, ErrBytes.Error()) {
			t.Fatalf("want a byte-cap drop, got %q", res.Diagnostic)
		}
		t.Log(res.Diagnostic)
		if !bytes.Equal(out.Context, render(t, st, plain, req).Context) {
			t.Fatal("byte overflow must leave the injection unchanged")
		}
	})
}
