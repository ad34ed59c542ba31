package converters

import (
	"fmt"

	"github.com/contextreceipts/convert/internal/receipt"
)

// memory_consolidation proves that an incremental consolidation pass ran
// over a bounded set of recent candidates, clustered some of them and wrote
// consolidated memories whose lineage names exactly the cluster's sources.
// Memory, cluster and cursor ids are hashed; candidate excerpts, topics,
// cluster notes, consolidated bodies, entity names and operator notes are raw
// and only ever hashed (or not written at all).
func init() {
	registerScenario(Scenario{
		Name:     "memory_consolidation",
		Doc:      "Incremental memory consolidation: precheck, clusters of recent candidates, outputs with lineage, bounded completion",
		SpanName: "agent.session.memory.consolidation",
		Records: map[string]Rec{
			"memory.consolidation.precheck": {
				Event: "memory.consolidation.precheck",
				Moves: []Move{
					SessionIDs(), AgentName(),
					OnSpan("memory.provider", Label("provider", "memory.provider")),
					OnSpan("memory.client", Label("client", "memory.client")),
					OnSpan("memory.project.hash", Hash("project", "memory.project.hash")),
					Label("mode", "memory.consolidation.mode"),
					Label("trigger", "memory.consolidation.trigger"),
					Label("horizon", "memory.consolidation.horizon"),
					Hash("last_run_at", "memory.consolidation.last_run_at_hash"),
					Req(Int("candidate_count", "memory.consolidation.candidate_count")),
					Bucket("candidate_count", "memory.consolidation.candidate_count_bucket", receipt.CountLadder),
					Hash("candidate_ids", "memory.consolidation.candidate_ids_hash"),
					Hash("project_path", "memory.consolidation.project_path_hash"),
					Bucket("latency_ms", "memory.consolidation.precheck_latency_bucket", receipt.LatencyLadder),
					Const("privacy.raw_candidate_text_recorded", receipt.B(false)),
					Const("privacy.raw_project_path_recorded", receipt.B(false)),
				},
				Hook: consolidationPrecheck,
			},
			"memory.consolidation.cluster.selected": {
				Event: "memory.consolidation.cluster.selected",
				Moves: []Move{
					SessionIDs(),
					Req(Hash("cluster_id", "memory.consolidation.cluster.hash")),
					Label("strategy", "memory.consolidation.cluster.strategy"),
					Int("source_count", "memory.consolidation.cluster.source_count"),
					Req(Hash("source_ids", "memory.consolidation.cluster.source_ids_hash")),
					Hash("topic", "memory.consolidation.cluster.topic_hash"),
					Label("similarity_bucket", "memory.consolidation.cluster.similarity_bucket"),
					Bucket("max_source_age_minutes", "memory.consolidation.cluster.max_source_age_minutes_bucket", receipt.CountLadder),
					Const("privacy.raw_cluster_notes_recorded", receipt.B(false)),
					Const("privacy.raw_memory_text_recorded", receipt.B(false)),
				},
				Hook: consolidationCluster,
			},
			"memory.consolidation.output.created": {
				Event: "memory.consolidation.output.created",
				Moves: []Move{
					SessionIDs(),
					Req(Hash("consolidated_id", "memory.consolidation.output.hash")),
					Req(Hash("cluster_id", "memory.consolidation.cluster.hash")),
					Req(Hash("source_ids", "memory.consolidation.output.source_ids_hash")),
					Label("memory_type", "memory.consolidation.output.memory_type"),
					Req(Label("lineage_edge", "memory.consolidation.output.lineage_edge")),
					Hash("raw_consolidated_memory", "memory.consolidation.output.content_hash"),
					ScaledBucket("quality_score_before", "memory.consolidation.quality_score_before_bucket", scoreLadder, 1000),
					ScaledBucket("quality_score_after", "memory.consolidation.quality_score_after_bucket", scoreLadder, 1000),
					ListBucket("changed_entities", "memory.consolidation.changed_entity_count_bucket"),
					Hash("changed_entities", "memory.consolidation.changed_entities_hash"),
					Bucket("latency_ms", "memory.consolidation.output_latency_bucket", receipt.LatencyLadder),
					Const("privacy.raw_consolidated_memory_recorded", receipt.B(false)),
					Const("privacy.raw_entity_names_recorded", receipt.B(false)),
				},
				Hook: consolidationOutput,
			},
			"memory.consolidation.completed": {
				Event: "memory.consolidation.completed",
				Moves: []Move{
					SessionIDs(),
					FromSpan("memory.provider", "memory.client", "memory.project.hash"),
					Label("provider", "memory.provider"),
					Label("client", "memory.client"),
					Hash("project", "memory.project.hash"),
					Label("mode", "memory.consolidation.mode"),
					Label("trigger", "memory.consolidation.trigger"),
					Req(Int("candidate_count", "memory.consolidation.candidate_count")),
					Req(Int("cluster_count", "memory.consolidation.cluster_count")),
					Req(Int("consolidated_count", "memory.consolidation.consolidated_count")),
					Req(Int("skipped_count", "memory.consolidation.skipped_count")),
					Bucket("duration_ms", "memory.consolidation.duration_bucket", receipt.LatencyLadder),
					Bucket("latency_budget_ms", "memory.consolidation.latency_budget_bucket", receipt.LatencyLadder),
					Label("status", "memory.consolidation.status"),
					Hash("next_cursor", "memory.consolidation.next_cursor_hash"),
					Const("memory.consolidation.audit_gap", receipt.S("receipt_proves_bounded_run_and_lineage_not_summary_correctness")),
					Const("privacy.raw_operator_note_recorded", receipt.B(false)),
					Const("privacy.raw_memory_text_recorded", receipt.B(false)),
				},
				Hook: consolidationCompleted,
			},
		},
		End: func(s *Session) error {
			s.Span.Set("memory.consolidation.cluster.count", receipt.I(s.Count("clusters")))
			s.Span.Set("memory.consolidation.output.count", receipt.I(s.Count("outputs")))
			s.Span.Set("memory.consolidation.completed", receipt.B(s.Count("completed") > 0))
			return nil
		},
	})
}

// consolidationPrecheck records the candidate set every cluster must draw from.
func consolidationPrecheck(s *Session, v *Values, _ *receipt.Attrs) error {
	ids, err := v.IDList("candidate_ids")
	if err != nil {
		return err
	}
	if ids != nil && int64(len(ids)) != v.Get("candidate_count").Int() {
		return fmt.Errorf("candidate_count differs from the length of candidate_ids")
	}
	markAll(s, "candidates", ids)
	s.Add("prechecks", 1)
	setCount(s, "candidate_count", v.Get("candidate_count").Int())
	setCount(s, "candidate_ids_listed", int64(len(ids)))
	return nil
}

// consolidationCluster enforces that a cluster follows the precheck and draws
// its sources from the precheck's candidates.
func consolidationCluster(s *Session, v *Values, a *receipt.Attrs) error {
	if s.Count("prechecks") == 0 {
		return fmt.Errorf("cluster selected before any memory.consolidation.precheck record")
	}
	src, err := v.IDList("source_ids")
	if err != nil {
		return err
	}
	if n := v.Get("source_count"); n.Exists() && n.Int() != int64(len(src)) {
		return fmt.Errorf("source_count differs from the length of source_ids")
	}
	if s.Count("candidate_ids_listed") > 0 && !allIn(s, "candidates", src) {
		return fmt.Errorf("cluster source is not among the precheck candidate_ids")
	}
	cluster := s.Hash.Text(v.Get("cluster_id").String())
	s.Mark("clusters", cluster)
	markAll(s, "cluster:"+cluster, src)
	setCount(s, "cluster_size:"+cluster, int64(len(src)))
	s.Add("clusters", 1)
	a.Set("memory.consolidation.cluster.sources_among_candidates", receipt.B(s.Count("candidate_ids_listed") > 0))
	return nil
}

// consolidationOutput enforces lineage: an output names a selected cluster
// and exactly that cluster's sources.
func consolidationOutput(s *Session, v *Values, a *receipt.Attrs) error {
	cluster := s.Hash.Text(v.Get("cluster_id").String())
	if !s.Has("clusters", cluster) {
		return fmt.Errorf("output created for a cluster that was never selected")
	}
	src, err := v.IDList("source_ids")
	if err != nil {
		return err
	}
	if int64(len(src)) != s.Count("cluster_size:"+cluster) || !allIn(s, "cluster:"+cluster, src) || overlapsSelf(src) {
		return fmt.Errorf("output lineage source_ids differ from the selected cluster's source_ids")
	}
	if !s.Has("consolidated_clusters", cluster) {
		s.Mark("consolidated_clusters", cluster)
		s.Add("consolidated_sources", int64(len(src)))
	}
	s.Add("outputs", 1)
	a.Set("memory.consolidation.output.lineage_matches_cluster", receipt.B(true))
	return nil
}

// overlapsSelf reports a repeated digest in a list.
func overlapsSelf(ds []string) bool {
	seen := map[string]bool{}
	for _, d := range ds {
		if seen[d] {
			return true
		}
		seen[d] = true
	}
	return false
}

// consolidationCompleted enforces that the completion's figures are the
// run's: clusters and outputs as recorded, and every candidate either
// consolidated or skipped.
func consolidationCompleted(s *Session, v *Values, a *receipt.Attrs) error {
	n := func(f string) int64 { return v.Get(f).Int() }
	if s.Count("prechecks") == 0 {
		return fmt.Errorf("completed without a memory.consolidation.precheck record")
	}
	switch {
	case n("candidate_count") != s.Count("candidate_count"):
		return fmt.Errorf("candidate_count differs from the precheck's candidate_count")
	case n("cluster_count") != s.Count("clusters"):
		return fmt.Errorf("cluster_count differs from the cluster.selected records")
	case n("consolidated_count") != s.Count("outputs"):
		return fmt.Errorf("consolidated_count differs from the output.created records")
	case n("candidate_count") != s.Count("consolidated_sources")+n("skipped_count"):
		return fmt.Errorf("candidate_count is not accounted for by consolidated sources + skipped_count")
	}
	if d, b := v.Get("duration_ms"), v.Get("latency_budget_ms"); d.Exists() && b.Exists() {
		a.Set("memory.consolidation.within_latency_budget", receipt.B(d.Int() <= b.Int()))
	}
	a.Set("memory.consolidation.candidates_accounted", receipt.B(true))
	s.Add("completed", 1)
	return nil
}
