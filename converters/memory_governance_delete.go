package converters

import (
	"fmt"

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
func init() {
	ctx := FromSpan("memory.provider", "memory.client", "memory.project.hash")
	requested := After("request_id", govRequested, "request_id")
	start := Rec{Moves: append(append([]Move{}, sessionStart.Moves...),
		ToSpan(Label("provider", "memory.provider")),
		ToSpan(Label("client", "memory.client")),
		ToSpan(Hash("project", "memory.project.hash")),
		ToSpan(Hash("operator", "memory.governance.operator_hash")),
	)}
	registerScenario(Scenario{
		Name:     "memory_governance_delete",
		Doc:      "Memory governance delete: request, presented candidates, confirmation, deletion with tombstones, audit replay",
		SpanName: "agent.session.memory.governance",
		Records: map[string]Rec{
			"session.start": start,
			govRequested: {
				Event: govRequested,
				Title: "memory.governance.delete.requested: a forget/delete of memories was requested",
				Moves: []Move{
					SessionIDs(), AgentName(), ctx,
					Req(Hash("request_id", "memory.governance.request.hash")),
					Label("trigger", "memory.governance.trigger"),
					Hash("requested_by", "memory.governance.requested_by_hash"),
					Hash("reason", "memory.governance.reason_hash"),
					Hash("query", "memory.governance.query_hash"),
					Label("scope", "memory.governance.scope"),
					Label("policy", "memory.governance.delete.policy"),
					Count("sensitive_classes", "memory.governance.sensitive_class_count"),
					Hash("sensitive_classes", "memory.governance.sensitive_classes_hash"),
					Hash("project_path", "memory.governance.project_path_hash"),
					Const("privacy.raw_query_recorded", receipt.B(false)),
					Const("privacy.raw_reason_recorded", receipt.B(false)),
					Const("privacy.raw_project_path_recorded", receipt.B(false)),
				},
				Hook: func(s *Session, v *Values, _ *receipt.Attrs) error {
					StateOf[govState](s).requests[v.Digest("request_id")] = true
					return nil
				},
			},
			govPresented: {
				Event: govPresented,
				Title: "memory.governance.delete.candidates.presented: the candidate memories were shown before any deletion",
				Moves: []Move{
					SessionIDs(), AgentName(), ctx,
					Req(Hash("request_id", "memory.governance.request.hash")),
					Req(Count("candidate_ids", "memory.governance.candidate_count")),
					ListBucket("candidate_ids", "memory.governance.candidate_count_bucket"),
					Hash("candidate_ids", "memory.governance.candidate_ids_hash"),
					Label("preview_policy", "memory.governance.preview_policy"),
					Hash("previewed_candidate_text", "memory.governance.preview_hash"),
					Bool("requires_confirmation", "memory.governance.requires_confirmation"),
					Const("privacy.raw_candidate_text_recorded", receipt.B(false)),
					Const("privacy.raw_preview_recorded", receipt.B(false)),
					requested,
					LenEq("candidate_count", "candidate_ids"),
				},
				Hook: func(s *Session, v *Values, _ *receipt.Attrs) error {
					if v.Bool("requires_confirmation") {
						StateOf[govState](s).needsConfirmation[v.Digest("request_id")] = true
					}
					return nil
				},
			},
			govConfirmed: {
				Event: govConfirmed,
				Title: "memory.governance.delete.confirmation.recorded: an operator confirmed a subset of the presented candidates",
				Moves: []Move{
					SessionIDs(), AgentName(), ctx,
					Req(Hash("request_id", "memory.governance.request.hash")),
					Hash("confirmation_id", "memory.governance.confirmation.hash"),
					Req(Bool("confirmed", "memory.governance.confirmed")),
					Label("confirmation_channel", "memory.governance.confirmation_channel"),
					Count("confirmed_candidate_ids", "memory.governance.confirmed_candidate_count"),
					Hash("confirmed_candidate_ids", "memory.governance.confirmed_candidate_ids_hash"),
					Count("rejected_candidate_ids", "memory.governance.rejected_candidate_count"),
					Hash("rejected_candidate_ids", "memory.governance.rejected_candidate_ids_hash"),
					Hash("operator_note", "memory.governance.operator_note_hash"),
					Const("privacy.raw_operator_note_recorded", receipt.B(false)),
					// Confirmed and rejected identities are disjoint subsets of
					// the presented ones.
					requested,
					SubsetOf("confirmed_candidate_ids", govPresented, "candidate_ids").Within("request_id", "request_id").
						Says("confirmed_candidate_ids is not a subset of the presented candidate_ids"),
					SubsetOf("rejected_candidate_ids", govPresented, "candidate_ids").Within("request_id", "request_id").
						Says("rejected_candidate_ids is not a subset of the presented candidate_ids"),
					Disjoint("confirmed_candidate_ids", "rejected_candidate_ids").Says("a candidate is both confirmed and rejected"),
					Check("confirmed false confirms no candidate", func(_ *Session, v *Values) error {
						if !v.Bool("confirmed") && v.Has("confirmed_candidate_ids") && len(v.Get("confirmed_candidate_ids").Array()) > 0 {
							return fmt.Errorf("confirmed is false but confirmed_candidate_ids is not empty")
						}
						return nil
					}),
					Req(Const("memory.governance.confirmed_subset_of_presented", receipt.B(true))),
				},
				Hook: func(s *Session, v *Values, _ *receipt.Attrs) error {
					StateOf[govState](s).confirmations[v.Digest("request_id")] = true
					return nil
				},
			},
			govCompleted: {
				Event: govCompleted,
				Title: "memory.governance.delete.completed: only confirmed memories were deleted (tombstoned); the rest were retained",
				Moves: []Move{
					SessionIDs(), AgentName(), ctx,
					Req(Hash("request_id", "memory.governance.request.hash")),
					Label("status", "memory.governance.status"),
					Req(Count("deleted_ids", "memory.governance.deleted_count")),
					Hash("deleted_ids", "memory.governance.deleted_ids_hash"),
					Count("retained_ids", "memory.governance.retained_count"),
					Hash("retained_ids", "memory.governance.retained_ids_hash"),
					Count("tombstone_ids", "memory.governance.tombstone_count"),
					Hash("tombstone_ids", "memory.governance.tombstone_ids_hash"),
					Hash("audit_entry_id", "memory.governance.audit_entry_hash"),
					Hash("store_snapshot_before", "memory.governance.store_snapshot_before_hash"),
					Hash("store_snapshot_after", "memory.governance.store_snapshot_after_hash"),
					Bucket("latency_ms", "memory.governance.latency_bucket", receipt.LatencyLadder),
					Const("privacy.raw_deleted_memory_recorded", receipt.B(false)),
					// Only confirmed identities are deleted, and nothing is both
					// deleted and retained.
					requested,
					Check("deleted memories had the confirmation their candidates required", deletedWithConfirmation),
					SubsetOf("deleted_ids", govConfirmed, "confirmed_candidate_ids").Within("request_id", "request_id").
						Says("deleted_ids is not a subset of the confirmed_candidate_ids"),
					Disjoint("deleted_ids", "retained_ids").Says("a memory is both deleted and retained"),
					Req(Const("memory.governance.deleted_subset_of_confirmed", receipt.B(true))),
				},
				Hook: func(s *Session, v *Values, _ *receipt.Attrs) error {
					StateOf[govState](s).deleted += int64(len(v.Get("deleted_ids").Array()))
					return nil
				},
			},
			govAudited: {
				Event: govAudited,
				Title: "memory.governance.audit.completed: the deletion's audit replay: what the query still returns, tombstones and retained memories",
				Moves: []Move{
					SessionIDs(), AgentName(), ctx,
					Req(Hash("request_id", "memory.governance.request.hash")),
					Hash("audit_entry_id", "memory.governance.audit_entry_hash"),
					Req(Int("query_replay_result_count", "memory.governance.query_replay_result_count")),
					Int("tombstone_count", "memory.governance.tombstone_count"),
					Int("retained_count", "memory.governance.retained_count"),
					Label("retention_policy", "memory.governance.retention_policy"),
					Const("memory.governance.audit_gap", receipt.S("does_not_prove_physical_compaction_or_backup_expiry")),
					Const("privacy.raw_memory_body_recorded", receipt.B(false)),
					Const("privacy.raw_delete_query_recorded", receipt.B(false)),
					// The audit replays the deletion of its request.
					requested,
					After("request_id", govCompleted, "request_id").Says("audit completed before memory.governance.delete.completed"),
					SubsetOf("audit_entry_id", govCompleted, "audit_entry_id").Within("request_id", "request_id").
						Says("audit_entry_id differs from the deletion's audit_entry_id"),
					LengthOf("tombstone_count", govCompleted, "tombstone_ids").Within("request_id", "request_id").
						Says("tombstone_count differs from the deletion's tombstone_ids"),
					LengthOf("retained_count", govCompleted, "retained_ids").Within("request_id", "request_id").
						Says("retained_count differs from the deletion's retained_ids"),
				},
				Writes: []Attr{
					ReqAttr(Sets("memory.governance.replay_returns_deleted", DefBool)),
				},
				Hook: func(_ *Session, v *Values, a *receipt.Attrs) error {
					a.Set("memory.governance.replay_returns_deleted", receipt.B(v.Int("query_replay_result_count") > 0))
					return nil
				},
			},
		},
		NewState: func() any {
			return &govState{requests: map[string]bool{}, needsConfirmation: map[string]bool{}, confirmations: map[string]bool{}}
		},
		End: func(s *Session) error {
			st := StateOf[govState](s)
			s.Span.Set("memory.governance.request.count", receipt.I(int64(len(st.requests))))
			s.Span.Set("memory.governance.deleted.count", receipt.I(st.deleted))
			return nil
		},
	})
}

// govState is what a delete's rules keep beyond the invariants, by request
// id digest.
type govState struct {
	requests, needsConfirmation, confirmations map[string]bool
	deleted                                    int64
}

// deletedWithConfirmation refuses a deletion whose candidates required a
// confirmation that was never recorded.
func deletedWithConfirmation(s *Session, v *Values) error {
	st, req := StateOf[govState](s), v.Digest("request_id")
	if len(v.Get("deleted_ids").Array()) > 0 && st.needsConfirmation[req] && !st.confirmations[req] {
		return fmt.Errorf("memories deleted without the confirmation the candidates required")
	}
	return nil
}
