package claudecode_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
)

// TestClaudeCodeWorkflowRuns reads samples/claude_code/v21_230_workflow: a
// 2.1.230 session that ran a workflow (subagents/workflows/wf_*/ with a
// journal and two agent transcripts), a subagent whose sidecar has no
// toolUseId, and a forked subagent whose agent id is a prompt slug. The
// workflow run is a session of its own, as ccusage groups it, whether the
// folder is walked or the parent or the journal is given alone; figures are
// worked out by hand from the sample (and equal ccusage's,
// testdata/ccusage.json).
func TestClaudeCodeWorkflowRuns(t *testing.T) {
	testshared.InRepo(t)
	dir := "samples/claude_code/v21_230_workflow"
	proj := filepath.Join(dir, "-Users-CANARY-erin-src-CANARY-shop")
	parent := filepath.Join(proj, "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d.jsonl")
	journal := filepath.Join(proj, "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d", "subagents", "workflows", "wf_0a1b2c3d-4e5", "journal.jsonl")
	const (
		parentTotals   = "in=71 out=870 cache_read=44400 cache_write=4300 responses=5"
		workflowTotals = "in=10 out=281 cache_read=20000 cache_write=4600 responses=4"
	)
	for _, tc := range []struct {
		name, path string
		want       map[string]string // input base name -> totals
	}{
		{"walk", dir, map[string]string{"5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d.jsonl": parentTotals, "journal.jsonl": workflowTotals}},
		{"parent alone", parent, map[string]string{"5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d.jsonl": parentTotals}},
		{"journal alone", journal, map[string]string{"journal.jsonl": workflowTotals}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := convtest.Convert(t, tc.path, pipeline.Options{})
			got := map[string]string{}
			for _, r := range res {
				for _, out := range [][]byte{r.Receipt, r.Trace} {
					if strings.Contains(string(out), convtest.Canary) {
						t.Fatalf("%s: canary in an output", r.Path)
					}
				}
				got[filepath.Base(r.Path)] = convtest.Usage(r.Receipt)[""]
				if filepath.Base(r.Path) != "journal.jsonl" {
					continue
				}
				links, results := map[string]int{}, 0
				for _, e := range convtest.Events(r.Receipt, "subagent.spawned") {
					links[e.Get(`attributes.subagent\.link`).Str+"/"+e.Get(`attributes.subagent\.transcript_layout`).Str]++
				}
				for _, e := range convtest.Events(r.Receipt, "subagent.result.returned") {
					if e.Get(`attributes.subagent\.result\.boundary`).Str == "workflow_script" {
						results++
					}
				}
				if links["workflow_journal/workflow_run_dir"] != 2 || results != 2 {
					t.Errorf("workflow: spawned %v, %d results to the script; want 2 linked by the journal and 2 results", links, results)
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("sessions %v, want %v", got, tc.want)
			}
			for in, w := range tc.want {
				if got[in] != w {
					t.Errorf("%s: %s, want %s", in, got[in], w)
				}
			}
		})
	}
	// The fork is linked as a fork, the sidecar without toolUseId by the
	// result's agentId; the fork's slug id is written as a digest.
	res := convtest.Convert(t, parent, pipeline.Options{})
	links := map[string]bool{}
	for _, e := range convtest.Events(res[0].Receipt, "subagent.spawned") {
		links[e.Get(`attributes.subagent\.link`).Str] = true
	}
	if !links["forked_from_parent"] || !links["result_agent_id"] {
		t.Errorf("links %v, want forked_from_parent and result_agent_id", links)
	}
	if strings.Contains(string(res[0].Trace), "fix-the-first") {
		t.Error("the fork's slug agent id reached the trace")
	}
}
