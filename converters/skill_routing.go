package converters

import (
	"fmt"
	"math"

	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
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
				Hook: routerIndex,
			},
			"skill.router.case.evaluated": {
				Event: "skill.router.case.evaluated",
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
					Move{Path: "confidence", apply: rateMove("confidence", "skill.router.confidence_bucket")},
					Hash("reason", "skill.router.reason_hash"),
					Const("privacy.raw_prompt_recorded", receipt.B(false)),
					Const("privacy.raw_selection_reason_recorded", receipt.B(false)),
				},
				Hook: routerCase,
			},
			"skill.body.loaded": {
				Event: "skill.body.loaded",
				Moves: []Move{
					SessionIDs(),
					Req(Hash("case_id", "skill.router.case.id_hash")),
					Req(Hash("skill", "skill.name_hash")),
					Hash("raw_skill_body", "skill.body.hash"),
					Label("load_reason", "skill.body.load_reason"),
					Const("privacy.raw_skill_body_recorded", receipt.B(false)),
				},
				Hook: routerBody,
			},
			"skill.router.benchmark.completed": {
				Event: "skill.router.benchmark.completed",
				Moves: []Move{
					SessionIDs(),
					Noted("skill.router.benchmark.id_hash"),
					Noted("skill.router.golden_set_hash"),
					Req(Int("records_total", "skill.router.records_total")),
					Req(Int("usable_records", "skill.router.usable_records")),
					Req(Int("format_failures", "skill.router.format_failures")),
					Move{Path: "top1_rate", apply: rateMove("top1_rate", "skill.router.top1_rate_bucket")},
					Move{Path: "top2_rate", apply: rateMove("top2_rate", "skill.router.top2_rate_bucket")},
					Hash("model_results", "skill.router.model_results_hash"),
					Count("model_results", "skill.router.model_count"),
					Hash("next_action", "skill.router.next_action_hash"),
					Const("skill.router.audit_gap", receipt.S("receipt_proves_routing_boundary_not_task_effectiveness")),
					Const("privacy.raw_benchmark_prompts_recorded", receipt.B(false)),
					Const("privacy.raw_skill_text_recorded", receipt.B(false)),
				},
				Hook: routerCompleted,
			},
		},
		End: func(s *Session) error {
			s.Span.Set("skill.router.case_count", receipt.I(s.Count("route.cases")))
			s.Span.Set("skill.body.loaded_count", receipt.I(s.Count("route.bodies")))
			s.Span.Set("skill.router.full_bodies_loaded_at_startup", receipt.B(s.Count("route.eager") > 0))
			return nil
		},
	})
}

// rateLadder buckets a rate or confidence in [0, 1], in thousandths; the
// labels name the lower bound a value reaches.
var rateLadder = receipt.Ladder{Name: "rate_0_1",
	Bounds: []int64{250, 500, 750, 950},
	Labels: []string{"under_0_25", "gte_0_25", "gte_0_50", "gte_0_75", "gte_0_95"}}

// rateBucket buckets a number in [0, 1]; anything else is invalid input.
func rateBucket(path string, v gjson.Result) (string, error) {
	if v.Type != gjson.Number || math.IsNaN(v.Num) || v.Num < 0 || v.Num > 1 {
		return "", fmt.Errorf("field %q must be a number between 0 and 1", path)
	}
	return rateLadder.Bucket(int64(math.Round(v.Num * 1000))), nil
}

func rateMove(path, key string) func(s *Session, v gjson.Result, a *receipt.Attrs) error {
	return func(s *Session, v gjson.Result, a *receipt.Attrs) error {
		b, err := rateBucket(path, v)
		if err != nil {
			return err
		}
		a.Set(key, receipt.S(b))
		return nil
	}
}

func routerIndex(s *Session, v *Values, a *receipt.Attrs) error {
	for _, n := range v.Get("skill_names").Array() {
		s.Mark("route.index", s.Hash.Text(n.String()))
	}
	s.Add("route.indexes", 1)
	// Only a description-only index keeps full bodies out at startup.
	eager := attrStr(a, "skill.router.startup_strategy") != "description_index_only"
	a.Set("skill.router.full_bodies_loaded_at_startup", receipt.B(eager))
	if eager {
		s.Add("route.eager", 1)
	}
	return nil
}

// routerCase checks a routed case against the index and its own top_k.
func routerCase(s *Session, v *Values, a *receipt.Attrs) error {
	if s.Count("route.indexes") == 0 {
		return fmt.Errorf("a case was routed before any skill index was loaded")
	}
	j := v
	expected, selected := s.Hash.Text(j.Get("expected_skill").String()), s.Hash.Text(j.Get("selected_skill").String())
	if !s.Has("route.index", expected) || !s.Has("route.index", selected) {
		return fmt.Errorf("expected_skill or selected_skill is not in the loaded skill index")
	}
	top := j.Get("top_k").Array()
	if len(top) == 0 {
		return fmt.Errorf("top_k must list at least the selected skill")
	}
	if s.Hash.Text(top[0].String()) != selected {
		return fmt.Errorf("selected_skill is not the first of top_k")
	}
	rank := 0
	for i, t := range top {
		if !s.Has("route.index", s.Hash.Text(t.String())) {
			return fmt.Errorf("top_k names a skill that is not in the loaded index")
		}
		if rank == 0 && s.Hash.Text(t.String()) == expected {
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
	caseID := attrStr(a, "skill.router.case.id_hash")
	if s.Has("route.cases_seen", caseID) {
		return fmt.Errorf("case_id repeats an earlier case")
	}
	s.Mark("route.cases_seen", caseID)
	s.Mark("route.selected", caseID+"/"+selected)
	s.Add("route.cases", 1)
	if rank == 1 {
		s.Add("route.top1", 1)
	}
	if rank == 1 || rank == 2 {
		s.Add("route.top2", 1)
	}
	return nil
}

// routerBody: a full body loads only after routing selected that skill for
// that case.
func routerBody(s *Session, v *Values, a *receipt.Attrs) error {
	caseID, skill := attrStr(a, "skill.router.case.id_hash"), attrStr(a, "skill.name_hash")
	if !s.Has("route.selected", caseID+"/"+skill) {
		return fmt.Errorf("skill body loaded without an earlier case that selected it")
	}
	a.Set("skill.body.loaded_after_route", receipt.B(true))
	s.Add("route.bodies", 1)
	return nil
}

// routerCompleted: the summary accounts for the cases the log routed.
func routerCompleted(s *Session, v *Values, a *receipt.Attrs) error {
	j := v
	total, usable, fails := j.Get("records_total").Int(), j.Get("usable_records").Int(), j.Get("format_failures").Int()
	switch {
	case total != s.Count("route.cases"):
		return fmt.Errorf("records_total differs from the number of routed cases")
	case usable < 0 || fails < 0 || usable+fails != total:
		return fmt.Errorf("usable_records + format_failures is not records_total")
	}
	for _, c := range []struct {
		path string
		hits int64
	}{{"top1_rate", s.Count("route.top1")}, {"top2_rate", s.Count("route.top2")}} {
		v := j.Get(c.path)
		if !v.Exists() || usable == 0 {
			continue
		}
		if math.Abs(v.Num-float64(c.hits)/float64(usable)) > 0.005 {
			return fmt.Errorf("field %q disagrees with the routed cases", c.path)
		}
	}
	return nil
}
