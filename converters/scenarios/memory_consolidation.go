package scenarios

import (
	"fmt"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/internal/receipt"
)

// memory_consolidation proves that an incremental consolidation pass ran
// over a bounded set of recent candidates, clustered some of them and wrote
// consolidated memories whose lineage names exactly the cluster's sources.
// Memory, cluster and cursor ids are hashed; candidate excerpts, topics,
// cluster notes, consolidated bodies, entity names and operator notes are raw
// and only ever hashed (or not written at all).
func memoryConsolidationTable() scenario.Scenario {
	return scenario.Scenario{
		Name:     "memory_consolidation",
		Doc:      "Incremental memory consolidation: precheck, clusters of recent candidates, outputs with lineage, bounded completion",
		SpanName: "agent.session.memory.consolidation",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"CONSOLIDATED_FROM", "claude-code-stop-hook", "cursor-stop-hook", "incremental", "mcp-memory-service",
			"openmemory", "runbook", "semantic_similarity_recent_only", "session_end_hook", "since_last_run",
		},
		Records: map[string]scenario.Rec{
			"memory.consolidation.precheck": {
				Event: "memory.consolidation.precheck",
				Title: "memory.consolidation.precheck: a consolidation pass checked its recent candidates before running",
				Moves: []scenario.Move{
					scenario.SessionIDs(), scenario.AgentName(),
					scenario.OnSpan("memory.provider", scenario.Label("provider", "memory.provider")),
					scenario.OnSpan("memory.client", scenario.Label("client", "memory.client")),
					scenario.OnSpan("memory.project.hash", scenario.Hash("project", "memory.project.hash")),
					scenario.Label("mode", "memory.consolidation.mode"),
					scenario.Label("trigger", "memory.consolidation.trigger"),
					scenario.Label("horizon", "memory.consolidation.horizon"),
					scenario.Hash("last_run_at", "memory.consolidation.last_run_at_hash"),
					scenario.Req(scenario.Int("candidate_count", "memory.consolidation.candidate_count")),
					scenario.Bucket("candidate_count", "memory.consolidation.candidate_count_bucket", receipt.CountLadder),
					scenario.Hash("candidate_ids", "memory.consolidation.candidate_ids_hash"),
					scenario.Hash("project_path", "memory.consolidation.project_path_hash"),
					scenario.Bucket("latency_ms", "memory.consolidation.precheck_latency_bucket", receipt.LatencyLadder),
					scenario.Const("privacy.raw_candidate_text_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_project_path_recorded", receipt.B(false)),
				},
				Hook: consolidationPrecheck,
			},
			"memory.consolidation.cluster.selected": {
				Event: "memory.consolidation.cluster.selected",
				Title: "memory.consolidation.cluster.selected: a cluster of precheck candidates was selected for consolidation",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Req(scenario.Hash("cluster_id", "memory.consolidation.cluster.hash")),
					scenario.Label("strategy", "memory.consolidation.cluster.strategy"),
					scenario.Int("source_count", "memory.consolidation.cluster.source_count"),
					scenario.Req(scenario.Hash("source_ids", "memory.consolidation.cluster.source_ids_hash")),
					scenario.Hash("topic", "memory.consolidation.cluster.topic_hash"),
					scenario.Label("similarity_bucket", "memory.consolidation.cluster.similarity_bucket"),
					scenario.Bucket("max_source_age_minutes", "memory.consolidation.cluster.max_source_age_minutes_bucket", receipt.CountLadder),
					scenario.Const("privacy.raw_cluster_notes_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_memory_text_recorded", receipt.B(false)),
					scenario.AfterAny("memory.consolidation.precheck").Says("cluster selected before any memory.consolidation.precheck record"),
					scenario.LenEq("source_count", "source_ids"),
				},
				Writes: []events.Attr{
					events.ReqAttr(events.Sets("memory.consolidation.cluster.sources_among_candidates", events.DefBool)),
				},
				Hook: consolidationCluster,
			},
			"memory.consolidation.output.created": {
				Event: "memory.consolidation.output.created",
				Title: "memory.consolidation.output.created: a consolidated memory was written; its lineage names exactly its cluster's sources",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Req(scenario.Hash("consolidated_id", "memory.consolidation.output.hash")),
					scenario.Req(scenario.Hash("cluster_id", "memory.consolidation.cluster.hash")),
					scenario.Req(scenario.Hash("source_ids", "memory.consolidation.output.source_ids_hash")),
					scenario.Label("memory_type", "memory.consolidation.output.memory_type"),
					scenario.Req(scenario.Label("lineage_edge", "memory.consolidation.output.lineage_edge")),
					scenario.Hash("raw_consolidated_memory", "memory.consolidation.output.content_hash"),
					scenario.ScaledBucket("quality_score_before", "memory.consolidation.quality_score_before_bucket", scenario.ScoreLadder, 1000),
					scenario.ScaledBucket("quality_score_after", "memory.consolidation.quality_score_after_bucket", scenario.ScoreLadder, 1000),
					scenario.ListBucket("changed_entities", "memory.consolidation.changed_entity_count_bucket"),
					scenario.Hash("changed_entities", "memory.consolidation.changed_entities_hash"),
					scenario.Bucket("latency_ms", "memory.consolidation.output_latency_bucket", receipt.LatencyLadder),
					scenario.Const("privacy.raw_consolidated_memory_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_entity_names_recorded", receipt.B(false)),
					scenario.After("cluster_id", "memory.consolidation.cluster.selected", "cluster_id").Says("output created for a cluster that was never selected"),
				},
				Writes: []events.Attr{
					events.ReqAttr(events.SetsConst("memory.consolidation.output.lineage_matches_cluster", receipt.B(true))),
				},
				Hook: consolidationOutput,
			},
			"memory.consolidation.completed": {
				Event: "memory.consolidation.completed",
				Title: "memory.consolidation.completed: the consolidation pass finished; every candidate was consolidated or skipped",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.FromSpan("memory.provider", "memory.client", "memory.project.hash"),
					scenario.Label("provider", "memory.provider"),
					scenario.Label("client", "memory.client"),
					scenario.Hash("project", "memory.project.hash"),
					scenario.Label("mode", "memory.consolidation.mode"),
					scenario.Label("trigger", "memory.consolidation.trigger"),
					scenario.Req(scenario.Int("candidate_count", "memory.consolidation.candidate_count")),
					scenario.Req(scenario.Int("cluster_count", "memory.consolidation.cluster_count")),
					scenario.Req(scenario.Int("consolidated_count", "memory.consolidation.consolidated_count")),
					scenario.Req(scenario.Int("skipped_count", "memory.consolidation.skipped_count")),
					scenario.Bucket("duration_ms", "memory.consolidation.duration_bucket", receipt.LatencyLadder),
					scenario.Bucket("latency_budget_ms", "memory.consolidation.latency_budget_bucket", receipt.LatencyLadder),
					scenario.Label("status", "memory.consolidation.status"),
					scenario.Hash("next_cursor", "memory.consolidation.next_cursor_hash"),
					scenario.Const("memory.consolidation.audit_gap", receipt.S("receipt_proves_bounded_run_and_lineage_not_summary_correctness")),
					scenario.Const("privacy.raw_operator_note_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_memory_text_recorded", receipt.B(false)),
					// The completion's figures are the run's: clusters and outputs as
					// recorded, and every candidate either consolidated or skipped.
					scenario.AfterAny("memory.consolidation.precheck").Says("completed without a memory.consolidation.precheck record"),
					scenario.Check("candidate_count is the precheck's", func(s *scenario.Session, v *scenario.Values) error {
						if v.Int("candidate_count") != scenario.StateOf[consolidationState](s).candidates {
							return fmt.Errorf("candidate_count differs from the precheck's candidate_count")
						}
						return nil
					}),
					scenario.CountOf("cluster_count", "memory.consolidation.cluster.selected").Says("cluster_count differs from the cluster.selected records"),
					scenario.CountOf("consolidated_count", "memory.consolidation.output.created").Says("consolidated_count differs from the output.created records"),
					scenario.Check("candidate_count is the consolidated sources + skipped_count", func(s *scenario.Session, v *scenario.Values) error {
						if v.Int("candidate_count") != scenario.StateOf[consolidationState](s).consolidatedSources+v.Int("skipped_count") {
							return fmt.Errorf("candidate_count is not accounted for by consolidated sources + skipped_count")
						}
						return nil
					}),
				},
				Writes: []events.Attr{
					events.ReqAttr(events.SetsConst("memory.consolidation.candidates_accounted", receipt.B(true))),
					events.Sets("memory.consolidation.within_latency_budget", events.DefBool),
				},
				Hook: consolidationCompleted,
			},
		},
		NewState: func() any {
			return &consolidationState{candidateIDs: map[string]bool{}, clusters: map[string][]string{}, consolidated: map[string]bool{}}
		},
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[consolidationState](s)
			s.Span.Set("memory.consolidation.cluster.count", receipt.Computed(int64(len(st.clusterOrder))))
			s.Span.Set("memory.consolidation.output.count", receipt.Computed(st.outputs))
			s.Span.Set("memory.consolidation.completed", receipt.B(st.completed))
			return nil
		},
	}
}

func init() { scenario.Define("memory_consolidation", memoryConsolidationTable) }

// consolidationState is what lineage and the completion's figures are
// checked against, by digest: the precheck's candidates, each cluster's
// sources, and the clusters already consolidated.
type consolidationState struct {
	candidateIDs        map[string]bool
	candidates          int64 // the precheck's candidate_count
	listed              bool  // the precheck listed candidate_ids
	clusters            map[string][]string
	clusterOrder        []string // every cluster.selected record, by cluster digest
	consolidated        map[string]bool
	consolidatedSources int64
	outputs             int64
	completed           bool
}

// consolidationPrecheck records the candidate set every cluster must draw from.
func consolidationPrecheck(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
	ids, err := v.IDList("candidate_ids")
	if err != nil {
		return err
	}
	if ids != nil && int64(len(ids)) != v.Int("candidate_count") {
		return fmt.Errorf("candidate_count differs from the length of candidate_ids")
	}
	st := scenario.StateOf[consolidationState](s)
	for _, d := range ids {
		st.candidateIDs[d] = true
	}
	st.candidates, st.listed = v.Int("candidate_count"), len(ids) > 0
	return nil
}

// consolidationCluster enforces that a cluster draws its sources from the
// precheck's candidates, when the precheck listed them.
func consolidationCluster(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	src, err := v.IDList("source_ids")
	if err != nil {
		return err
	}
	st := scenario.StateOf[consolidationState](s)
	for _, d := range src {
		if st.listed && !st.candidateIDs[d] {
			return fmt.Errorf("cluster source is not among the precheck candidate_ids")
		}
	}
	cluster := v.Digest("cluster_id")
	st.clusters[cluster] = src
	st.clusterOrder = append(st.clusterOrder, cluster)
	a.Set("memory.consolidation.cluster.sources_among_candidates", receipt.B(st.listed))
	return nil
}

// consolidationOutput enforces lineage: an output names exactly the sources
// of its selected cluster.
func consolidationOutput(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st, cluster := scenario.StateOf[consolidationState](s), v.Digest("cluster_id")
	src, err := v.IDList("source_ids")
	if err != nil {
		return err
	}
	if !sameSet(src, st.clusters[cluster]) || overlapsSelf(src) {
		return fmt.Errorf("output lineage source_ids differ from the selected cluster's source_ids")
	}
	if !st.consolidated[cluster] {
		st.consolidated[cluster] = true
		st.consolidatedSources += int64(len(src))
	}
	st.outputs++
	a.Set("memory.consolidation.output.lineage_matches_cluster", receipt.B(true))
	return nil
}

// sameSet reports whether got has want's length and only values of want.
func sameSet(got, want []string) bool {
	in := map[string]bool{}
	for _, d := range want {
		in[d] = true
	}
	for _, d := range got {
		if !in[d] {
			return false
		}
	}
	return len(got) == len(want)
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

// consolidationCompleted says whether the run kept its latency budget, and
// that the candidates were accounted for (the checks before it passed).
func consolidationCompleted(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	if d, b := v.Get("duration_ms"), v.Get("latency_budget_ms"); d.Exists() && b.Exists() {
		a.Set("memory.consolidation.within_latency_budget", receipt.B(d.Int() <= b.Int()))
	}
	a.Set("memory.consolidation.candidates_accounted", receipt.B(true))
	scenario.StateOf[consolidationState](s).completed = true
	return nil
}
