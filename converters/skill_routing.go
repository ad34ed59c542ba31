package converters

import (
	"fmt"
	"math"

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
func init() {
	registerScenario(Scenario{
		Name:     "skill_routing",
		Doc:      "Skill routing benchmark: description index, routed activation cases, lazy body loads, summary",
		SpanName: "agent.session.skill_routing",
		Records: map[string]Rec{
			"benchmark.start": {
				Moves: append(append([]Move(nil), sessionStart.Moves...),
					ToSpan(Noting("skill.router.benchmark.id_hash", Req(Hash("benchmark_id", "skill.router.benchmark.id_hash")))),
					ToSpan(Label("router_version", "skill.router.version")),
					ToSpan(Noting("skill.router.golden_set_hash", Hash("golden_set", "skill.router.golden_set_hash"))),
				),
			},
			"skill.router.index.loaded": {
				Event: "skill.router.index.loaded",
				Title: "skill.router.index.loaded: a skill description index loaded at startup (full bodies not)",
				Moves: []Move{
					SessionIDs(), AgentName(),
					Req(Hash("catalog_id", "skill.catalog.id_hash")),
					Req(Count("skill_names", "skill.catalog.skill_count")),
					Hash("skill_names", "skill.catalog.names_hash"),
					Hash("raw_descriptions", "skill.router.descriptions_hash"),
					Req(Label("startup_strategy", "skill.router.startup_strategy")),
					Bucket("description_token_count", "skill.router.description_token_count_bucket", receipt.TokenLadder),
					Bucket("full_body_token_count", "skill.router.full_body_token_count_bucket", receipt.TokenLadder),
					Const("privacy.raw_skill_descriptions_recorded", receipt.B(false)),
					Const("privacy.raw_skill_bodies_recorded", receipt.B(false)),
				},
				Writes: []Attr{
					ReqAttr(Sets("skill.router.full_bodies_loaded_at_startup", DefBool)),
				},
				Hook: routerIndex,
			},
			"skill.router.case.evaluated": {
				Event: "skill.router.case.evaluated",
				Title: "skill.router.case.evaluated: one activation case routed to a skill",
				Moves: []Move{
					SessionIDs(),
					Noted("skill.router.benchmark.id_hash"),
					Req(Hash("case_id", "skill.router.case.id_hash")),
					Req(Hash("raw_prompt", "skill.router.prompt_hash")),
					Req(Hash("expected_skill", "skill.router.expected_skill_hash")),
					Req(Hash("selected_skill", "skill.router.selected_skill_hash")),
					Req(Hash("top_k", "skill.router.top_k_hash")),
					Count("top_k", "skill.router.top_k_count"),
					Req(Label("match", "skill.router.match")),
					rateMove("confidence", "skill.router.confidence_bucket"),
					Hash("reason", "skill.router.reason_hash"),
					Const("privacy.raw_prompt_recorded", receipt.B(false)),
					Const("privacy.raw_selection_reason_recorded", receipt.B(false)),
					AfterAny("skill.router.index.loaded").Says("a case was routed before any skill index was loaded"),
					SubsetOf("expected_skill", "skill.router.index.loaded", "skill_names").Says("expected_skill or selected_skill is not in the loaded skill index"),
					SubsetOf("selected_skill", "skill.router.index.loaded", "skill_names").Says("expected_skill or selected_skill is not in the loaded skill index"),
					Check("top_k starts with selected_skill", routerTopKHead),
					SubsetOf("top_k", "skill.router.index.loaded", "skill_names").Says("top_k names a skill that is not in the loaded index"),
					Once("case_id").Says("case_id repeats an earlier case"),
				},
				Writes: []Attr{
					Sets("skill.router.expected_rank", DefCount),
				},
				Hook: routerCase,
			},
			"skill.body.loaded": {
				Event: "skill.body.loaded",
				Title: "skill.body.loaded: a full skill body loaded after routing selected it",
				Moves: []Move{
					SessionIDs(),
					Req(Hash("case_id", "skill.router.case.id_hash")),
					Req(Hash("skill", "skill.name_hash")),
					Hash("raw_skill_body", "skill.body.hash"),
					Label("load_reason", "skill.body.load_reason"),
					Const("privacy.raw_skill_body_recorded", receipt.B(false)),
					After("skill", "skill.router.case.evaluated", "selected_skill").Within("case_id", "case_id").
						Says("skill body loaded without an earlier case that selected it"),
					Req(Const("skill.body.loaded_after_route", receipt.B(true))),
				},
				Hook: func(s *Session, _ *Values, _ *receipt.Attrs) error {
					StateOf[routeState](s).bodies++
					return nil
				},
			},
			"skill.router.benchmark.completed": {
				Event: "skill.router.benchmark.completed",
				Title: "skill.router.benchmark.completed: the routing benchmark summary, checked against the routed cases",
				Moves: []Move{
					SessionIDs(),
					Noted("skill.router.benchmark.id_hash"),
					Noted("skill.router.golden_set_hash"),
					Req(Int("records_total", "skill.router.records_total")),
					Req(Int("usable_records", "skill.router.usable_records")),
					Req(Int("format_failures", "skill.router.format_failures")),
					rateMove("top1_rate", "skill.router.top1_rate_bucket"),
					rateMove("top2_rate", "skill.router.top2_rate_bucket"),
					Hash("model_results", "skill.router.model_results_hash"),
					Count("model_results", "skill.router.model_count"),
					Hash("next_action", "skill.router.next_action_hash"),
					Const("skill.router.audit_gap", receipt.S("receipt_proves_routing_boundary_not_task_effectiveness")),
					Const("privacy.raw_benchmark_prompts_recorded", receipt.B(false)),
					Const("privacy.raw_skill_text_recorded", receipt.B(false)),
					// The summary accounts for the cases the log routed.
					CountOf("records_total", "skill.router.case.evaluated").Says("records_total differs from the number of routed cases"),
					SumEq("records_total", "usable_records", "format_failures").Says("usable_records + format_failures is not records_total"),
				},
				Hook: routerCompleted,
			},
		},
		NewState: func() any { return &routeState{} },
		End: func(s *Session) error {
			st := StateOf[routeState](s)
			s.Span.Set("skill.router.case_count", receipt.I(st.cases))
			s.Span.Set("skill.body.loaded_count", receipt.I(st.bodies))
			s.Span.Set("skill.router.full_bodies_loaded_at_startup", receipt.B(st.eager))
			return nil
		},
	})
}

// rateLadder buckets a rate or confidence in [0, 1], in thousandths; the
// labels name the lower bound a value reaches.
var rateLadder = refusingInvalid(receipt.Ladder{Name: "rate_0_1",
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
func rateMove(path, key string) Move {
	return Move{Path: path, Attr: Attr{Key: key, Def: LadderDef(rateLadder)}, apply: func(s *Session, v view.Value, a *receipt.Attrs) error {
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

func routerIndex(s *Session, _ *Values, a *receipt.Attrs) error {
	// Only a description-only index keeps full bodies out at startup.
	eager := attrStr(a, "skill.router.startup_strategy") != "description_index_only"
	a.Set("skill.router.full_bodies_loaded_at_startup", receipt.B(eager))
	if eager {
		StateOf[routeState](s).eager = true
	}
	return nil
}

// routerTopKHead: top_k starts with the selected skill.
func routerTopKHead(_ *Session, v *Values) error {
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
func routerCase(s *Session, v *Values, a *receipt.Attrs) error {
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
	if got := attrStr(a, "skill.router.match"); got != want {
		return fmt.Errorf("match label disagrees with the expected skill's place in top_k")
	}
	a.Set("skill.router.expected_rank", receipt.I(int64(rank)))
	st := StateOf[routeState](s)
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
func routerCompleted(s *Session, v *Values, a *receipt.Attrs) error {
	st, usable := StateOf[routeState](s), v.Int("usable_records")
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
