package scenarios

import (
	"fmt"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/internal/receipt"
)

// compaction_transaction proves that a compaction either committed a
// validated summary or rolled back to the pre-compaction context, with no
// half-applied state: a rollback never commits the swap, restores what it
// claims to restore, and leaves the token, tool-registry and reminder counts
// as they were. Transaction and backup ids are hashed; active tasks, tool
// outputs, tool registries, errors, candidate summaries, rollback notes and
// operator summaries are raw and only ever hashed.
func compactionTransactionTable() scenario.Scenario {
	return scenario.Scenario{
		Name:     "compaction_transaction",
		Doc:      "Compaction as a transaction: summary attempt, commit or rollback, restored registries and queues",
		SpanName: "agent.session.context.compaction_transaction",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"auto_compact_threshold", "compacted_context", "context_window_pressure", "failed_rate_limited",
			"failed_timeout", "manual_slash_compact", "pre_compaction_context", "succeeded",
			"summary_call_failed_before_validation",
		},
		Records: map[string]scenario.Rec{
			"context.compaction.transaction.started": {
				Event: "context.compaction.transaction.started",
				Title: "context.compaction.transaction.started: a compaction transaction began; the pre-compaction state it must restore on failure",
				Moves: []scenario.Move{
					scenario.SessionIDs(), scenario.AgentName(),
					scenario.Req(scenario.Hash("transaction_id", "context.compaction.transaction.id_hash")),
					scenario.Int("attempt", "context.compaction.attempt"),
					scenario.Label("trigger", "context.compaction.trigger"),
					scenario.Label("reason", "context.compaction.reason"),
					scenario.Bucket("context_token_count_before", "context.compaction.token_count.before_bucket", receipt.TokenLadder),
					scenario.Bucket("context_window_tokens", "context.compaction.context_window_bucket", receipt.TokenLadder),
					scenario.Bucket("deferred_tool_registry_count", "context.compaction.deferred_tool_registry.count_bucket", receipt.CountLadder),
					scenario.Bucket("pending_system_reminder_count", "context.compaction.system_reminder_queue.count_bucket", receipt.CountLadder),
					scenario.Hash("backup_id", "context.compaction.backup.id_hash"),
					scenario.Hash("raw_active_task", "context.compaction.active_task.hash"),
					scenario.Hash("raw_recent_tool_output", "context.compaction.recent_tool_output.hash"),
					scenario.Hash("raw_deferred_tools", "context.compaction.deferred_tools.hash"),
					scenario.Const("privacy.raw_prompt_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_tool_output_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_tool_registry_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_context_recorded", receipt.B(false)),
				},
				Hook: txnStarted,
			},
			"context.compaction.summary.attempted": {
				Event: "context.compaction.summary.attempted",
				Title: "context.compaction.summary.attempted: the summary call of a compaction transaction and whether it produced a candidate",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Req(scenario.Hash("transaction_id", "context.compaction.transaction.id_hash")),
					scenario.Req(scenario.Label("summary_call_status", "context.compaction.summary.call_status")),
					scenario.Bucket("summary_duration_ms", "context.compaction.summary.duration_bucket", receipt.LatencyLadder),
					scenario.Req(scenario.Bool("candidate_summary_available", "context.compaction.summary.candidate_available")),
					scenario.Hash("raw_error", "context.compaction.summary.error_hash"),
					scenario.Hash("candidate_summary_text", "context.compaction.summary.candidate_hash"),
					scenario.Const("privacy.raw_error_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_summary_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_context_recorded", receipt.B(false)),
				},
				Hook: txnSummary,
			},
			"context.compaction.rollback.completed": {
				Event: "context.compaction.rollback.completed",
				Title: "context.compaction.rollback.completed: the transaction rolled back: swap not committed, original context preserved, restorations",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Req(scenario.Hash("transaction_id", "context.compaction.transaction.id_hash")),
					scenario.Label("rollback_reason", "context.compaction.rollback.reason"),
					scenario.Req(scenario.Bool("swap_committed", "context.compaction.swap_committed").Schema(events.Prop{"const": false})),
					scenario.Req(scenario.Bool("original_context_preserved", "context.compaction.original_context_preserved").Schema(events.Prop{"const": true})),
					scenario.Bool("backup_available", "context.compaction.backup_available"),
					scenario.Bool("deferred_tool_registry_restored", "context.compaction.deferred_tool_registry_restored"),
					scenario.Bool("system_reminder_queue_restored", "context.compaction.system_reminder_queue_restored"),
					scenario.Bucket("replayed_system_reminder_count", "context.compaction.replayed_system_reminder.count_bucket", receipt.CountLadder),
					scenario.Bool("post_tokens_recorded_as_success", "context.compaction.post_tokens_recorded_as_success").Schema(events.Prop{"const": false}),
					scenario.Hash("raw_rollback_note", "context.compaction.rollback.note_hash"),
					scenario.Const("privacy.raw_rollback_note_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_tool_output_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_context_recorded", receipt.B(false)),
				},
				Writes: []events.Attr{
					events.ReqAttr(events.Sets("context.compaction.rollback.state_restored", events.DefBool)),
				},
				Hook: txnRollback,
			},
			"context.compaction.transaction.completed": {
				Event: "context.compaction.transaction.completed",
				Title: "context.compaction.transaction.completed: the transaction's outcome and the state that is authoritative after it",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Req(scenario.Hash("transaction_id", "context.compaction.transaction.id_hash")),
					scenario.Req(scenario.Label("status", "context.compaction.transaction.status")),
					scenario.Label("authoritative_state", "context.compaction.authoritative_state"),
					scenario.Bucket("context_token_count_after", "context.compaction.token_count.after_bucket", receipt.TokenLadder),
					scenario.Bucket("deferred_tool_registry_count_after", "context.compaction.deferred_tool_registry.after_count_bucket", receipt.CountLadder),
					scenario.Bucket("pending_system_reminder_count_after", "context.compaction.system_reminder_queue.after_count_bucket", receipt.CountLadder),
					scenario.Const("context.compaction.audit_gap", receipt.S("receipt_proves_transaction_boundary_and_rollback_flags_not_semantic_completeness")),
					scenario.Hash("raw_operator_summary", "context.compaction.operator_summary.hash"),
					scenario.Const("privacy.raw_operator_summary_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_prompt_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_context_recorded", receipt.B(false)),
				},
				Writes: []events.Attr{
					events.SetsConst("context.compaction.transaction.pre_state_intact", receipt.B(true)),
				},
				Hook: txnCompleted,
			},
		},
		NewState: func() any { return &txnState{} },
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[txnState](s)
			s.Span.Set("context.compaction.transaction.count", receipt.Computed(st.transactions))
			s.Span.Set("context.compaction.transaction.rolled_back.count", receipt.Computed(st.rolledBack))
			s.Span.Set("context.compaction.transaction.open_at_end", receipt.B(st.open != nil))
			return nil
		},
	}
}

func init() { scenario.Define("compaction_transaction", compactionTransactionTable) }

// txnFigures are the counts a rollback must leave as they were.
var txnFigures = [][2]string{
	{"context_token_count_before", "context_token_count_after"},
	{"deferred_tool_registry_count", "deferred_tool_registry_count_after"},
	{"pending_system_reminder_count", "pending_system_reminder_count_after"},
}

// txn is the open transaction: its id digest, the figures before it (those
// the start record gave), and whether it saw a rollback and an available
// candidate summary.
type txn struct {
	id                  string
	before              map[string]int64
	rollback, summaryOK bool
}

// txnState is the open transaction and the counts for the root span.
type txnState struct {
	open                     *txn
	transactions, rolledBack int64
}

func txnStarted(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
	st := scenario.StateOf[txnState](s)
	if st.open != nil {
		return fmt.Errorf("transaction started while another transaction is still open")
	}
	t := &txn{id: v.Get("transaction_id").String().Digest(s.Hash), before: map[string]int64{}}
	for _, f := range txnFigures {
		if n := v.Get(f[0]); n.Exists() {
			t.before[f[0]] = n.Int()
		}
	}
	st.open = t
	st.transactions++
	return nil
}

// txnSame enforces that a record belongs to the open transaction, and
// returns it.
func txnSame(s *scenario.Session, v *scenario.Values) (*txn, error) {
	t := scenario.StateOf[txnState](s).open
	if t == nil {
		return nil, fmt.Errorf("record outside a transaction (no open context.compaction.transaction.started)")
	}
	if v.Get("transaction_id").String().Digest(s.Hash) != t.id {
		return nil, fmt.Errorf("transaction_id differs from the open transaction's")
	}
	return t, nil
}

func txnSummary(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
	t, err := txnSame(s, v)
	if err != nil {
		return err
	}
	ok := v.Get("candidate_summary_available").Bool()
	if !ok && !v.Get("candidate_summary_text").String().Empty() {
		return fmt.Errorf("candidate_summary_available is false but candidate_summary_text is not empty")
	}
	if ok {
		t.summaryOK = true
	}
	return nil
}

// txnRollback enforces that a rollback left no half-applied state.
func txnRollback(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	t, err := txnSame(s, v)
	if err != nil {
		return err
	}
	b := func(f string) bool { return v.Get(f).Bool() }
	switch {
	case b("swap_committed"):
		return fmt.Errorf("rollback with swap_committed true: the compacted context was swapped in")
	case !b("original_context_preserved"):
		return fmt.Errorf("rollback with original_context_preserved false")
	case b("post_tokens_recorded_as_success"):
		return fmt.Errorf("rollback with post_tokens_recorded_as_success true: a failed compaction was counted as done")
	}
	clean := true
	for _, f := range []string{"deferred_tool_registry_restored", "system_reminder_queue_restored"} {
		if v := v.Get(f); v.Exists() && !v.Bool() {
			clean = false
		}
	}
	if v.Get("replayed_system_reminder_count").Int() > 0 {
		clean = false
	}
	a.Set("context.compaction.rollback.state_restored", receipt.B(clean))
	t.rollback = true
	return nil
}

// txnCompleted enforces the outcome: a rolled-back transaction has a
// rollback record and leaves every count as it was before; a committed one
// had an available candidate summary and no rollback.
func txnCompleted(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	t, err := txnSame(s, v)
	if err != nil {
		return err
	}
	status, _ := v.Get("status").String().Word("rolled_back", "committed")
	switch status {
	case "rolled_back":
		if !t.rollback {
			return fmt.Errorf("status rolled_back without a context.compaction.rollback.completed record")
		}
		for _, f := range txnFigures {
			if before, ok := t.before[f[0]]; ok && v.Get(f[1]).Exists() && v.Int(f[1]) != before {
				return fmt.Errorf("rolled back transaction changed a count: %s differs from %s", f[1], f[0])
			}
		}
		a.Set("context.compaction.transaction.pre_state_intact", receipt.B(true))
		scenario.StateOf[txnState](s).rolledBack++
	case "committed":
		if t.rollback {
			return fmt.Errorf("status committed after a rollback record")
		}
		if !t.summaryOK {
			return fmt.Errorf("status committed without an available candidate summary")
		}
	}
	scenario.StateOf[txnState](s).open = nil
	return nil
}
