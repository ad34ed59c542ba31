package scenarios

import (
	"github.com/contextreceipts/convert/converters/scenario"
)

// project_telos_comparison is the Project Telos / gather comparison fixture:
// the context_selection records for a small boundary case (one decisive
// source, one supporting config item, one unused duplicate, one sensitive
// candidate suppressed before delivery). Its logs carry no context text, so
// delivered identities are over the delivery records' identity fields
// (context.input.delivered.hash_basis says so). Same invariants as
// context_selection; without a relevance record the span says the receipt
// is a load receipt, not a usefulness claim.
func projectTelosComparisonTable() scenario.Scenario {
	sc := selectionScenario("project_telos_comparison",
		"Project Telos gather comparison: selection, delivered inputs and relevance accounting over one boundary decision",
		"agent.session.project_telos_comparison")
	// Telos logs name why a candidate was suppressed and carry no context text.
	sc.Hints = []string{"suppression_reason", "suppressed_candidate_role"}
	return sc
}

func init() { scenario.Define("project_telos_comparison", projectTelosComparisonTable) }
