package converters

import (
	"fmt"

	"github.com/contextreceipts/convert/internal/receipt"
)

// skill_registry proves the boundary of a self-distilled skill registry:
// a compact index enters context while full bodies stay out, a skill is
// stored, its full body is read only after the index is loaded, the body is
// injected only after it was read, and a later decision accounts for the
// skill's reuse. Skill ids, index text, bodies and decision notes are raw:
// only hashed.
func init() {
	common := []Move{
		SessionIDs(),
		FromSpan("context.skill.registry.scope"),
		Const("context.skill.privacy.raw_body_exported", receipt.B(false)),
		Const("context.skill.audit_gap", receipt.S("receipt_proves_registry_index_read_injection_boundary_not_skill_quality")),
	}
	with := func(ms ...Move) []Move { return append(append([]Move(nil), common...), ms...) }
	registerScenario(Scenario{
		Name:     "skill_registry",
		Doc:      "Self-distilled skill registry: index loaded, skill stored, read after index match, injected, reuse accounted",
		SpanName: "agent.session.skill_registry",
		Records: map[string]Rec{
			"skill.index": {
				Event: "context.skill.registry.index.loaded",
				Moves: append([]Move{OnSpan("context.skill.registry.scope", Req(Label("registry_scope", "context.skill.registry.scope")))}, with(
					Label("index_strategy", "context.skill.index.strategy"),
					Req(Int("candidate_skill_count", "context.skill.candidate_count")),
					Req(Int("indexed_skill_count", "context.skill.indexed_count")),
					Req(Hash("raw_index_text", "context.skill.index.hash")),
					Label("index_token_bucket", "context.skill.index.token_bucket"),
					Req(Label("body_token_bucket", "context.skill.body.token_bucket")),
					Label("cache_status", "context.skill.cache.status"),
					Req(Label("injection_policy", "context.skill.injection.policy")),
				)...),
				Hook: registryIndex,
			},
			"skill.store": {
				Event: "context.skill.registry.skill.stored",
				Moves: with(
					Req(Hash("skill_id", "context.skill.id_hash")),
					Label("source", "context.skill.source"),
					Label("store_reason", "context.skill.store.reason"),
					Req(Hash("raw_skill_body", "context.skill.body.hash")),
					Label("body_token_bucket", "context.skill.body.token_bucket"),
					Req(Label("write_status", "context.skill.write.status")),
				),
				Hook: func(s *Session, v *Values, a *receipt.Attrs) error {
					if attrStr(a, "context.skill.write.status") == "stored" {
						s.Mark("registry.stored", attrStr(a, "context.skill.id_hash"))
					}
					return nil
				},
			},
			"skill.read": {
				Event: "context.skill.registry.skill.read",
				Moves: with(
					Req(Hash("skill_id", "context.skill.id_hash")),
					Label("read_reason", "context.skill.read.reason"),
					Req(Hash("raw_skill_body", "context.skill.body.hash")),
					Label("body_token_bucket", "context.skill.body.token_bucket"),
					Req(Label("read_status", "context.skill.read.status")),
				),
				Hook: registryRead,
			},
			"skill.inject": {
				Event: "context.skill.registry.skill.injected",
				Moves: with(
					Req(Hash("skill_id", "context.skill.id_hash")),
					Label("injection_reason", "context.skill.injection.reason"),
					Req(Hash("raw_delivered_body", "context.skill.delivered.hash")),
					Label("delivered_token_bucket", "context.skill.delivered.token_bucket"),
					Req(Label("delivery_status", "context.skill.delivery.status")),
					Req(Int("suppressed_count", "context.skill.suppressed_count")),
				),
				Hook: registryInject,
			},
			"skill.reuse": {
				Event: "context.skill.registry.reuse.evaluated",
				Moves: with(
					Req(Hash("decision_id", "decision.id_hash")),
					Req(Hash("skill_id", "context.skill.id_hash")),
					Req(Int("selected_count", "context.skill.selected_count")),
					Int("suppressed_count", "context.skill.suppressed_count"),
					Req(Int("decisive_count", "context.skill.relevance.decisive_count")),
					Req(Int("supporting_count", "context.skill.relevance.supporting_count")),
					Req(Int("unused_count", "context.skill.relevance.unused_count")),
					Req(Int("unknown_count", "context.skill.relevance.unknown_count")),
					Label("outcome", "context.skill.relevance.outcome"),
					Hash("raw_decision_notes", "context.skill.decision_notes_hash"),
				),
				Hook: registryReuse,
			},
		},
		End: func(s *Session) error {
			s.Span.Set("context.skill.read_count", receipt.I(s.Count("registry.reads")))
			s.Span.Set("context.skill.injected_count", receipt.I(int64(s.Len("registry.injected"))))
			s.Span.Set("context.skill.reuse_evaluated_count", receipt.I(s.Count("registry.reuses")))
			return nil
		},
	})
}

// registryIndex: an index-only policy means full bodies stayed out, so its
// body bucket must say not_loaded; the index cannot list more skills than
// the registry offered.
func registryIndex(s *Session, v *Values, a *receipt.Attrs) error {
	cand, idx := v.Get("candidate_skill_count").Int(), v.Get("indexed_skill_count").Int()
	if cand < 0 || idx < 0 || idx > cand {
		return fmt.Errorf("indexed_skill_count must be between 0 and candidate_skill_count")
	}
	if attrStr(a, "context.skill.injection.policy") == "index_only_until_read" && attrStr(a, "context.skill.body.token_bucket") != "not_loaded" {
		return fmt.Errorf("index_only_until_read index loaded skill bodies (body_token_bucket is not not_loaded)")
	}
	s.Add("registry.indexes", 1)
	setCount(s, "registry.indexed", idx)
	return nil
}

// registryRead: a full body is read only after an index was loaded.
func registryRead(s *Session, v *Values, a *receipt.Attrs) error {
	if s.Count("registry.indexes") == 0 {
		return fmt.Errorf("skill body read before any skill index was loaded")
	}
	if attrStr(a, "context.skill.read.status") == "read" {
		id := attrStr(a, "context.skill.id_hash")
		s.Mark("registry.read", id)
		s.Note("registry.body:"+id, attrStr(a, "context.skill.body.hash"))
		s.Add("registry.reads", 1)
	}
	return nil
}

// registryInject: a body is injected only after it was read; the receipt
// says whether what was delivered is the body that was read.
func registryInject(s *Session, v *Values, a *receipt.Attrs) error {
	id := attrStr(a, "context.skill.id_hash")
	if !s.Has("registry.read", id) {
		return fmt.Errorf("skill injected without an earlier read of its full body")
	}
	sup := v.Get("suppressed_count").Int()
	if sup < 0 || (s.Count("registry.indexed") > 0 && sup >= s.Count("registry.indexed")) {
		return fmt.Errorf("suppressed_count must be below the indexed skill count")
	}
	a.Set("context.skill.delivered.matches_read_body", receipt.B(s.Recall("registry.body:"+id) == s.Hash.Text(v.Get("raw_delivered_body").String())))
	if attrStr(a, "context.skill.delivery.status") == "delivered" {
		s.Mark("registry.injected", id)
		setCount(s, "registry.suppressed:"+id, sup)
	}
	return nil
}

// registryReuse: reuse is evaluated for an injected skill, and every
// selected skill is accounted for.
func registryReuse(s *Session, v *Values, a *receipt.Attrs) error {
	id := attrStr(a, "context.skill.id_hash")
	if !s.Has("registry.injected", id) {
		return fmt.Errorf("reuse evaluated for a skill that was never injected")
	}
	j := v
	sel := j.Get("selected_count").Int()
	dec, sup, unu, unk := j.Get("decisive_count").Int(), j.Get("supporting_count").Int(), j.Get("unused_count").Int(), j.Get("unknown_count").Int()
	if dec < 0 || sup < 0 || unu < 0 || unk < 0 || sel != dec+sup+unu+unk {
		return fmt.Errorf("selected_count is not decisive + supporting + unused + unknown")
	}
	if v := j.Get("suppressed_count"); v.Exists() && v.Int() != s.Count("registry.suppressed:"+id) {
		return fmt.Errorf("suppressed_count differs from the injection record's")
	}
	a.Set("context.skill.relevance.accounted_count", receipt.I(dec+sup+unu+unk))
	a.Set("context.skill.relevance.invariant", receipt.S("selected_count == decisive_count + supporting_count + unused_count + unknown_count"))
	s.Add("registry.reuses", 1)
	return nil
}
