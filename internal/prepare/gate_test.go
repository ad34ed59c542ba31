package prepare

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/contextreceipts/convert/internal/gate"
)

func TestAssess(t *testing.T) {
	p := DefaultGatePolicy()
	roomy := BudgetView{MaxBytes: 8000, Unused: 7000}
	tests := []struct {
		name   string
		fams   []GateFamily
		budget BudgetView
		want   Assessment
	}{
		{"no searchable family (profile only)", nil, roomy, Assessment{Sufficient: true, Reason: "no-searchable-family"}},
		{"empty scope is no content", []GateFamily{{Family: FamilyMemory, Ceiling: 16, HasScore: true}}, roomy, Assessment{Sufficient: true, Reason: "no-content"}},
		{"admitted nothing from a retrieved pool", []GateFamily{{Family: FamilyMemory, Retrieved: 40, Ceiling: 16, HasScore: true}}, roomy, Assessment{Sufficient: false, Reason: "thin-candidates"}},
		{"experience has no score: thin by count only", []GateFamily{{Family: FamilyExperience, Retrieved: 5, Admitted: 1, Ceiling: 8}}, roomy, Assessment{Sufficient: false, Reason: "thin-candidates"}},
		{"experience with enough candidates is sufficient", []GateFamily{{Family: FamilyExperience, Retrieved: 5, Admitted: 4, Ceiling: 8}}, roomy, Assessment{Sufficient: true, Reason: "sufficient"}},
		{"weak top-1", []GateFamily{{Family: FamilyMemory, Retrieved: 9, Admitted: 5, Ceiling: 16, Top1: 0.2, HasScore: true}}, roomy, Assessment{Sufficient: false, Reason: "weak-top-1"}},
		{"family at its ceiling", []GateFamily{{Family: FamilyTopic, Retrieved: 30, Admitted: 8, Ceiling: 8, Top1: 0.1, HasScore: true}}, roomy, Assessment{Sufficient: true, Reason: "saturated"}},
		{"budget-bound at 512 bytes", []GateFamily{{Family: FamilyMemory, Retrieved: 3, Admitted: 1, Ceiling: 16, HasScore: true}}, BudgetView{MaxBytes: 512, Delivered: 1, Unused: 20}, Assessment{Sufficient: true, Reason: "budget-bound"}},
		{"whole-item drops are budget-bound", []GateFamily{{Family: FamilyMemory, Retrieved: 3, Admitted: 1, Ceiling: 16, HasScore: true}}, BudgetView{MaxBytes: 8000, Unused: 4000, Dropped: 1}, Assessment{Sufficient: true, Reason: "budget-bound"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Assess(tt.fams, tt.budget, p); got.Sufficient != tt.want.Sufficient || got.Reason != tt.want.Reason {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	p := DefaultGatePolicy()
	if f := Expand(0, p); f.Action != "" || f.Relax != 0 || f.MinSimilarity != 0.3 {
		t.Fatalf("round 0 must be today's floor: %+v", f)
	}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	f1, f2 := Expand(1, p), Expand(2, p)
	if f1.Action != "admission" || f2.Action != "policy-floor" || !(f2.Relax > f1.Relax && f1.Relax > 0) || !(f2.MinSimilarity < f1.MinSimilarity && f1.MinSimilarity < 0.3) {
		t.Fatalf("floors must fall: %+v %+v", f1, f2)
	}
}

func memCands(scope string, ids ...int) []Candidate {
	var out []Candidate
	for _, i := range ids {
		out = append(out, Candidate{Addr: Address{scope, FamilyMemory, fmt.Sprint("m", i), 1}, EntryID: "e1", EntryVersionID: "e1.v1", Body: "CANARY"})
	}
	return out
}

func TestMergeKeepsCeilingAndPrefix(t *testing.T) {
	r0, r1 := pools{}, pools{}
	var a, b []int
	for i := range 16 {
		a = append(a, i)
		b = append(b, i+1) // differs by one candidate
	}
	r0.add(FamilyMemory, scopeA, memCands(scopeA, a...))
	r1.add(FamilyMemory, scopeA, memCands(scopeA, b...))
	added := fresh([]pools{r0}, r1)
	if len(r0[FamilyMemory][scopeA])+len(added[FamilyMemory][scopeA]) != 17 {
		t.Fatalf("union %d", len(added[FamilyMemory][scopeA]))
	}
	final := allocate([]pools{r0, added}, []string{scopeA})
	if len(final.cands[FamilyMemory]) != MemoryCandidateLimit || final.clamped[FamilyMemory] != 1 {
		t.Fatalf("reselect must clamp to the ceiling: %d dropped %d", len(final.cands[FamilyMemory]), final.clamped[FamilyMemory])
	}
	if !slices.EqualFunc(final.cands[FamilyMemory], r0[FamilyMemory][scopeA], func(x, y Candidate) bool { return x.key() == y.key() }) {
		t.Fatal("round 0 must stay the prefix; only later candidates are cut")
	}
	// Round robin across scope groups keeps every family at its ceiling.
	two := pools{}
	two.add(FamilyMemory, scopeA, memCands(scopeA, a...))
	two.add(FamilyMemory, scopeB, memCands(scopeB, a...))
	f2 := allocate([]pools{two}, []string{scopeA, scopeB}).cands
	if len(f2[FamilyMemory]) != 16 || f2[FamilyMemory][1].Addr.ScopeID != scopeB {
		t.Fatal("allocator must round-robin scopes up to the ceiling")
	}
}

// gateStore: one strong memory entry (all six query terms), weak ones with
// two terms (admitted in round 1) and one term (admitted in round 2).
func gateStore(t *testing.T, weak2, weak1 int) *Store {
	entries := []string{body(120, "alpha", "bravo", "charlie", "delta", "echo", "foxtrot")}
	for i := range weak2 {
		entries = append(entries, body(120, "alpha", "bravo", fmt.Sprint("w2x", i)))
	}
	for i := range weak1 {
		entries = append(entries, body(120, "alpha", fmt.Sprint("w1x", i)))
	}
	return openWith(t, mem(scopeA, "m", 1, entries...), art(FamilyProfile, scopeA, "p", 1, body(80, "team")))
}

const gateQuery = "alpha bravo charlie delta echo foxtrot"

func TestGateRounds(t *testing.T) {
	tests := []struct {
		name       string
		weak2      int
		weak1      int
		sections   string
		rounds     int
		actions    []string
		byRound    []int
		assessment string
	}{
		{"one committed expansion makes it sufficient", 3, 0, "memory", 2, []string{"admission"}, []int{1, 4}, "sufficient"},
		{"second insufficient round stops after two", 0, 1, "memory", 3, []string{"admission", "policy-floor"}, []int{1, 1, 2}, "thin-candidates"},
		{"no new identity leaves candidates flat", 0, 0, "memory", 3, []string{"admission", "policy-floor"}, []int{1, 1, 1}, "thin-candidates"},
		{"profile-only request never expands", 0, 0, "profile", 1, []string{}, []int{1}, "no-searchable-family"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := gateStore(t, tt.weak2, tt.weak1)
			secs, _ := ParseSections(tt.sections)
			var sunk []RecallEffort
			g := DefaultGatePolicy()
			req := Request{ScopeIDs: []string{scopeA}, Query: gateQuery, IncludeReceipt: true, Sections: secs}
			res := doPrepare(t, st, Options{Gate: &g, EffortSink: func(e RecallEffort) error { sunk = append(sunk, e); return nil }}, req)
			out := render(t, st, res, req)
			e := res.Effort
			if e.Rounds != tt.rounds || !slices.Equal(e.ExpansionActions, tt.actions) || !slices.Equal(e.CandidatesByRound, tt.byRound) || e.Assessment != tt.assessment {
				t.Fatalf("effort %+v", e)
			}
			if len(sunk) != 1 || sunk[0].Rounds != e.Rounds || len(out.Effort) == 0 {
				t.Fatal("the sink gets the effort once")
			}
			if err := gate.ValidateDocument(out.Effort); err != nil {
				t.Fatal(err)
			}
			for _, s := range res.Context.Receipt.Retrieval.Searches {
				if !slices.ContainsFunc(secs, func(x Section) bool { return x.Family == s.Family }) {
					t.Fatalf("family %s searched but not selected", s.Family)
				}
			}
			if res.Context.ContentBytes > req.MaxBytes && req.MaxBytes > 0 || res.Context.ContentBytes > DefaultMaxBytes {
				t.Fatal("over budget")
			}
			// Round 0's candidates are never displaced.
			plain := doPrepare(t, st, Options{}, req)
			for i, s := range plain.Context.Receipt.Selected {
				if got := res.Context.Receipt.Selected[i]; *got.ArtifactAddress != *s.ArtifactAddress || got.EntryID != s.EntryID {
					t.Fatalf("round-0 item %d displaced", i)
				}
			}
			if len(e.AdmissionByFamily) == 0 && tt.sections != "profile" {
				t.Fatal("admission counts must be reported")
			}
		})
	}
}

func TestGateOffIsByteIdentical(t *testing.T) {
	for _, tt := range []struct {
		name  string
		st    func(t *testing.T) *Store
		query string
	}{
		{"sufficient round 0", func(t *testing.T) *Store { return mixedStore(t, 0) }, "ledger"},
		{"empty scope never expands", func(t *testing.T) *Store { return openWith(t, art(FamilyProfile, scopeB, "p", 1, body(80, "x"))) }, gateQuery},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := tt.st(t)
			req := Request{ScopeIDs: []string{scopeA}, Query: tt.query}
			off := render(t, st, doPrepare(t, st, Options{}, req), req)
			g := DefaultGatePolicy()
			on := doPrepare(t, st, Options{Gate: &g}, req)
			if on.Effort.Rounds != 1 {
				t.Fatalf("must not expand: %+v", on.Effort)
			}
			if b := render(t, st, on, req); !bytes.Equal(off.Context, b.Context) {
				t.Fatalf("gate changed a non-expanded result:\n%s\n%s", off.Context, b.Context)
			}
		})
	}
}

func TestSaturatedFamilyGetsNothingLater(t *testing.T) {
	var entries []string
	for i := range 20 {
		entries = append(entries, body(60, "alpha", "bravo", "charlie", fmt.Sprint("s", i)))
	}
	st := openWith(t, mem(scopeA, "m", 1, entries...), art(FamilyTopic, scopeA, "t", 1, body(60, "alpha")))
	g := DefaultGatePolicy()
	g.ID, g.MinCandidates = "test.always-thin.v1", 99
	var calls []string
	req := Request{ScopeIDs: []string{scopeA}, Query: gateQuery, MaxBytes: 32768, Sections: []Section{{FamilyMemory, 8}, {FamilyTopic, 8}}, IncludeReceipt: true}
	res := doPrepare(t, st, Options{Gate: &g, searchFault: func(round int, fam, scope string) error {
		calls = append(calls, fmt.Sprint(round, fam))
		return nil
	}}, req)
	for _, c := range calls {
		if c == "1"+FamilyMemory || c == "2"+FamilyMemory {
			t.Fatalf("saturated memory searched again: %v", calls)
		}
	}
	if res.Effort.Rounds != 3 || res.Effort.CandidatesByRound[0] != 16 {
		t.Fatalf("effort %+v", res.Effort)
	}
}

func TestFailedRoundDiscardsStage(t *testing.T) {
	st := openWith(t, mem(scopeA, "m", 1, body(100, "alpha", "bravo", "charlie"), body(100, "alpha", "bravo", "w")),
		mem(scopeB, "m", 1, body(100, "alpha", "bravo", "charlie"), body(100, "alpha", "bravo", "v")))
	g := DefaultGatePolicy()
	req := Request{ScopeIDs: []string{scopeA, scopeB}, Query: gateQuery, IncludeReceipt: true}
	res := doPrepare(t, st, Options{Gate: &g, searchFault: func(round int, fam, scope string) error {
		if round == 1 && scope == scopeB && fam == FamilyMemory {
			return errors.New("backend down")
		}
		return nil
	}}, req)
	plain := doPrepare(t, st, Options{}, req)
	if *res.Context.Content != *plain.Context.Content || res.Effort.Rounds != 2 || len(res.Effort.ExpansionActions) != 0 {
		t.Fatalf("a failed round must leave the committed result: %+v", res.Effort)
	}
	if ok := doPrepare(t, st, Options{Gate: &g}, req); *ok.Context.Content == *plain.Context.Content {
		t.Fatal("fixture: without the fault the expansion must change the result")
	}
}

func TestGateSkipsExpansionThatWouldPayRerankCalls(t *testing.T) {
	st := gateStore(t, 3, 0)
	rr := &fakeReranker{res: func(c []Candidate) RerankResult {
		return RerankResult{Order: identity(len(c)), Outcome: RerankSelected, FallbackReason: FallbackNone, Evidence: modelEvidence("acme:r", 0, scopeA, "p")}
	}}
	req := Request{ScopeIDs: []string{scopeA}, Query: gateQuery, Sections: []Section{{FamilyMemory, 8}}}
	for _, allow := range []bool{false, true} {
		g := DefaultGatePolicy()
		g.AllowRerankCalls = allow
		if allow {
			g.ID = "test.pays-rerank.v1"
		}
		rr.calls = 0
		e := doPrepare(t, st, Options{Gate: &g, Reranker: rr}, req).Effort
		if allow && (e.Rounds != 2 || e.AddedGenerationCalls != 1 || rr.calls != 2) {
			t.Fatalf("allowed: %+v (%d calls)", e, rr.calls)
		}
		if !allow && (e.Rounds != 1 || e.Assessment != "rerank-calls-not-allowed" || rr.calls != 1) {
			t.Fatalf("not allowed: %+v", e)
		}
	}
}
