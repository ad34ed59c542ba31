package prepare

// The cases of issue #38, each written to fail before its fix: expansion
// only adds (round 0's code keeps its bytes), budget-bound means the
// budget, a policy without expansions still assesses, a policy id names
// its thresholds, round 0's exclusions survive an expansion, admission
// counts use seed 001's family names, the assessment carries its signals,
// empty families are not searched again, a failing sink never blocks the
// injection, and an honest id is not a secret.

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/gate"
)

// codeGateStore: one strong memory entry, weak two-term entries that only
// an expansion admits, a profile, and src/main.go matching the query.
func codeGateStore(t *testing.T, weak, weakBytes int) *Store {
	entries := []string{body(300, "alpha", "bravo", "charlie", "delta", "echo", "foxtrot")}
	for i := range weak {
		entries = append(entries, body(weakBytes, "alpha", "bravo", fmt.Sprint("w2x", i)))
	}
	var code strings.Builder
	code.WriteString("// CANARY alpha bravo charlie delta echo foxtrot\n")
	for i := 0; code.Len() < 700; i++ {
		fmt.Fprintf(&code, "func step%d() { run(%d) } // CANARY\n", i, i)
	}
	return openWith(t, mem(scopeA, "m", 1, entries...), art(FamilyProfile, scopeA, "p", 1, body(80, "team")),
		codeRec(scopeA, "repo-a1", "src/main.go", 1, code.String()))
}

// selectedFull lists a receipt's items with their rendered size and
// truncation: a round-0 item must survive expansion exactly.
func selectedFull(r *Receipt) []string {
	var out []string
	for i, k := range selectedKeys(r) {
		out = append(out, fmt.Sprint(k, " bytes=", r.Selected[i].RenderedBytes, " truncated=", r.Selected[i].Truncated))
	}
	return out
}

// TestExpansionOnlyAdds: every item round 0 selects without the gate is
// selected, byte for byte, with it; memory an expansion admits may only use
// what round 0 left, and never takes a round-0 code item's bytes.
func TestExpansionOnlyAdds(t *testing.T) {
	always := DefaultGatePolicy()
	always.ID, always.MinCandidates = "test.always-expand.v1", 99
	def := DefaultGatePolicy()
	tests := []struct {
		name     string
		sections string // "" is the default family selection
		policy   GatePolicy
		maxBytes int
	}{
		{"explicit sections, default policy", "memory,code", def, 1600},
		{"default sections, default policy", "", def, 1700},
		{"explicit sections, always-expand policy", "memory,profile,code", always, 1700},
		{"default sections, always-expand policy", "", always, 1800},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := codeGateStore(t, 4, 600)
			var secs []Section
			if tt.sections != "" {
				secs, _ = ParseSections(tt.sections)
			}
			req := Request{ScopeIDs: []string{scopeA}, Query: gateQuery, MaxBytes: tt.maxBytes, IncludeReceipt: true, Sections: secs}
			off := doPrepare(t, st, Options{}, req).Context.Receipt
			g := tt.policy
			on := doPrepare(t, st, Options{Gate: &g}, req)
			render(t, st, on, req)
			if len(on.Effort.ExpansionActions) == 0 {
				t.Fatalf("fixture: the gate must commit an expansion: %+v", on.Effort)
			}
			if !slices.ContainsFunc(selectedKeys(off), func(k string) bool { return strings.Contains(k, "src/main.go") }) {
				t.Fatalf("fixture: src/main.go must be selected without the gate: %v", selectedKeys(off))
			}
			got := selectedFull(on.Context.Receipt)
			for _, k := range selectedFull(off) {
				if !slices.Contains(got, k) {
					t.Fatalf("round-0 item displaced or changed by expansion: %s\n off %v\n on  %v", k, selectedFull(off), got)
				}
			}
			if n := omitted(on.Context.Receipt, FamilyCode, OmitNoFittingTruncation); n != 0 {
				t.Fatalf("code dropped as no_fitting_truncation (%d) after expansion", n)
			}
			if len(on.Context.Receipt.Selected) <= len(off.Selected) {
				t.Fatalf("fixture: the expansion must add an item: off %d on %d", len(off.Selected), len(on.Context.Receipt.Selected))
			}
			if on.Context.ContentBytes > req.MaxBytes {
				t.Fatal("over budget")
			}
			// Injection order stays historical items, then code.
			if err := checkReceipt(on.Context.Receipt, fitFor(t, st, on, req)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// fitFor re-checks a receipt's identities against its own content: every
// selected item's fragment appears in the content in receipt order.
func fitFor(t *testing.T, _ *Store, res Result, _ Request) build {
	t.Helper()
	var b build
	for _, s := range res.Context.Receipt.Selected {
		if s.CodeEvidence != nil {
			b.codeOrigins = append(b.codeOrigins, *s.CodeEvidence)
			continue
		}
		b.origins = append(b.origins, selectedKey{*s.ArtifactAddress, s.EntryID, s.EntryVersionID})
	}
	c := *res.Context.Content
	pos := 0
	for _, s := range res.Context.Receipt.Selected {
		var h string
		if s.CodeEvidence != nil {
			h = header(Candidate{Code: s.CodeEvidence})
		} else {
			h = header(Candidate{Addr: *s.ArtifactAddress, EntryID: s.EntryID})
		}
		i := strings.Index(c[pos:], h)
		if i < 0 {
			t.Fatalf("item %q out of injection order", h)
		}
		pos += i + len(h)
	}
	return b
}

// TestBudgetBoundMeansTheBudget: a truncation to the 2,000-byte per-entry
// cap, or a drop that is not the budget's, leaves a roomy budget roomy;
// only budget truncations, budget drops and little unused budget are
// budget-bound.
func TestBudgetBoundMeansTheBudget(t *testing.T) {
	p := DefaultGatePolicy()
	thin := []GateFamily{{Family: FamilyMemory, Retrieved: 3, Admitted: 1, Ceiling: 16, Top1: 1, HasScore: true}}
	for _, tt := range []struct {
		name   string
		budget BudgetView
		want   Assessment
	}{
		{"entry-cap truncation with 30,739 bytes unused", BudgetView{MaxBytes: 32768, Delivered: 1, CapTruncated: 1, Unused: 30739}, Assessment{Reason: "thin-candidates"}},
		{"entry-cap drop with the budget unused", BudgetView{MaxBytes: 32768, CapDropped: 1, Unused: 32768}, Assessment{Reason: "thin-candidates"}},
		{"budget truncation", BudgetView{MaxBytes: 8000, Delivered: 1, Truncated: 1, Unused: 4000}, Assessment{Sufficient: true, Reason: "budget-bound"}},
		{"budget drop", BudgetView{MaxBytes: 8000, Delivered: 1, Dropped: 1, Unused: 4000}, Assessment{Sufficient: true, Reason: "budget-bound"}},
		{"little unused budget", BudgetView{MaxBytes: 512, Delivered: 1, Unused: 20}, Assessment{Sufficient: true, Reason: "budget-bound"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Assess(thin, tt.budget, p)
			if got.Sufficient != tt.want.Sufficient || got.Reason != tt.want.Reason {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	t.Run("end to end: a long entry cut to the cap is not the budget", func(t *testing.T) {
		st := openWith(t, mem(scopeA, "m", 1, body(5000, "alpha", "bravo", "charlie", "delta", "echo", "foxtrot"), body(200, "alpha", "bravo", "x")))
		g := DefaultGatePolicy()
		req := Request{ScopeIDs: []string{scopeA}, Query: gateQuery, MaxBytes: MaxMaxBytes, IncludeReceipt: true, Sections: []Section{{FamilyMemory, 8}}}
		res := doPrepare(t, st, Options{Gate: &g}, req)
		if res.Context.Receipt.Selected[0].Truncated != true || res.Context.ContentBytes > 3000 {
			t.Fatalf("fixture: the long entry must be cut to the cap: %+v", res.Context.Receipt.Selected)
		}
		if res.Effort.Rounds < 2 || res.Effort.ExpansionActions[0] != "admission" {
			t.Fatalf("a thin result with %d of %d bytes unused must expand: %+v", req.MaxBytes-res.Context.ContentBytes, req.MaxBytes, res.Effort)
		}
		if res.Effort.TruncatedItems != 1 {
			t.Fatalf("the cap truncation is still a truncated item: %+v", res.Effort)
		}
	})
}

// TestZeroExpansionPolicy: max_expansions 0 still assesses round 0 and
// yields a valid RecallEffort (never withheld), its assessment in the trace.
func TestZeroExpansionPolicy(t *testing.T) {
	for _, tt := range []struct {
		name, want string
		weak2      int
	}{
		{"thin round 0", "thin-candidates", 0},
		{"sufficient round 0", "sufficient", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := gateStore(t, tt.weak2, 0)
			g := DefaultGatePolicy()
			g.ID, g.MaxExpansions, g.Floors = "test.no-expansion.v1", 0, nil
			if tt.weak2 > 0 {
				g.Floors, g.MinCandidates = nil, 1
			}
			if err := g.Check(); err != nil {
				t.Fatal(err)
			}
			req := Request{ScopeIDs: []string{scopeA}, Query: gateQuery, IncludeReceipt: true, Sections: []Section{{FamilyMemory, 8}}}
			res := doPrepare(t, st, Options{Gate: &g}, req)
			out := render(t, st, res, req)
			if res.Effort.Assessment != tt.want || res.Effort.Rounds != 1 || len(res.Effort.ExpansionActions) != 0 {
				t.Fatalf("effort %+v", res.Effort)
			}
			if len(out.Effort) == 0 || gate.ValidateDocument(out.Effort) != nil || strings.Contains(out.Diagnostic, "recall effort") {
				t.Fatalf("the effort must be valid and written: %q", out.Diagnostic)
			}
			if !strings.Contains(strings.Join(strings.Fields(string(out.Trace)), ""), `"recall.assessment","value":{"stringValue":"`+tt.want+`"`) {
				t.Fatal("the trace must record the assessment")
			}
		})
	}
}

// TestPolicyIdentity: the built-in id names the built-in thresholds only; a
// document reusing it with other thresholds is refused (and then, per
// 001-17, means no expansion). Every policy's digest is recorded.
func TestPolicyIdentity(t *testing.T) {
	builtin, _ := json.Marshal(DefaultGatePolicy())
	tests := []struct {
		name string
		doc  string
		ok   bool
	}{
		{"the built-in thresholds under the built-in id", string(builtin), true},
		{"other thresholds under the built-in id", strings.Replace(string(builtin), `"min_candidates":3`, `"min_candidates":99`, 1), false},
		{"other floors under the built-in id", strings.Replace(string(builtin), `"min_similarity":0.1`, `"min_similarity":0`, 1), false},
		{"other thresholds under their own id", strings.Replace(strings.Replace(string(builtin), `"min_candidates":3`, `"min_candidates":99`, 1), GatePolicyID, "acme.recall-gate.v2", 1), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseGatePolicy([]byte(tt.doc))
			if (err == nil) != tt.ok {
				t.Fatalf("err %v, want ok %v", err, tt.ok)
			}
			if err != nil && !strings.Contains(err.Error(), "built-in") {
				t.Fatalf("the refusal must say why: %v", err)
			}
			if err == nil && !strings.HasPrefix(p.Digest(), "sha256:") {
				t.Fatal("a policy has a digest")
			}
		})
	}
	a, b := DefaultGatePolicy(), DefaultGatePolicy()
	b.ID = "acme.recall-gate.v2"
	c := b
	c.MinCandidates = 99
	if a.Digest() == b.Digest() || b.Digest() == c.Digest() || a.Digest() != DefaultGatePolicy().Digest() {
		t.Fatal("the digest must cover the id and every threshold")
	}
	st := gateStore(t, 3, 0)
	req := Request{ScopeIDs: []string{scopeA}, Query: gateQuery, Sections: []Section{{FamilyMemory, 8}}}
	res := doPrepare(t, st, Options{Gate: &c}, req)
	out := render(t, st, res, req)
	if res.Effort.PolicyDigest != c.Digest() || !strings.Contains(string(out.Effort), c.Digest()) || !strings.Contains(string(out.Trace), c.Digest()) {
		t.Fatalf("the policy digest must be in the effort and the trace: %s", out.Effort)
	}
}

// TestRound0ExclusionsSurviveExpansion (000-31): the exclusions of every
// retained round count, so round 0's below-floor events stay in the receipt
// after an expansion is kept.
func TestRound0ExclusionsSurviveExpansion(t *testing.T) {
	st := gateStore(t, 3, 2)
	g := DefaultGatePolicy()
	g.ID, g.MaxExpansions, g.Floors = "test.one-round.v1", 1, g.Floors[:1]
	req := Request{ScopeIDs: []string{scopeA}, Query: gateQuery, IncludeReceipt: true, Sections: []Section{{FamilyMemory, 8}}}
	off := doPrepare(t, st, Options{}, req).Context.Receipt
	on := doPrepare(t, st, Options{Gate: &g}, req)
	if len(on.Effort.ExpansionActions) != 1 || !on.Context.Receipt.Retrieval.Rounds[1].Retained {
		t.Fatalf("fixture: round 1 must be kept: %+v", on.Effort)
	}
	r0 := omitted(off, FamilyMemory, OmitBelowAdmission)
	got := omitted(on.Context.Receipt, FamilyMemory, OmitBelowAdmission)
	// Round 0 excluded the five weak entries, round 1 the two one-term ones.
	if r0 != 5 || got != r0+2 {
		t.Fatalf("below_admission_floor: round 0 alone %d, with the kept expansion %d, want %d", r0, got, r0+2)
	}
}

// TestAdmissionFamilyNames: RecallEffort names families as seed 001 does
// (memory, experience, topic-memory); the receipt keeps atomic-memory.
func TestAdmissionFamilyNames(t *testing.T) {
	st := openWith(t, mem(scopeA, "m", 1, body(100, "alpha", "bravo", "charlie")), art(FamilyTopic, scopeA, "t", 1, body(100, "alpha", "bravo", "charlie")),
		art(FamilyExperience, scopeA, "x", 1, body(100, "alpha", "bravo", "charlie")))
	g := DefaultGatePolicy()
	req := Request{ScopeIDs: []string{scopeA}, Query: gateQuery, IncludeReceipt: true, Sections: []Section{{FamilyMemory, 8}, {FamilyTopic, 8}, {FamilyExperience, 2}}}
	res := doPrepare(t, st, Options{Gate: &g}, req)
	out := render(t, st, res, req)
	var fams []string
	for _, c := range res.Effort.AdmissionByFamily {
		fams = append(fams, c.Family)
	}
	slices.Sort(fams)
	if !slices.Equal(fams, []string{"experience", "memory", "topic-memory"}) {
		t.Fatalf("admission families %v", fams)
	}
	if gate.ValidateDocument(out.Effort) != nil {
		t.Fatal("effort schema")
	}
	if res.Context.Receipt.Selected[0].ArtifactAddress.Family != FamilyMemory {
		t.Fatal("the receipt keeps atomic-memory")
	}
}

// TestAssessmentSignals: the gate's answer carries the signal values that
// produced it, content-free (counts, a bucketed ratio), in the effort.
func TestAssessmentSignals(t *testing.T) {
	st := gateStore(t, 3, 0)
	g := DefaultGatePolicy()
	req := Request{ScopeIDs: []string{scopeA}, Query: gateQuery + " CANARYQ", Sections: []Section{{FamilyMemory, 8}}}
	res := doPrepare(t, st, Options{Gate: &g}, req)
	out := render(t, st, res, req)
	s := res.Effort.Signals
	if s == nil {
		t.Fatal("no signals")
	}
	if s.Retrieved != 4 || s.Admitted != 4 || s.Families != 1 || s.SaturatedFamilies != 0 || s.Ceiling != MemoryCandidateLimit || s.Top1Pct == nil || s.BudgetTruncated != 0 {
		t.Fatalf("signals %+v", *s)
	}
	if *s.Top1Pct != 85 { // 6 of 7 query terms, in 5-point buckets
		t.Fatalf("top1 bucket %d", *s.Top1Pct)
	}
	if s.UnusedBytes != res.MaxBytes-res.Context.ContentBytes {
		t.Fatalf("the final assessment is over the final set: unused %d, content %d", s.UnusedBytes, res.Context.ContentBytes)
	}
	if err := gate.ValidateDocument(out.Effort); err != nil || !strings.Contains(string(out.Effort), `"signals":{`) {
		t.Fatalf("effort: %v %s", err, out.Effort)
	}
	// Unit: Assess returns them for each reason.
	a := Assess([]GateFamily{{Family: FamilyExperience, Retrieved: 5, Admitted: 1, Ceiling: 8}}, BudgetView{MaxBytes: 8000, Unused: 7000}, g)
	if a.Signals.Admitted != 1 || a.Signals.Retrieved != 5 || a.Signals.Top1Pct != nil || a.Signals.UnusedBytes != 7000 {
		t.Fatalf("signals %+v", a.Signals)
	}
}

// TestEmptyFamiliesNotSearchedAgain: a selected family whose round-0 pool
// is empty cannot gain from a lower floor and is not searched in later
// rounds.
func TestEmptyFamiliesNotSearchedAgain(t *testing.T) {
	st := gateStore(t, 0, 1)
	g := DefaultGatePolicy()
	var calls []string
	req := Request{ScopeIDs: []string{scopeA}, Query: gateQuery, IncludeReceipt: true, Sections: []Section{{FamilyMemory, 8}, {FamilyTopic, 8}, {FamilyExperience, 2}}}
	res := doPrepare(t, st, Options{Gate: &g, searchFault: func(round int, fam, scope string) error {
		calls = append(calls, fmt.Sprint(round, " ", fam))
		return nil
	}}, req)
	if res.Effort.Rounds != 3 {
		t.Fatalf("fixture: both expansions must run: %+v", res.Effort)
	}
	for _, c := range calls {
		if !strings.HasPrefix(c, "0 ") && !strings.HasSuffix(c, " "+FamilyMemory) {
			t.Fatalf("an empty family was searched again: %v", calls)
		}
	}
	for _, s := range res.Context.Receipt.Retrieval.Searches {
		if s.Round > 0 && s.Family != FamilyMemory {
			t.Fatalf("later-round search of %s", s.Family)
		}
	}
}

// TestEffortSinkFailsOpen: a sink that fails or panics never changes the
// injection or fails Prepare; the failure is a content-free diagnostic.
func TestEffortSinkFailsOpen(t *testing.T) {
	st := gateStore(t, 3, 0)
	req := Request{ScopeIDs: []string{scopeA}, Query: gateQuery + " CANARYQ", Sections: []Section{{FamilyMemory, 8}}}
	g := DefaultGatePolicy()
	want := render(t, st, doPrepare(t, st, Options{Gate: &g}, req), req).Context
	for _, tt := range []struct {
		name string
		sink func(RecallEffort) error
	}{
		{"error", func(RecallEffort) error { return errors.New("disk full: CANARYQ") }},
		{"panic", func(RecallEffort) error { panic("CANARYQ") }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := doPrepare(t, st, Options{Gate: &g, EffortSink: tt.sink}, req)
			out := render(t, st, res, req)
			if string(out.Context) != string(want) {
				t.Fatal("a failing sink changed the injection")
			}
			if !strings.Contains(out.Diagnostic, "recall effort sink failed") || strings.Contains(out.Diagnostic, "CANARY") {
				t.Fatalf("diagnostic %q", out.Diagnostic)
			}
		})
	}
}

// TestHonestIDsAreNotSecrets: an identity whose only secret shape is
// "password:" followed by plain words is an honest id and keeps the
// receipt; ids shaped like real credentials still drop it.
func TestHonestIDsAreNotSecrets(t *testing.T) {
	for _, tt := range []struct {
		id   string
		keep bool
	}{
		{"password:rotation-policy", true},
		{"api_key:naming-rules", true},
		{"token:refresh-flow", true},
		{"password:hunter2", false},
		{"password:Xk9fQ2Lm3pWz", false},
		{"api_key:abcd1234efgh", false},
		{"ghp_abcdefghijklmnopqrstuvwxyz0123456789", false},
		{"password:letmein", false},
	} {
		t.Run(tt.id, func(t *testing.T) {
			st := openWith(t, mem(scopeA, tt.id, 1, body(100, "rotate", "credentials")))
			req := Request{ScopeIDs: []string{scopeA}, Query: "rotate credentials", IncludeReceipt: true}
			res := doPrepare(t, st, Options{}, req)
			out := render(t, st, res, req)
			var m map[string]json.RawMessage
			json.Unmarshal(out.Context, &m)
			if _, kept := m["receipt"]; kept != tt.keep {
				t.Fatalf("receipt kept %v, want %v (%s)", kept, tt.keep, out.Diagnostic)
			}
		})
	}
}
