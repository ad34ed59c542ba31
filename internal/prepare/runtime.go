package prepare

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contextreceipts/convert/internal/gate"
	"github.com/contextreceipts/convert/internal/receipt"
)

// Embedder embeds a query for the vector channel. Errors wrapping
// context.DeadlineExceeded (or ErrInferenceTimeout) are timeouts; any other
// error means inference is unavailable. Either way the search falls back to
// FTS and says so.
type Embedder interface {
	Embed(ctx context.Context, text string) ([]float32, error)
}

// ErrInferenceTimeout marks an embedding timeout.
var ErrInferenceTimeout = errors.New("inference timeout")

// HashEmbedder embeds with HashEmbed: the store's own deterministic vectors.
type HashEmbedder struct{}

// Embed implements Embedder.
func (HashEmbedder) Embed(_ context.Context, text string) ([]float32, error) {
	return HashEmbed(text), nil
}

// Options configures a Runtime. The zero value is a deterministic FTS-only
// runtime with the gate off, plain sha256 digests, a wall clock and random
// receipt ids.
type Options struct {
	Clock        func() time.Time // injected for deterministic stage timings
	NewID        func() string    // receipt ids; default random UUID v4
	Embedder     Embedder         // nil: FTS only
	VectorScopes map[string]bool  // scopes with a vector deployment; nil: all (when Embedder is set)
	Reranker     Reranker         // Memory-only rerank; nil: none
	Gate         *GatePolicy      // nil: recall gate off; an invalid policy (GatePolicy.Check) means no expansion
	// EffortSink receives the RecallEffort after the build. Its error or
	// panic is swallowed: the injection never depends on it, and the
	// Result's Diagnostic says, without content, that the sink failed.
	EffortSink func(RecallEffort) error
	NoReader   map[string]bool // families with no configured reader (searched as not_run)
	// Hasher makes every digest derived from the input: query, content,
	// snippet and computed file digests. Keyed (receipt.NewKeyed), they are
	// HMAC-SHA256, so a guessable query or snippet cannot be confirmed from a
	// shared receipt or trace.
	Hasher receipt.Hasher
	// searchFault, when set, may fail one search (tests of all-or-nothing rounds).
	searchFault func(round int, family, scope string) error
}

// Runtime prepares contexts from a Store.
type Runtime struct {
	store *Store
	opt   Options
}

// NewRuntime returns a runtime over store.
func NewRuntime(store *Store, opt Options) *Runtime {
	if opt.Clock == nil {
		opt.Clock = time.Now
	}
	if opt.NewID == nil {
		opt.NewID = randomUUID
	}
	return &Runtime{store: store, opt: opt}
}

func randomUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Request is one prepare request.
type Request struct {
	Caller         string   // the named caller; required once the store has grants
	ScopeIDs       []string // the first is the current Scope; the rest are referenced Scopes
	Query          string
	MaxBytes       int       // 0: DefaultMaxBytes
	IncludeReceipt bool      // false, null and absent are the same
	Sections       []Section // nil: default family selection; empty non-nil: nothing selected
}

// Result is a prepared context and what a caller may need next to it.
type Result struct {
	Context     PreparedContext
	QueryDigest string // made by Options.Hasher
	Hash        receipt.Hasher
	Diagnostic  string        // content-free reason the receipt (or recall effort) was omitted; "" if none
	Effort      *RecallEffort // set when the gate is on
	Stages      []StageTiming
	Start, End  time.Time
	MaxBytes    int // the effective max_bytes
	Searches    []SearchGroup
	Rounds      []RecallRound
	// Bodies are the raw bodies this prepare read (every candidate of every
	// round, selected or not): with the query, what Render leak-checks the
	// outputs against.
	Bodies []string
}

// ParseSections parses "memory:8,topic-memory,code:2". The selector
// "memory" (and "atomic-memory") selects the atomic-memory family.
func ParseSections(spec string) ([]Section, error) {
	out := []Section{}
	seen := map[string]bool{}
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, lim, hasLim := strings.Cut(part, ":")
		fam := name
		if name == "memory" {
			fam = FamilyMemory
		}
		maxLim, ok := maxSectionLimit[fam]
		if !ok {
			return nil, fmt.Errorf("unknown section family %q (memory, topic-memory, experience, profile, code)", name)
		}
		if seen[fam] {
			return nil, fmt.Errorf("section family %q given twice", name)
		}
		seen[fam] = true
		n := maxLim
		if hasLim {
			if _, err := fmt.Sscanf(lim, "%d", &n); err != nil || n < 1 || n > maxLim {
				return nil, fmt.Errorf("section %s limit must be 1-%d", name, maxLim)
			}
		}
		out = append(out, Section{Family: fam, Limit: n})
	}
	return out, nil
}

// Validate checks a request's bounds.
func (r *Request) Validate() error {
	if r.MaxBytes == 0 {
		r.MaxBytes = DefaultMaxBytes
	}
	if r.MaxBytes < MinMaxBytes || r.MaxBytes > MaxMaxBytes {
		return fmt.Errorf("max_bytes must be %d-%d", MinMaxBytes, MaxMaxBytes)
	}
	q := trimQuery(r.Query)
	if q == "" {
		return errors.New("query is empty")
	}
	if !utf8.ValidString(q) || utf8.RuneCountInString(q) > MaxQueryChars {
		return fmt.Errorf("query must be valid UTF-8 of at most %d characters", MaxQueryChars)
	}
	if len(r.ScopeIDs) == 0 {
		return errors.New("at least one scope is needed")
	}
	if r.Caller != "" && checkID("caller", r.Caller) != nil {
		return errors.New("caller must be a token")
	}
	seen := map[string]bool{}
	for _, s := range r.ScopeIDs {
		if err := checkID("scope", s); err != nil || seen[s] {
			return errors.New("scopes must be distinct tokens")
		}
		seen[s] = true
	}
	return nil
}

// pools is a candidate set: family -> scope -> ordered candidates.
type pools map[string]map[string][]Candidate

func (p pools) add(fam, scope string, cs []Candidate) {
	if p[fam] == nil {
		p[fam] = map[string][]Candidate{}
	}
	p[fam][scope] = append(p[fam][scope], cs...)
}

// ceilings are the Builder's per-family candidate ceilings.
var ceilings = map[string]int{FamilyMemory: MemoryCandidateLimit, FamilyTopic: TopicCandidateLimit,
	FamilyExperience: ExperienceCandidateLimit, FamilyProfile: ProfileLimit, FamilyCode: 2 * CodeLimit}

// allocation is the candidate set offered to the Builder.
type allocation struct {
	cands   map[string][]Candidate // per family, round 0 first, then each later round's additions
	clamped map[string]int         // candidates the family ceiling cut
}

// allocate clamps each family to its ceiling, round-robin across scope
// groups in scope order, one committed round after the other: round 0 is
// allocated exactly as without expansion, and a later round only fills what
// room is left. A clamp can therefore only cut candidates a later round
// added; no round-0 candidate is ever displaced, whatever the scopes.
func allocate(rounds []pools, scopes []string) allocation {
	a := allocation{cands: map[string][]Candidate{}, clamped: map[string]int{}}
	for _, p := range rounds {
		for fam, byScope := range p {
			idx := map[string]int{}
			total, taken := 0, 0
			for _, s := range scopes {
				total += len(byScope[s])
			}
			for progress := true; progress && len(a.cands[fam]) < ceilings[fam]; {
				progress = false
				for _, s := range scopes {
					if idx[s] < len(byScope[s]) && len(a.cands[fam]) < ceilings[fam] {
						a.cands[fam] = append(a.cands[fam], byScope[s][idx[s]])
						idx[s]++
						taken++
						progress = true
					}
				}
			}
			a.clamped[fam] += total - taken
		}
	}
	return a
}

// fresh returns the identities a stage adds to the committed rounds, per
// family and scope in the stage's order. An identity a committed round
// already holds is the same candidate found again, not an exclusion: it is
// not counted as a duplicate (issue #51: every later round counted each
// re-found round-0 item again).
func fresh(committed []pools, stage pools) pools {
	out := pools{}
	for fam, byScope := range stage {
		for s, cs := range byScope {
			have := map[string]bool{}
			for _, p := range committed {
				for _, c := range p[fam][s] {
					have[c.key()] = true
				}
			}
			for _, c := range cs {
				if have[c.key()] {
					continue
				}
				have[c.key()] = true
				out.add(fam, s, []Candidate{c})
			}
		}
	}
	return out
}

var stageOrder = map[string]int{"recall": 0, "rerank": 1, "budget_probe": 2, "gate": 3, "build": 4}

// prep is the state of one Prepare call.
type prep struct {
	rt       *Runtime
	req      Request
	gate     *GatePolicy // the valid policy in force, or nil
	h        receipt.Hasher
	scopes   []string // the current scope, then the referenced scopes the caller may read
	qterms   []string
	sections []Section
	vecs     map[string]vecState
	stages   []StageTiming
	searches []SearchGroup
	reranks  []rerankCall
	rounds   []RecallRound
	combined int // the default builder's combined item limit; 0 with explicit sections
	embeds   int // query embeddings paid after round 0
	genCalls int
	evidence error // first rerank evidence failure
	seen     map[int64]bool
	bodies   []string            // every body a search read, once
	pools    map[string][2][]row // each search's FTS and vector rows, for the rounds after it
}

type vecState struct {
	vec      []float32
	fallback string // "" when the vector channel is usable
	round    int    // the round whose embedding failed
}

type rerankCall struct {
	round    int
	cfg      RerankConfig
	outcome  string
	fallback string
}

// roundOut is one recall round's staged result and its exclusion counts.
type roundOut struct {
	cands     pools
	counts    []AdmissionCounts // only with the gate on (the RecallEffort counters)
	belowAdm  map[string]int
	candLimit map[string]int
	dup       map[string]map[string]bool // per family, the identities both channels found (hybrid fusion)
}

func newRoundOut() roundOut {
	return roundOut{cands: pools{}, belowAdm: map[string]int{}, candLimit: map[string]int{}, dup: map[string]map[string]bool{}}
}

func (p *prep) stage(name string, f func() error) error {
	t0 := p.rt.opt.Clock()
	err := f()
	d := p.rt.opt.Clock().Sub(t0).Milliseconds()
	for i := range p.stages {
		if p.stages[i].Stage == name {
			p.stages[i].DurationMS += d
			p.stages[i].Count++
			return err
		}
	}
	p.stages = append(p.stages, StageTiming{Stage: name, DurationMS: d, Count: 1})
	return err
}

func (p *prep) call(round int, fam, mode, outcome, fallback string) {
	p.searches = append(p.searches, SearchGroup{Round: round, Family: fam, Mode: mode, Outcome: outcome, FallbackReason: fallback, Count: 1})
}

// searchable reports the families the gate may expand.
func searchable(fam string) bool {
	return fam == FamilyMemory || fam == FamilyTopic || fam == FamilyExperience
}

// scopesFor: memory and experience are searched in every scope the caller
// may read; topic memory, profile and code in the current scope only.
func (p *prep) scopesFor(fam string) []string {
	if fam == FamilyMemory || fam == FamilyExperience {
		return p.scopes
	}
	return p.scopes[:1]
}

// paidRerank reports whether a Memory search pays a model-backed rerank
// call: the configured reranker's declaration, whether or not it ran yet.
func (p *prep) paidRerank() bool {
	return p.rt.opt.Reranker != nil && p.rt.opt.Reranker.ModelBacked()
}

// recall runs one round over the selected families (only growable ones
// after round 0). Any failed search fails the whole round.
func (p *prep) recall(ctx context.Context, round int, grow map[string]bool) (roundOut, error) {
	out := newRoundOut()
	floor := baseFloor
	if g := p.gate; g != nil {
		floor = Expand(round, *g)
	}
	for _, sec := range p.sections {
		fam := sec.Family
		if round > 0 && !grow[fam] {
			continue
		}
		for _, scope := range p.scopesFor(fam) {
			if p.rt.opt.NoReader[fam] {
				p.call(round, fam, ModeNone, OutcomeNotRun, FallbackNone)
				continue
			}
			if err := p.searchOne(ctx, round, fam, scope, floor, &out); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// searchOne runs one family's search in one scope: its channels (FTS, and
// the vector channel when configured), admission under floor, fusion, the
// family ceiling and, for Memory, the reranker. Its call is recorded with
// the mode that actually ran.
func (p *prep) searchOne(ctx context.Context, round int, fam, scope string, floor Floor, out *roundOut) error {
	mode := searchMode(fam)
	if f := p.rt.opt.searchFault; f != nil {
		if err := f(round, fam, scope); err != nil {
			p.call(round, fam, mode, OutcomeFailed, FallbackNone)
			return err
		}
	}
	if fam == FamilyProfile {
		return p.searchProfiles(ctx, round, scope, out)
	}
	mode, qvec, fallback := p.vectorChannel(ctx, round, fam, scope, mode)
	ftsRows, vecRows, err := p.searchChannels(ctx, fam, scope, qvec)
	if err != nil {
		p.call(round, fam, mode, OutcomeFailed, fallback)
		return err
	}
	p.call(round, fam, mode, OutcomeCompleted, fallback)
	list, admitted := p.fuse(fam, ftsRows, vecRows, floor, out)
	retrieved := len(ftsRows) + len(vecRows)
	out.belowAdm[fam] += retrieved - admitted
	if p.gate != nil && searchable(fam) {
		out.counts = append(out.counts, AdmissionCounts{Family: fam, ScopeID: scope, Retrieved: retrieved, Admitted: admitted})
	}
	cs := p.candidates(round, fam, list, out)
	if fam == FamilyMemory && p.rt.opt.Reranker != nil && len(cs) > 0 {
		_ = p.stage("rerank", func() error {
			cs = p.rerank(ctx, round, cs)
			return nil
		})
	}
	out.cands.add(fam, scope, cs)
	return nil
}

// searchMode is a family's search mode before the vector channel is known.
func searchMode(fam string) string {
	switch fam {
	case FamilyProfile:
		return ModeSnapshot
	case FamilyCode:
		return ModeCode
	}
	return ModeFTS
}

// searchProfiles reads the profile snapshot of scope, up to its ceiling.
func (p *prep) searchProfiles(ctx context.Context, round int, scope string, out *roundOut) error {
	fam := FamilyProfile
	rs, n, err := p.rt.store.profiles(ctx, scope, ceilings[fam])
	if err != nil {
		p.call(round, fam, ModeSnapshot, OutcomeFailed, FallbackNone)
		return err
	}
	p.call(round, fam, ModeSnapshot, OutcomeCompleted, FallbackNone)
	p.saw(rs)
	cs := make([]Candidate, len(rs))
	for i, r := range rs {
		cs[i] = r.cand
	}
	out.candLimit[fam] += max(0, n-ceilings[fam])
	out.cands.add(fam, scope, cs)
	return nil
}

// vectorChannel decides whether a search is hybrid: the query is embedded
// once per scope (a later round reuses the vector or the failure), and a
// failed embedding falls back to FTS with the observed error class.
func (p *prep) vectorChannel(ctx context.Context, round int, fam, scope, mode string) (string, []float32, string) {
	if fam == FamilyCode || p.rt.opt.Embedder == nil || (p.rt.opt.VectorScopes != nil && !p.rt.opt.VectorScopes[scope]) {
		return mode, nil, FallbackNone
	}
	vs, ok := p.vecs[scope]
	if !ok {
		v, err := p.rt.opt.Embedder.Embed(ctx, NormalizeQuery(p.req.Query))
		if round > 0 {
			p.embeds++
		}
		vs = vecState{vec: v, round: round}
		if err != nil {
			vs = vecState{fallback: FallbackUnavailable, round: round}
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrInferenceTimeout) {
				vs.fallback = FallbackTimeout
			}
		}
		p.vecs[scope] = vs
	}
	switch {
	case vs.fallback == "":
		return ModeHybrid, vs.vec, FallbackNone
	case round > vs.round:
		return mode, nil, FallbackReusedFTS // a later round reuses that failure's FTS-only outcome
	}
	return mode, nil, vs.fallback // the observed error class, for every search of its round
}

// searchChannels queries FTS and, with a query vector, the vector channel.
// An expansion round repeats round 0's search over the same pool with the
// same query and vector (seed 001: rounds differ only in the admission
// floor), so the rows a search returned are kept for the rounds after it:
// the call is counted each round, the store is read once.
func (p *prep) searchChannels(ctx context.Context, fam, scope string, qvec []float32) (fts, vec []row, err error) {
	key := fmt.Sprint(fam, "\x00", scope, "\x00", qvec != nil)
	if c, ok := p.pools[key]; ok {
		return c[0], c[1], nil
	}
	defer func() {
		if err == nil {
			if p.pools == nil {
				p.pools = map[string][2][]row{}
			}
			p.pools[key] = [2][]row{fts, vec}
		}
	}()
	pool := 4 * ceilings[fam]
	if fam == FamilyMemory {
		pool = max(pool, 32)
	}
	if fts, err = p.rt.store.searchFTS(ctx, p.h, scope, fam, p.qterms, pool); err != nil {
		return nil, nil, err
	}
	if qvec != nil {
		if vec, err = p.rt.store.searchVector(ctx, p.h, scope, fam, p.qterms, qvec, pool); err != nil {
			return nil, nil, err
		}
	}
	p.saw(fts)
	p.saw(vec)
	return fts, vec, nil
}

// saw records the bodies a search read: the raw strings the leak check
// probes the outputs against (with the query). Outputs are built from
// these rows only, so the check's work follows the candidates, not the
// store.
func (p *prep) saw(rs []row) {
	if p.seen == nil {
		p.seen = map[int64]bool{}
	}
	for _, r := range rs {
		if !p.seen[r.id] {
			p.seen[r.id] = true
			p.bodies = append(p.bodies, r.cand.Body)
		}
	}
}

// fused is one admitted row and its reciprocal-rank score.
type fused struct {
	r     row
	score float64
}

// fuse admits the rows of each channel (FTS by the derived lexical
// requirement, vectors by the floor's similarity) and fuses them by
// reciprocal rank, best first; one row found by both channels is a
// duplicate. It returns the fused list and how many rows were admitted.
func (p *prep) fuse(fam string, ftsRows, vecRows []row, floor Floor, out *roundOut) ([]*fused, int) {
	required := max(1, requiredMatches(len(p.qterms))-floor.Relax)
	byID := map[int64]*fused{}
	var list []*fused
	admitted := 0
	addRank := func(r row, rank int) {
		admitted++
		if f, ok := byID[r.id]; ok {
			f.score += 1 / float64(60+rank)
			if out.dup[fam] == nil {
				out.dup[fam] = map[string]bool{}
			}
			out.dup[fam][r.cand.key()] = true
			return
		}
		f := &fused{r: r, score: 1 / float64(60+rank)}
		byID[r.id] = f
		list = append(list, f)
	}
	rank := 0
	for _, r := range ftsRows {
		r.matched = matched(p.qterms, r.cand.Body)
		if r.matched >= required {
			rank++
			addRank(r, rank)
		}
	}
	rank = 0
	for _, r := range vecRows {
		if r.sim >= floor.MinSimilarity {
			r.matched = matched(p.qterms, r.cand.Body)
			rank++
			addRank(r, rank)
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].score > list[j].score })
	return list, admitted
}

// candidates turns the fused list into the round's candidates, scored for
// Memory and Topic Memory, cut to the family ceiling.
func (p *prep) candidates(round int, fam string, list []*fused, out *roundOut) []Candidate {
	cs := make([]Candidate, 0, len(list))
	for _, f := range list {
		c := f.r.cand
		c.round = round
		if fam == FamilyMemory || fam == FamilyTopic {
			c.HasScore = true
			if len(p.qterms) > 0 {
				c.Score = float64(f.r.matched) / float64(len(p.qterms))
			}
		}
		cs = append(cs, c)
	}
	if len(cs) > ceilings[fam] {
		out.candLimit[fam] += len(cs) - ceilings[fam]
		cs = cs[:ceilings[fam]]
	}
	return cs
}

func (p *prep) rerank(ctx context.Context, round int, cs []Candidate) []Candidate {
	rr := p.rt.opt.Reranker
	res := rr.Rerank(ctx, NormalizeQuery(p.req.Query), cs)
	cfg, err := configOf(res.Evidence)
	if err == nil && res.Evidence.ModelBacked != rr.ModelBacked() {
		err = fmt.Errorf("reranker declaration disagrees with its evidence: %w", errEvidence)
	}
	if err != nil && p.evidence == nil {
		p.evidence = err
	}
	if rr.ModelBacked() && round > 0 {
		p.genCalls++
	}
	outcome, fb := res.Outcome, res.FallbackReason
	valid := outcome == RerankSelected && validOrder(res.Order, len(cs))
	if outcome == RerankSelected && !valid {
		outcome, fb = RerankFallback, RerankInvalidOutput
	}
	if outcome != RerankSelected && outcome != RerankFallback && outcome != RerankFailed {
		outcome, fb = RerankFailed, RerankInvalidOutput
	}
	if fb == "" {
		fb = FallbackNone
	}
	p.reranks = append(p.reranks, rerankCall{round: round, cfg: cfg, outcome: outcome, fallback: fb})
	if !valid {
		return cs
	}
	out := make([]Candidate, len(res.Order))
	for i, j := range res.Order {
		out[i] = cs[j]
	}
	return out
}

func validOrder(order []int, n int) bool {
	seen := make([]bool, n)
	for _, i := range order {
		if i < 0 || i >= n || seen[i] {
			return false
		}
		seen[i] = true
	}
	return len(order) > 0
}

// Prepare runs recall, the optional gate, the Builder and, on request, the
// Receipt. An error means the request was invalid, the caller may not read
// the current scope, round 0 failed, or ctx was cancelled (errors.Is
// context.Canceled: nothing is returned then); a Receipt failure never
// fails Prepare and never changes the PreparedContext (the Diagnostic says
// why).
func (rt *Runtime) Prepare(ctx context.Context, req Request) (Result, error) {
	if err := req.Validate(); err != nil {
		return Result{}, err
	}
	p, err := rt.newPrep(ctx, req)
	if err != nil {
		return Result{}, err
	}
	res := Result{Start: rt.opt.Clock(), MaxBytes: req.MaxBytes, Hash: p.h, QueryDigest: p.h.Text(NormalizeQuery(req.Query))}
	var diags []string
	if g := rt.opt.Gate; g != nil {
		// The gate fails closed (seed 001): an invalid policy means no
		// expansion and no effort, never a failed prepare.
		if err := g.Check(); err != nil {
			diags = append(diags, "recall gate off: invalid policy: "+err.Error())
		} else {
			p.gate = g
		}
	}
	var r0 roundOut
	if err := p.stage("recall", func() (err error) { r0, err = p.recall(ctx, 0, nil); return }); err != nil {
		return Result{}, fmt.Errorf("recall failed: %w", err)
	}
	p.rounds = append(p.rounds, RecallRound{Round: 0, Outcome: RoundCompleted, Retained: true})
	st := &recallState{committed: []pools{r0.cands}, outs: map[int]roundOut{0: r0}, latest: r0.counts}
	st.final = allocate(st.committed, p.scopes)
	var effort *RecallEffort
	if g := p.gate; g != nil {
		effort = p.expand(ctx, *g, st)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	ex := p.retain(st)
	var b build
	_ = p.stage("build", func() error { b = fit(p.sections, st.final.cands, req.MaxBytes, p.combined, p.h); return nil })
	if len(b.content) > req.MaxBytes {
		return Result{}, errors.New("invariant: content over max_bytes")
	}
	pc := PreparedContext{Schema: ContextSchema, Status: StatusEmpty}
	if len(b.items) > 0 {
		c := b.content
		pc.Status, pc.Content, pc.ContentBytes = StatusReady, &c, len(c)
	}
	if effort != nil {
		effort.TruncatedItems = b.truncated
		effort.DroppedBelowMinBytes, effort.DroppedNoFittingTruncation = b.belowMin, b.noFit
		effort.DroppedItems = b.belowMin + b.noFit
		if rt.opt.EffortSink != nil && callSink(rt.opt.EffortSink, *effort) != nil {
			diags = append(diags, "recall effort sink failed (swallowed; the injection is unaffected)")
		}
	}
	res.End = rt.opt.Clock()
	sort.SliceStable(p.stages, func(i, j int) bool { return stageOrder[p.stages[i].Stage] < stageOrder[p.stages[j].Stage] })
	res.Effort, res.Stages, res.Rounds = effort, p.stages, p.rounds
	res.Searches = groupSearches(p.searches)
	res.Bodies = p.bodies
	if req.IncludeReceipt {
		var why string
		pc.Receipt, why = p.receiptOrDiagnostic(b, pc, omissions(p.sections, st.final.cands, b, ex, st.final.clamped))
		if why != "" {
			diags = append([]string{why}, diags...)
		}
	}
	res.Diagnostic = strings.Join(diags, "; ")
	res.Context = pc
	return res, nil
}

// callSink hands the effort to the sink; an error or a panic is returned,
// never propagated (the caller swallows it with a content-free message).
func callSink(sink func(RecallEffort) error, e RecallEffort) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errors.New("recall effort sink panicked")
		}
	}()
	return sink(e)
}

// newPrep checks the caller's access and fixes what one Prepare searches:
// the scopes the caller may read (a referenced scope it may not read is
// never searched: it leaves no candidate, no search call and no count in
// the receipt) and the sections.
func (rt *Runtime) newPrep(ctx context.Context, req Request) (*prep, error) {
	acc, err := rt.store.Access(ctx, req.Caller)
	if err != nil {
		return nil, err
	}
	if !acc.Can(req.ScopeIDs[0]) {
		return nil, ErrNotAuthorized
	}
	p := &prep{rt: rt, req: req, h: rt.opt.Hasher, vecs: map[string]vecState{}, qterms: queryTerms(NormalizeQuery(req.Query))}
	p.scopes = []string{req.ScopeIDs[0]}
	for _, s := range req.ScopeIDs[1:] {
		if acc.Can(s) {
			p.scopes = append(p.scopes, s)
		}
	}
	p.sections = req.Sections
	if p.sections == nil {
		p.sections, p.combined = defaultSections(), DefaultEntryLimit
	}
	return p, nil
}

// recallState is what the committed recall rounds hold.
type recallState struct {
	committed []pools
	outs      map[int]roundOut  // each completed round's own result and exclusion counts
	latest    []AdmissionCounts // per family and scope, from the last round that searched it
	final     allocation
}

// expand is the recall gate. It assesses the committed candidates after
// round 0 and after every committed expansion, and runs the next round only
// while the answer is insufficient, the policy allows another expansion and
// some family can still grow; the last assessment is the effort's. A
// cancelled ctx stops it before the next round.
func (p *prep) expand(ctx context.Context, g GatePolicy, st *recallState) *RecallEffort {
	effort := &RecallEffort{Schema: EffortSchema, Policy: g.ID, PolicyDigest: g.Digest(), Rounds: 1, ExpansionActions: []string{},
		CandidatesByRound: []int{count(st.final.cands)}}
	for r := 1; ; r++ {
		var probe build
		_ = p.stage("budget_probe", func() error {
			probe = fit(p.sections, st.final.cands, p.req.MaxBytes, p.combined, p.h)
			return nil
		})
		var a Assessment
		var grow map[string]bool
		_ = p.stage("gate", func() error { a, grow = p.assess(g, st, probe); return nil })
		effort.Assessment = a.Reason
		sig := a.Signals
		effort.Signals = &sig
		if a.Sufficient || r > min(g.MaxExpansions, 2) || len(grow) == 0 || ctx.Err() != nil {
			break
		}
		var out roundOut
		err := p.stage("recall", func() (err error) { out, err = p.recall(ctx, r, grow); return })
		effort.Rounds++
		if err != nil {
			// The whole stage is discarded: the committed set, and so the
			// assessment of it, stand. The admission counts the round did
			// measure before it failed are its own: each family and scope
			// reports the last round that measured it (issue #51: they were
			// the last committed round's).
			st.latest = mergeCounts(out.counts, st.latest)
			p.rounds = append(p.rounds, RecallRound{Round: r, Outcome: RoundExpansionFailed, Retained: false})
			effort.CandidatesByRound = append(effort.CandidatesByRound, count(st.final.cands))
			break
		}
		p.rounds = append(p.rounds, RecallRound{Round: r, Outcome: RoundCompleted})
		st.commit(r, out, p.scopes)
		effort.ExpansionActions = append(effort.ExpansionActions, Expand(r, g).Action)
		effort.CandidatesByRound = append(effort.CandidatesByRound, count(st.final.cands))
	}
	effort.AdmissionByFamily = []AdmissionCounts{}
	for _, c := range st.latest {
		c.Family = effortFamily(c.Family)
		effort.AdmissionByFamily = append(effort.AdmissionByFamily, c)
	}
	effort.AddedEmbeddings = p.embeds // the round-0 query vector is reused per scope
	effort.AddedGenerationCalls = p.genCalls
	return effort
}

// assess gives the gate its view of every searchable family with a reader,
// and returns its answer and the families that may grow: below their
// ceiling, with a non-empty pool (a family that retrieved nothing cannot
// gain from a lower floor over the same pool, so it is not searched again).
func (p *prep) assess(g GatePolicy, st *recallState, probe build) (Assessment, map[string]bool) {
	grow := map[string]bool{}
	var fams []GateFamily
	for _, s := range p.sections {
		if !searchable(s.Family) || p.rt.opt.NoReader[s.Family] {
			continue
		}
		gf := GateFamily{Family: s.Family, Ceiling: ceilings[s.Family], Admitted: len(st.final.cands[s.Family]), HasScore: s.Family != FamilyExperience}
		for _, c := range st.latest {
			if c.Family == s.Family {
				gf.Retrieved += c.Retrieved
			}
		}
		for _, c := range st.final.cands[s.Family] {
			gf.Top1 = max(gf.Top1, c.Score)
		}
		gf.Saturation = gf.Admitted >= gf.Ceiling
		if !gf.Saturation && gf.Retrieved > 0 {
			grow[s.Family] = true
		}
		fams = append(fams, gf)
	}
	budget := BudgetView{MaxBytes: p.req.MaxBytes, Delivered: len(probe.items), Truncated: probe.budgetTrunc, Dropped: probe.budgetDrop,
		Unused: probe.unused(), CapTruncated: probe.capTrunc, CapDropped: probe.capDrop}
	a := Assess(fams, budget, g)
	// An expansion round that searches Memory would pay a model rerank
	// call: skip it unless the policy allows the call.
	if !a.Sufficient && grow[FamilyMemory] && p.paidRerank() && !g.AllowRerankCalls {
		a.Sufficient, a.Reason = true, "rerank-calls-not-allowed"
	}
	return a, grow
}

// commit adds expansion round r's fresh candidates; the families it did not
// search keep their latest admission counts.
func (st *recallState) commit(r int, out roundOut, scopes []string) {
	st.committed = append(st.committed, fresh(st.committed, out.cands))
	st.latest, st.outs[r] = mergeCounts(out.counts, st.latest), out
	st.final = allocate(st.committed, scopes)
}

// mergeCounts is the admission counts of a round (newer), then those of
// older rounds for the families and scopes the round did not measure.
func mergeCounts(newer, older []AdmissionCounts) []AdmissionCounts {
	out := append([]AdmissionCounts{}, newer...)
	for _, o := range older {
		if !slices.ContainsFunc(newer, func(n AdmissionCounts) bool { return n.Family == o.Family && n.ScopeID == o.ScopeID }) {
			out = append(out, o)
		}
	}
	return out
}

// exclusions are the omission counts of the retained rounds, summed: every
// exclusion event in a pool that contributes to the final build counts
// (seed 000), so round 0's stay when an expansion is kept.
type exclusions struct {
	belowAdm, candLimit, dup map[string]int
}

// retain marks the rounds whose candidate pool contributes to the final
// build: round 0 always, a later round when one of its additions survived
// the ceiling. The omission counts come from the retained rounds only.
func (p *prep) retain(st *recallState) exclusions {
	contrib := map[int]bool{0: true}
	for _, cs := range st.final.cands {
		for _, c := range cs {
			contrib[c.round] = true
		}
	}
	ex := exclusions{belowAdm: map[string]int{}, candLimit: map[string]int{}, dup: map[string]int{}}
	dups := map[string]map[string]bool{} // a duplicate is one event per identity, whichever rounds found it twice
	for i := range p.rounds {
		rd := &p.rounds[i]
		if rd.Outcome != RoundCompleted || !contrib[rd.Round] {
			continue
		}
		rd.Retained = true
		o := st.outs[rd.Round]
		for _, m := range [][2]map[string]int{{ex.belowAdm, o.belowAdm}, {ex.candLimit, o.candLimit}} {
			for f, n := range m[1] {
				m[0][f] += n
			}
		}
		for f, keys := range o.dup {
			if dups[f] == nil {
				dups[f] = map[string]bool{}
			}
			for k := range keys {
				if !dups[f][k] {
					dups[f][k] = true
					ex.dup[f]++
				}
			}
		}
	}
	return ex
}

// receiptOrDiagnostic builds and checks the receipt: on any failure there
// is none, and the diagnostic says why without content.
func (p *prep) receiptOrDiagnostic(b build, pc PreparedContext, om []OmittedGroup) (*Receipt, string) {
	rc, err := p.receipt(b, pc, om)
	if err == nil {
		err = checkReceipt(rc, b)
	}
	if err == nil {
		// The caps again on the receipt as it will be printed: keyed ids
		// are longer than the ids they replace (issue #51: a keyed
		// receipt was printed at 16,479 bytes against the 16,384 cap).
		keyIdentities(p.h, rc)
		err = CheckCaps(rc)
	}
	if err == nil {
		rb, _ := json.Marshal(rc)
		if gate.ValidateDocument(rb) != nil {
			err = errors.New("receipt does not match its schema")
		}
	}
	if err != nil {
		return nil, "receipt omitted: " + err.Error()
	}
	return rc, ""
}

func count(m map[string][]Candidate) int {
	n := 0
	for _, cs := range m {
		n += len(cs)
	}
	return n
}
