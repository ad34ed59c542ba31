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
	entry := func(op string) Rec {
		return Rec{
			Event: "team_memory.entry." + op,
			Moves: []Move{
				SessionIDs(),
				Hash("team", "team_memory.team.hash"),
				Hash("scope", "team_memory.scope.hash"),
				Label("visibility", "team_memory.visibility"),
				Req(Hash("entry_id", "team_memory.entry.id_hash")),
				Req(Int("sequence", "team_memory.entry.sequence")),
				Const("team_memory.entry.operation", receipt.S(op)),
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
			Hook: func(s *Session, v *Values, a *receipt.Attrs) error { return teamMemoryEntry(s, v, a, op) },
		}
	}
	registerScenario(Scenario{
		Name:     "memory_provenance",
		Doc:      "Team memory provenance: promotions and corrections with authors and order, hydrated bundles, author/relevance accounting",
		SpanName: "agent.session.team_memory",
		Records: map[string]Rec{
			"memory.entry.promoted":  entry("promoted"),
			"memory.entry.corrected": entry("corrected"),
			"memory.bundle.hydrated": {
				Event: "team_memory.bundle.hydrated",
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
				},
				Hook: teamMemoryHydrated,
			},
			"memory.provenance.evaluated": {
				Event: "team_memory.provenance.evaluated",
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
				},
				Hook: teamMemoryEvaluated,
			},
		},
		End: func(s *Session) error {
			s.Span.Set("team_memory.write.count", receipt.I(s.Count("writes")))
			s.Span.Set("team_memory.hydration.count", receipt.I(s.Count("hydrations")))
			s.Span.Set("team_memory.provenance_evaluation.count", receipt.I(s.Count("evaluations")))
			return nil
		},
	})
}

// teamMemoryEntry keeps the write order and which entries have a known
// author. Sequences are monotonic across promotions and corrections, and a
// correction must follow the entry it corrects.
func teamMemoryEntry(s *Session, v *Values, a *receipt.Attrs, op string) error {
	seq := v.Get("sequence").Int()
	if s.Count("writes") > 0 && seq <= s.Count("last_sequence") {
		return fmt.Errorf("sequence is not greater than the previous entry's sequence")
	}
	setCount(s, "last_sequence", seq)
	s.Add("writes", 1)
	id := s.Hash.Text(v.Get("entry_id").String())
	if op == "corrected" {
		prev := id
		if p := v.Get("supersedes_entry_id"); p.Exists() && p.String() != "" {
			prev = s.Hash.Text(p.String())
		}
		if !s.Has("entries", prev) {
			return fmt.Errorf("correction of an entry that was never promoted")
		}
		a.Set("team_memory.entry.previous.id_hash", receipt.S(prev))
	}
	s.Mark("entries", id)
	known := v.Get("author_agent_id").String() != "" || v.Get("author_human_id").String() != ""
	if known {
		s.Mark("authored", id)
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
	if overlap(sel, sup) {
		return fmt.Errorf("an entry is both selected and suppressed")
	}
	if v.Get("candidate_entry_ids").Exists() {
		key := fmt.Sprintf("candidates:%d", v.Line)
		markAll(s, key, cand)
		if !allIn(s, key, sel) || !allIn(s, key, sup) {
			return fmt.Errorf("selected or suppressed entry is not among candidate_entry_ids")
		}
	}
	var known int64
	for _, d := range sel {
		if !s.Has("entries", d) {
			return fmt.Errorf("hydrated memory has no promotion record before it")
		}
		if !s.Has("authored", d) {
			return fmt.Errorf("hydrated memory has no known author provenance")
		}
		known++
	}
	a.Set("team_memory.selected.known_author_count", receipt.I(known))
	a.Set("team_memory.selected.all_authors_known", receipt.B(true))
	setCount(s, "hydrated_selected", int64(len(sel)))
	setCount(s, "hydrated_known", known)
	s.Add("hydrations", 1)
	return nil
}

// teamMemoryEvaluated enforces the accounting: selected_count equals the
// author buckets and the relevance buckets, every author is known, and the
// figures match the bundle that was actually hydrated.
func teamMemoryEvaluated(s *Session, v *Values, a *receipt.Attrs) error {
	n := func(f string) int64 { return v.Get(f).Int() }
	sel := n("selected_count")
	if sel != n("known_author_count")+n("unknown_author_count") {
		return fmt.Errorf("selected_count is not accounted for by known_author_count + unknown_author_count")
	}
	if sel != n("decisive_count")+n("supporting_count")+n("unused_count")+n("unknown_relevance_count") {
		return fmt.Errorf("selected_count is not accounted for by decisive + supporting + unused + unknown_relevance counts")
	}
	if n("unknown_author_count") != 0 {
		return fmt.Errorf("unknown_author_count is not zero: every hydrated memory needs known author provenance")
	}
	if s.Count("hydrations") == 0 {
		return fmt.Errorf("provenance evaluated before any memory.bundle.hydrated record")
	}
	if sel != s.Count("hydrated_selected") || n("known_author_count") != s.Count("hydrated_known") {
		return fmt.Errorf("selected_count or known_author_count differs from the hydrated bundle")
	}
	a.Set("team_memory.accounting.holds", receipt.B(true))
	s.Add("evaluations", 1)
	return nil
}
