package prepare

// GatePolicy is the versioned recall sufficiency policy. A nil policy in
// Options turns the gate off.
type GatePolicy struct {
	ID               string
	MinCandidates    int     // fewer distinct admitted candidates is thin
	MinTop1          float64 // a best score below this is weak
	MinUnusedBytes   int     // less unused budget than this is budget-bound
	MaxExpansions    int     // at most 2
	AllowRerankCalls bool    // expansion may pay model-backed rerank calls
}

// DefaultGatePolicy is powercontext.recall-gate.v1.
func DefaultGatePolicy() GatePolicy {
	return GatePolicy{ID: GatePolicyID, MinCandidates: 3, MinTop1: 0.5, MinUnusedBytes: 256, MaxExpansions: 2}
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
	Action        string // "" for round 0, then admission, policy-floor
	Relax         int    // lower the required distinct query terms by this (min 1)
	MinSimilarity float64
}

// Expand is the recall expander: the admission floor of round r (pure). It
// never names a family, a limit or a mode.
func Expand(r int) Floor {
	switch r {
	case 0:
		return Floor{MinSimilarity: 0.3}
	case 1:
		return Floor{Action: "admission", Relax: 1, MinSimilarity: 0.2}
	}
	return Floor{Action: "policy-floor", Relax: 1 << 30, MinSimilarity: 0.1}
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
