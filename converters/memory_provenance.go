package converters

import (
	"fmt"

	"github.com/contextreceipts/convert/internal/receipt"
)

// memory_provenance proves who wrote the team memories a receiving agent
// hydrated, in what order they were promoted and corrected, and that the
// selected bundle is fully accounted for by author and relevance buckets.
// Entry, agent, human, session and ticket ids are hashed; memory bodies,
// reasons, queries and bundles are raw and only ever hashed.
func init() {
	entry := func(op, title string) Rec {
		return Rec{
			Event: "team_memory.entry." + op,
			Title: "team_memory.entry." + op + ": " + title,
			Moves: []Move{
				SessionIDs(),
				Hash("team", "team_memory.team.hash"),
				Hash("scope", "team_memory.scope.hash"),
				Label("visibility", "team_memory.visibility"),
				Req(Hash("entry_id", "team_memory.entry.id_hash")),
				Req(Int("sequence", "team_memory.entry.sequence")),
				Req(Const("team_memory.entry.operation", receipt.S(op))),
				Hash("raw_body", "team_memory.entry.body_hash"),
				Const("team_memory.entry.body_recorded", receipt.B(false)),
				Const("team_memory.entry.previous.id_hash", receipt.S("none")),
				Hash("supersedes_entry_id", "team_memory.entry.previous.id_hash"),
				Hash("author_agent_id", "team_memory.author.agent.id_hash"),
				Hash("author_human_id", "team_memory.author.human.id_hash"),
				Label("author_role", "team_memory.author.role"),
				Hash("source_session_id", "team_memory.source.session.id_hash"),
				Int("source_compaction_epoch", "team_memory.source.compaction_epoch"),
				Hash("promotion_reason", "team_memory.promotion.reason_hash"),
				Label("decision_scope", "team_memory.decision.scope"),
				Const("team_memory.privacy.raw_body_recorded", receipt.B(false)),
				Const("team_memory.privacy.raw_rationale_recorded", receipt.B(false)),
			},
			Writes: []Attr{ReqAttr(Sets("team_memory.author.known", DefBool))},
			Hook:   func(s *Session, v *Values, a *receipt.Attrs) error { return teamMemoryEntry(s, v, a, op) },
		}
	}
	registerScenario(Scenario{
		Name:     "memory_provenance",
		Doc:      "Team memory provenance: promotions and corrections with authors and order, hydrated bundles, author/relevance accounting",
		SpanName: "agent.session.team_memory",
		Records: map[string]Rec{
			"memory.entry.promoted":  entry("promoted", "a memory entry was promoted to team scope, with its author and order"),
			"memory.entry.corrected": entry("corrected", "a later correction superseded a team memory entry"),
			"memory.bundle.hydrated": {
				Event: "team_memory.bundle.hydrated",
				Title: "team_memory.bundle.hydrated: a receiving agent loaded a selected set of team memories; every selected entry has a known author",
				Moves: []Move{
					SessionIDs(),
					Hash("team", "team_memory.team.hash"),
					Hash("scope", "team_memory.scope.hash"),
					Const("team_memory.visibility", receipt.S("unknown")),
					Label("visibility", "team_memory.visibility"),
					Hash("consumer_agent_id", "team_memory.consumer.agent.id_hash"),
					Hash("ticket_id", "team_memory.ticket.id_hash"),
					Label("selection_policy", "team_memory.selection.policy"),
					Hash("query_text", "team_memory.query.hash"),
					Count("candidate_entry_ids", "team_memory.candidate.count"),
					Req(Count("selected_entry_ids", "team_memory.selected.count")),
					Count("suppressed_entry_ids", "team_memory.suppressed.count"),
					Hash("selected_entry_ids", "team_memory.selected.entry_ids_hash"),
					Hash("suppressed_entry_ids", "team_memory.suppressed.entry_ids_hash"),
					Int("loaded_sequence_min", "team_memory.loaded.sequence_min"),
					Int("loaded_sequence_max", "team_memory.loaded.sequence_max"),
					Const("team_memory.loaded.ordering", receipt.S("monotonic_team_memory_sequence")),
					Hash("raw_bundle", "team_memory.bundle.body_hash"),
					Const("team_memory.bundle.body_recorded", receipt.B(false)),
					Const("team_memory.privacy.raw_query_recorded", receipt.B(false)),
					Const("team_memory.privacy.raw_bundle_recorded", receipt.B(false)),
					Disjoint("selected_entry_ids", "suppressed_entry_ids").Says("an entry is both selected and suppressed"),
				},
				Writes: []Attr{
					ReqAttr(SetsConst("team_memory.selected.all_authors_known", receipt.B(true))),
					ReqAttr(Sets("team_memory.selected.known_author_count", DefCount)),
				},
				Hook: teamMemoryHydrated,
			},
			"memory.provenance.evaluated": {
				Event: "team_memory.provenance.evaluated",
				Title: "team_memory.provenance.evaluated: the hydrated bundle accounted for by author and relevance buckets (the accounting holds, or the conversion fails)",
				Moves: []Move{
					SessionIDs(),
					Hash("team", "team_memory.team.hash"),
					Hash("scope", "team_memory.scope.hash"),
					Const("team_memory.visibility", receipt.S("unknown")),
					Label("visibility", "team_memory.visibility"),
					Hash("consumer_agent_id", "team_memory.consumer.agent.id_hash"),
					Req(Int("selected_count", "team_memory.selected.count")),
					Req(Int("known_author_count", "team_memory.selected.known_author_count")),
					Req(Int("unknown_author_count", "team_memory.selected.unknown_author_count")),
					Int("ordered_sequence_count", "team_memory.loaded.ordered_sequence_count"),
					Req(Int("decisive_count", "team_memory.relevance.decisive_count")),
					Req(Int("supporting_count", "team_memory.relevance.supporting_count")),
					Req(Int("unused_count", "team_memory.relevance.unused_count")),
					Req(Int("unknown_relevance_count", "team_memory.relevance.unknown_count")),
					Const("team_memory.accounting.invariant", receipt.S("selected_equals_author_buckets_and_relevance_buckets")),
					Const("team_memory.audit_gap", receipt.S("receipt_proves_authorship_order_and_loading_not_memory_truth")),
					// selected_count equals the author buckets and the relevance buckets,
					// and every author is known.
					SumEq("selected_count", "known_author_count", "unknown_author_count").
						Says("selected_count is not accounted for by known_author_count + unknown_author_count"),
					SumEq("selected_count", "decisive_count", "supporting_count", "unused_count", "unknown_relevance_count").
						Says("selected_count is not accounted for by decisive + supporting + unused + unknown_relevance counts"),
					Check("unknown_author_count is zero", func(_ *Session, v *Values) error {
						if v.Int("unknown_author_count") != 0 {
							return fmt.Errorf("unknown_author_count is not zero: every hydrated memory needs known author provenance")
						}
						return nil
					}),
					AfterAny("memory.bundle.hydrated").Says("provenance evaluated before any memory.bundle.hydrated record"),
				},
				Writes: []Attr{
					ReqAttr(SetsConst("team_memory.accounting.holds", receipt.B(true))),
				},
				Hook: teamMemoryEvaluated,
			},
		},
		NewState: func() any { return &provenanceState{entries: map[string]bool{}, authored: map[string]bool{}} },
		End: func(s *Session) error {
			st := StateOf[provenanceState](s)
			s.Span.Set("team_memory.write.count", receipt.I(st.writes))
			s.Span.Set("team_memory.hydration.count", receipt.I(st.hydrations))
			s.Span.Set("team_memory.provenance_evaluation.count", receipt.I(st.evaluations))
			return nil
		},
	})
}

// teamMemoryEntry keeps the write order and which entries have a known
// author. Sequences are monotonic across promotions and corrections, and a
// correction must follow the entry it corrects.
func teamMemoryEntry(s *Session, v *Values, a *receipt.Attrs, op string) error {
	st, seq := StateOf[provenanceState](s), v.Int("sequence")
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
func teamMemoryHydrated(s *Session, v *Values, a *receipt.Attrs) error {
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
	st := StateOf[provenanceState](s)
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
	a.Set("team_memory.selected.known_author_count", receipt.I(known))
	a.Set("team_memory.selected.all_authors_known", receipt.B(true))
	st.hydratedSelected, st.hydratedKnown = int64(len(sel)), known
	st.hydrations++
	return nil
}

// teamMemoryEvaluated enforces that the figures match the bundle that was
// actually hydrated.
func teamMemoryEvaluated(s *Session, v *Values, a *receipt.Attrs) error {
	st := StateOf[provenanceState](s)
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
