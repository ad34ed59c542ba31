package scenarios

import (
	"fmt"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/internal/receipt"
)

// subagent_toolsearch_propagation records a probe matrix: subagents spawned
// with different tools declarations, and whether each one got the ToolSearch
// channel and the parent's deferred MCP tools. Subagent types, tools
// declarations and the recommended next probe are private and only hashed;
// spawn paths, declaration shapes and filter reasons are categorical.
//
// A probe passes when ToolSearch is exposed to the subagent. The matrix
// totals must match the probes seen, and a probe cannot report deferred tool
// definitions without the ToolSearch channel that serves them.
func subagentToolsearchPropagationTable() scenario.Scenario {
	return scenario.Scenario{
		Name:     "subagent_toolsearch_propagation",
		Doc:      "Subagent ToolSearch propagation probes: which tools declarations expose deferred MCP tools to subagents",
		SpanName: "agent.subagent.toolsearch.propagation",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"enumerated_include", "exclusion_style", "exclusion_style_did_not_preserve_deferred_tool_channel",
			"explicit_toolsearch_in_tools_list", "frontmatter_tools_policy_or_runtime_filter",
			"tools_frontmatter_shape", "wildcard", "wildcard_allows_deferred_tool_channel",
		},
		Records: map[string]scenario.Rec{
			"subagent.spawn.probe": {
				Event: "subagent.toolsearch.propagation.evaluated",
				Title: "subagent.toolsearch.propagation.evaluated: one subagent spawn probe: was ToolSearch (and the deferred MCP tools) exposed to it",
				Moves: []scenario.Move{
					scenario.SessionIDs(), scenario.AgentName(),
					scenario.Req(scenario.Hash("subagent_type", "subagent.type_hash")),
					scenario.Label("spawn_path", "subagent.spawn.path"),
					scenario.Bool("skill_context_active", "subagent.skill_context_active"),
					scenario.Bucket("parent_intermediate_tool_call_count", "subagent.parent_intermediate_tool_call_count_bucket", receipt.CountLadder),
					scenario.Label("tools_declaration_shape", "subagent.tools.declaration_shape"),
					scenario.Bool("toolsearch_declared", "subagent.tools.toolsearch_declared"),
					scenario.Req(scenario.Bool("toolsearch_exposed", "subagent.tools.toolsearch_exposed")),
					scenario.Bucket("mcp_server_count_parent", "subagent.mcp.parent_server_count_bucket", receipt.CountLadder),
					scenario.Bucket("mcp_server_count_subagent", "subagent.mcp.available_server_count_bucket", receipt.CountLadder),
					scenario.Bucket("loaded_tool_definition_count", "subagent.mcp.loaded_tool_definition_count_bucket", receipt.CountLadder),
					scenario.Bucket("deferred_tool_definition_count", "subagent.mcp.deferred_tool_definition_count_bucket", receipt.CountLadder),
					scenario.Label("filter_reason", "subagent.tools.filter_reason"),
					scenario.Hash("raw_tools_declaration", "subagent.tools.declaration_hash"),
					scenario.Const("privacy.raw_tools_declaration_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_tool_schemas_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_prompts_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_paths_recorded", receipt.B(false)),
				},
				Writes: []events.Attr{
					events.SetsConst("subagent.context.receipt.scope", receipt.S("toolsearch_propagation_matrix")),
					events.ReqAttr(events.Sets("subagent.toolsearch.probe_passed", events.DefBool)),
				},
				Hook: toolsearchProbe,
			},
			"subagent.toolsearch.matrix.completed": {
				Event: "subagent.toolsearch.matrix.completed",
				Title: "subagent.toolsearch.matrix.completed: the probe matrix finished: probe, passing and failing totals",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Label("tested_axis", "subagent.toolsearch.tested_axis"),
					scenario.Bucket("probe_count", "subagent.toolsearch.probe_count_bucket", receipt.CountLadder),
					scenario.Bucket("passing_probe_count", "subagent.toolsearch.passing_probe_count_bucket", receipt.CountLadder),
					scenario.Bucket("failing_probe_count", "subagent.toolsearch.failing_probe_count_bucket", receipt.CountLadder),
					scenario.Hash("recommended_next_probe", "subagent.toolsearch.recommended_next_probe_hash"),
					scenario.Req(scenario.Const("subagent.toolsearch.pass_rule", receipt.S("toolsearch_exposed"))),
					scenario.Req(scenario.Const("subagent.toolsearch.audit_gap", receipt.S("proves_toolsearch_exposure_and_mcp_count_buckets_not_tool_relevance_or_call_success"))),
					// The matrix totals match the probes seen.
					scenario.CountOf("probe_count", "subagent.spawn.probe"),
					scenario.CountOf("passing_probe_count", "subagent.spawn.probe").Where("toolsearch_exposed", true).
						Says("passing_probe_count does not match the probes with toolsearch_exposed"),
					scenario.CountOf("failing_probe_count", "subagent.spawn.probe").Where("toolsearch_exposed", false).
						Says("failing_probe_count does not match the probes without toolsearch_exposed"),
				},
			},
		},
		NewState: func() any { return &toolsearchState{} },
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[toolsearchState](s)
			s.Span.Set("subagent.context.receipt.scope", receipt.S("toolsearch_propagation_matrix"))
			s.Span.Set("subagent.toolsearch.probe_count", receipt.Computed(st.probes))
			s.Span.Set("subagent.toolsearch.passing_probe_count", receipt.Computed(st.passing))
			return nil
		},
	}
}

func init() { scenario.Define("subagent_toolsearch_propagation", subagentToolsearchPropagationTable) }

// toolsearchState counts the probes for the root span.
type toolsearchState struct{ probes, passing int64 }

func toolsearchProbe(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	exposed := v.Bool("toolsearch_exposed")
	if !exposed && v.Int("deferred_tool_definition_count") > 0 {
		return fmt.Errorf("deferred tool definitions reported without the ToolSearch channel exposed")
	}
	st := scenario.StateOf[toolsearchState](s)
	st.probes++
	if exposed {
		st.passing++
	}
	a.Set("subagent.toolsearch.probe_passed", receipt.B(exposed))
	a.Set("subagent.context.receipt.scope", receipt.S("toolsearch_propagation_matrix"))
	return nil
}
