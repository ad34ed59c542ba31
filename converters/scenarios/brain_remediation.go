package scenarios

import (
	"fmt"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/internal/receipt"
)

// brain_remediation proves a self-remediation pass over a memory/knowledge
// graph ("brain"): pre-check, a selected plan, each job submitted, skipped or
// refused, the cost boundary and the post-check. Instance, run, plan, job and
// snapshot ids are hashed; brain excerpts, plan summaries, change details and
// operator notes are raw and never written.
func brainRemediationTable() scenario.Scenario {
	ids := scenario.FromSpan("brain.instance.id_hash", "brain.doctor.run.id_hash")
	return scenario.Scenario{
		Name:     "brain_remediation",
		Doc:      "Brain (memory graph) doctor remediation: precheck, plan, jobs, cost cap, postcheck",
		SpanName: "agent.session.brain.remediation",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"brain-autopilot", "dedupe_facts", "delete_low_confidence", "delete_stale_nodes", "doctor.remediate",
			"hashes-and-counts", "link_project_clusters", "protected_phase_requires_human_or_explicit_flag",
			"refresh_edges", "relink_orphans", "target_score_reached_by_prior_jobs",
		},
		Records: map[string]scenario.Rec{
			"brain.doctor.start": {
				Moves: []scenario.Move{
					scenario.ToSpan(scenario.Req(scenario.Hash("instance_id", "brain.instance.id_hash"))),
					scenario.ToSpan(scenario.Req(scenario.Hash("run_id", "brain.doctor.run.id_hash"))),
					scenario.ToSpan(scenario.Hash("operator", "brain.doctor.operator_hash")),
					scenario.ToSpan(scenario.Label("mode", "brain.doctor.mode")),
					scenario.ToSpan(scenario.Int("target_score", "brain.doctor.target_score")),
					scenario.ToSpan(scenario.ScaledBucket("max_usd", "brain.remediation.cost.cap_bucket", scenario.UsdLadder, 100)),
					scenario.ToSpan(scenario.Hash("protected_phases", "brain.remediation.protected_phases_hash")),
					scenario.ToSpan(scenario.Label("privacy", "brain.doctor.privacy_mode")),
				},
				Hook: brainStart,
			},
			"brain.doctor.precheck": {
				Event: "brain.doctor.precheck.completed",
				Title: "brain.doctor.precheck.completed: the brain's health before remediation: score, issues, snapshot",
				Moves: []scenario.Move{
					scenario.SessionIDs(), ids, scenario.FromSpan("brain.doctor.mode"),
					scenario.Req(scenario.Int("score", "brain.doctor.score.before")),
					scenario.Bucket("score", "brain.doctor.score.before_bucket", scenario.HealthLadder),
					scenario.Int("issue_count", "brain.doctor.issue.count.before"),
					scenario.Hash("issue_categories", "brain.doctor.issue.categories_hash"),
					scenario.Hash("brain_snapshot", "brain.doctor.snapshot.before_hash"),
					scenario.Const("brain.privacy.raw_brain_recorded", receipt.B(false)),
					scenario.Const("brain.privacy.raw_issue_recorded", receipt.B(false)),
				},
				Hook: brainPrecheck,
			},
			"brain.remediation.plan": {
				Event: "brain.doctor.remediation.plan.selected",
				Title: "brain.doctor.remediation.plan.selected: the remediation plan selected after the precheck",
				Moves: []scenario.Move{
					scenario.SessionIDs(), ids,
					scenario.Req(scenario.Hash("plan_id", "brain.remediation.plan.id_hash")),
					scenario.Hash("plan_summary", "brain.remediation.plan.summary_hash"),
					scenario.Int("step_count", "brain.remediation.plan.step_count"),
					scenario.ScaledBucket("estimated_usd", "brain.remediation.plan.estimated_spend_bucket", scenario.UsdLadder, 100),
					scenario.Int("expected_score_delta", "brain.remediation.plan.expected_score_delta"),
					scenario.Bool("requires_protected_phase", "brain.remediation.plan.requires_protected_phase"),
					scenario.FromSpan("brain.remediation.protected_phases_hash"),
					scenario.Const("brain.privacy.raw_plan_recorded", receipt.B(false)),
				},
				Writes: []events.Attr{
					events.Sets("brain.remediation.plan.within_cost_cap", events.DefBool),
				},
				Hook: brainPlan,
			},
			"brain.remediation.job": {
				Event: "brain.doctor.remediation.job.evaluated",
				Title: "brain.doctor.remediation.job.evaluated: one remediation job: submitted, skipped or refused, with its spend",
				Moves: []scenario.Move{
					scenario.SessionIDs(), ids,
					scenario.Req(scenario.Hash("job_id", "brain.remediation.job.id_hash")),
					scenario.Label("step_kind", "brain.remediation.job.kind"),
					scenario.Req(scenario.Label("status", "brain.remediation.job.status").Schema(events.Enum("submitted", "skipped", "refused"))),
					scenario.Bool("protected_phase", "brain.remediation.job.protected_phase"),
					scenario.ScaledBucket("estimated_usd", "brain.remediation.job.estimated_spend_bucket", scenario.UsdLadder, 100),
					scenario.ScaledBucket("actual_usd", "brain.remediation.job.actual_spend_bucket", scenario.UsdLadder, 100),
					scenario.Int("changed_entity_count", "brain.remediation.job.changed_entity_count"),
					scenario.Label("refusal_reason", "brain.remediation.job.refusal_reason"),
					scenario.Label("skip_reason", "brain.remediation.job.skip_reason"),
					scenario.Const("brain.privacy.raw_change_recorded", receipt.B(false)),
				},
				Hook: brainJob,
			},
			// The post-check's figures belong to the run: they go on the root
			// span, and the completion event copies them.
			"brain.doctor.postcheck": {
				Moves: []scenario.Move{
					scenario.ToSpan(scenario.Req(scenario.Int("score", "brain.doctor.score.after"))),
					scenario.ToSpan(scenario.Bucket("score", "brain.doctor.score.after_bucket", scenario.HealthLadder)),
					scenario.ToSpan(scenario.Int("issue_count", "brain.doctor.issue.count.after")),
					scenario.ToSpan(scenario.Hash("issue_categories", "brain.doctor.issue.categories_after_hash")),
					scenario.ToSpan(scenario.Hash("brain_snapshot", "brain.doctor.snapshot.after_hash")),
				},
				Hook: brainPostcheck,
			},
			"brain.doctor.completed": {
				Event: "brain.doctor.remediation.completed",
				Title: "brain.doctor.remediation.completed: the pass finished: scores, job counts and spend, all matching the records before it",
				Moves: []scenario.Move{
					scenario.SessionIDs(), ids,
					scenario.Label("outcome", "brain.doctor.outcome"),
					scenario.FromSpan("brain.doctor.target_score"),
					scenario.Int("target_score", "brain.doctor.target_score"),
					scenario.Int("score_before", "brain.doctor.score.before"),
					scenario.Int("score_after", "brain.doctor.score.after"),
					scenario.Bucket("score_after", "brain.doctor.score.after_bucket", scenario.HealthLadder),
					scenario.FromSpan("brain.doctor.issue.count.after", "brain.doctor.issue.categories_after_hash", "brain.doctor.snapshot.after_hash"),
					scenario.Req(scenario.Int("jobs_submitted", "brain.remediation.jobs.submitted")),
					scenario.Req(scenario.Int("jobs_skipped", "brain.remediation.jobs.skipped")),
					scenario.Req(scenario.Int("jobs_refused", "brain.remediation.jobs.refused")),
					scenario.FromSpan("brain.remediation.cost.cap_bucket"),
					scenario.ScaledBucket("max_usd", "brain.remediation.cost.cap_bucket", scenario.UsdLadder, 100),
					scenario.ScaledBucket("actual_usd", "brain.remediation.cost.actual_bucket", scenario.UsdLadder, 100),
					scenario.Const("brain.privacy.raw_brain_recorded", receipt.B(false)),
					scenario.Const("brain.privacy.raw_operator_note_recorded", receipt.B(false)),
				},
				Writes: []events.Attr{
					events.Sets("brain.doctor.target_reached", events.DefBool),
					events.SetsConst("brain.remediation.cost.within_cap", receipt.B(true)),
				},
				Hook: brainCompleted,
			},
		},
		NewState: func() any { return &brainState{jobs: map[string]int64{}} },
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[brainState](s)
			s.Span.Set("brain.remediation.job.count", receipt.Computed(st.jobs["submitted"]+st.jobs["skipped"]+st.jobs["refused"]))
			return nil
		},
	}
}

func init() { scenario.Define("brain_remediation", brainRemediationTable) }

// The pass runs in order: precheck, plan, jobs, postcheck, completed (the
// start record, when there is one, comes first).
const (
	brainPrechecked = iota + 1
	brainPlanned
	brainPostchecked
	brainDone
)

// brainState is the pass so far: the step reached, the cap and target the
// start record set, the scores checked, the plan's protected phase, and the
// jobs by status with their spend.
type brainState struct {
	step                    int
	capCents, target        *int64
	scoreBefore, scoreAfter int64
	planProtected           bool
	jobs                    map[string]int64
	spentCents              int64
}

func brainStep(s *scenario.Session, need int) error {
	if scenario.StateOf[brainState](s).step < need {
		return fmt.Errorf("record out of order: the steps are precheck, plan, jobs, postcheck, completed")
	}
	return nil
}

func brainStart(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
	c, err := v.Cents("max_usd")
	if err != nil {
		return err
	}
	st := scenario.StateOf[brainState](s)
	if v.Get("max_usd").Exists() {
		st.capCents = &c
	}
	if t := v.Get("target_score"); t.Exists() {
		n := t.Int()
		st.target = &n
	}
	return nil
}

func brainPrecheck(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
	st := scenario.StateOf[brainState](s)
	if st.step != 0 {
		return fmt.Errorf("record out of order: the steps are precheck, plan, jobs, postcheck, completed")
	}
	st.scoreBefore, st.step = v.Int("score"), brainPrechecked
	return nil
}

func brainPlan(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	if err := brainStep(s, brainPrechecked); err != nil {
		return err
	}
	est, err := v.Cents("estimated_usd")
	if err != nil {
		return err
	}
	st := scenario.StateOf[brainState](s)
	if st.capCents != nil {
		a.Set("brain.remediation.plan.within_cost_cap", receipt.B(est <= *st.capCents))
	}
	if v.Bool("requires_protected_phase") {
		st.planProtected = true
	}
	st.step = brainPlanned
	return nil
}

// brainJob enforces the job statuses and their reasons, and that a job in a
// protected phase is only submitted by a plan that declared it.
func brainJob(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
	st := scenario.StateOf[brainState](s)
	if st.step != brainPlanned {
		return fmt.Errorf("record out of order: the steps are precheck, plan, jobs, postcheck, completed")
	}
	status, ok := v.Get("status").String().Word("submitted", "skipped", "refused")
	if !ok {
		return fmt.Errorf("status must be submitted, skipped or refused")
	}
	if status == "refused" && v.Get("refusal_reason").String().Empty() {
		return fmt.Errorf("refused job without refusal_reason")
	}
	if status == "skipped" && v.Get("skip_reason").String().Empty() {
		return fmt.Errorf("skipped job without skip_reason")
	}
	if status == "submitted" && v.Get("protected_phase").Bool() && !st.planProtected {
		return fmt.Errorf("protected-phase job submitted under a plan that does not require a protected phase")
	}
	spent, err := v.Cents("actual_usd")
	if err != nil {
		return err
	}
	if status != "submitted" && spent != 0 {
		return fmt.Errorf("a %s job reports a non-zero actual_usd", status)
	}
	st.jobs[status]++
	st.spentCents += spent
	return nil
}

func brainPostcheck(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
	if err := brainStep(s, brainPlanned); err != nil {
		return err
	}
	st := scenario.StateOf[brainState](s)
	st.scoreAfter, st.step = v.Int("score"), brainPostchecked
	return nil
}

// brainCompleted enforces that the completion matches the run: scores as
// checked, job counts as evaluated, spend as the jobs' and within the cap.
func brainCompleted(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	if err := brainStep(s, brainPostchecked); err != nil {
		return err
	}
	st, n := scenario.StateOf[brainState](s), func(f string) int64 { return v.Get(f).Int() }
	if v := v.Get("score_before"); v.Exists() && v.Int() != st.scoreBefore {
		return fmt.Errorf("score_before differs from the precheck score")
	}
	if v := v.Get("score_after"); v.Exists() && v.Int() != st.scoreAfter {
		return fmt.Errorf("score_after differs from the postcheck score")
	}
	for _, status := range []string{"submitted", "skipped", "refused"} {
		if n("jobs_"+status) != st.jobs[status] {
			return fmt.Errorf("jobs_%s differs from the %s brain.remediation.job records", status, status)
		}
	}
	spent, err := v.Cents("actual_usd")
	if err != nil {
		return err
	}
	if v.Get("actual_usd").Exists() && spent != st.spentCents {
		return fmt.Errorf("actual_usd differs from the sum of the jobs' actual_usd")
	}
	limit := int64(-1)
	if st.capCents != nil {
		limit = *st.capCents
	}
	if v.Get("max_usd").Exists() {
		if limit, err = v.Cents("max_usd"); err != nil {
			return err
		}
	}
	if limit >= 0 && st.spentCents > limit {
		return fmt.Errorf("the jobs' actual spend exceeds the max_usd cost cap")
	}
	var target *int64
	if t := v.Get("target_score"); t.Exists() {
		n := t.Int()
		target = &n
	} else {
		target = st.target
	}
	if target != nil {
		a.Set("brain.doctor.target_reached", receipt.B(st.scoreAfter >= *target))
	}
	if limit >= 0 {
		a.Set("brain.remediation.cost.within_cap", receipt.B(true))
	}
	st.step = brainDone
	return nil
}
