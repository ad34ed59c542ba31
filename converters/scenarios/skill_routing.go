package scenarios

import (
	"fmt"
	"math"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/receipt"
)

// skill_routing proves lazy skill loading in a routing benchmark: a cheap
// description index loads at startup (full bodies stay out), each activation
// case is routed to a skill, a full body loads only after a case selected
// that skill, and a summary accounts for every case. Enforced: routed skills
// are in the index; the selected skill heads top_k; the match label agrees
// with where the expected skill sits in top_k; bodies load only after
// routing selected them; records_total, usable and format-failure counts
// and the top-1/top-2 rates agree with the cases seen. Prompts, reasons,
// skill and catalog names, descriptions, bodies and notes are raw: hashed.
func skillRoutingTable() scenario.Scenario {
	return scenario.Scenario{
		Name:     "skill_routing",
		Doc:      "Skill routing benchmark: description index, routed activation cases, lazy body loads, summary",
		SpanName: "agent.session.skill_routing",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"skill-router-fixture-v0", "skill-router-v2", "top1_selected",
		},
		Records: map[string]scenario.Rec{
			"benchmark.start": {
				Moves: append(append([]scenario.Move(nil), scenario.SessionStart.Moves...),
					scenario.ToSpan(scenario.Noting("skill.router.benchmark.id_hash", scenario.Req(scenario.Hash("benchmark_id", "skill.router.benchmark.id_hash")))),
					scenario.ToSpan(scenario.Label("router_version", "skill.router.version")),
					scenario.ToSpan(scenario.Noting("skill.router.golden_set_hash", scenario.Hash("golden_set", "skill.router.golden_set_hash"))),
				),
			},
			"skill.router.index.loaded": {
				Event: "skill.router.index.loaded",
				Title: "skill.router.index.loaded: a skill description index loaded at startup (full bodies not)",
				Moves: []scenario.Move{
					scenario.SessionIDs(), scenario.AgentName(),
					scenario.Req(scenario.Hash("catalog_id", "skill.catalog.id_hash")),
					scenario.Req(scenario.Count("skill_names", "skill.catalog.skill_count")),
					scenario.Hash("skill_names", "skill.catalog.names_hash"),
					scenario.Hash("raw_descriptions", "skill.router.descriptions_hash"),
					scenario.Req(scenario.Label("startup_strategy", "skill.router.startup_strategy")),
					scenario.Bucket("description_token_count", "skill.router.description_token_count_bucket", receipt.TokenLadder),
					scenario.Bucket("full_body_token_count", "skill.router.full_body_token_count_bucket", receipt.TokenLadder),
					scenario.Const("privacy.raw_skill_descriptions_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_skill_bodies_recorded", receipt.B(false)),
				},
				Writes: []events.Attr{
					events.ReqAttr(events.Sets("skill.router.full_bodies_loaded_at_startup", events.DefBool)),
				},
				Hook: routerIndex,
			},
			"skill.router.case.evaluated": {
				Event: "skill.router.case.evaluated",
				Title: "skill.router.case.evaluated: one activation case routed to a skill",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Noted("skill.router.benchmark.id_hash"),
					scenario.Req(scenario.Hash("case_id", "skill.router.case.id_hash")),
					scenario.Req(scenario.Hash("raw_prompt", "skill.router.prompt_hash")),
					scenario.Req(scenario.Hash("expected_skill", "skill.router.expected_skill_hash")),
					scenario.Req(scenario.Hash("selected_skill", "skill.router.selected_skill_hash")),
					scenario.Req(scenario.Hash("top_k", "skill.router.top_k_hash")),
					scenario.Count("top_k", "skill.router.top_k_count"),
					scenario.Req(scenario.Label("match", "skill.router.match")),
					rateMove("confidence", "skill.router.confidence_bucket"),
					scenario.Hash("reason", "skill.router.reason_hash"),
					scenario.Const("privacy.raw_prompt_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_selection_reason_recorded", receipt.B(false)),
					scenario.AfterAny("skill.router.index.loaded").Says("a case was routed before any skill index was loaded"),
					scenario.SubsetOf("expected_skill", "skill.router.index.loaded", "skill_names").Says("expected_skill or selected_skill is not in the loaded skill index"),
					scenario.SubsetOf("selected_skill", "skill.router.index.loaded", "skill_names").Says("expected_skill or selected_skill is not in the loaded skill index"),
					scenario.Check("top_k starts with selected_skill", routerTopKHead),
					scenario.SubsetOf("top_k", "skill.router.index.loaded", "skill_names").Says("top_k names a skill that is not in the loaded index"),
					scenario.Once("case_id").Says("case_id repeats an earlier case"),
				},
				Writes: []events.Attr{
					events.Sets("skill.router.expected_rank", events.DefCount),
				},
				Hook: routerCase,
			},
			"skill.body.loaded": {
				Event: "skill.body.loaded",
				Title: "skill.body.loaded: a full skill body loaded after routing selected it",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Req(scenario.Hash("case_id", "skill.router.case.id_hash")),
					scenario.Req(scenario.Hash("skill", "skill.name_hash")),
					scenario.Hash("raw_skill_body", "skill.body.hash"),
					scenario.Label("load_reason", "skill.body.load_reason"),
					scenario.Const("privacy.raw_skill_body_recorded", receipt.B(false)),
					scenario.After("skill", "skill.router.case.evaluated", "selected_skill").Within("case_id", "case_id").
						Says("skill body loaded without an earlier case that selected it"),
					scenario.Req(scenario.Const("skill.body.loaded_after_route", receipt.B(true))),
				},
				Hook: func(s *scenario.Session, _ *scenario.Values, _ *receipt.Attrs) error {
					scenario.StateOf[routeState](s).bodies++
					return nil
				},
			},
			"skill.router.benchmark.completed": {
				Event: "skill.router.benchmark.completed",
				Title: "skill.router.benchmark.completed: the routing benchmark summary, checked against the routed cases",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Noted("skill.router.benchmark.id_hash"),
					scenario.Noted("skill.router.golden_set_hash"),
					scenario.Req(scenario.Int("records_total", "skill.router.records_total")),
					scenario.Req(scenario.Int("usable_records", "skill.router.usable_records")),
					scenario.Req(scenario.Int("format_failures", "skill.router.format_failures")),
					rateMove("top1_rate", "skill.router.top1_rate_bucket"),
					rateMove("top2_rate", "skill.router.top2_rate_bucket"),
					scenario.Hash("model_results", "skill.router.model_results_hash"),
					scenario.Count("model_results", "skill.router.model_count"),
					scenario.Hash("next_action", "skill.router.next_action_hash"),
					scenario.Const("skill.router.audit_gap", receipt.S("receipt_proves_routing_boundary_not_task_effectiveness")),
					scenario.Const("privacy.raw_benchmark_prompts_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_skill_text_recorded", receipt.B(false)),
					// The summary accounts for the cases the log routed.
					scenario.CountOf("records_total", "skill.router.case.evaluated").Says("records_total differs from the number of routed cases"),
					scenario.SumEq("records_total", "usable_records", "format_failures").Says("usable_records + format_failures is not records_total"),
				},
				Hook: routerCompleted,
			},
		},
		NewState: func() any { return &routeState{} },
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[routeState](s)
			s.Span.Set("skill.router.case_count", receipt.Computed(st.cases))
			s.Span.Set("skill.body.loaded_count", receipt.Computed(st.bodies))
			s.Span.Set("skill.router.full_bodies_loaded_at_startup", receipt.B(st.eager))
			return nil
		},
	}
}

func init() { scenario.Define("skill_routing", skillRoutingTable) }

// rateLadder buckets a rate or confidence in [0, 1], in thousandths; the
// labels name the lower bound a value reaches.
var rateLadder = events.RefusingInvalid(receipt.Ladder{Name: "rate_0_1",
	Bounds: []int64{250, 500, 750, 950},
	Labels: []string{"under_0_25", "gte_0_25", "gte_0_50", "gte_0_75", "gte_0_95"}})

// rateBucket buckets a number in [0, 1]; anything else is invalid input.
func rateBucket(path string, v view.Value) (string, error) {
	if v.Type() != view.Number || math.IsNaN(v.Num()) || v.Num() < 0 || v.Num() > 1 {
		return "", fmt.Errorf("field %q must be a number between 0 and 1", path)
	}
	return rateLadder.Bucket(int64(math.Round(v.Num() * 1000))), nil
}

// rateMove writes the rate ladder's bucket of a number in [0, 1].
func rateMove(path, key string) scenario.Move {
	return scenario.Move{Path: path, Attr: events.Attr{Key: key, Def: events.LadderDef(rateLadder)}, Apply: func(s *scenario.Session, v view.Value, a *receipt.Attrs) error {
		b, err := rateBucket(path, v)
		if err != nil {
			return err
		}
		a.Set(key, receipt.S(b))
		return nil
	}}
}

// routeState counts the cases routed, for the summary's rates and the root
// span.
type routeState struct {
	cases, top1, top2, bodies int64
	eager                     bool // an index loaded full bodies at startup
}

func routerIndex(s *scenario.Session, _ *scenario.Values, a *receipt.Attrs) error {
	// Only a description-only index keeps full bodies out at startup.
	eager := events.AttrStr(a, "skill.router.startup_strategy") != "description_index_only"
	a.Set("skill.router.full_bodies_loaded_at_startup", receipt.B(eager))
	if eager {
		scenario.StateOf[routeState](s).eager = true
	}
	return nil
}

// routerTopKHead: top_k starts with the selected skill.
func routerTopKHead(_ *scenario.Session, v *scenario.Values) error {
	top := v.Get("top_k").Array()
	if len(top) == 0 {
		return fmt.Errorf("top_k must list at least the selected skill")
	}
	if !top[0].String().Equal(v.Str("selected_skill")) {
		return fmt.Errorf("selected_skill is not the first of top_k")
	}
	return nil
}

// routerCase checks the match label against the expected skill's place in
// top_k.
func routerCase(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	expected, top := v.Str("expected_skill"), v.Get("top_k").Array()
	rank := 0
	for i, t := range top {
		if rank == 0 && t.String().Equal(expected) {
			rank = i + 1
		}
	}
	want := "miss"
	switch {
	case rank == 1:
		want = "top1"
	case rank == 2:
		want = "top2"
	case rank > 2:
		want = fmt.Sprintf("top%d", rank)
	}
	if got := events.AttrStr(a, "skill.router.match"); got != want {
		return fmt.Errorf("match label disagrees with the expected skill's place in top_k")
	}
	a.Set("skill.router.expected_rank", receipt.Computed(int64(rank)))
	st := scenario.StateOf[routeState](s)
	st.cases++
	if rank == 1 {
		st.top1++
	}
	if rank == 1 || rank == 2 {
		st.top2++
	}
	return nil
}

// routerCompleted: the summary's rates are those of the routed cases.
func routerCompleted(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st, usable := scenario.StateOf[routeState](s), v.Int("usable_records")
	for _, c := range []struct {
		path string
		hits int64
	}{{"top1_rate", st.top1}, {"top2_rate", st.top2}} {
		v := v.Get(c.path)
		if !v.Exists() || usable == 0 {
			continue
		}
		if math.Abs(v.Num()-float64(c.hits)/float64(usable)) > 0.005 {
			return fmt.Errorf("field %q disagrees with the routed cases", c.path)
		}
	}
	return nil
}
