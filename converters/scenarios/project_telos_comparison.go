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
	// the values of its label fields it knows, written in clear (others as digests)
	sc.Labels = []string{
		"0-1k", "1k-2k", "2k-4k", "coding-agent", "configuration_context", "decisive_candidate",
		"deliver_decisive_supporting_and_duplicate_suppress_sensitive_candidate",
		"did_we_load_too_much_or_the_wrong_context", "duplicate_context", "human_or_harness_review", "human_review",
		"one_decisive_one_supporting", "one_decisive_one_supporting_one_unused_duplicate",
		"one_decisive_one_supporting_one_unused_duplicate_one_sensitive_suppressed",
		"post_hoc_human_or_harness_review", "privacy_policy_sensitive_source_not_delivered",
		"private_sensitive_candidate", "project-telos-gather-comparison", "small_hash_first_boundary",
		"small_hash_first_boundary_fixture", "source_document", "supporting_candidate",
		"unused_duplicate_candidate",
	}
	return sc
}

func init() { scenario.Define("project_telos_comparison", projectTelosComparisonTable) }
