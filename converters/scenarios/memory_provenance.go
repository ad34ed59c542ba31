package scenarios

import (
	"fmt"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/internal/receipt"
)

// memory_provenance proves who wrote the team memories a receiving agent
// hydrated, in what order they were promoted and corrected, and that the
// selected bundle is fully accounted for by author and relevance buckets.
// Entry, agent, human, session and ticket ids are hashed; memory bodies,
// reasons, queries and bundles are raw and only ever hashed.
func memoryProvenanceTable() scenario.Scenario {
	entry := func(op, title string) scenario.Rec {
		return scenario.Rec{
			Event: "team_memory.entry." + op,
			Title: "team_memory.entry." + op + ": " + title,
			Moves: []scenario.Move{
				scenario.SessionIDs(),
				scenario.Hash("team", "team_memory.team.hash"),
				scenario.Hash("scope", "team_memory.scope.hash"),
				scenario.Label("visibility", "team_memory.visibility"),
				scenario.Req(scenario.Hash("entry_id", "team_memory.entry.id_hash")),
				scenario.Req(scenario.Int("sequence", "team_memory.entry.sequence")),
				scenario.Req(scenario.Const("team_memory.entry.operation", receipt.S(op))),
				scenario.Hash("raw_body", "team_memory.entry.body_hash"),
				scenario.Const("team_memory.entry.body_recorded", receipt.B(false)),
				scenario.Const("team_memory.entry.previous.id_hash", receipt.S("none")),
				scenario.Hash("supersedes_entry_id", "team_memory.entry.previous.id_hash"),
				scenario.Hash("author_agent_id", "team_memory.author.agent.id_hash"),
				scenario.Hash("author_human_id", "team_memory.author.human.id_hash"),
				scenario.Label("author_role", "team_memory.author.role"),
				scenario.Hash("source_session_id", "team_memory.source.session.id_hash"),
				scenario.Int("source_compaction_epoch", "team_memory.source.compaction_epoch"),
				scenario.Hash("promotion_reason", "team_memory.promotion.reason_hash"),
				scenario.Label("decision_scope", "team_memory.decision.scope"),
				scenario.Const("team_memory.privacy.raw_body_recorded", receipt.B(false)),
				scenario.Const("team_memory.privacy.raw_rationale_recorded", receipt.B(false)),
			},
			Writes: []events.Attr{events.ReqAttr(events.Sets("team_memory.author.known", events.DefBool))},
			Hook: func(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
				return teamMemoryEntry(s, v, a, op)
			},
		}
	}
	return scenario.Scenario{
		Name:     "memory_provenance",
		Doc:      "Team memory provenance: promotions and corrections with authors and order, hydrated bundles, author/relevance accounting",
		SpanName: "agent.session.team_memory",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"claude-code-agent-team", "domain_expert", "engineering_manager", "implementation", "incident_commander",
			"incident_response", "planning", "product_manager", "ticket_scope", "ticket_scope_and_recent_corrections",
		},
		Records: map[string]scenario.Rec{
			"memory.entry.promoted":  entry("promoted", "a memory entry was promoted to team scope, with its author and order"),
			"memory.entry.corrected": entry("corrected", "a later correction superseded a team memory entry"),
			"memory.bundle.hydrated": {
				Event: "team_memory.bundle.hydrated",
				Title: "team_memory.bundle.hydrated: a receiving agent loaded a selected set of team memories; every selected entry has a known author",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Hash("team", "team_memory.team.hash"),
					scenario.Hash("scope", "team_memory.scope.hash"),
					scenario.Const("team_memory.visibility", receipt.S("unknown")),
					scenario.Label("visibility", "team_memory.visibility"),
					scenario.Hash("consumer_agent_id", "team_memory.consumer.agent.id_hash"),
					scenario.Hash("ticket_id", "team_memory.ticket.id_hash"),
					scenario.Label("selection_policy", "team_memory.selection.policy"),
					scenario.Hash("query_text", "team_memory.query.hash"),
					scenario.Count("candidate_entry_ids", "team_memory.candidate.count"),
					scenario.Req(scenario.Count("selected_entry_ids", "team_memory.selected.count")),
					scenario.Count("suppressed_entry_ids", "team_memory.suppressed.count"),
					scenario.Hash("selected_entry_ids", "team_memory.selected.entry_ids_hash"),
					scenario.Hash("suppressed_entry_ids", "team_memory.suppressed.entry_ids_hash"),
					scenario.Int("loaded_sequence_min", "team_memory.loaded.sequence_min"),
					scenario.Int("loaded_sequence_max", "team_memory.loaded.sequence_max"),
					scenario.Const("team_memory.loaded.ordering", receipt.S("monotonic_team_memory_sequence")),
					scenario.Hash("raw_bundle", "team_memory.bundle.body_hash"),
					scenario.Const("team_memory.bundle.body_recorded", receipt.B(false)),
					scenario.Const("team_memory.privacy.raw_query_recorded", receipt.B(false)),
					scenario.Const("team_memory.privacy.raw_bundle_recorded", receipt.B(false)),
					scenario.Disjoint("selected_entry_ids", "suppressed_entry_ids").Says("an entry is both selected and suppressed"),
				},
				Writes: []events.Attr{
					events.ReqAttr(events.SetsConst("team_memory.selected.all_authors_known", receipt.B(true))),
					events.ReqAttr(events.Sets("team_memory.selected.known_author_count", events.DefCount)),
				},
				Hook: teamMemoryHydrated,
			},
			"memory.provenance.evaluated": {
				Event: "team_memory.provenance.evaluated",
				Title: "team_memory.provenance.evaluated: the hydrated bundle accounted for by author and relevance buckets (the accounting holds, or the conversion fails)",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Hash("team", "team_memory.team.hash"),
					scenario.Hash("scope", "team_memory.scope.hash"),
					scenario.Const("team_memory.visibility", receipt.S("unknown")),
					scenario.Label("visibility", "team_memory.visibility"),
					scenario.Hash("consumer_agent_id", "team_memory.consumer.agent.id_hash"),
					scenario.Req(scenario.Int("selected_count", "team_memory.selected.count")),
					scenario.Req(scenario.Int("known_author_count", "team_memory.selected.known_author_count")),
					scenario.Req(scenario.Int("unknown_author_count", "team_memory.selected.unknown_author_count")),
					scenario.Int("ordered_sequence_count", "team_memory.loaded.ordered_sequence_count"),
					scenario.Req(scenario.Int("decisive_count", "team_memory.relevance.decisive_count")),
					scenario.Req(scenario.Int("supporting_count", "team_memory.relevance.supporting_count")),
					scenario.Req(scenario.Int("unused_count", "team_memory.relevance.unused_count")),
					scenario.Req(scenario.Int("unknown_relevance_count", "team_memory.relevance.unknown_count")),
					scenario.Const("team_memory.accounting.invariant", receipt.S("selected_equals_author_buckets_and_relevance_buckets")),
					scenario.Const("team_memory.audit_gap", receipt.S("receipt_proves_authorship_order_and_loading_not_memory_truth")),
					// selected_count equals the author buckets and the relevance buckets,
					// and every author is known.
					scenario.SumEq("selected_count", "known_author_count", "unknown_author_count").
						Says("selected_count is not accounted for by known_author_count + unknown_author_count"),
					scenario.SumEq("selected_count", "decisive_count", "supporting_count", "unused_count", "unknown_relevance_count").
						Says("selected_count is not accounted for by decisive + supporting + unused + unknown_relevance counts"),
					scenario.Check("unknown_author_count is zero", func(_ *scenario.Session, v *scenario.Values) error {
						if v.Int("unknown_author_count") != 0 {
							return fmt.Errorf("unknown_author_count is not zero: every hydrated memory needs known author provenance")
						}
						return nil
					}),
					scenario.AfterAny("memory.bundle.hydrated").Says("provenance evaluated before any memory.bundle.hydrated record"),
				},
				Writes: []events.Attr{
					events.ReqAttr(events.SetsConst("team_memory.accounting.holds", receipt.B(true))),
				},
				Hook: teamMemoryEvaluated,
			},
		},
		NewState: func() any { return &provenanceState{entries: map[string]bool{}, authored: map[string]bool{}} },
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[provenanceState](s)
			s.Span.Set("team_memory.write.count", receipt.Computed(st.writes))
			s.Span.Set("team_memory.hydration.count", receipt.Computed(st.hydrations))
			s.Span.Set("team_memory.provenance_evaluation.count", receipt.Computed(st.evaluations))
			return nil
		},
	}
}

func init() { scenario.Define("memory_provenance", memoryProvenanceTable) }

// teamMemoryEntry keeps the write order and which entries have a known
// author. Sequences are monotonic across promotions and corrections, and a
// correction must follow the entry it corrects.
func teamMemoryEntry(s *scenario.Session, v *scenario.Values, a *receipt.Attrs, op string) error {
	st, seq := scenario.StateOf[provenanceState](s), v.Int("sequence")
	if st.writes > 0 && seq <= st.lastSequence {
		return fmt.Errorf("sequence is not greater than the previous entry's sequence")
	}
	st.lastSequence = seq
	st.writes++
	id := v.Get("entry_id").String().Digest(s.Hash)
	if op == "corrected" {
		prev := id
		if p := v.Get("supersedes_entry_id"); p.Exists() && !p.String().Empty() {
			prev = p.String().Digest(s.Hash)
		}
		if !st.entries[prev] {
			return fmt.Errorf("correction of an entry that was never promoted")
		}
		a.Set("team_memory.entry.previous.id_hash", receipt.S(prev))
	}
	st.entries[id] = true
	known := !v.Get("author_agent_id").String().Empty() || !v.Get("author_human_id").String().Empty()
	if known {
		st.authored[id] = true
	}
	a.Set("team_memory.author.known", receipt.B(known))
	return nil
}

// teamMemoryHydrated enforces that every hydrated memory has known author
// provenance and that the selected and suppressed sets are disjoint parts of
// the candidates.
func teamMemoryHydrated(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	sel, err := v.IDList("selected_entry_ids")
	if err != nil {
		return err
	}
	sup, err := v.IDList("suppressed_entry_ids")
	if err != nil {
		return err
	}
	cand, err := v.IDList("candidate_entry_ids")
	if err != nil {
		return err
	}
	if v.Get("candidate_entry_ids").Exists() && (!within(sel, cand) || !within(sup, cand)) {
		return fmt.Errorf("selected or suppressed entry is not among candidate_entry_ids")
	}
	st := scenario.StateOf[provenanceState](s)
	var known int64
	for _, d := range sel {
		if !st.entries[d] {
			return fmt.Errorf("hydrated memory has no promotion record before it")
		}
		if !st.authored[d] {
			return fmt.Errorf("hydrated memory has no known author provenance")
		}
		known++
	}
	a.Set("team_memory.selected.known_author_count", receipt.Computed(known))
	a.Set("team_memory.selected.all_authors_known", receipt.B(true))
	st.hydratedSelected, st.hydratedKnown = int64(len(sel)), known
	st.hydrations++
	return nil
}

// teamMemoryEvaluated enforces that the figures match the bundle that was
// actually hydrated.
func teamMemoryEvaluated(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st := scenario.StateOf[provenanceState](s)
	if v.Int("selected_count") != st.hydratedSelected || v.Int("known_author_count") != st.hydratedKnown {
		return fmt.Errorf("selected_count or known_author_count differs from the hydrated bundle")
	}
	a.Set("team_memory.accounting.holds", receipt.B(true))
	st.evaluations++
	return nil
}

// provenanceState keeps, by entry id digest, the entries written and those
// with a known author, the latest sequence and hydrated bundle, and the
// counts for the root span.
type provenanceState struct {
	entries, authored               map[string]bool
	lastSequence                    int64
	hydratedSelected, hydratedKnown int64
	writes, hydrations, evaluations int64
}

// within reports whether every value of a is in b.
func within(a, b []string) bool {
	in := map[string]bool{}
	for _, d := range b {
		in[d] = true
	}
	for _, d := range a {
		if !in[d] {
			return false
		}
	}
	return true
}
