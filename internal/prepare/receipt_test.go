package prepare

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/gate"
)

const scopeA, scopeB = "project:alpha", "project:beta"

// fakeReranker returns a fixed result and counts its calls.
type fakeReranker struct {
	res   func(cands []Candidate) RerankResult
	calls int
}

func (f *fakeReranker) Rerank(_ context.Context, _ string, cands []Candidate) RerankResult {
	f.calls++
	return f.res(cands)
}

// ModelBacked: the fakes stand for model rerankers.
func (f *fakeReranker) ModelBacked() bool { return true }

func identity(n int) []int {
	o := make([]int, n)
	for i := range o {
		o[i] = i
	}
	return o
}

func modelEvidence(model string, temp float64, scope string, compiled string) *RerankEvidence {
	m := model
	return &RerankEvidence{Declared: true, ModelBacked: true, PolicyID: "powercontext.memory-rerank.v1", Model: &m,
		Settings: map[string]any{"temperature": temp}, TimeoutSeconds: 30, MaxRequests: 1,
		Prompt: &PromptRef{ScopeID: scope, Key: "memory-rerank", DefinitionVersion: 1, BuiltinVersion: 1, Selection: "built_in",
			SelectedVersion: 1, CompiledDigest: digest([]byte(compiled))}}
}

func TestResultKinds(t *testing.T) {
	sqliteBody := body(200, "sqlite", "ledger", "decision")
	base := []rec{
		mem(scopeA, "mem-1", 1, sqliteBody, body(150, "sqlite", "backup")),
		art(FamilyTopic, scopeA, "topic-1", 1, body(120, "sqlite", "topic")),
	}
	long := append(slices.Clone(base), mem(scopeA, "mem-long", 1, body(3000, "sqlite", "ledger", "decision", "long")))
	missing := &fakeReranker{res: func(c []Candidate) RerankResult {
		return RerankResult{Order: identity(len(c)), Outcome: RerankSelected, FallbackReason: FallbackNone}
	}}
	fallback := &fakeReranker{res: func(c []Candidate) RerankResult {
		return RerankResult{Outcome: RerankFallback, FallbackReason: FallbackTimeout, Evidence: modelEvidence("acme:rerank-1", 0, scopeA, "p1")}
	}}
	tests := []struct {
		name     string
		recs     []rec
		opt      Options
		query    string
		status   string
		receipt  bool // receipt present
		check    func(t *testing.T, r *Receipt, res Result)
		sections []Section
	}{
		{name: "empty", recs: base, query: "kubernetes helm chart", status: StatusEmpty, receipt: true, check: func(t *testing.T, r *Receipt, _ Result) {
			if r.ContentDigest != nil || r.UsedBytes != 0 || len(r.Selected) != 0 {
				t.Fatalf("empty receipt: %+v", r)
			}
			for _, f := range Families {
				if omitted(r, f, OmitNotRetrieved) != 1 {
					t.Errorf("family %s: want not_retrieved 1", f)
				}
			}
		}},
		{name: "ready", recs: base, query: "sqlite ledger decision", status: StatusReady, receipt: true, check: func(t *testing.T, r *Receipt, res Result) {
			if *r.ContentDigest != digest([]byte(*res.Context.Content)) || r.UsedBytes != res.Context.ContentBytes || r.Truncated {
				t.Fatalf("digest/used/truncated wrong: %+v", r)
			}
		}},
		{name: "truncated", recs: long, query: "sqlite ledger decision long", status: StatusReady, receipt: true, check: func(t *testing.T, r *Receipt, _ Result) {
			if !r.Truncated || !slices.ContainsFunc(r.Selected, func(s SelectedItem) bool { return s.Truncated && s.ArtifactAddress.ArtifactID == "mem-long" }) {
				t.Fatal("want the 3000-byte entry selected truncated")
			}
		}},
		{name: "deduplicated by hybrid fusion", recs: base, opt: Options{Embedder: HashEmbedder{}}, query: "sqlite ledger decision", status: StatusReady, receipt: true, check: func(t *testing.T, r *Receipt, _ Result) {
			if omitted(r, FamilyMemory, OmitDuplicate) == 0 || r.Retrieval.Searches[0].Mode != ModeHybrid {
				t.Fatalf("want hybrid duplicates: %+v %+v", r.Omitted, r.Retrieval.Searches)
			}
			seen := map[string]bool{}
			for _, s := range r.Selected {
				k := fmt.Sprint(*s.ArtifactAddress, s.EntryID)
				if seen[k] {
					t.Fatal("duplicate identity selected")
				}
				seen[k] = true
			}
		}},
		{name: "reranked", recs: base, opt: Options{Reranker: LexicalReranker{}}, query: "sqlite ledger decision", status: StatusReady, receipt: true, check: func(t *testing.T, r *Receipt, _ Result) {
			if len(r.Retrieval.Reranks) != 1 || r.Retrieval.Reranks[0].Outcome != RerankSelected || r.NonDeterministic {
				t.Fatalf("reranks: %+v", r.Retrieval)
			}
			c := r.Retrieval.RerankConfigs[0]
			if c.Model != nil || c.Prompt != nil || c.NonDeterministic || c.EffectiveSettings["algorithm"] != "lexical-coverage" {
				t.Fatalf("deterministic reranker must declare itself: %+v", c)
			}
		}},
		{name: "rerank fallback", recs: base, opt: Options{Reranker: fallback}, query: "sqlite ledger decision", status: StatusReady, receipt: true, check: func(t *testing.T, r *Receipt, _ Result) {
			g := r.Retrieval.Reranks[0]
			if g.Outcome != RerankFallback || g.FallbackReason != FallbackTimeout || !r.NonDeterministic {
				t.Fatalf("fallback group: %+v", g)
			}
		}},
		{name: "receipt failure: reranker without evidence fails open", recs: base, opt: Options{Reranker: missing}, query: "sqlite ledger decision", status: StatusReady, receipt: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := openWith(t, tt.recs...)
			req := Request{ScopeIDs: []string{scopeA}, Query: tt.query, IncludeReceipt: true, Sections: tt.sections}
			res := doPrepare(t, st, tt.opt, req)
			if res.Context.Status != tt.status {
				t.Fatalf("status %s, want %s", res.Context.Status, tt.status)
			}
			if (res.Context.Receipt != nil) != tt.receipt {
				t.Fatalf("receipt present = %v, diagnostic %q", res.Context.Receipt != nil, res.Diagnostic)
			}
			out := render(t, st, res, req)
			if !tt.receipt {
				if res.Diagnostic == "" || out.Diagnostic == "" {
					t.Fatal("a dropped receipt needs a diagnostic")
				}
				req.IncludeReceipt = false
				plain := doPrepare(t, st, tt.opt, req)
				if a, b := render(t, st, plain, req).Context, out.Context; !bytes.Equal(a, b) {
					t.Fatalf("fail-open changed the injection:\n%s\n%s", a, b)
				}
				return
			}
			if tt.check != nil {
				tt.check(t, res.Context.Receipt, res)
			}
		})
	}
}

func TestFourKeysUnlessRequested(t *testing.T) {
	st := openWith(t, mem(scopeA, "m", 1, body(100, "sqlite")))
	for _, empty := range []bool{false, true} {
		for _, inc := range []bool{false, true} {
			q := "sqlite"
			if empty {
				q = "nothing matches"
			}
			req := Request{ScopeIDs: []string{scopeA}, Query: q, IncludeReceipt: inc}
			out := render(t, st, doPrepare(t, st, Options{}, req), req)
			want := []string{"schema", "status", "content", "content_bytes"}
			if inc {
				want = append(want, "receipt")
			}
			if got := keys(t, out.Context); !slices.Equal(got, want) {
				t.Errorf("empty=%v include=%v: keys %v, want %v", empty, inc, got, want)
			}
		}
	}
}

func TestTopicMemoryInDefaultRecall(t *testing.T) {
	st := openWith(t, art(FamilyTopic, scopeA, "topic-1", 1, body(100, "ledger", "topic")))
	req := Request{ScopeIDs: []string{scopeA}, Query: "ledger topic", IncludeReceipt: true}
	r := doPrepare(t, st, Options{}, req).Context.Receipt
	if len(r.Selected) != 1 || r.Selected[0].ArtifactAddress.Family != FamilyTopic {
		t.Fatalf("default recall must include topic memory: %+v", r.Selected)
	}
}

// mixedStore holds, in one scope, 10 memory entries, 10 topics, 4
// experiences, 10 profiles and 6 code snippets, all matching "ledger".
func mixedStore(t *testing.T, idLen int) *Store {
	pad := func(s string) string {
		for len(s) < idLen {
			s += "x"
		}
		return s
	}
	var recs []rec
	var entries []string
	for i := range 10 {
		entries = append(entries, body(90, "ledger", fmt.Sprint("m", i)))
	}
	recs = append(recs, mem(scopeA, pad("mem-a"), 1, entries[:5]...), mem(scopeA, pad("mem-b"), 3, entries[5:]...))
	for i := range 10 {
		recs = append(recs, art(FamilyTopic, scopeA, pad(fmt.Sprint("topic-", i)), 1, body(90, "ledger")))
		recs = append(recs, art(FamilyProfile, scopeA, pad(fmt.Sprint("profile-", i)), 2, body(90, "team")))
	}
	for i := range 4 {
		recs = append(recs, art(FamilyExperience, scopeA, pad(fmt.Sprint("exp-", i)), 1, body(90, "ledger")))
	}
	for i := range 6 {
		recs = append(recs, codeRec(scopeA, pad(fmt.Sprint("repo-", i)), "internal/ledger/"+pad("file")+".go", 10*i+1, "// CANARY ledger\nfunc a() {}\nfunc b() {}\n"))
	}
	return openWith(t, recs...)
}

func TestMixedAssembly18And26(t *testing.T) {
	st := mixedStore(t, 0)
	tests := []struct {
		sections string
		hist     int
		perFam   map[string]int
	}{
		{"memory:8,topic-memory:8,experience:2", 18, map[string]int{FamilyMemory: 8, FamilyTopic: 8, FamilyExperience: 2}},
		{"memory:8,topic-memory:8,profile:8,experience:2", 26, map[string]int{FamilyMemory: 8, FamilyTopic: 8, FamilyProfile: 8, FamilyExperience: 2}},
		{"memory:8,topic-memory:8,profile:8,experience:2,code:4", 26, map[string]int{FamilyMemory: 8, FamilyTopic: 8, FamilyProfile: 8, FamilyExperience: 2, FamilyCode: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.sections, func(t *testing.T) {
			secs, err := ParseSections(tt.sections)
			if err != nil {
				t.Fatal(err)
			}
			req := Request{ScopeIDs: []string{scopeA}, Query: "ledger", MaxBytes: MaxMaxBytes, IncludeReceipt: true, Sections: secs}
			res := doPrepare(t, st, Options{}, req)
			render(t, st, res, req)
			r := res.Context.Receipt
			if r == nil {
				t.Fatalf("no receipt: %s", res.Diagnostic)
			}
			got := map[string]int{}
			hist := 0
			for _, s := range r.Selected {
				if s.ArtifactAddress != nil {
					got[s.ArtifactAddress.Family]++
					hist++
				} else {
					got[FamilyCode]++
				}
			}
			if hist != tt.hist || !mapsEqual(got, tt.perFam) {
				t.Fatalf("selected %v (historical %d), want %v (%d)", got, hist, tt.perFam, tt.hist)
			}
			if omitted(r, FamilyMemory, OmitEntryLimit) != 2 {
				t.Errorf("memory entry_limit omissions %d, want 2", omitted(r, FamilyMemory, OmitEntryLimit))
			}
		})
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestCodeResults(t *testing.T) {
	var lines []string
	for i := range 60 {
		lines = append(lines, fmt.Sprintf("\tledgerStep%02d() // CANARY", i))
	}
	bigCode := strings.Join(lines, "\n") + "\n"
	st := openWith(t,
		codeRec(scopeA, "repo-1", "internal/ledger/open.go", 100, bigCode),
		mem(scopeA, "m", 1, body(300, "ledgerstep00")),
	)
	t.Run("code only, truncated to a final range", func(t *testing.T) {
		req := Request{ScopeIDs: []string{scopeA}, Query: "ledgerStep00", MaxBytes: 600, IncludeReceipt: true, Sections: []Section{{FamilyCode, 4}}}
		res := doPrepare(t, st, Options{}, req)
		render(t, st, res, req)
		r := res.Context.Receipt
		if len(r.Selected) != 1 || r.Selected[0].CodeEvidence == nil || !r.Selected[0].Truncated {
			t.Fatalf("want one truncated code item: %+v", r.Selected)
		}
		ce := r.Selected[0].CodeEvidence
		content := *res.Context.Content
		snippet := content[strings.Index(content, "]\n")+2:]
		if ce.StartLine != 100 || ce.EndLine != 100+strings.Count(snippet, "\n")-1 || ce.EndLine >= 159 {
			t.Fatalf("range %d-%d for %d lines", ce.StartLine, ce.EndLine, strings.Count(snippet, "\n"))
		}
		if ce.SnippetSHA256 != digest([]byte(snippet)) || ce.FileSHA256 != digest([]byte(bigCode)) {
			t.Fatal("snippet hash must cover the final truncated snippet; file hash the whole file")
		}
		if !strings.Contains(content, fmt.Sprintf(":100-%d]", ce.EndLine)) {
			t.Fatal("the citation must name the final range")
		}
	})
	t.Run("mixed: origins then code origins", func(t *testing.T) {
		req := Request{ScopeIDs: []string{scopeA}, Query: "ledgerStep00", MaxBytes: 8000, IncludeReceipt: true}
		res := doPrepare(t, st, Options{}, req)
		r := res.Context.Receipt
		if len(r.Selected) != 2 || r.Selected[0].ArtifactAddress == nil || r.Selected[1].CodeEvidence == nil {
			t.Fatalf("want memory then code: %+v", r.Selected)
		}
	})
}

func TestSelectedIdentitiesMustEqualOrigins(t *testing.T) {
	st := mixedStore(t, 0)
	req := Request{ScopeIDs: []string{scopeA}, Query: "ledger", IncludeReceipt: true}
	p := &prep{rt: NewRuntime(st, fixed(Options{})), req: req, scopes: req.ScopeIDs, sections: defaultSections(), qterms: terms(req.Query, 32), vecs: map[string]vecState{}}
	r0, err := p.recall(context.Background(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	final := allocate([]pools{r0.cands}, req.ScopeIDs).cands
	b := fit(p.sections, final, 8000, DefaultEntryLimit, p.h)
	pc := PreparedContext{Status: StatusReady, Content: &b.content, ContentBytes: len(b.content)}
	rc, err := p.receipt(b, pc, []OmittedGroup{})
	if err != nil || checkReceipt(rc, b) != nil {
		t.Fatalf("a faithful receipt must pass: %v", err)
	}
	mutations := map[string]func(b *build){
		"reordered":    func(b *build) { b.origins[0], b.origins[1] = b.origins[1], b.origins[0] },
		"missing":      func(b *build) { b.origins = b.origins[1:] },
		"extra":        func(b *build) { b.origins = append(b.origins, b.origins[0]) },
		"code missing": func(b *build) { b.codeOrigins = nil },
		"origins only": func(b *build) {
			b.origins = append(b.origins, selectedKey{Addr: Address{ScopeID: scopeA}})
			b.codeOrigins = nil
		},
		"code range": func(b *build) { c := b.codeOrigins[0]; c.EndLine++; b.codeOrigins = []CodeRef{c} },
	}
	for name, m := range mutations {
		t.Run(name, func(t *testing.T) {
			bb := b
			bb.origins = slices.Clone(b.origins)
			bb.codeOrigins = slices.Clone(b.codeOrigins)
			m(&bb)
			if err := checkReceipt(rc, bb); !errors.Is(err, ErrIdentity) {
				t.Fatalf("want ErrIdentity, got %v", err)
			}
		})
	}
}

func TestSameShortIDInTwoScopes(t *testing.T) {
	st := openWith(t, mem(scopeA, "mem-1", 1, body(100, "ledger")), mem(scopeB, "mem-1", 1, body(100, "ledger")))
	req := Request{ScopeIDs: []string{scopeA, scopeB}, Query: "ledger", IncludeReceipt: true}
	res := doPrepare(t, st, Options{}, req)
	render(t, st, res, req)
	r := res.Context.Receipt
	if len(r.Selected) != 2 {
		t.Fatalf("want two identities: %+v", r.Selected)
	}
	a, b := r.Selected[0].ArtifactAddress, r.Selected[1].ArtifactAddress
	if a.ArtifactID != b.ArtifactID || a.ScopeID == b.ScopeID || *a == *b {
		t.Fatalf("same id in two scopes must stay two identities: %+v %+v", a, b)
	}
}

func TestExactReadAfterLifecycle(t *testing.T) {
	recs := []rec{
		mem(scopeA, "m-forget", 1, body(80, "ledger", "old")),
		mem(scopeA, "m-merge", 1, body(80, "ledger", "v1")), mem(scopeA, "m-merge", 2, body(80, "ledger", "v2")),
		mem(scopeA, "m-retire", 1, body(80, "ledger")),
		{"kind": "lifecycle", "scope_id": scopeA, "family": FamilyMemory, "artifact_id": "m-forget", "action": "forget"},
		{"kind": "lifecycle", "scope_id": scopeA, "family": FamilyMemory, "artifact_id": "m-merge", "action": "merge"},
		{"kind": "lifecycle", "scope_id": scopeA, "family": FamilyMemory, "artifact_id": "m-retire", "action": "retire"},
	}
	st := openWith(t, recs...)
	tests := []struct {
		id    string
		rev   int
		state string
		head  int
		word  string
	}{
		{"m-forget", 1, ArtifactStateForgotten, 1, "old"},
		{"m-merge", 1, ArtifactStateMerged, 2, "v1"},
		{"m-retire", 1, ArtifactStateRetired, 1, "ledger"},
	}
	for _, tt := range tests {
		rev, err := st.Read(context.Background(), Access{open: true}, Address{scopeA, FamilyMemory, tt.id, tt.rev})
		if err != nil {
			t.Fatalf("%s: %v", tt.id, err)
		}
		if rev.State != tt.state || rev.Head != tt.head || rev.Entries[0].Addr.Revision != tt.rev || !strings.Contains(rev.Entries[0].Body, tt.word) {
			t.Fatalf("%s: read %+v", tt.id, rev)
		}
	}
	if _, err := st.Read(context.Background(), Access{open: true}, Address{scopeB, FamilyMemory, "m-merge", 1}); err == nil {
		t.Fatal("another scope must not resolve the address")
	}
	req := Request{ScopeIDs: []string{scopeA}, Query: "ledger", IncludeReceipt: true}
	if res := doPrepare(t, st, Options{}, req); res.Context.Status != StatusEmpty {
		t.Fatal("forgotten, merged and retired artifacts are not searched")
	}
}

func TestLongNonASCIIQuery(t *testing.T) {
	q := " " + strings.Repeat("語", 2700) + strings.Repeat("𠀀", 23) + " CANARYQ " // 2731 characters, 8200 bytes trimmed
	if n := len([]rune(strings.TrimSpace(q))); n != 2731 || len(NormalizeQuery(q)) <= 8192 || n > MaxQueryChars {
		t.Fatalf("fixture: %d characters, %d bytes", n, len(NormalizeQuery(q)))
	}
	// NFD input normalizes to the same digest as NFC.
	nfd := strings.Replace(q, "CANARYQ", "CANARYQ e\u0301", 1)
	nfc := strings.Replace(q, "CANARYQ", "CANARYQ \u00e9", 1)
	if QueryDigest(nfd) != QueryDigest(nfc) || QueryDigest(nfc) != digest([]byte(NormalizeQuery(nfc))) {
		t.Fatal("query digest must hash NFC of the trimmed query")
	}
	st := openWith(t, mem(scopeA, "m", 1, body(100, "語")))
	req := Request{ScopeIDs: []string{scopeA}, Query: nfd, IncludeReceipt: true}
	res := doPrepare(t, st, Options{}, req)
	render(t, st, res, req)
	if res.Context.Receipt == nil || res.Context.Receipt.QueryDigest != QueryDigest(nfc) {
		t.Fatalf("receipt must survive a long query: %q", res.Diagnostic)
	}
}

func TestNoExtraCallsForReceipt(t *testing.T) {
	st := openWith(t, mem(scopeA, "m", 1, body(100, "ledger")), mem(scopeB, "m", 1, body(100, "ledger")))
	count := func(inc bool) (int, int) {
		rr := &fakeReranker{res: func(c []Candidate) RerankResult {
			return RerankResult{Order: identity(len(c)), Outcome: RerankSelected, FallbackReason: FallbackNone, Evidence: modelEvidence("acme:r", 0, scopeA, "p")}
		}}
		em := &countingEmbedder{}
		req := Request{ScopeIDs: []string{scopeA, scopeB}, Query: "ledger", IncludeReceipt: inc}
		g := DefaultGatePolicy()
		doPrepare(t, st, Options{Reranker: rr, Embedder: em, Gate: &g}, req)
		return rr.calls, em.calls
	}
	r1, e1 := count(false)
	r2, e2 := count(true)
	if r1 != r2 || e1 != e2 || r1 == 0 || e1 == 0 {
		t.Fatalf("include_receipt changed calls: rerank %d/%d embed %d/%d", r1, r2, e1, e2)
	}
}

type countingEmbedder struct {
	calls int
	fail  func(call int) error
}

func (c *countingEmbedder) Embed(_ context.Context, text string) ([]float32, error) {
	c.calls++
	if c.fail != nil {
		if err := c.fail(c.calls); err != nil {
			return nil, err
		}
	}
	return HashEmbed(text), nil
}

func TestNoForbiddenContent(t *testing.T) {
	st := mixedStore(t, 0)
	q := "ledger CANARYQ why"
	for _, opt := range []Options{{}, {Reranker: &fakeReranker{res: func(c []Candidate) RerankResult { return RerankResult{Outcome: RerankSelected} }}}} {
		req := Request{ScopeIDs: []string{scopeA}, Query: q, IncludeReceipt: true}
		res := doPrepare(t, st, opt, req)
		out := render(t, st, res, req)
		rb, _ := json.Marshal(res.Context.Receipt)
		for _, b := range [][]byte{rb, out.Trace, []byte(out.Diagnostic)} {
			// "ledger" may appear inside a code path (a pass-through
			// identity), never as body or query text.
			if bytes.Contains(b, []byte("CANARY")) || bytes.Contains(b, []byte(q)) || bytes.Contains(b, []byte("filler text")) {
				t.Fatal("query or body text in a receipt, trace or diagnostic")
			}
		}
	}
	// A planted leak fails closed.
	req := Request{ScopeIDs: []string{scopeA}, Query: q, IncludeReceipt: true}
	res := doPrepare(t, st, Options{}, req)
	res.Diagnostic = "receipt omitted: " + q
	bodies, _ := st.Bodies(context.Background(), req.ScopeIDs)
	var le *gate.LeakError
	if _, err := Render(res, req, bodies, true); !errors.As(err, &le) {
		t.Fatalf("a leaking diagnostic must fail closed, got %v", err)
	}
	if w := (gate.Where{Kind: gate.Line, File: "diagnostic", Index: 1}); len(le.Findings) == 0 || le.Findings[0].Where != w {
		t.Fatalf("findings %+v, want the first in %v", le.Findings, w)
	}
}
