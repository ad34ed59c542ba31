package scenarios

import (
	"fmt"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/receipt"
)

// pruning proves what a post-hoc session cleaner pruned and protected: each
// strategy's action with candidate, changed, protected and removed figures,
// and a completion whose totals are the strategies' and whose after-figures
// are the before-figures minus what was removed. Run and backup ids and
// commands are hashed; plan notes, reasons, samples and summaries are raw
// and only ever hashed.
func pruningTable() scenario.Scenario {
	return scenario.Scenario{
		Name:     "pruning",
		Doc:      "Post-hoc context pruning: strategies (trimmed, minified, deduped, stubbed, protected), totals that add up, backup",
		SpanName: "agent.session.context.prune",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"aggressive", "behavioral-digest", "compact-summary-collapse", "completed_with_backup",
			"cozempic-like-cleaner", "document-dedup", "escalation-summary", "execute", "guard_hard_threshold",
			"guard_soft_threshold", "screenshot-stub", "session-cleaner", "shredded", "standard", "tool-output-trim",
			"tool-result-age",
		},
		Records: map[string]scenario.Rec{
			"context.prune.start": {
				Event: "context.prune.started",
				Title: "context.prune.started: a pruning run began: prescription, mode, before figures, backup",
				Moves: []scenario.Move{
					scenario.SessionIDs(), scenario.AgentName(),
					scenario.Noting("context.prune.run_id_hash", scenario.Req(scenario.Hash("run_id", "context.prune.run_id_hash"))),
					scenario.Label("tool", "context.prune.tool"),
					scenario.Hash("command", "context.prune.command_hash"),
					scenario.Label("prescription", "context.prune.prescription"),
					scenario.Label("mode", "context.prune.mode"),
					scenario.Label("trigger", "context.prune.trigger"),
					scenario.Bucket("context_window_tokens", "context.prune.context_window_bucket", receipt.TokenLadder),
					scenario.Bucket("token_count_before", "context.prune.token_count.before_bucket", receipt.TokenLadder),
					scenario.Bucket("byte_count_before", "context.prune.byte_count.before_bucket", receipt.ByteLadder),
					scenario.Hash("backup_id", "context.prune.backup_id_hash"),
					scenario.Hash("raw_plan_notes", "context.prune.plan.hash"),
					scenario.Const("privacy.raw_session_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_plan_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_prompt_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_tool_output_recorded", receipt.B(false)),
				},
				Writes: []events.Attr{
					events.Sets("context.prune.backup.created", events.DefBool),
					events.Sets("context.prune.start_ratio_bucket", events.LadderDef(scenario.PercentLadder)),
				},
				Hook: pruneStart,
			},
			"context.prune.strategy.evaluated": {
				Event: "context.prune.strategy.evaluated",
				Title: "context.prune.strategy.evaluated: one pruning strategy: its action and what it changed, protected and removed",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Noted("context.prune.run_id_hash"),
					scenario.Req(scenario.Label("strategy", "context.prune.strategy")),
					scenario.Req(scenario.Label("action", "context.prune.strategy.action").Schema(events.Enum("trimmed", "minified", "deduped", "stubbed", "protected"))),
					scenario.Bucket("candidate_count", "context.prune.strategy.candidate_count_bucket", receipt.CountLadder),
					scenario.Bucket("changed_count", "context.prune.strategy.changed_count_bucket", receipt.CountLadder),
					scenario.Bucket("protected_count", "context.prune.strategy.protected_count_bucket", receipt.CountLadder),
					scenario.Bucket("token_count_before", "context.prune.strategy.token_count.before_bucket", receipt.TokenLadder),
					scenario.Bucket("token_count_removed", "context.prune.strategy.token_count.removed_bucket", receipt.TokenLadder),
					scenario.Bucket("byte_count_removed", "context.prune.strategy.byte_count.removed_bucket", receipt.ByteLadder),
					scenario.Hash("reason", "context.prune.strategy.reason_hash"),
					scenario.Hash("raw_sample", "context.prune.strategy.sample_hash"),
					scenario.Const("context.prune.strategy.raw_text_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_session_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_tool_output_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_file_content_recorded", receipt.B(false)),
				},
				Hook: pruneStrategy,
			},
			"context.prune.completed": {
				Event: "context.prune.completed",
				Title: "context.prune.completed: the pruning run finished; its totals are the strategies' and after = before - removed",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Noted("context.prune.run_id_hash"),
					scenario.Label("status", "context.prune.status"),
					scenario.Bucket("token_count_after", "context.prune.token_count.after_bucket", receipt.TokenLadder),
					scenario.Bucket("byte_count_after", "context.prune.byte_count.after_bucket", receipt.ByteLadder),
					scenario.Bucket("total_token_count_removed", "context.prune.token_count.removed_bucket", receipt.TokenLadder),
					scenario.Bucket("total_byte_count_removed", "context.prune.byte_count.removed_bucket", receipt.ByteLadder),
					scenario.Bucket("changed_item_count", "context.prune.changed_item_count_bucket", receipt.CountLadder),
					scenario.Bucket("protected_item_count", "context.prune.protected_item_count_bucket", receipt.CountLadder),
					scenario.Bool("backup_verified", "context.prune.backup.verified"),
					scenario.Hash("raw_summary", "context.prune.summary.hash"),
					scenario.Const("context.prune.audit_gap", receipt.S("receipt_proves_pruning_boundary_and_privacy_posture_not_semantic_sufficiency")),
					scenario.Const("privacy.raw_session_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_summary_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_tool_output_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_file_content_recorded", receipt.B(false)),
				},
				Writes: []events.Attr{
					events.Sets("context.prune.end_ratio_bucket", events.LadderDef(scenario.PercentLadder)),
					events.ReqAttr(events.SetsConst("context.prune.totals_add_up", receipt.B(true))),
				},
				Hook: pruneCompleted,
			},
		},
		NewState: func() any { return &pruneState{} },
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[pruneState](s)
			s.Span.Set("context.prune.run.count", receipt.Computed(st.runs))
			s.Span.Set("context.prune.strategy.count", receipt.Computed(st.strategies))
			s.Span.Set("context.prune.open_at_end", receipt.B(st.open != nil))
			return nil
		},
	}
}

func init() { scenario.Define("pruning", pruningTable) }

// pruneActions are the actions a strategy may take.
var pruneActions = map[string]bool{"trimmed": true, "minified": true, "deduped": true, "stubbed": true, "protected": true}

// pruneTotals are the per-strategy figures the completion totals.
var pruneTotals = [][2]string{
	{"token_count_removed", "total_token_count_removed"},
	{"changed_count", "changed_item_count"},
	{"protected_count", "protected_item_count"},
}

// pruneRun is the open pruning run: the figures before it (by field name,
// only those the start record gave), the window, and the strategies' sums.
type pruneRun struct {
	before map[string]int64
	window int64
	sums   map[string]int64
}

// pruneState is the open run and the counts for the root span.
type pruneState struct {
	open             *pruneRun
	runs, strategies int64
}

func pruneStart(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st := scenario.StateOf[pruneState](s)
	if st.open != nil {
		return fmt.Errorf("pruning run started while another run is still open")
	}
	run := &pruneRun{before: map[string]int64{}, sums: map[string]int64{}}
	for _, f := range []string{"token_count_before", "byte_count_before"} {
		n, err := v.Whole(f)
		if err != nil {
			return err
		}
		if v.Get(f).Exists() {
			run.before[f] = n
		}
	}
	if w, ok := v.Int("context_window_tokens"), hasKey(run.before, "token_count_before"); w > 0 && ok {
		a.Set("context.prune.start_ratio_bucket", receipt.S(scenario.PercentLadder.Bucket(run.before["token_count_before"]*100/w)))
		run.window = w
	}
	a.Set("context.prune.backup.created", receipt.B(!v.Get("backup_id").String().Empty()))
	st.open = run
	st.runs++
	return nil
}

func hasKey(m map[string]int64, k string) bool { _, ok := m[k]; return ok }

// pruneStrategy enforces the action vocabulary and per-strategy bounds: a
// protected strategy changes and removes nothing, changed items are among
// the candidates, removed tokens were there before.
func pruneStrategy(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
	st := scenario.StateOf[pruneState](s)
	if st.open == nil {
		return fmt.Errorf("strategy evaluated outside a pruning run (no open context.prune.start)")
	}
	act, _, known := view.Key(pruneActions, v.Get("action").String())
	if !known {
		return fmt.Errorf("action must be trimmed, minified, deduped, stubbed or protected")
	}
	n := func(f string) int64 { return v.Get(f).Int() }
	switch {
	case act == "protected" && (n("changed_count") != 0 || n("token_count_removed") != 0 || n("byte_count_removed") != 0):
		return fmt.Errorf("protected strategy reports changed items or removed tokens or bytes")
	case v.Get("candidate_count").Exists() && n("changed_count") > n("candidate_count"):
		return fmt.Errorf("changed_count exceeds candidate_count")
	case v.Get("token_count_before").Exists() && n("token_count_removed") > n("token_count_before"):
		return fmt.Errorf("token_count_removed exceeds the strategy's token_count_before")
	}
	for _, f := range pruneTotals {
		n, err := v.Whole(f[0])
		if err != nil {
			return err
		}
		st.open.sums[f[0]] += n
	}
	st.strategies++
	return nil
}

// pruneCompleted enforces that the totals are the strategies' sums and that
// after = before - removed for tokens and bytes.
func pruneCompleted(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st := scenario.StateOf[pruneState](s)
	run := st.open
	if run == nil {
		return fmt.Errorf("pruning completed without an open context.prune.start")
	}
	for _, f := range pruneTotals {
		if v := v.Get(f[1]); v.Exists() && v.Int() != run.sums[f[0]] {
			return fmt.Errorf("totals do not add up: %s differs from the sum of the strategies' %s", f[1], f[0])
		}
	}
	for _, f := range [][3]string{
		{"token_count_before", "total_token_count_removed", "token_count_after"},
		{"byte_count_before", "total_byte_count_removed", "byte_count_after"},
	} {
		removed, after := v.Get(f[1]), v.Get(f[2])
		if before, ok := run.before[f[0]]; ok && removed.Exists() && after.Exists() && before-removed.Int() != after.Int() {
			return fmt.Errorf("totals do not add up: %s is not %s minus %s", f[2], f[0], f[1])
		}
	}
	if w, after := run.window, v.Get("token_count_after"); w > 0 && after.Exists() {
		a.Set("context.prune.end_ratio_bucket", receipt.S(scenario.PercentLadder.Bucket(after.Int()*100/w)))
	}
	a.Set("context.prune.totals_add_up", receipt.B(true))
	st.open = nil
	return nil
}
