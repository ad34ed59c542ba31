package prepare

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/contextreceipts/convert/internal/receipt"
)

// GatePolicy is the versioned recall sufficiency policy: every threshold the
// gate reads and every admission floor the expander applies. It is
// deployment configuration (--recall-policy), never a request parameter, and
// its ID is recorded in the RecallEffort and the trace. A nil policy in
// Options turns the gate off.
type GatePolicy struct {
	ID               string  `json:"id"`
	MinCandidates    int     `json:"min_candidates"`     // fewer distinct admitted candidates is thin
	MinTop1          float64 `json:"min_top1"`           // a best score below this is weak
	MinUnusedBytes   int     `json:"min_unused_bytes"`   // less unused budget than this is budget-bound
	MaxExpansions    int     `json:"max_expansions"`     // 0-2
	AllowRerankCalls bool    `json:"allow_rerank_calls"` // expansion may pay model-backed rerank calls
	Floors           []Floor `json:"floors"`             // the admission floor of rounds 1..MaxExpansions
}

// baseFloor is round 0's admission: the derived lexical requirement and the
// 0.3 cosine baseline, today's behaviour, never part of a policy.
var baseFloor = Floor{MinSimilarity: 0.3}

// DefaultGatePolicy is powercontext.recall-gate.v1.
func DefaultGatePolicy() GatePolicy {
	return GatePolicy{ID: GatePolicyID, MinCandidates: 3, MinTop1: 0.5, MinUnusedBytes: 256, MaxExpansions: 2,
		Floors: []Floor{{Action: "admission", Relax: 1, MinSimilarity: 0.2}, {Action: "policy-floor", Relax: maxRelax, MinSimilarity: 0.1}}}
}

// maxRelax lowers any derived lexical requirement to its minimum of one term.
const maxRelax = 32

// Digest identifies a policy's thresholds: sha256 over the JSON of every
// field (id included), as parsed, so two documents that differ only in how
// they spell a number share it. It is recorded next to the id in the
// RecallEffort and the trace: a run names exactly the thresholds it used.
func (p GatePolicy) Digest() string {
	if p.Floors == nil {
		p.Floors = []Floor{}
	}
	b, _ := json.Marshal(p)
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// errBuiltinID refuses a policy that reuses the built-in id with other
// thresholds: a versioned id names one frozen set of thresholds.
var errBuiltinID = errors.New("policy id " + GatePolicyID + " is the built-in policy's and names its thresholds only; give other thresholds their own id")

// Check validates a policy: a token ID (the built-in one only with the
// built-in thresholds), at most two expansions, one floor per expansion,
// each no stricter than the one before and than round 0.
func (p GatePolicy) Check() error {
	switch {
	case !receipt.IsToken(p.ID):
		return errors.New("policy id must be a token")
	case p.ID == GatePolicyID && p.Digest() != DefaultGatePolicy().Digest():
		return errBuiltinID
	case p.MaxExpansions < 0 || p.MaxExpansions > 2:
		return errors.New("max_expansions must be 0-2")
	case len(p.Floors) < p.MaxExpansions || len(p.Floors) > 2:
		return errors.New("floors must give one floor per expansion round (at most 2)")
	case p.MinCandidates < 0 || p.MinUnusedBytes < 0 || p.MinTop1 < 0 || p.MinTop1 > 1:
		return errors.New("min_candidates and min_unused_bytes must be >= 0, min_top1 0-1")
	}
	prev := baseFloor
	for i, f := range p.Floors {
		if f.Action != "admission" && f.Action != "policy-floor" {
			return fmt.Errorf("floors[%d].action must be admission or policy-floor", i)
		}
		if f.Relax < prev.Relax || f.Relax > maxRelax || f.MinSimilarity > prev.MinSimilarity || f.MinSimilarity < 0 {
			return fmt.Errorf("floors[%d] must not be stricter than the round before (relax %d-%d, min_similarity 0-%g)", i, prev.Relax, maxRelax, prev.MinSimilarity)
		}
		prev = f
	}
	return nil
}

// ParseGatePolicy reads a policy document (JSON, no unknown fields) and
// checks it.
func ParseGatePolicy(doc []byte) (GatePolicy, error) {
	var p GatePolicy
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, errors.New("not a recall policy document (id, min_candidates, min_top1, min_unused_bytes, max_expansions, allow_rerank_calls, floors)")
	}
	return p, p.Check()
}

// GateFamily is one searchable family's view for the gate.
type GateFamily struct {
	Family     string
	Retrieved  int
	Admitted   int // distinct evidence identities admitted so far
	Ceiling    int
	Top1       float64
	HasScore   bool // experience and code carry no score
	Saturation bool // admitted >= ceiling
}

// BudgetView is the budget probe's result over one candidate set.
// Truncated and Dropped are what the budget did (an item cut to, or not
// fitting in, the bytes left); CapTruncated and CapDropped are what the
// per-entry cap (MaxEntryContentBytes) did whatever the budget: they are
// not budget-bound.
type BudgetView struct {
	MaxBytes, Delivered, Truncated, Dropped, Unused int
	CapTruncated, CapDropped                        int
}

// Assessment is the gate's answer and the signal values that produced it.
type Assessment struct {
	Sufficient bool
	Reason     string
	Signals    GateSignals
}

// GateSignals are the values the gate read, content-free: counts, and the
// best score as a ratio bucketed to 5 points.
type GateSignals struct {
	Families          int  `json:"families"`           // searchable families assessed
	SaturatedFamilies int  `json:"saturated_families"` // admitted at the family ceiling
	EmptyFamilies     int  `json:"empty_families"`     // retrieved nothing: a lower floor cannot help
	Retrieved         int  `json:"retrieved"`          // backend pool, before admission
	Admitted          int  `json:"admitted"`           // distinct identities offered to the Builder
	Ceiling           int  `json:"ceiling"`            // the families' candidate ceilings, summed
	Top1Pct           *int `json:"top1_pct"`           // best score in percent, floored to 5; null without a scored family
	Delivered         int  `json:"delivered_items"`    // budget probe: items that fit
	BudgetTruncated   int  `json:"budget_truncated"`   // cut to the bytes left
	BudgetDropped     int  `json:"budget_dropped"`     // no room left for them
	CapTruncated      int  `json:"entry_cap_truncated"`
	UnusedBytes       int  `json:"unused_bytes"`
}

// Assess is the recall sufficiency gate: pure, model-free, no I/O.
func Assess(fams []GateFamily, budget BudgetView, p GatePolicy) Assessment {
	sig := GateSignals{Families: len(fams), Delivered: budget.Delivered, BudgetTruncated: budget.Truncated, BudgetDropped: budget.Dropped,
		CapTruncated: budget.CapTruncated, UnusedBytes: budget.Unused}
	a := func(ok bool, reason string) Assessment { return Assessment{ok, reason, sig} }
	if len(fams) == 0 {
		return a(true, "no-searchable-family")
	}
	top, scored := 0.0, false
	for _, f := range fams {
		sig.Retrieved += f.Retrieved
		sig.Admitted += f.Admitted
		sig.Ceiling += f.Ceiling
		switch {
		case f.Admitted >= f.Ceiling:
			sig.SaturatedFamilies++
		case f.Retrieved == 0:
			sig.EmptyFamilies++
		}
		if f.HasScore && f.Admitted > 0 {
			scored = true
			top = max(top, f.Top1)
		}
	}
	if scored {
		pct := int(top*20+1e-9) * 5
		sig.Top1Pct = &pct
	}
	switch {
	case sig.Retrieved == 0:
		return a(true, "no-content")
	case budget.Dropped > 0 || budget.Truncated > 0 || budget.Unused < p.MinUnusedBytes:
		return a(true, "budget-bound")
	case sig.SaturatedFamilies+sig.EmptyFamilies == len(fams):
		return a(true, "saturated") // no family with content has room to grow
	case sig.Admitted < p.MinCandidates:
		return a(false, "thin-candidates")
	case scored && top < p.MinTop1:
		return a(false, "weak-top-1")
	}
	return a(true, "sufficient")
}

// Floor is the admission floor of one round.
type Floor struct {
	Action        string  `json:"action"`         // "" for round 0, then admission, policy-floor
	Relax         int     `json:"relax"`          // lower the required distinct query terms by this (min 1)
	MinSimilarity float64 `json:"min_similarity"` // the vector channel's cosine floor
}

// Expand is the recall expander: the admission floor of round r under
// policy p (pure). It never names a family, a limit or a mode.
func Expand(r int, p GatePolicy) Floor {
	if r == 0 || r > len(p.Floors) {
		return baseFloor
	}
	return p.Floors[r-1]
}

// AdmissionCounts is one searchable family's admission in one scope. In a
// RecallEffort the family is named as seed 001 names it: memory,
// experience, topic-memory (see effortFamily).
type AdmissionCounts struct {
	Family    string `json:"family"`
	ScopeID   string `json:"scope_id"`
	Retrieved int    `json:"retrieved"`
	Admitted  int    `json:"admitted"`
}

// RecallEffort is the gate's in-process trace, handed to the optional sink.
type RecallEffort struct {
	Schema                     string            `json:"schema"`
	Policy                     string            `json:"policy"`
	PolicyDigest               string            `json:"policy_digest"` // GatePolicy.Digest: the thresholds the id stands for
	Assessment                 string            `json:"assessment"`
	Signals                    *GateSignals      `json:"signals"` // of the final assessment
	Rounds                     int               `json:"rounds"`
	ExpansionActions           []string          `json:"expansion_actions"`
	CandidatesByRound          []int             `json:"candidates_by_round"`
	AdmissionByFamily          []AdmissionCounts `json:"admission_by_family"`
	AddedEmbeddings            int               `json:"added_embeddings"`
	AddedGenerationCalls       int               `json:"added_generation_calls"`
	TruncatedItems             int               `json:"truncated_items"`
	DroppedItems               int               `json:"dropped_items"`
	DroppedBelowMinBytes       int               `json:"dropped_below_min_bytes"`
	DroppedNoFittingTruncation int               `json:"dropped_no_fitting_truncation"`
}

// effortFamily is a family's name in a RecallEffort: seed 001's
// AdmissionCounts say memory where the receipt says atomic-memory.
func effortFamily(fam string) string {
	if fam == FamilyMemory {
		return "memory"
	}
	return fam
}
