package scenarios

import (
	"fmt"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/internal/receipt"
)

// skill_registry proves the boundary of a self-distilled skill registry:
// a compact index enters context while full bodies stay out, a skill is
// stored, its full body is read only after the index is loaded, the body is
// injected only after it was read, and a later decision accounts for the
// skill's reuse. Skill ids, index text, bodies and decision notes are raw:
// only hashed.
func skillRegistryTable() scenario.Scenario {
	common := []scenario.Move{
		scenario.SessionIDs(),
		scenario.FromSpan("context.skill.registry.scope"),
		scenario.Const("context.skill.privacy.raw_body_exported", receipt.B(false)),
		scenario.Const("context.skill.audit_gap", receipt.S("receipt_proves_registry_index_read_injection_boundary_not_skill_quality")),
	}
	with := func(ms ...scenario.Move) []scenario.Move {
		return append(append([]scenario.Move(nil), common...), ms...)
	}
	return scenario.Scenario{
		Name:     "skill_registry",
		Doc:      "Self-distilled skill registry: index loaded, skill stored, read after index match, injected, reuse accounted",
		SpanName: "agent.session.skill_registry",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"1k-2k", "2k-4k", "8k-16k", "autogpt-copilot", "decisive", "hit", "outermost_available_skills_index",
			"selected_after_index_match", "self_distilled", "supporting", "task_matches_skill_index",
			"user_approved_reusable_workflow",
		},
		Records: map[string]scenario.Rec{
			"skill.index": {
				Event: "context.skill.registry.index.loaded",
				Title: "context.skill.registry.index.loaded: a compact skill index entered context; full skill bodies stayed out",
				Moves: append([]scenario.Move{scenario.OnSpan("context.skill.registry.scope", scenario.Req(scenario.Label("registry_scope", "context.skill.registry.scope")))}, with(
					scenario.Label("index_strategy", "context.skill.index.strategy"),
					scenario.Req(scenario.Int("candidate_skill_count", "context.skill.candidate_count")),
					scenario.Req(scenario.Int("indexed_skill_count", "context.skill.indexed_count")),
					scenario.Req(scenario.Hash("raw_index_text", "context.skill.index.hash")),
					scenario.Label("index_token_bucket", "context.skill.index.token_bucket"),
					scenario.Req(scenario.Label("body_token_bucket", "context.skill.body.token_bucket")),
					scenario.Label("cache_status", "context.skill.cache.status"),
					scenario.Req(scenario.Label("injection_policy", "context.skill.injection.policy")),
				)...),
				Hook: registryIndex,
			},
			"skill.store": {
				Event: "context.skill.registry.skill.stored",
				Title: "context.skill.registry.skill.stored: a skill was written to the registry",
				Moves: with(
					scenario.Req(scenario.Hash("skill_id", "context.skill.id_hash")),
					scenario.Label("source", "context.skill.source"),
					scenario.Label("store_reason", "context.skill.store.reason"),
					scenario.Req(scenario.Hash("raw_skill_body", "context.skill.body.hash")),
					scenario.Label("body_token_bucket", "context.skill.body.token_bucket"),
					scenario.Req(scenario.Label("write_status", "context.skill.write.status")),
				),
			},
			"skill.read": {
				Event: "context.skill.registry.skill.read",
				Title: "context.skill.registry.skill.read: a skill's full body was read after the index was loaded",
				Moves: with(
					scenario.Req(scenario.Hash("skill_id", "context.skill.id_hash")),
					scenario.Label("read_reason", "context.skill.read.reason"),
					scenario.Req(scenario.Hash("raw_skill_body", "context.skill.body.hash")),
					scenario.Label("body_token_bucket", "context.skill.body.token_bucket"),
					scenario.Req(scenario.Label("read_status", "context.skill.read.status")),
					scenario.AfterAny("skill.index").Says("skill body read before any skill index was loaded"),
				),
				Hook: registryRead,
			},
			"skill.inject": {
				Event: "context.skill.registry.skill.injected",
				Title: "context.skill.registry.skill.injected: a read skill body crossed into the agent context; other skills stayed suppressed",
				Moves: with(
					scenario.Req(scenario.Hash("skill_id", "context.skill.id_hash")),
					scenario.Label("injection_reason", "context.skill.injection.reason"),
					scenario.Req(scenario.Hash("raw_delivered_body", "context.skill.delivered.hash")),
					scenario.Label("delivered_token_bucket", "context.skill.delivered.token_bucket"),
					scenario.Req(scenario.Label("delivery_status", "context.skill.delivery.status")),
					scenario.Req(scenario.Int("suppressed_count", "context.skill.suppressed_count")),
				),
				Writes: []events.Attr{
					events.Sets("context.skill.delivered.matches_read_body", events.DefBool),
				},
				Hook: registryInject,
			},
			"skill.reuse": {
				Event: "context.skill.registry.reuse.evaluated",
				Title: "context.skill.registry.reuse.evaluated: a later decision accounts for the injected skill as decisive, supporting, unused or unknown",
				Moves: with(
					scenario.Req(scenario.Hash("decision_id", "decision.id_hash")),
					scenario.Req(scenario.Hash("skill_id", "context.skill.id_hash")),
					scenario.Req(scenario.Int("selected_count", "context.skill.selected_count")),
					scenario.Int("suppressed_count", "context.skill.suppressed_count"),
					scenario.Req(scenario.Int("decisive_count", "context.skill.relevance.decisive_count")),
					scenario.Req(scenario.Int("supporting_count", "context.skill.relevance.supporting_count")),
					scenario.Req(scenario.Int("unused_count", "context.skill.relevance.unused_count")),
					scenario.Req(scenario.Int("unknown_count", "context.skill.relevance.unknown_count")),
					scenario.Label("outcome", "context.skill.relevance.outcome"),
					scenario.Hash("raw_decision_notes", "context.skill.decision_notes_hash"),
					scenario.SumEq("selected_count", "decisive_count", "supporting_count", "unused_count", "unknown_count").
						Says("selected_count is not decisive + supporting + unused + unknown"),
				),
				Writes: []events.Attr{
					events.ReqAttr(events.Sets("context.skill.relevance.accounted_count", events.DefCount)),
					events.ReqAttr(events.SetsConst("context.skill.relevance.invariant", receipt.S("selected_count == decisive_count + supporting_count + unused_count + unknown_count"))),
				},
				Hook: registryReuse,
			},
		},
		NewState: func() any {
			return &registryState{readBody: map[string]string{}, injected: map[string]bool{}, suppressed: map[string]int64{}}
		},
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[registryState](s)
			s.Span.Set("context.skill.read_count", receipt.Computed(st.reads))
			s.Span.Set("context.skill.injected_count", receipt.Computed(int64(len(st.injected))))
			s.Span.Set("context.skill.reuse_evaluated_count", receipt.Computed(st.reuses))
			return nil
		},
	}
}

func init() { scenario.Define("skill_registry", skillRegistryTable) }

// registryIndex: an index-only policy means full bodies stayed out, so its
// body bucket must say not_loaded; the index cannot list more skills than
// the registry offered.
func registryIndex(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	cand, idx := v.Get("candidate_skill_count").Int(), v.Get("indexed_skill_count").Int()
	if cand < 0 || idx < 0 || idx > cand {
		return fmt.Errorf("indexed_skill_count must be between 0 and candidate_skill_count")
	}
	if events.AttrStr(a, "context.skill.injection.policy") == "index_only_until_read" && events.AttrStr(a, "context.skill.body.token_bucket") != "not_loaded" {
		return fmt.Errorf("index_only_until_read index loaded skill bodies (body_token_bucket is not not_loaded)")
	}
	scenario.StateOf[registryState](s).indexed = idx
	return nil
}

// registryState keeps, by skill id digest, the body digest each read saw,
// the injected skills and their suppressed counts; and the latest index's
// size and the counts for the root span.
type registryState struct {
	readBody      map[string]string
	injected      map[string]bool
	suppressed    map[string]int64
	indexed       int64
	reads, reuses int64
}

// registryRead remembers the body a successful read saw.
func registryRead(s *scenario.Session, _ *scenario.Values, a *receipt.Attrs) error {
	if events.AttrStr(a, "context.skill.read.status") == "read" {
		st := scenario.StateOf[registryState](s)
		st.readBody[events.AttrStr(a, "context.skill.id_hash")] = events.AttrStr(a, "context.skill.body.hash")
		st.reads++
	}
	return nil
}

// registryInject: a body is injected only after it was read; the receipt
// says whether what was delivered is the body that was read.
func registryInject(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st, id := scenario.StateOf[registryState](s), events.AttrStr(a, "context.skill.id_hash")
	body, read := st.readBody[id]
	if !read {
		return fmt.Errorf("skill injected without an earlier read of its full body")
	}
	sup := v.Int("suppressed_count")
	if sup < 0 || (st.indexed > 0 && sup >= st.indexed) {
		return fmt.Errorf("suppressed_count must be below the indexed skill count")
	}
	a.Set("context.skill.delivered.matches_read_body", receipt.B(body == v.Str("raw_delivered_body").Digest(s.Hash)))
	if events.AttrStr(a, "context.skill.delivery.status") == "delivered" {
		st.injected[id] = true
		st.suppressed[id] = sup
	}
	return nil
}

// registryReuse: reuse is evaluated for an injected skill whose suppressed
// count it repeats.
func registryReuse(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st, id := scenario.StateOf[registryState](s), events.AttrStr(a, "context.skill.id_hash")
	if !st.injected[id] {
		return fmt.Errorf("reuse evaluated for a skill that was never injected")
	}
	if v.Has("suppressed_count") && v.Int("suppressed_count") != st.suppressed[id] {
		return fmt.Errorf("suppressed_count differs from the injection record's")
	}
	a.Set("context.skill.relevance.accounted_count", receipt.Copied(v.Int("selected_count")))
	a.Set("context.skill.relevance.invariant", receipt.S("selected_count == decisive_count + supporting_count + unused_count + unknown_count"))
	st.reuses++
	return nil
}
