package converters

import (
	"fmt"

	"github.com/contextreceipts/convert/internal/receipt"
)

// memory_governance_delete proves a two-step forget: candidates were shown,
// a subset was confirmed, only confirmed memories were deleted, and the
// audit replay no longer returns them. Request, confirmation, memory, audit
// and snapshot ids are hashed; delete queries, reasons, previews, operator
// notes and project paths are raw and only ever hashed.
func init() {
	ctx := FromSpan("memory.provider", "memory.client", "memory.project.hash")
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
			"memory.governance.delete.requested": {
				Event: "memory.governance.delete.requested",
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
				Then: deleteRequested,
			},
			"memory.governance.delete.candidates.presented": {
				Event: "memory.governance.delete.candidates.presented",
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
				},
				Then: deletePresented,
			},
			"memory.governance.delete.confirmation.recorded": {
				Event: "memory.governance.delete.confirmation.recorded",
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
				},
				Then: deleteConfirmed,
			},
			"memory.governance.delete.completed": {
				Event: "memory.governance.delete.completed",
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
				},
				Then: deleteCompleted,
			},
			"memory.governance.audit.completed": {
				Event: "memory.governance.audit.completed",
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
				},
				Then: deleteAudited,
			},
		},
		End: func(s *Session) error {
			s.Span.Set("memory.governance.request.count", receipt.I(int64(s.Len("requests"))))
			s.Span.Set("memory.governance.deleted.count", receipt.I(s.Count("deleted")))
			return nil
		},
	})
}

// deleteRequest returns the digest of the record's request id, which must
// name a request recorded earlier.
func deleteRequest(s *Session, r Record) (string, error) {
	req := s.Hash.Text(r.JSON.Get("request_id").String())
	if !s.Has("requests", req) {
		return "", fmt.Errorf("request_id has no memory.governance.delete.requested record before it")
	}
	return req, nil
}

func deleteRequested(s *Session, r Record, _ *receipt.Attrs) error {
	s.Mark("requests", s.Hash.Text(r.JSON.Get("request_id").String()))
	return nil
}

func deletePresented(s *Session, r Record, a *receipt.Attrs) error {
	req, err := deleteRequest(s, r)
	if err != nil {
		return err
	}
	ids, err := idDigests(s, r, "candidate_ids")
	if err != nil {
		return err
	}
	if n := r.JSON.Get("candidate_count"); n.Exists() && n.Int() != int64(len(ids)) {
		return fmt.Errorf("candidate_count differs from the length of candidate_ids")
	}
	markAll(s, "presented:"+req, ids)
	if r.JSON.Get("requires_confirmation").Bool() {
		s.Mark("needs_confirmation", req)
	}
	return nil
}

// deleteConfirmed enforces that confirmed and rejected identities are
// disjoint subsets of the presented ones.
func deleteConfirmed(s *Session, r Record, a *receipt.Attrs) error {
	req, err := deleteRequest(s, r)
	if err != nil {
		return err
	}
	conf, err := idDigests(s, r, "confirmed_candidate_ids")
	if err != nil {
		return err
	}
	rej, err := idDigests(s, r, "rejected_candidate_ids")
	if err != nil {
		return err
	}
	switch {
	case !allIn(s, "presented:"+req, conf):
		return fmt.Errorf("confirmed_candidate_ids is not a subset of the presented candidate_ids")
	case !allIn(s, "presented:"+req, rej):
		return fmt.Errorf("rejected_candidate_ids is not a subset of the presented candidate_ids")
	case overlap(conf, rej):
		return fmt.Errorf("a candidate is both confirmed and rejected")
	case !r.JSON.Get("confirmed").Bool() && len(conf) > 0:
		return fmt.Errorf("confirmed is false but confirmed_candidate_ids is not empty")
	}
	if r.JSON.Get("confirmed").Bool() {
		markAll(s, "confirmed:"+req, conf)
	}
	s.Mark("confirmations", req)
	a.Set("memory.governance.confirmed_subset_of_presented", receipt.B(true))
	return nil
}

// deleteCompleted enforces that only confirmed identities were deleted and
// that nothing is both deleted and retained.
func deleteCompleted(s *Session, r Record, a *receipt.Attrs) error {
	req, err := deleteRequest(s, r)
	if err != nil {
		return err
	}
	del, err := idDigests(s, r, "deleted_ids")
	if err != nil {
		return err
	}
	kept, err := idDigests(s, r, "retained_ids")
	if err != nil {
		return err
	}
	switch {
	case len(del) > 0 && s.Has("needs_confirmation", req) && !s.Has("confirmations", req):
		return fmt.Errorf("memories deleted without the confirmation the candidates required")
	case !allIn(s, "confirmed:"+req, del):
		return fmt.Errorf("deleted_ids is not a subset of the confirmed_candidate_ids")
	case overlap(del, kept):
		return fmt.Errorf("a memory is both deleted and retained")
	}
	tomb, err := idDigests(s, r, "tombstone_ids")
	if err != nil {
		return err
	}
	setCount(s, "tombstones:"+req, int64(len(tomb)))
	setCount(s, "retained:"+req, int64(len(kept)))
	if v := r.JSON.Get("audit_entry_id"); v.Exists() {
		s.Mark("audit_entries:"+req, s.Hash.Text(v.String()))
	}
	s.Mark("completed", req)
	s.Add("deleted", int64(len(del)))
	a.Set("memory.governance.deleted_subset_of_confirmed", receipt.B(true))
	return nil
}

// deleteAudited checks the audit against the deletion it replays and says
// whether the replay still returned anything.
func deleteAudited(s *Session, r Record, a *receipt.Attrs) error {
	req, err := deleteRequest(s, r)
	if err != nil {
		return err
	}
	if !s.Has("completed", req) {
		return fmt.Errorf("audit completed before memory.governance.delete.completed")
	}
	if v := r.JSON.Get("audit_entry_id"); v.Exists() && !s.Has("audit_entries:"+req, s.Hash.Text(v.String())) {
		return fmt.Errorf("audit_entry_id differs from the deletion's audit_entry_id")
	}
	if v := r.JSON.Get("tombstone_count"); v.Exists() && v.Int() != s.Count("tombstones:"+req) {
		return fmt.Errorf("tombstone_count differs from the deletion's tombstone_ids")
	}
	if v := r.JSON.Get("retained_count"); v.Exists() && v.Int() != s.Count("retained:"+req) {
		return fmt.Errorf("retained_count differs from the deletion's retained_ids")
	}
	a.Set("memory.governance.replay_returns_deleted", receipt.B(r.JSON.Get("query_replay_result_count").Int() > 0))
	return nil
}
