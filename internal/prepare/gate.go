package prepare

import (
	"bytes"
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

// Check validates a policy: a token ID, at most two expansions, one floor per
// expansion, each no stricter than the one before and than round 0.
func (p GatePolicy) Check() error {
	switch {
	case !receipt.IsToken(p.ID):
		return errors.New("policy id must be a token")
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
type BudgetView struct {
	MaxBytes, Delivered, Truncated, Dropped, Unused int
}

// Assessment is the gate's answer.
type Assessment struct {
	Sufficient bool
	Reason     string
}

// Assess is the recall sufficiency gate: pure, model-free, no I/O.
func Assess(fams []GateFamily, budget BudgetView, p GatePolicy) Assessment {
	if len(fams) == 0 {
		return Assessment{true, "no-searchable-family"}
	}
	retrieved, admitted, saturated := 0, 0, 0
	top, scored := 0.0, false
	for _, f := range fams {
		retrieved += f.Retrieved
		admitted += f.Admitted
		if f.Admitted >= f.Ceiling {
			saturated++
		}
		if f.HasScore && f.Admitted > 0 {
			scored = true
			top = max(top, f.Top1)
		}
	}
	switch {
	case retrieved == 0:
		return Assessment{true, "no-content"}
	case budget.Dropped > 0 || budget.Truncated > 0 || budget.Unused < p.MinUnusedBytes:
		return Assessment{true, "budget-bound"}
	case saturated == len(fams):
		return Assessment{true, "saturated"}
	case admitted < p.MinCandidates:
		return Assessment{false, "thin-candidates"}
	case scored && top < p.MinTop1:
		return Assessment{false, "weak-top-1"}
	}
	return Assessment{true, "sufficient"}
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

// AdmissionCounts is one searchable family's admission in one scope.
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
	Assessment                 string            `json:"assessment"`
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
