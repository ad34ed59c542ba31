package prepare

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/contextreceipts/convert/internal/receipt"
)

var famOrder = map[string]int{FamilyMemory: 0, FamilyTopic: 1, FamilyExperience: 2, FamilyProfile: 3, FamilyCode: 4}

var reasonOrder = map[string]int{OmitNotRetrieved: 0, OmitBelowAdmission: 1, OmitDuplicate: 2, OmitCandidateLimit: 3,
	OmitEntryLimit: 4, OmitBelowMinBytes: 5, OmitNoFittingTruncation: 6}

// groupSearches aggregates calls by (round, family, mode, outcome,
// fallback_reason), sorted by that tuple.
func groupSearches(calls []SearchGroup) []SearchGroup {
	out := []SearchGroup{}
	for _, c := range calls {
		found := false
		for i := range out {
			g := &out[i]
			if g.Round == c.Round && g.Family == c.Family && g.Mode == c.Mode && g.Outcome == c.Outcome && g.FallbackReason == c.FallbackReason {
				g.Count += c.Count
				found = true
				break
			}
		}
		if !found {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.Round != b.Round:
			return a.Round < b.Round
		case a.Family != b.Family:
			return famOrder[a.Family] < famOrder[b.Family]
		case a.Mode != b.Mode:
			return a.Mode < b.Mode
		case a.Outcome != b.Outcome:
			return a.Outcome < b.Outcome
		}
		return a.FallbackReason < b.FallbackReason
	})
	return out
}

// omissions counts exclusions by family and reason over the committed
// rounds and the final build (abandoned rounds never count).
func omissions(sections []Section, final map[string][]Candidate, b build, ex exclusions, clamped map[string]int) []OmittedGroup {
	var out []OmittedGroup
	add := func(fam, reason string, n int) {
		if n > 0 {
			out = append(out, OmittedGroup{Family: fam, Reason: reason, Count: n})
		}
	}
	for _, s := range sections {
		f := s.Family
		if len(final[f]) == 0 {
			add(f, OmitNotRetrieved, 1)
		}
		add(f, OmitBelowAdmission, ex.belowAdm[f])
		add(f, OmitDuplicate, ex.dup[f])
		add(f, OmitCandidateLimit, clamped[f]+ex.candLimit[f])
		add(f, OmitEntryLimit, b.entryLimit[f])
	}
	for f, n := range b.dropBelow {
		add(f, OmitBelowMinBytes, n)
	}
	for f, n := range b.dropNoFit {
		add(f, OmitNoFittingTruncation, n)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Family != out[j].Family {
			return famOrder[out[i].Family] < famOrder[out[j].Family]
		}
		return reasonOrder[out[i].Reason] < reasonOrder[out[j].Reason]
	})
	if out == nil {
		out = []OmittedGroup{}
	}
	return out
}

// receipt assembles the Receipt from the build and the execution evidence.
func (p *prep) receipt(b build, pc PreparedContext, om []OmittedGroup) (*Receipt, error) {
	if p.evidence != nil {
		return nil, p.evidence
	}
	r := &Receipt{
		Schema: ReceiptSchema, ReceiptID: p.rt.opt.NewID(), PolicyID: ReceiptSchema,
		QueryDigest: p.h.Text(NormalizeQuery(p.req.Query)), RequestedMaxBytes: p.req.MaxBytes, UsedBytes: pc.ContentBytes,
		Truncated: b.truncated > 0, Omitted: om, Stages: append([]StageTiming{}, p.stages...),
		Selected: []SelectedItem{},
	}
	if pc.Content != nil {
		d := p.h.Text(*pc.Content)
		r.ContentDigest = &d
	}
	r.Retrieval.Rounds = append([]RecallRound{}, p.rounds...)
	r.Retrieval.Searches = groupSearches(p.searches)
	cfgs := map[string]RerankConfig{}
	var groups []RerankGroup
	for _, c := range p.reranks {
		cfgs[c.cfg.ConfigID] = c.cfg
		if c.cfg.NonDeterministic {
			r.NonDeterministic = true
		}
		found := false
		for i := range groups {
			g := &groups[i]
			if g.Round == c.round && g.ConfigID == c.cfg.ConfigID && g.Outcome == c.outcome && g.FallbackReason == c.fallback {
				g.Count++
				found = true
			}
		}
		if !found {
			groups = append(groups, RerankGroup{Round: c.round, ConfigID: c.cfg.ConfigID, Outcome: c.outcome, FallbackReason: c.fallback, Count: 1})
		}
	}
	r.Retrieval.RerankConfigs = []RerankConfig{}
	for _, c := range cfgs {
		r.Retrieval.RerankConfigs = append(r.Retrieval.RerankConfigs, c)
	}
	sort.Slice(r.Retrieval.RerankConfigs, func(i, j int) bool {
		return r.Retrieval.RerankConfigs[i].ConfigDigest < r.Retrieval.RerankConfigs[j].ConfigDigest
	})
	sort.Slice(groups, func(i, j int) bool {
		a, b := groups[i], groups[j]
		switch {
		case a.Round != b.Round:
			return a.Round < b.Round
		case a.ConfigID != b.ConfigID:
			return a.ConfigID < b.ConfigID
		case a.Outcome != b.Outcome:
			return a.Outcome < b.Outcome
		}
		return a.FallbackReason < b.FallbackReason
	})
	r.Retrieval.Reranks = append([]RerankGroup{}, groups...)
	for _, it := range b.items {
		s := SelectedItem{RenderedBytes: len(it.fragment), Truncated: it.truncated}
		if it.cand.Code != nil {
			ref := *it.cand.Code
			s.CodeEvidence = &ref
		} else {
			a := it.cand.Addr
			s.ArtifactAddress = &a
			s.EntryID, s.EntryVersionID = it.cand.EntryID, it.cand.EntryVersionID
		}
		r.Selected = append(r.Selected, s)
	}
	return r, nil
}

// keyIdentities writes, in keyed mode, the identities a receipt copies
// from the store as digests under the key, like the query and the
// content: artifact, entry and entry version ids and a code evidence
// path (a file path names the project layout). The scope ids stay, as
// the caller named them. Plain mode keeps them in clear, as the seeds
// define the receipt. It runs after checkReceipt, which compares the
// identities with the build's own.
func keyIdentities(h receipt.Hasher, r *Receipt) {
	if h.KeyID() == "" {
		return
	}
	key := func(s *string) {
		if *s != "" {
			*s = h.Text(*s)
		}
	}
	for i := range r.Selected {
		s := &r.Selected[i]
		if a := s.ArtifactAddress; a != nil {
			key(&a.ArtifactID)
			key(&s.EntryID)
			key(&s.EntryVersionID)
		}
		if c := s.CodeEvidence; c != nil {
			key(&c.Path)
		}
	}
}

// Receipt failures (content-free).
var (
	ErrIdentity = errors.New("selected identities differ from the build origins")
	ErrCap      = errors.New("count cap exceeded")
	ErrBytes    = errors.New("serialized receipt over the byte cap")
	ErrRefs     = errors.New("rerank group without exactly one config")
)

// checkReceipt enforces the identity invariant against the build's own
// origins, every count cap, referential integrity and the byte cap.
func checkReceipt(r *Receipt, b build) error {
	var hist []selectedKey
	var code []CodeRef
	for _, s := range r.Selected {
		switch {
		case (s.ArtifactAddress == nil) == (s.CodeEvidence == nil):
			return ErrIdentity
		case s.CodeEvidence != nil:
			code = append(code, *s.CodeEvidence)
		default:
			if len(code) > 0 { // historical items precede code items
				return ErrIdentity
			}
			hist = append(hist, selectedKey{*s.ArtifactAddress, s.EntryID, s.EntryVersionID})
		}
	}
	if !slices.Equal(hist, b.origins) || !slices.Equal(code, b.codeOrigins) {
		return ErrIdentity
	}
	return CheckCaps(r)
}

// CheckCaps checks the count caps, rerank references and the serialized
// byte cap of a Receipt.
func CheckCaps(r *Receipt) error {
	caps := []struct {
		what   string
		n, max int
	}{
		{"rounds", len(r.Retrieval.Rounds), MaxRounds}, {"searches", len(r.Retrieval.Searches), MaxSearchGroups},
		{"rerank_configs", len(r.Retrieval.RerankConfigs), MaxRerankConfigs}, {"reranks", len(r.Retrieval.Reranks), MaxRerankGroups},
		{"selected", len(r.Selected), MaxSelected}, {"omitted", len(r.Omitted), MaxOmitted}, {"stages", len(r.Stages), MaxStages},
	}
	for _, c := range caps {
		if c.n > c.max {
			return fmt.Errorf("%w: %s", ErrCap, c.what)
		}
	}
	ids := map[string]int{}
	for _, c := range r.Retrieval.RerankConfigs {
		ids[c.ConfigID]++
		if c.ConfigID != c.ConfigDigest {
			return ErrRefs
		}
	}
	for _, g := range r.Retrieval.Reranks {
		if ids[g.ConfigID] != 1 {
			return ErrRefs
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if len(b) > ReceiptByteCap {
		return fmt.Errorf("%w (%d > %d bytes)", ErrBytes, len(b), ReceiptByteCap)
	}
	return nil
}
