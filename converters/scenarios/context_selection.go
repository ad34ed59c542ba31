package scenarios

import (
	"fmt"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/receipt"
)

// context_selection makes over-selection visible: a selection record says
// how many candidates a harness considered, selected, suppressed and
// delivered; one context.input record per selected input says what crossed
// the boundary (hashes only); an optional later relevance record accounts
// for every selected input as decisive, supporting, unused or unknown.
// Enforced: candidate = selected + suppressed; the loaded inputs match the
// declared counts; relevance ranks join back to delivered inputs, never
// twice; selected = decisive + supporting + unused + unknown. Source ids,
// context text, decision ids and free-text notes are raw: only hashed.
func contextSelectionTable() scenario.Scenario {
	sc := selectionScenario("context_selection",
		"Context selection: candidate/selected/suppressed counts, delivered inputs, optional post-hoc relevance accounting",
		"agent.session.context_selection")
	sc.Hints = []string{"raw_context_text", "task_id"}
	// the values of its label fields it knows, written in clear (others as digests)
	sc.Labels = []string{
		"16k-32k", "1k-2k", "2k-4k", "8k-16k", "bm25_top_k_plus_rules", "code_search_candidate",
		"code_search_result", "coding-agent", "did_we_load_too_much_or_the_wrong_context",
		"embedding_top_k_plus_rules", "historical_debugging_pattern", "human_review", "not_available_yet",
		"over_selected", "over_selected_one_decisive_one_supporting", "over_selected_one_supporting_four_unused",
		"repo_guidance", "select_top_k_then_suppress_duplicates", "user_report",
	}
	return sc
}

func init() { scenario.Define("context_selection", contextSelectionTable) }

// relevanceInvariant is the accounting rule every relevance event states.
const relevanceInvariant = "selected_count == decisive_count + supporting_count + unused_count + unknown_count; decisive_count + supporting_count <= selected_count"

// selectionScenario is the table shared by context_selection and the
// project_telos_comparison fixture, which reads the same records.
func selectionScenario(name, doc, span string) scenario.Scenario {
	return scenario.Scenario{
		Name: name, Doc: doc, SpanName: span,
		Records: map[string]scenario.Rec{
			"context.selection": {
				Event: "context.input.selection.evaluated",
				Title: "context.input.selection.evaluated: how many context candidates a harness considered, selected, suppressed and delivered for one task",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Hash("task_id", "context.selection.task_id_hash"),
					scenario.Label("selection_strategy", "context.selection.strategy"),
					scenario.Label("selection_policy", "context.selection.policy"),
					scenario.Req(scenario.Int("candidate_count", "context.input.candidate_count")),
					scenario.Req(scenario.Int("selected_count", "context.input.selected_count")),
					scenario.Req(scenario.Int("suppressed_count", "context.input.suppressed_count")),
					scenario.Req(scenario.Int("delivered_hash_count", "context.input.delivered_hash_count")),
					scenario.Label("selected_token_bucket", "context.input.selected_token_bucket"),
					scenario.Label("suppressed_token_bucket", "context.input.suppressed_token_bucket"),
					scenario.Label("operator_question", "context.selection.operator_question"),
					scenario.Label("decision_relevance_evaluator", "context.decision.relevance_evaluator"),
					scenario.Label("suppressed_candidate_role", "context.selection.suppressed_candidate.role"),
					scenario.Label("suppression_reason", "context.selection.suppression_reason"),
					scenario.Const("context.selection.audit_gap", receipt.S("selection_receipt_proves_delivery_pressure_not_semantic_relevance")),
					scenario.Const("privacy.raw_context_recorded", receipt.B(false)),
				},
				Hook: selectionEvaluated,
			},
			"context.input": {
				Event: "context.input.loaded",
				Moves: []scenario.Move{
					scenario.Use("raw_context_text"), // its identity, never the text
					scenario.SessionIDs(),
					scenario.Req(scenario.Label("kind", "context.input.kind")),
					scenario.Req(scenario.Hash("source_id", "context.input.source.id_hash").Doc("digest of the source identifier (file, memory, ticket or search id)")),
					scenario.Label("source_role", "context.input.source.role"),
					scenario.Req(scenario.Int("selection_rank", "context.input.selection.rank").Schema(events.Prop{"type": "integer", "minimum": 1})),
					scenario.Req(scenario.Label("selection_status", "context.input.selection.status")),
					scenario.Req(scenario.Label("delivery_status", "context.input.delivery.status")),
					scenario.Label("token_bucket", "context.input.token_bucket").Doc("token bucket as the selecting harness labelled it"),
					scenario.Const("context.input.audit_gap", receipt.S("hashes_and_counts_prove_selected_delivered_identity_not_semantic_usefulness")),
					scenario.AfterAny("context.selection").Says("context.input before the context.selection record it belongs to"),
				},
				Writes: []events.Attr{
					events.SetsProp("context.input.delivered.hash_basis", events.Enum("delivered_text", "delivery_record_identity").Doc("what context.input.delivered.hash is over: the delivered text, or (when the log carries no text) the canonical JSON of the delivery record's identity fields")),
					events.Sets("context.input.delivered.hash", events.DefDigest),
				},
				Hook: selectedInput,
			},
			"context.decision.relevance": {
				Event: "context.decision.relevance.evaluated",
				Title: "context.decision.relevance.evaluated: a later review accounts for every selected input as decisive, supporting, unused or unknown",
				Moves: []scenario.Move{
					scenario.Use("decisive_selection_ranks", "supporting_selection_ranks", "unused_selection_ranks", "unknown_selection_ranks"),
					scenario.SessionIDs(),
					scenario.Req(scenario.Hash("decision_id", "decision.id_hash")),
					scenario.Req(scenario.Int("selected_count", "context.input.selected_count")),
					scenario.Int("suppressed_count", "context.input.suppressed_count"),
					scenario.Int("delivered_hash_count", "context.input.delivered_hash_count"),
					scenario.Label("relevance_outcome", "context.decision.relevance.outcome"),
					scenario.Label("decision_relevance_evaluator", "context.decision.evaluator"),
					scenario.Const("context.decision.audit_gap", receipt.S("relevance_is_evaluator_derived_loaded_receipts_only_prove_delivery")),
					scenario.AfterAny("context.selection").Says("relevance record without a context.selection record"),
				},
				Writes: []events.Attr{
					events.SetsProp("context.decision.input_hashes", events.Prop{"items": events.Ref(events.DefDigest), "type": "array"}),
					events.ReqAttr(events.Sets("context.decision.relevance.accounted_count", events.DefCount)),
					events.Sets("context.decision.relevance.decisive_count", events.DefCount),
					events.ReqAttr(events.SetsConst("context.decision.relevance.invariant", receipt.S("selected_count == decisive_count + supporting_count + unused_count + unknown_count; decisive_count + supporting_count <= selected_count"))),
					events.SetsConst("context.decision.relevance.invariant_holds", receipt.B(true)),
					events.Sets("context.decision.relevance.supporting_count", events.DefCount),
					events.Sets("context.decision.relevance.unknown_count", events.DefCount),
					events.Sets("context.decision.relevance.unused_count", events.DefCount),
				},
				Hook: relevanceEvaluated,
			},
		},
		NewState: func() any {
			return &selectionState{ranks: map[int64]bool{}, deliveredHash: map[int64]string{}, deliveredHashes: map[string]bool{}}
		},
		End: selectionEnd,
	}
}

// selectionState is the selection's declared counts, the inputs by rank
// (the digest each delivered one carried), and what the root span says.
type selectionState struct {
	selected                                    bool // a context.selection record was read
	declSelected, declSuppressed, declDelivered int64
	ranks                                       map[int64]bool
	deliveredHash                               map[int64]string
	deliveredHashes                             map[string]bool
	loadedSelected, delivered, relevance        int64
}

func selectionEvaluated(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st := scenario.StateOf[selectionState](s)
	if st.selected {
		return fmt.Errorf("a second context.selection record: one selection per receipt")
	}
	st.selected = true
	cand, sel := v.Get("candidate_count").Int(), v.Get("selected_count").Int()
	sup, del := v.Get("suppressed_count").Int(), v.Get("delivered_hash_count").Int()
	switch {
	case cand < 0 || sel < 0 || sup < 0 || del < 0:
		return fmt.Errorf("selection counts must not be negative")
	case cand != sel+sup:
		return fmt.Errorf("candidate_count is not selected_count + suppressed_count")
	case del > sel:
		return fmt.Errorf("delivered_hash_count exceeds selected_count")
	}
	st.declSelected, st.declSuppressed, st.declDelivered = sel, sup, del
	s.Span.Set("context.input.selected_count", receipt.Computed(sel))
	s.Span.Set("context.input.suppressed_count", receipt.Computed(sup))
	return nil
}

// selectedInput writes the delivered identity of one selected input and
// remembers it by rank so the relevance event can join back to it.
func selectedInput(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st, rank := scenario.StateOf[selectionState](s), v.Int("selection_rank")
	if rank < 1 {
		return fmt.Errorf("selection_rank must be 1 or more")
	}
	if st.ranks[rank] {
		return fmt.Errorf("selection_rank repeats an earlier input")
	}
	st.ranks[rank] = true
	if events.AttrStr(a, "context.input.selection.status") == "selected" {
		st.loadedSelected++
	}
	if events.AttrStr(a, "context.input.delivery.status") != "delivered" {
		return nil
	}
	// The delivered identity: the text when the log carries it; otherwise
	// the canonical JSON of the delivery's identity fields, labelled so.
	var digest string
	if text := v.Get("raw_context_text"); text.Exists() {
		if text.Type() != view.String {
			return fmt.Errorf("field %q must be a string", "raw_context_text")
		}
		digest = text.Str().Digest(s.Hash)
		a.Set("context.input.delivered.hash_basis", receipt.S("delivered_text"))
	} else {
		var err error
		if digest, err = s.Hash.JSON([]byte(fmt.Sprintf(`{"kind":%s,"selection_rank":%d,"source_id":%s}`,
			v.Get("kind").Raw().Own(), rank, v.Get("source_id").Raw().Own()))); err != nil {
			return fmt.Errorf("delivery identity: %w", err)
		}
		a.Set("context.input.delivered.hash_basis", receipt.S("delivery_record_identity"))
	}
	a.Set("context.input.delivered.hash", receipt.S(digest))
	st.delivered++
	st.deliveredHashes[digest] = true
	st.deliveredHash[rank] = digest
	return nil
}

// relevanceEvaluated accounts for every selected input exactly once.
func relevanceEvaluated(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st, sel := scenario.StateOf[selectionState](s), v.Int("selected_count")
	if sel != st.declSelected {
		return fmt.Errorf("selected_count differs from the selection record's")
	}
	if v := v.Get("suppressed_count"); v.Exists() && v.Int() != st.declSuppressed {
		return fmt.Errorf("suppressed_count differs from the selection record's")
	}
	if v := v.Get("delivered_hash_count"); v.Exists() && v.Int() != st.declDelivered {
		return fmt.Errorf("delivered_hash_count differs from the selection record's")
	}
	seen := map[int64]bool{}
	var counts [4]int64
	var useful []string
	for i, list := range []string{"decisive_selection_ranks", "supporting_selection_ranks", "unused_selection_ranks", "unknown_selection_ranks"} {
		v := v.Get(list)
		if v.Exists() && !v.IsArray() {
			return fmt.Errorf("field %q must be a list", list)
		}
		for _, e := range v.Array() {
			n, err := scenario.WholeNumber(list, e)
			if err != nil {
				return err
			}
			if seen[n] {
				return fmt.Errorf("a selection rank is classified twice")
			}
			seen[n] = true
			hash, delivered := st.deliveredHash[n]
			if !delivered {
				return fmt.Errorf("field %q names a rank with no delivered context.input record", list)
			}
			if i < 2 {
				useful = append(useful, hash)
			}
			counts[i]++
		}
	}
	total := counts[0] + counts[1] + counts[2] + counts[3]
	if total != sel {
		return fmt.Errorf("selected_count is not decisive + supporting + unused + unknown")
	}
	if useful == nil {
		useful = []string{}
	}
	a.Set("context.decision.input_hashes", receipt.L(useful))
	a.Set("context.decision.relevance.decisive_count", receipt.Computed(counts[0]))
	a.Set("context.decision.relevance.supporting_count", receipt.Computed(counts[1]))
	a.Set("context.decision.relevance.unused_count", receipt.Computed(counts[2]))
	a.Set("context.decision.relevance.unknown_count", receipt.Computed(counts[3]))
	a.Set("context.decision.relevance.accounted_count", receipt.Computed(total))
	a.Set("context.decision.relevance.invariant", receipt.S(relevanceInvariant))
	a.Set("context.decision.relevance.invariant_holds", receipt.B(true))
	st.relevance++
	return nil
}

// selectionEnd checks the loaded inputs against the declared counts and says
// what the receipt can claim: a load receipt, or a relevance-accounted one.
func selectionEnd(s *scenario.Session) error {
	st := scenario.StateOf[selectionState](s)
	if !st.selected {
		return nil
	}
	if st.loadedSelected != st.declSelected {
		return fmt.Errorf("the selection declares %d selected inputs but %d context.input records are selected", st.declSelected, st.loadedSelected)
	}
	if st.delivered != st.declDelivered {
		return fmt.Errorf("the selection declares %d delivered inputs but %d context.input records were delivered", st.declDelivered, st.delivered)
	}
	s.Span.Set("context.input.delivered_hash_count", receipt.Computed(st.delivered))
	s.Span.Set("context.input.delivered.unique_hash_count", receipt.Computed(int64(len(st.deliveredHashes))))
	claim := "valid_load_receipt_not_usefulness_claim"
	if st.relevance > 0 {
		claim = "relevance_accounted_for_every_selected_input"
	}
	s.Span.Set("context.decision.claim", receipt.S(claim))
	return nil
}
