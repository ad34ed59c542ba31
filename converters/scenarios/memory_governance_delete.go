package scenarios

import (
	"fmt"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/internal/receipt"
)

// The record types of a delete, each after the one before it with the same
// request_id.
const (
	govRequested = "memory.governance.delete.requested"
	govPresented = "memory.governance.delete.candidates.presented"
	govConfirmed = "memory.governance.delete.confirmation.recorded"
	govCompleted = "memory.governance.delete.completed"
	govAudited   = "memory.governance.audit.completed"
)

// memory_governance_delete proves a two-step forget: candidates were shown,
// a subset was confirmed, only confirmed memories were deleted, and the
// audit replay no longer returns them. Request, confirmation, memory, audit
// and snapshot ids are hashed; delete queries, reasons, previews, operator
// notes and project paths are raw and only ever hashed.
func memoryGovernanceDeleteTable() scenario.Scenario {
	ctx := scenario.FromSpan("memory.provider", "memory.client", "memory.project.hash")
	requested := scenario.After("request_id", govRequested, "request_id")
	start := scenario.Rec{Moves: append(append([]scenario.Move{}, scenario.SessionStart.Moves...),
		scenario.ToSpan(scenario.Label("provider", "memory.provider")),
		scenario.ToSpan(scenario.Label("client", "memory.client")),
		scenario.ToSpan(scenario.Hash("project", "memory.project.hash")),
		scenario.ToSpan(scenario.Hash("operator", "memory.governance.operator_hash")),
	)}
	return scenario.Scenario{
		Name:     "memory_governance_delete",
		Doc:      "Memory governance delete: request, presented candidates, confirmation, deletion with tombstones, audit replay",
		SpanName: "agent.session.memory.governance",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"agentmemory", "agentmemory-plugin", "manual_forget_skill", "mcp_elicitation", "mem0", "mem0-mcp",
			"redacted_snippets_only", "skill_ui", "tombstone_hash_only", "two_step_confirmed_delete",
		},
		Records: map[string]scenario.Rec{
			"session.start": start,
			govRequested: {
				Event: govRequested,
				Title: "memory.governance.delete.requested: a forget/delete of memories was requested",
				Moves: []scenario.Move{
					scenario.SessionIDs(), scenario.AgentName(), ctx,
					scenario.Req(scenario.Hash("request_id", "memory.governance.request.hash")),
					scenario.Label("trigger", "memory.governance.trigger"),
					scenario.Hash("requested_by", "memory.governance.requested_by_hash"),
					scenario.Hash("reason", "memory.governance.reason_hash"),
					scenario.Hash("query", "memory.governance.query_hash"),
					scenario.Label("scope", "memory.governance.scope"),
					scenario.Label("policy", "memory.governance.delete.policy"),
					scenario.Count("sensitive_classes", "memory.governance.sensitive_class_count"),
					scenario.Hash("sensitive_classes", "memory.governance.sensitive_classes_hash"),
					scenario.Hash("project_path", "memory.governance.project_path_hash"),
					scenario.Const("privacy.raw_query_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_reason_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_project_path_recorded", receipt.B(false)),
				},
				Hook: func(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
					scenario.StateOf[govState](s).requests[v.Digest("request_id")] = true
					return nil
				},
			},
			govPresented: {
				Event: govPresented,
				Title: "memory.governance.delete.candidates.presented: the candidate memories were shown before any deletion",
				Moves: []scenario.Move{
					scenario.SessionIDs(), scenario.AgentName(), ctx,
					scenario.Req(scenario.Hash("request_id", "memory.governance.request.hash")),
					scenario.Req(scenario.Count("candidate_ids", "memory.governance.candidate_count")),
					scenario.ListBucket("candidate_ids", "memory.governance.candidate_count_bucket"),
					scenario.Hash("candidate_ids", "memory.governance.candidate_ids_hash"),
					scenario.Label("preview_policy", "memory.governance.preview_policy"),
					scenario.Hash("previewed_candidate_text", "memory.governance.preview_hash"),
					scenario.Bool("requires_confirmation", "memory.governance.requires_confirmation"),
					scenario.Const("privacy.raw_candidate_text_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_preview_recorded", receipt.B(false)),
					requested,
					scenario.LenEq("candidate_count", "candidate_ids"),
				},
				Hook: func(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
					if v.Bool("requires_confirmation") {
						scenario.StateOf[govState](s).needsConfirmation[v.Digest("request_id")] = true
					}
					return nil
				},
			},
			govConfirmed: {
				Event: govConfirmed,
				Title: "memory.governance.delete.confirmation.recorded: an operator confirmed a subset of the presented candidates",
				Moves: []scenario.Move{
					scenario.SessionIDs(), scenario.AgentName(), ctx,
					scenario.Req(scenario.Hash("request_id", "memory.governance.request.hash")),
					scenario.Hash("confirmation_id", "memory.governance.confirmation.hash"),
					scenario.Req(scenario.Bool("confirmed", "memory.governance.confirmed")),
					scenario.Label("confirmation_channel", "memory.governance.confirmation_channel"),
					scenario.Count("confirmed_candidate_ids", "memory.governance.confirmed_candidate_count"),
					scenario.Hash("confirmed_candidate_ids", "memory.governance.confirmed_candidate_ids_hash"),
					scenario.Count("rejected_candidate_ids", "memory.governance.rejected_candidate_count"),
					scenario.Hash("rejected_candidate_ids", "memory.governance.rejected_candidate_ids_hash"),
					scenario.Hash("operator_note", "memory.governance.operator_note_hash"),
					scenario.Const("privacy.raw_operator_note_recorded", receipt.B(false)),
					// Confirmed and rejected identities are disjoint subsets of
					// the presented ones.
					requested,
					scenario.SubsetOf("confirmed_candidate_ids", govPresented, "candidate_ids").Within("request_id", "request_id").
						Says("confirmed_candidate_ids is not a subset of the presented candidate_ids"),
					scenario.SubsetOf("rejected_candidate_ids", govPresented, "candidate_ids").Within("request_id", "request_id").
						Says("rejected_candidate_ids is not a subset of the presented candidate_ids"),
					scenario.Disjoint("confirmed_candidate_ids", "rejected_candidate_ids").Says("a candidate is both confirmed and rejected"),
					scenario.Check("confirmed false confirms no candidate", func(_ *scenario.Session, v *scenario.Values) error {
						if !v.Bool("confirmed") && v.Has("confirmed_candidate_ids") && len(v.Get("confirmed_candidate_ids").Array()) > 0 {
							return fmt.Errorf("confirmed is false but confirmed_candidate_ids is not empty")
						}
						return nil
					}),
					scenario.Req(scenario.Const("memory.governance.confirmed_subset_of_presented", receipt.B(true))),
				},
				Hook: func(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
					scenario.StateOf[govState](s).confirmations[v.Digest("request_id")] = true
					return nil
				},
			},
			govCompleted: {
				Event: govCompleted,
				Title: "memory.governance.delete.completed: only confirmed memories were deleted (tombstoned); the rest were retained",
				Moves: []scenario.Move{
					scenario.SessionIDs(), scenario.AgentName(), ctx,
					scenario.Req(scenario.Hash("request_id", "memory.governance.request.hash")),
					scenario.Label("status", "memory.governance.status"),
					scenario.Req(scenario.Count("deleted_ids", "memory.governance.deleted_count")),
					scenario.Hash("deleted_ids", "memory.governance.deleted_ids_hash"),
					scenario.Count("retained_ids", "memory.governance.retained_count"),
					scenario.Hash("retained_ids", "memory.governance.retained_ids_hash"),
					scenario.Count("tombstone_ids", "memory.governance.tombstone_count"),
					scenario.Hash("tombstone_ids", "memory.governance.tombstone_ids_hash"),
					scenario.Hash("audit_entry_id", "memory.governance.audit_entry_hash"),
					scenario.Hash("store_snapshot_before", "memory.governance.store_snapshot_before_hash"),
					scenario.Hash("store_snapshot_after", "memory.governance.store_snapshot_after_hash"),
					scenario.Bucket("latency_ms", "memory.governance.latency_bucket", receipt.LatencyLadder),
					scenario.Const("privacy.raw_deleted_memory_recorded", receipt.B(false)),
					// Only confirmed identities are deleted, and nothing is both
					// deleted and retained.
					requested,
					scenario.Check("deleted memories had the confirmation their candidates required", deletedWithConfirmation),
					scenario.SubsetOf("deleted_ids", govConfirmed, "confirmed_candidate_ids").Within("request_id", "request_id").
						Says("deleted_ids is not a subset of the confirmed_candidate_ids"),
					scenario.Disjoint("deleted_ids", "retained_ids").Says("a memory is both deleted and retained"),
					scenario.Req(scenario.Const("memory.governance.deleted_subset_of_confirmed", receipt.B(true))),
				},
				Hook: func(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
					scenario.StateOf[govState](s).deleted += int64(len(v.Get("deleted_ids").Array()))
					return nil
				},
			},
			govAudited: {
				Event: govAudited,
				Title: "memory.governance.audit.completed: the deletion's audit replay: what the query still returns, tombstones and retained memories",
				Moves: []scenario.Move{
					scenario.SessionIDs(), scenario.AgentName(), ctx,
					scenario.Req(scenario.Hash("request_id", "memory.governance.request.hash")),
					scenario.Hash("audit_entry_id", "memory.governance.audit_entry_hash"),
					scenario.Req(scenario.Int("query_replay_result_count", "memory.governance.query_replay_result_count")),
					scenario.Int("tombstone_count", "memory.governance.tombstone_count"),
					scenario.Int("retained_count", "memory.governance.retained_count"),
					scenario.Label("retention_policy", "memory.governance.retention_policy"),
					scenario.Const("memory.governance.audit_gap", receipt.S("does_not_prove_physical_compaction_or_backup_expiry")),
					scenario.Const("privacy.raw_memory_body_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_delete_query_recorded", receipt.B(false)),
					// The audit replays the deletion of its request.
					requested,
					scenario.After("request_id", govCompleted, "request_id").Says("audit completed before memory.governance.delete.completed"),
					scenario.SubsetOf("audit_entry_id", govCompleted, "audit_entry_id").Within("request_id", "request_id").
						Says("audit_entry_id differs from the deletion's audit_entry_id"),
					scenario.LengthOf("tombstone_count", govCompleted, "tombstone_ids").Within("request_id", "request_id").
						Says("tombstone_count differs from the deletion's tombstone_ids"),
					scenario.LengthOf("retained_count", govCompleted, "retained_ids").Within("request_id", "request_id").
						Says("retained_count differs from the deletion's retained_ids"),
				},
				Writes: []events.Attr{
					events.ReqAttr(events.Sets("memory.governance.replay_returns_deleted", events.DefBool)),
				},
				Hook: func(_ *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
					a.Set("memory.governance.replay_returns_deleted", receipt.B(v.Int("query_replay_result_count") > 0))
					return nil
				},
			},
		},
		NewState: func() any {
			return &govState{requests: map[string]bool{}, needsConfirmation: map[string]bool{}, confirmations: map[string]bool{}}
		},
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[govState](s)
			s.Span.Set("memory.governance.request.count", receipt.Computed(int64(len(st.requests))))
			s.Span.Set("memory.governance.deleted.count", receipt.Computed(st.deleted))
			return nil
		},
	}
}

func init() { scenario.Define("memory_governance_delete", memoryGovernanceDeleteTable) }

// govState is what a delete's rules keep beyond the invariants, by request
// id digest.
type govState struct {
	requests, needsConfirmation, confirmations map[string]bool
	deleted                                    int64
}

// deletedWithConfirmation refuses a deletion whose candidates required a
// confirmation that was never recorded.
func deletedWithConfirmation(s *scenario.Session, v *scenario.Values) error {
	st, req := scenario.StateOf[govState](s), v.Digest("request_id")
	if len(v.Get("deleted_ids").Array()) > 0 && st.needsConfirmation[req] && !st.confirmations[req] {
		return fmt.Errorf("memories deleted without the confirmation the candidates required")
	}
	return nil
}
