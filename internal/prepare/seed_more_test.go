package prepare

// Seed requirements that had no test of their own: query-vector reuse,
// Memory-only rerank, round-0 failure, an empty explicit assembly, the
// reranker's declaration, stage timings of abandoned rounds, keyed digests
// and the authorization model.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/receipt"
)

// TestQueryVectorReusedAcrossRounds: expansion rounds reuse each scope's
// round-0 query vector, so they pay no embedding.
func TestQueryVectorReusedAcrossRounds(t *testing.T) {
	st := twoScopeGateStore(t, 2, 3)
	g := DefaultGatePolicy()
	g.ID, g.MinCandidates = "test.always-thin.v1", 99
	em := &countingEmbedder{}
	req := Request{ScopeIDs: []string{scopeA, scopeB}, Query: gateQuery, Sections: []Section{{FamilyMemory, 8}}}
	e := doPrepare(t, st, Options{Gate: &g, Embedder: em}, req).Effort
	if e.Rounds != 3 || em.calls != 2 || e.AddedEmbeddings != 0 {
		t.Fatalf("want one embedding per scope for three rounds: %d calls, %+v", em.calls, e)
	}
}

// TestRerankIsMemoryOnly: the reranker sees Memory searches only.
func TestRerankIsMemoryOnly(t *testing.T) {
	st := mixedStore(t, 0)
	rr := &modelReranker{}
	req := Request{ScopeIDs: []string{scopeA}, Query: "ledger", IncludeReceipt: true}
	r := doPrepare(t, st, Options{Reranker: rr}, req).Context.Receipt
	if rr.calls != 1 || len(r.Retrieval.Reranks) != 1 || r.Retrieval.Reranks[0].Count != 1 {
		t.Fatalf("one Memory search, one rerank call: %d calls, %+v", rr.calls, r.Retrieval.Reranks)
	}
}

// TestRound0FailureFailsPrepare: round 0 is committed unconditionally; if
// it fails, prepare fails as it would without the gate.
func TestRound0FailureFailsPrepare(t *testing.T) {
	st := mixedStore(t, 0)
	g := DefaultGatePolicy()
	for _, opt := range []Options{{}, {Gate: &g}} {
		opt.searchFault = func(round int, fam, _ string) error {
			if round == 0 && fam == FamilyTopic {
				return errors.New("backend down")
			}
			return nil
		}
		if _, err := NewRuntime(st, fixed(opt)).Prepare(context.Background(), Request{ScopeIDs: []string{scopeA}, Query: "ledger"}); err == nil {
			t.Fatal("a failed round 0 must fail prepare")
		}
	}
}

// TestEmptyAssembly: assembly.sections [] is a normal empty result after
// validation; nothing is searched and nothing expands.
func TestEmptyAssembly(t *testing.T) {
	st := mixedStore(t, 0)
	g := DefaultGatePolicy()
	req := Request{ScopeIDs: []string{scopeA}, Query: "ledger", IncludeReceipt: true, Sections: []Section{}}
	res := doPrepare(t, st, Options{Gate: &g}, req)
	render(t, st, res, req)
	r := res.Context.Receipt
	if res.Context.Status != StatusEmpty || res.Effort.Rounds != 1 || len(r.Retrieval.Searches) != 0 || len(r.Omitted) != 0 {
		t.Fatalf("status %s, effort %+v, receipt %+v", res.Context.Status, res.Effort, r)
	}
}

// declaredDeterministic says it makes no model call but its evidence says
// otherwise.
type declaredDeterministic struct{ modelReranker }

func (declaredDeterministic) ModelBacked() bool { return false }

// TestRerankDeclarationMustMatchEvidence: a reranker that declares itself
// deterministic but supplies model-backed evidence cannot be trusted: the
// receipt is dropped and the injection is unchanged.
func TestRerankDeclarationMustMatchEvidence(t *testing.T) {
	st := mixedStore(t, 0)
	req := Request{ScopeIDs: []string{scopeA}, Query: "ledger", IncludeReceipt: true}
	res := doPrepare(t, st, Options{Reranker: &declaredDeterministic{}}, req)
	req.IncludeReceipt = false
	plain := doPrepare(t, st, Options{Reranker: &declaredDeterministic{}}, req)
	if res.Context.Receipt != nil || !strings.Contains(res.Diagnostic, "declaration") || *res.Context.Content != *plain.Context.Content {
		t.Fatalf("want the receipt dropped: %q", res.Diagnostic)
	}
}

// TestStageTimings: repeated stages are aggregated (duration summed, count
// of instances) and an abandoned round's stages are included.
func TestStageTimings(t *testing.T) {
	st := openWith(t, mem(scopeA, "m", 1, body(100, "alpha", "bravo", "charlie"), body(100, "alpha", "bravo", "w")),
		mem(scopeB, "m", 1, body(100, "alpha", "bravo", "charlie")))
	g := DefaultGatePolicy()
	req := Request{ScopeIDs: []string{scopeA, scopeB}, Query: gateQuery, IncludeReceipt: true}
	res := doPrepare(t, st, Options{Gate: &g, searchFault: func(round int, fam, scope string) error {
		if round == 1 && scope == scopeB {
			return errors.New("backend down")
		}
		return nil
	}}, req)
	var names []string
	for _, s := range res.Context.Receipt.Stages {
		names = append(names, s.Stage)
		if s.Stage == "recall" && (s.Count != 2 || s.DurationMS < 2) {
			t.Fatalf("recall ran in round 0 and in the abandoned round 1: %+v", s)
		}
	}
	if !slices.Equal(names, []string{"recall", "budget_probe", "gate", "build"}) {
		t.Fatalf("stages that ran, once each: %v", names)
	}
}

// TestKeyedDigests: with a keyed Hasher every digest prepare derives from
// input (query, content, code file and snippet, and the trace's query
// digest) is an HMAC, and no plain digest of the query or of a body is
// written anywhere.
func TestKeyedDigests(t *testing.T) {
	st := mixedStore(t, 0)
	h, err := receipt.NewKeyed([]byte("45666d976bab316d970ec459afd866d9e9a0681ac510f0911f2ac33e9142e51b"))
	if err != nil {
		t.Fatal(err)
	}
	q := "ledger CANARYQ"
	req := Request{ScopeIDs: []string{scopeA}, Query: q, IncludeReceipt: true}
	res := doPrepare(t, st, Options{Hasher: h}, req)
	out := render(t, st, res, req)
	r := res.Context.Receipt
	if r == nil {
		t.Fatal(res.Diagnostic)
	}
	if r.QueryDigest != h.Text(NormalizeQuery(q)) || *r.ContentDigest != h.Text(*res.Context.Content) {
		t.Fatal("query and content digests must be keyed")
	}
	code, hist := 0, 0
	for _, s := range r.Selected {
		if c := s.CodeEvidence; c != nil {
			code++
			if !strings.HasPrefix(c.SnippetSHA256, "hmac-sha256:") || !strings.HasPrefix(c.FileSHA256, "hmac-sha256:") {
				t.Fatalf("code digests: %+v", c)
			}
			// issue #40: a code path names the project layout
			if !strings.HasPrefix(c.Path, "hmac-sha256:") {
				t.Fatalf("code evidence path in clear: %+v", c)
			}
		}
		if a := s.ArtifactAddress; a != nil {
			hist++
			// issue #40: artifact and entry ids come from the store
			for _, id := range []string{a.ArtifactID, s.EntryID, s.EntryVersionID} {
				if id != "" && !strings.HasPrefix(id, "hmac-sha256:") {
					t.Fatalf("an id in clear: %+v %s %s", a, s.EntryID, s.EntryVersionID)
				}
			}
		}
	}
	if hist == 0 {
		t.Fatal("fixture: want historical items")
	}
	rb, _ := json.Marshal(r)
	bodies, _ := st.Bodies(context.Background(), req.ScopeIDs)
	for _, doc := range [][]byte{rb, out.Trace} {
		if bytes.Contains(doc, []byte(QueryDigest(q))) || !bytes.Contains(out.Trace, []byte(r.QueryDigest)) {
			t.Fatal("a plain query digest is written, or the trace lacks the keyed one")
		}
		for _, b := range bodies {
			if bytes.Contains(doc, []byte(digest([]byte(b)))) {
				t.Fatal("a plain body digest is written")
			}
		}
	}
	if code == 0 || !bytes.Contains(out.Trace, []byte(h.KeyID())) {
		t.Fatal("fixture: want code items, and the trace names the key id")
	}
	// The exact code read verifies keyed digests with the same key only.
	for _, s := range r.Selected {
		if c := s.CodeEvidence; c != nil {
			if _, err := st.ReadCode(context.Background(), Access{open: true}, h, *c); err != nil {
				t.Fatalf("keyed exact code read: %v", err)
			}
			if _, err := st.ReadCode(context.Background(), Access{open: true}, receipt.Hasher{}, *c); !errors.Is(err, ErrUnavailable) {
				t.Fatal("a keyed range does not verify without the key")
			}
		}
	}
}

// TestAuthorization: grants per scope for a named caller.
func TestAuthorization(t *testing.T) {
	recs := []rec{
		mem(scopeA, "m", 1, body(100, "ledger", "alpha")),
		mem(scopeB, "m", 1, body(100, "ledger", "beta")),
		codeRec(scopeB, "repo", "b.go", 1, "// CANARY ledger\nfunc b() {}\n"),
		{"kind": "grant", "caller": "alice", "scope_id": scopeA},
	}
	st := openWith(t, recs...)
	ctx := context.Background()
	both := Request{Caller: "alice", ScopeIDs: []string{scopeA, scopeB}, Query: "ledger", IncludeReceipt: true}
	only := both
	only.ScopeIDs = []string{scopeA}
	a, b := doPrepare(t, st, Options{}, both), doPrepare(t, st, Options{}, only)
	ra, _ := json.Marshal(a.Context.Receipt)
	rb, _ := json.Marshal(b.Context.Receipt)
	if !bytes.Equal(ra, rb) || bytes.Contains(ra, []byte(scopeB)) {
		t.Fatalf("a denied referenced scope leaves no trace in the receipt:\n%s\n%s", ra, rb)
	}
	for _, tt := range []struct {
		req  Request
		want error
	}{
		{Request{ScopeIDs: []string{scopeA}, Query: "ledger"}, ErrCallerRequired},
		{Request{Caller: "bob", ScopeIDs: []string{scopeA}, Query: "ledger"}, ErrNotAuthorized},
		{Request{Caller: "alice", ScopeIDs: []string{scopeB, scopeA}, Query: "ledger"}, ErrNotAuthorized},
	} {
		if _, err := NewRuntime(st, fixed(Options{})).Prepare(ctx, tt.req); !errors.Is(err, tt.want) {
			t.Errorf("%+v: got %v, want %v", tt.req, err, tt.want)
		}
	}
	acc, err := st.Access(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Read(ctx, acc, Address{scopeA, FamilyMemory, "m", 1}); err != nil {
		t.Fatalf("granted read: %v", err)
	}
	_, denied := st.Read(ctx, acc, Address{scopeB, FamilyMemory, "m", 1})
	_, missing := st.Read(ctx, acc, Address{scopeA, FamilyMemory, "m", 9})
	_, unknown := st.Read(ctx, acc, Address{scopeA, FamilyMemory, "nope", 1})
	if denied != ErrUnavailable || missing != ErrUnavailable || unknown != ErrUnavailable {
		t.Fatalf("a denied read fails like an unavailable revision: %v / %v / %v", denied, missing, unknown)
	}
	open, _ := st.Access(ctx, "carol")
	ref := CodeRef{ScopeID: scopeB, Fingerprint: "repo", Path: "b.go", StartLine: 1, EndLine: 2}
	ref.FileSHA256 = receipt.Hasher{}.Text("// CANARY ledger\nfunc b() {}\n")
	ref.SnippetSHA256 = ref.FileSHA256
	if _, err := st.ReadCode(ctx, open, receipt.Hasher{}, ref); err != ErrUnavailable {
		t.Fatal("a denied code read fails like an unavailable range")
	}
	// A store without grants is a single-user store: every scope reads.
	st2 := openWith(t, recs[:3]...)
	if acc, err := st2.Access(ctx, ""); err != nil || !acc.Can(scopeB) {
		t.Fatal("no grants: open")
	}
	if _, err := st2.ReadCode(ctx, Access{open: true}, receipt.Hasher{}, ref); err != nil {
		t.Fatalf("open code read: %v", err)
	}
}
