package prepare

// The cases issue #23 names, each written before its fix: a receipt request
// never suppresses or changes the injection, expansion never displaces round
// 0, failed and empty rounds are reported as such, an enabled model reranker
// blocks paid expansion, code items are cut honestly and identified by path,
// and the receipt fits with realistic ids.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// uuidOf is a deterministic, realistic UUID v4 for a fixture name.
func uuidOf(name string) string {
	s := sha256.Sum256([]byte(name))
	s[6] = s[6]&0x0f | 0x40
	s[8] = s[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", s[0:4], s[4:6], s[6:8], s[8:10], s[10:16])
}

// selectedKeys lists a receipt's selected identities as strings.
func selectedKeys(r *Receipt) []string {
	var out []string
	for _, s := range r.Selected {
		if s.CodeEvidence != nil {
			c := s.CodeEvidence
			out = append(out, fmt.Sprint("code ", c.ScopeID, " ", c.Fingerprint, " ", c.Path, " ", c.StartLine, "-", c.EndLine))
			continue
		}
		a := s.ArtifactAddress
		out = append(out, fmt.Sprint(a.ScopeID, "/", a.Family, "/", a.ArtifactID, "@", a.Revision, "#", s.EntryID))
	}
	return out
}

// TestReceiptFailuresKeepInjection: whatever breaks the receipt (a leak, a
// count cap, the byte cap, missing rerank evidence), the caller gets the
// PreparedContext it would get without include_receipt, no receipt key, and
// a content-free diagnostic; the whole output pipeline succeeds.
func TestReceiptFailuresKeepInjection(t *testing.T) {
	// Nine scopes, each reranked under its own Prompt: nine configs > 8.
	var manyScopes []string
	var manyRecs []rec
	ev := map[string]*RerankEvidence{}
	for i := range 9 {
		s := fmt.Sprintf("project:s%d", i)
		manyScopes = append(manyScopes, s)
		manyRecs = append(manyRecs, mem(s, "m", 1, body(100, "ledger")))
		ev[s] = modelEvidence("acme:rerank-1", 0, s, fmt.Sprint("compiled-", i))
	}
	noEvidence := &fakeReranker{res: func(c []Candidate) RerankResult {
		return RerankResult{Order: identity(len(c)), Outcome: RerankSelected, FallbackReason: FallbackNone}
	}}
	longRecs, longScopes, longEv := longIDRecs()
	secret := "ghp_CANARYabcdefghijklmnopqrstuvwxyz0123"
	tests := []struct {
		name     string
		recs     []rec
		scopes   []string
		query    string
		opt      Options
		sections string
		keep     bool   // the receipt survives
		diag     string // the diagnostic names this failure kind
	}{
		{name: "a program constant in the query is not a leak", recs: []rec{mem(scopeA, "m", 1, body(100, "ledger", "ranking"))}, scopes: []string{scopeA},
			query: "ledger ranking: lexical-coverage?", opt: Options{Reranker: LexicalReranker{}}, sections: "memory", keep: true},
		{name: "leak: a secret-shaped identity", recs: []rec{art(FamilyTopic, scopeA, secret, 1, body(100, "ledger"))}, scopes: []string{scopeA},
			query: "ledger notes", diag: "leak"},
		{name: "count cap: nine rerank configs", recs: manyRecs, scopes: manyScopes, query: "ledger", opt: Options{Reranker: &scopedReranker{ev: ev}}, diag: "count cap"},
		{name: "byte cap", recs: longRecs, scopes: longScopes, query: "ledger team", opt: Options{Reranker: &scopedReranker{ev: longEv}},
			sections: "memory:8,topic-memory:8,profile:8,experience:2,code:4", diag: "byte cap"},
		{name: "missing rerank evidence", recs: []rec{mem(scopeA, "m", 1, body(100, "ledger"))}, scopes: []string{scopeA}, query: "ledger",
			opt: Options{Reranker: noEvidence}, diag: "rerank evidence"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := openWith(t, tt.recs...)
			var secs []Section
			if tt.sections != "" {
				secs, _ = ParseSections(tt.sections)
			}
			req := Request{ScopeIDs: tt.scopes, Query: tt.query, MaxBytes: MaxMaxBytes, Sections: secs}
			bodies, _ := st.Bodies(context.Background(), req.ScopeIDs)
			plain, err := Render(doPrepare(t, st, tt.opt, req), req, bodies, true)
			if err != nil {
				t.Fatalf("without the flag: %v", err)
			}
			req.IncludeReceipt = true
			res := doPrepare(t, st, tt.opt, req)
			out, err := Render(res, req, bodies, true)
			if err != nil {
				t.Fatalf("a receipt failure must never block the injection: %v", err)
			}
			var m map[string]json.RawMessage
			json.Unmarshal(out.Context, &m)
			_, has := m["receipt"]
			if has != tt.keep {
				t.Fatalf("receipt kept = %v, want %v (diagnostic %q)", has, tt.keep, out.Diagnostic)
			}
			if tt.keep {
				return
			}
			if !bytes.Equal(out.Context, plain.Context) {
				t.Fatalf("injection changed by include_receipt:\n%s\n%s", out.Context, plain.Context)
			}
			if !strings.Contains(out.Diagnostic, tt.diag) || strings.Contains(out.Diagnostic, "CANARY") || strings.Contains(out.Diagnostic, secret) || strings.Contains(out.Diagnostic, "ledger") {
				t.Fatalf("diagnostic %q: want a content-free %q", out.Diagnostic, tt.diag)
			}
		})
	}
}

// longIDRecs is the largest identities the loader accepts: 128-byte scope,
// artifact, entry, version ids and fingerprints, in three scopes each
// reranked under its own Prompt. The explicit assembly maximum then
// serializes to 19,197 bytes, over the revised cap.
func longIDRecs() (rs []rec, scopes []string, ev map[string]*RerankEvidence) {
	id := func(p string, i int) string { return (fmt.Sprint(p, i) + strings.Repeat("x", 128))[:128] }
	ev = map[string]*RerankEvidence{}
	for s := range 3 {
		sc := id("s", s)
		scopes = append(scopes, sc)
		var es []map[string]string
		for i := range 8 {
			es = append(es, map[string]string{"entry_id": id("e", i), "entry_version_id": id("v", i), "body": body(90, "ledger")})
		}
		rs = append(rs, rec{"kind": FamilyMemory, "scope_id": sc, "artifact_id": id("m", s), "revision": 1, "entries": es})
		ev[sc] = modelEvidence("acme:rerank-large-2026-09", 0, sc, fmt.Sprint("c", s))
	}
	for i := range 8 {
		rs = append(rs, art(FamilyTopic, scopes[0], id("t", i), 1, body(90, "ledger")), art(FamilyProfile, scopes[0], id("p", i), 1, body(90, "team")))
	}
	for i := range 2 {
		rs = append(rs, art(FamilyExperience, scopes[0], id("x", i), 1, body(90, "ledger")))
	}
	for i := range 4 {
		rs = append(rs, codeRec(scopes[0], id("f", i), "internal/"+id("d", i)+"/x.go", 1, "// CANARY ledger\nfunc a() {}\n"))
	}
	return rs, scopes, ev
}

// twoScopeGateStore: scope A holds six strong memory entries (three query
// terms), scope B one strong and six weak ones (two terms, admitted only
// after the floor is lowered).
func twoScopeGateStore(t *testing.T, strongA, weakB int) *Store {
	var a, b []string
	for i := range strongA {
		a = append(a, body(100, "alpha", "bravo", "charlie", fmt.Sprint("sa", i)))
	}
	b = append(b, body(100, "alpha", "bravo", "charlie", "sb0"))
	for i := range weakB {
		b = append(b, body(100, "alpha", "bravo", fmt.Sprint("wb", i)))
	}
	return openWith(t, mem(scopeA, "ma", 1, a...), mem(scopeB, "mb", 1, b...))
}

// TestExpansionNeverDisplacesRound0AcrossScopes: with two scopes the merged
// set still keeps every round-0 candidate, in the content and under the
// candidate ceiling.
func TestExpansionNeverDisplacesRound0AcrossScopes(t *testing.T) {
	g := DefaultGatePolicy()
	g.ID, g.MinCandidates = "test.always-thin.v1", 99 // always thin: force both expansion rounds
	t.Run("content", func(t *testing.T) {
		st := twoScopeGateStore(t, 6, 6)
		req := Request{ScopeIDs: []string{scopeA, scopeB}, Query: gateQuery, MaxBytes: MaxMaxBytes, IncludeReceipt: true, Sections: []Section{{FamilyMemory, 8}}}
		off := doPrepare(t, st, Options{}, req).Context.Receipt
		on := doPrepare(t, st, Options{Gate: &g}, req)
		if on.Effort.Rounds < 2 || len(on.Effort.ExpansionActions) == 0 {
			t.Fatalf("fixture: the gate must expand: %+v", on.Effort)
		}
		got := selectedKeys(on.Context.Receipt)
		for _, k := range selectedKeys(off) {
			if !slices.Contains(got, k) {
				t.Fatalf("round-0 item %s displaced by expansion:\n off %v\n on  %v", k, selectedKeys(off), got)
			}
		}
	})
	t.Run("ceiling", func(t *testing.T) {
		// Round 0: 12 from A and 2 from B (14 <= 16). Round 1 adds 10 weak
		// ones to B; the clamp to 16 may only cut those.
		r0, r1 := pools{}, pools{}
		r0.add(FamilyMemory, scopeA, memCands(scopeA, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11))
		r0.add(FamilyMemory, scopeB, memCands(scopeB, 0, 1))
		r1.add(FamilyMemory, scopeB, memCands(scopeB, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11))
		scopes := []string{scopeA, scopeB}
		round0 := allocate([]pools{r0}, scopes).cands
		final := allocate([]pools{r0, fresh([]pools{r0}, r1)}, scopes).cands
		if len(final[FamilyMemory]) != MemoryCandidateLimit {
			t.Fatalf("ceiling: %d", len(final[FamilyMemory]))
		}
		for _, c := range round0[FamilyMemory] {
			if !slices.ContainsFunc(final[FamilyMemory], func(x Candidate) bool { return x.key() == c.key() }) {
				t.Fatalf("the clamp cut round-0 candidate %s", c.key())
			}
		}
	})
}

// TestFailedAndEmptyRounds: a failed round still has its candidates_by_round
// entry; a round that adds nothing is not retained; an embedding timeout in
// round 0 is reported as the timeout by every family of that round.
func TestFailedAndEmptyRounds(t *testing.T) {
	g := DefaultGatePolicy()
	t.Run("failed round", func(t *testing.T) {
		st := openWith(t, mem(scopeA, "m", 1, body(100, "alpha", "bravo", "charlie"), body(100, "alpha", "bravo", "w")),
			mem(scopeB, "m", 1, body(100, "alpha", "bravo", "charlie"), body(100, "alpha", "bravo", "v")))
		req := Request{ScopeIDs: []string{scopeA, scopeB}, Query: gateQuery, IncludeReceipt: true}
		res := doPrepare(t, st, Options{Gate: &g, searchFault: func(round int, fam, scope string) error {
			if round == 1 && scope == scopeB && fam == FamilyMemory {
				return errors.New("backend down")
			}
			return nil
		}}, req)
		e := res.Effort
		if e.Rounds != 2 || len(e.CandidatesByRound) != e.Rounds || e.CandidatesByRound[1] != e.CandidatesByRound[0] {
			t.Fatalf("candidates_by_round must have one entry per executed round: %+v", e)
		}
		if want := []RecallRound{{0, RoundCompleted, true}, {1, RoundExpansionFailed, false}}; !slices.Equal(res.Context.Receipt.Retrieval.Rounds, want) {
			t.Fatalf("rounds %+v", res.Context.Receipt.Retrieval.Rounds)
		}
	})
	t.Run("round that adds nothing", func(t *testing.T) {
		st := gateStore(t, 0, 0)
		req := Request{ScopeIDs: []string{scopeA}, Query: gateQuery, IncludeReceipt: true, Sections: []Section{{FamilyMemory, 8}}}
		res := doPrepare(t, st, Options{Gate: &g}, req)
		want := []RecallRound{{0, RoundCompleted, true}, {1, RoundCompleted, false}, {2, RoundCompleted, false}}
		if !slices.Equal(res.Context.Receipt.Retrieval.Rounds, want) {
			t.Fatalf("rounds %+v, want %+v", res.Context.Receipt.Retrieval.Rounds, want)
		}
	})
	t.Run("round that adds something is retained", func(t *testing.T) {
		st := gateStore(t, 3, 0)
		req := Request{ScopeIDs: []string{scopeA}, Query: gateQuery, IncludeReceipt: true, Sections: []Section{{FamilyMemory, 8}}}
		res := doPrepare(t, st, Options{Gate: &g}, req)
		if want := []RecallRound{{0, RoundCompleted, true}, {1, RoundCompleted, true}}; !slices.Equal(res.Context.Receipt.Retrieval.Rounds, want) {
			t.Fatalf("rounds %+v", res.Context.Receipt.Retrieval.Rounds)
		}
	})
	t.Run("embed timeout in round 0 is not a reuse", func(t *testing.T) {
		st := openWith(t, mem(scopeA, "m", 1, body(100, "ledger")), art(FamilyTopic, scopeA, "t", 1, body(100, "ledger")))
		em := &countingEmbedder{fail: func(call int) error { return fmt.Errorf("embed: %w", ErrInferenceTimeout) }}
		req := Request{ScopeIDs: []string{scopeA}, Query: "ledger", IncludeReceipt: true, Sections: []Section{{FamilyMemory, 8}, {FamilyTopic, 8}}}
		r := doPrepare(t, st, Options{Embedder: em}, req).Context.Receipt
		want := []SearchGroup{{0, FamilyMemory, ModeFTS, OutcomeCompleted, FallbackTimeout, 1}, {0, FamilyTopic, ModeFTS, OutcomeCompleted, FallbackTimeout, 1}}
		if !slices.Equal(r.Retrieval.Searches, want) {
			t.Fatalf("searches %+v, want %+v", r.Retrieval.Searches, want)
		}
	})
}

// modelReranker is a model-backed fake that counts its calls.
type modelReranker struct{ calls int }

func (m *modelReranker) ModelBacked() bool { return true }

func (m *modelReranker) Rerank(_ context.Context, _ string, c []Candidate) RerankResult {
	m.calls++
	return RerankResult{Order: identity(len(c)), Outcome: RerankSelected, FallbackReason: FallbackNone, Evidence: modelEvidence("acme:r", 0, scopeA, "p")}
}

// TestEnabledButUnusedRerankerBlocksExpansion: round 0 admits no Memory
// candidate, so the model reranker does not run in round 0; expansion would
// make it run, which configuration does not allow.
func TestEnabledButUnusedRerankerBlocksExpansion(t *testing.T) {
	// Only weak entries: two of six query terms, admitted from round 1 on.
	st := openWith(t, mem(scopeA, "m", 1, body(120, "alpha", "bravo", "w1"), body(120, "alpha", "bravo", "w2"), body(120, "alpha", "bravo", "w3")))
	req := Request{ScopeIDs: []string{scopeA}, Query: gateQuery, IncludeReceipt: true, Sections: []Section{{FamilyMemory, 8}}}
	g := DefaultGatePolicy()
	rr := &modelReranker{}
	res := doPrepare(t, st, Options{Gate: &g, Reranker: rr}, req)
	if rr.calls != 0 || res.Effort.Rounds != 1 || res.Effort.Assessment != "rerank-calls-not-allowed" || res.Effort.AddedGenerationCalls != 0 {
		t.Fatalf("a paid rerank call was made without permission: %d calls, effort %+v", rr.calls, res.Effort)
	}
	if res.Context.Receipt.NonDeterministic || len(res.Context.Receipt.Retrieval.RerankConfigs) != 0 {
		t.Fatal("a configured reranker that never ran sets nothing")
	}
	g.ID, g.AllowRerankCalls = "test.pays-rerank.v1", true
	rr.calls = 0
	res = doPrepare(t, st, Options{Gate: &g, Reranker: rr}, req)
	if rr.calls == 0 || res.Effort.Rounds < 2 || res.Effort.AddedGenerationCalls != rr.calls || !res.Context.Receipt.NonDeterministic {
		t.Fatalf("allowed: %d calls, effort %+v", rr.calls, res.Effort)
	}
	// A deterministic reranker pays no generation call: expansion proceeds.
	g = DefaultGatePolicy()
	res = doPrepare(t, st, Options{Gate: &g, Reranker: LexicalReranker{}}, req)
	if res.Effort.Rounds < 2 {
		t.Fatalf("a deterministic reranker must not block expansion: %+v", res.Effort)
	}
}

// TestCodeCutHonestly: a code item is cut at line boundaries with its real
// final range and snippet hash, or dropped; never a header with no code.
func TestCodeCutHonestly(t *testing.T) {
	longFirst := "func ledgerfn() { " + strings.Repeat("x", 2100) + " }\n// ledgerfn end\n"
	shortThenLong := "// ledgerfn\n" + strings.Repeat("y", 2500) + "\n"
	for _, tt := range []struct {
		name, code string
		maxBytes   int
	}{
		{"first line over the entry limit", longFirst, 8000},
		{"first line over the budget", "// ledgerfn " + strings.Repeat("z", 700) + "\n// end\n", 600},
		{"what fits is under the minimum fragment", shortThenLong, 8000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := openWith(t, codeRec(scopeA, "repo-1", "internal/ledger/fn.go", 7, tt.code))
			req := Request{ScopeIDs: []string{scopeA}, Query: "ledgerfn", MaxBytes: tt.maxBytes, IncludeReceipt: true, Sections: []Section{{FamilyCode, 4}}}
			res := doPrepare(t, st, Options{}, req)
			render(t, st, res, req)
			r := res.Context.Receipt
			if len(r.Selected) != 0 {
				t.Fatalf("a code item with no whole line that fits must be dropped: %+v, content bytes %d", r.Selected[0].CodeEvidence, res.Context.ContentBytes)
			}
			if omitted(r, FamilyCode, OmitNoFittingTruncation) != 1 || res.Context.Status != StatusEmpty {
				t.Fatalf("want one no_fitting_truncation: %+v", r.Omitted)
			}
		})
	}
}

// TestCodeIdentityHasPath: two files of one repository whose ranges start
// on the same line are two identities, both loadable and both selectable.
func TestCodeIdentityHasPath(t *testing.T) {
	st := openWith(t,
		codeRec(scopeA, "repo-1", "internal/a.go", 10, "// CANARY ledger a\nfunc a() {}\n"),
		codeRec(scopeA, "repo-1", "internal/b.go", 10, "// CANARY ledger b\nfunc b() {}\n"),
		codeRec(scopeA, "repo-1", "internal/a.go", 40, "// CANARY ledger a2\nfunc a2() {}\n"),
	)
	req := Request{ScopeIDs: []string{scopeA}, Query: "ledger", IncludeReceipt: true, Sections: []Section{{FamilyCode, 4}}}
	res := doPrepare(t, st, Options{}, req)
	render(t, st, res, req)
	if got := selectedKeys(res.Context.Receipt); len(got) != 3 {
		t.Fatalf("want three code identities: %v", got)
	}
	a := Candidate{Code: &CodeRef{ScopeID: scopeA, Fingerprint: "f", Path: "a.go", StartLine: 1, EndLine: 2}}
	b := a
	b.Code = &CodeRef{ScopeID: scopeA, Fingerprint: "f", Path: "a.go", StartLine: 5, EndLine: 6}
	if a.key() == b.key() {
		t.Fatal("two ranges of one file are two evidence identities")
	}
}

// TestReceiptFitsRealisticIDs: the explicit assembly maximum (26 historical
// items and 4 code items) with UUID ids, a 40-hex fingerprint, two scopes and
// a model-backed rerank config keeps its receipt.
func TestReceiptFitsRealisticIDs(t *testing.T) {
	st, req := uuidWorkload(t, "memory:8,topic-memory:8,profile:8,experience:2,code:4")
	rr := &scopedReranker{ev: map[string]*RerankEvidence{req.ScopeIDs[0]: modelEvidence("acme:rerank-large-2026-09", 0, req.ScopeIDs[0], "c"), req.ScopeIDs[1]: modelEvidence("acme:rerank-large-2026-09", 0, req.ScopeIDs[0], "c")}}
	res := doPrepare(t, st, Options{Reranker: rr, Embedder: HashEmbedder{}}, req)
	render(t, st, res, req)
	r := res.Context.Receipt
	if r == nil {
		t.Fatalf("a full assembly with UUID ids loses its receipt: %s", res.Diagnostic)
	}
	if len(r.Selected) != 30 {
		t.Fatalf("fixture: %d selected", len(r.Selected))
	}
	b, _ := json.Marshal(r)
	t.Logf("26 historical + 4 code, UUID ids, 2 scopes, 1 model rerank config: %d bytes", len(b))
}

// uuidWorkload is a store with realistic identity lengths: UUID artifact,
// entry and entry-version ids, a 40-hex repository fingerprint and ordinary
// repository paths, in a current and a referenced scope.
func uuidWorkload(t *testing.T, sections string) (*Store, Request) {
	cur, ref := "project:payments-ledger", "team:platform-shared"
	var recs []rec
	for s, scope := range []string{cur, ref} {
		var es []map[string]string
		for i := range 8 {
			es = append(es, map[string]string{"entry_id": uuidOf(fmt.Sprint("entry", s, i)), "entry_version_id": uuidOf(fmt.Sprint("version", s, i)), "body": body(300, "ledger", fmt.Sprint("m", i))})
		}
		recs = append(recs, rec{"kind": FamilyMemory, "scope_id": scope, "artifact_id": uuidOf(fmt.Sprint("memory", s)), "revision": 14, "entries": es})
		for i := range 2 {
			recs = append(recs, art(FamilyExperience, scope, uuidOf(fmt.Sprint("exp", s, i)), 3, body(300, "ledger")))
		}
	}
	for i := range 8 {
		recs = append(recs, art(FamilyTopic, cur, uuidOf(fmt.Sprint("topic", i)), 7, body(300, "ledger")))
		recs = append(recs, art(FamilyProfile, cur, uuidOf(fmt.Sprint("profile", i)), 2, body(200, "team")))
	}
	fp := fmt.Sprintf("%x", sha256.Sum256([]byte("repo")))[:40]
	for i := range 4 {
		recs = append(recs, codeRec(cur, fp, fmt.Sprintf("internal/ledger/postings/store_%d.go", i), 120+40*i, "// CANARY ledger\nfunc (s *Store) Post(ctx context.Context) error {\n\treturn nil\n}\n"))
	}
	st := openWith(t, recs...)
	secs, err := ParseSections(sections)
	if err != nil {
		t.Fatal(err)
	}
	return st, Request{ScopeIDs: []string{cur, ref}, Query: "ledger", MaxBytes: MaxMaxBytes, IncludeReceipt: true, Sections: secs}
}

// TestSmallerSeedCases: admission counts cover the searchable families only
// and only with the gate on; the trace names the gate policy; the query is
// normalized as NFC of the trimmed query, trimming what Python's str.strip
// trims.
func TestSmallerSeedCases(t *testing.T) {
	st := mixedStore(t, 0)
	g := DefaultGatePolicy()
	req := Request{ScopeIDs: []string{scopeA}, Query: "ledger", IncludeReceipt: true}
	res := doPrepare(t, st, Options{Gate: &g}, req)
	t.Run("admission counts for searchable families", func(t *testing.T) {
		for _, c := range res.Effort.AdmissionByFamily {
			if c.Family != "memory" && c.Family != FamilyExperience && c.Family != FamilyTopic {
				t.Fatalf("admission counts are for memory, experience and topic memory only: %+v", c)
			}
		}
	})
	t.Run("no counters with the gate off", func(t *testing.T) {
		p := &prep{rt: NewRuntime(st, fixed(Options{})), req: req, scopes: req.ScopeIDs, sections: defaultSections(), qterms: terms(req.Query, 32), vecs: map[string]vecState{}}
		r0, err := p.recall(context.Background(), 0, nil)
		if err != nil || len(r0.counts) != 0 {
			t.Fatalf("counters collected with the gate off: %+v", r0.counts)
		}
	})
	t.Run("trace names the policy", func(t *testing.T) {
		out := render(t, st, res, req)
		if !bytes.Contains(out.Trace, []byte(`"recall.policy"`)) || !bytes.Contains(out.Trace, []byte(GatePolicyID)) {
			t.Fatal("the trace must name the versioned gate policy")
		}
	})
	t.Run("normalization", func(t *testing.T) {
		for in, want := range map[string]string{
			"\x1c\x1d Why SQLite?\x1e\x1f": "Why SQLite?",
			"\u3000\u2028e\u0301\u0085":    "\u00e9",
			"\x00x":                        "\x00x", // NUL is not whitespace
		} {
			if got := NormalizeQuery(in); got != want {
				t.Errorf("NormalizeQuery(%q) = %q, want %q", in, got, want)
			}
		}
		r := Request{ScopeIDs: []string{scopeA}, Query: "\x1c\x1f"}
		if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "empty") {
			t.Fatalf("a query of separators only is empty: %v", err)
		}
	})
}
