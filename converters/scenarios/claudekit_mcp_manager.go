package scenarios

import (
	"fmt"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/internal/receipt"
)

// claudekit_mcp_manager proves a ClaudeKit-style isolation boundary: the
// parent session sees only a small management skill while an mcp-manager
// subagent absorbs the large MCP schema catalog, selects and invokes one
// tool, and returns a bounded summary. Skill, subagent, server and tool names,
// prompts, catalogs, reasons, arguments, results and the summary are private
// and only hashed.
//
// The receipt states that the full schemas never reached the parent, so the
// converter refuses a log that says or implies otherwise: an explicit
// full_schemas_loaded_in_parent, or a parent context as large as the hidden
// catalog before or after the summary came back.
func claudekitMcpManagerTable() scenario.Scenario {
	return scenario.Scenario{
		Name:     "claudekit_mcp_manager",
		Doc:      "MCP manager subagent boundary: schema catalog isolated in a subagent, bounded summary back to the parent",
		SpanName: "agent.session.mcp.manager.subagent_boundary",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"mcp-manager-subagent", "mcp_isolated_allowlist", "subagent_tool_search_then_execute", "summary_returned",
		},
		Records: map[string]scenario.Rec{
			"mcp.manager.parent_context.evaluated": {
				Event: "mcp.manager.parent_context.evaluated",
				Title: "mcp.manager.parent_context.evaluated: the parent context got the compact management surface, not the MCP schema catalog",
				Moves: []scenario.Move{
					scenario.Use("full_schemas_loaded_in_parent"),
					scenario.SessionIDs(), scenario.AgentName(),
					scenario.Label("pattern", "mcp.manager.pattern"),
					scenario.Hash("parent_visible_skill", "mcp.manager.parent_visible_skill_hash"),
					scenario.Req(scenario.Bucket("parent_visible_token_count", "mcp.manager.parent_visible_token_bucket", receipt.TokenLadder)),
					scenario.Bucket("hidden_mcp_server_count", "mcp.manager.hidden_server_count_bucket", receipt.CountLadder),
					scenario.Bucket("hidden_mcp_tool_schema_count", "mcp.manager.hidden_tool_schema_count_bucket", receipt.CountLadder),
					scenario.Req(scenario.Bucket("hidden_full_schema_token_count", "mcp.manager.hidden_full_schema_token_bucket", receipt.TokenLadder)),
					scenario.Const("mcp.manager.receipt.scope", receipt.S(managerScope)),
					scenario.Const("privacy.raw_parent_prompt_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_hidden_schemas_recorded", receipt.B(false)),
				},
				Writes: []events.Attr{
					events.ReqAttr(events.SetsConst("mcp.manager.full_schemas_loaded_in_parent", receipt.B(false))),
				},
				Hook: managerParentContext,
			},
			"mcp.manager.subagent.booted": {
				Event: "mcp.manager.subagent.booted",
				Title: "mcp.manager.subagent.booted: the isolated MCP manager subagent started with the schema catalog",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Req(scenario.Hash("subagent_id", "mcp.manager.subagent_id_hash")),
					scenario.Label("tools_policy", "mcp.manager.tools_policy"),
					scenario.Bucket("server_count", "mcp.manager.server_count_bucket", receipt.CountLadder),
					scenario.Bucket("tool_schema_count", "mcp.manager.tool_schema_count_bucket", receipt.CountLadder),
					scenario.Bucket("startup_context_token_count", "mcp.manager.subagent_startup_token_bucket", receipt.TokenLadder),
					scenario.Bucket("context_window_tokens", "mcp.manager.context_window_token_bucket", receipt.TokenLadder),
					scenario.Const("privacy.raw_subagent_tool_catalog_recorded", receipt.B(false)),
					scenario.AfterAny("mcp.manager.parent_context.evaluated").Says("manager subagent booted before any mcp.manager.parent_context.evaluated record"),
				},
			},
			"mcp.manager.tool_selected": {
				Event: "mcp.manager.tool_selected",
				Title: "mcp.manager.tool_selected: the manager subagent expanded one tool and suppressed the other candidates",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Label("selection_strategy", "mcp.manager.selection_strategy"),
					scenario.Hash("selected_server", "mcp.manager.selected_server_hash"),
					scenario.Req(scenario.Hash("selected_tool", "mcp.manager.selected_tool_hash")),
					scenario.Bucket("candidate_tool_count", "mcp.manager.candidate_tool_count_bucket", receipt.CountLadder),
					scenario.Int("expanded_tool_count", "mcp.manager.expanded_tool_count"),
					scenario.Bucket("suppressed_tool_count", "mcp.manager.suppressed_tool_count_bucket", receipt.CountLadder),
					scenario.Hash("raw_selection_reason", "mcp.manager.selection_reason_hash"),
					scenario.Const("privacy.raw_selection_reason_recorded", receipt.B(false)),
					scenario.AfterAny("mcp.manager.subagent.booted").Says("tool selected before any mcp.manager.subagent.booted record"),
					scenario.Check("expanded plus suppressed tools are the candidates, when all three are given", managerSelectionCounts),
				},
			},
			"mcp.manager.tool_invoked": {
				Event: "mcp.manager.tool_invoked",
				Title: "mcp.manager.tool_invoked: the manager subagent invoked an MCP tool",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Req(scenario.Hash("tool", "mcp.tool.name_hash")),
					scenario.Label("status", "mcp.tool_call.status"),
					scenario.Bucket("result_count", "mcp.tool_call.result_count_bucket", receipt.CountLadder),
					scenario.Int("latency_ms", "mcp.tool_call.latency_ms"),
					scenario.Bucket("latency_ms", "mcp.tool_call.latency_bucket", receipt.LatencyLadder),
					scenario.Hash("raw_arguments", "mcp.tool_call.arguments_hash"),
					scenario.Hash("raw_result_sample", "mcp.tool_call.result_sample_hash"),
					scenario.Const("privacy.raw_tool_arguments_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_tool_results_recorded", receipt.B(false)),
					scenario.AfterAny("mcp.manager.subagent.booted").Says("tool invoked before any mcp.manager.subagent.booted record"),
					scenario.Req(scenario.SeenBefore("mcp.manager.tool_was_selected", "tool", "mcp.manager.tool_selected", "selected_tool")),
				},
				Hook: func(s *scenario.Session, _ *scenario.Values, _ *receipt.Attrs) error {
					scenario.StateOf[managerState](s).invoked++
					return nil
				},
			},
			"mcp.manager.parent_summary.returned": {
				Event: "mcp.manager.parent_summary.returned",
				Title: "mcp.manager.parent_summary.returned: only a bounded summary crossed back from the manager subagent to the parent",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Label("status", "mcp.manager.summary.status"),
					scenario.Bucket("summary_token_count", "mcp.manager.summary_token_bucket", receipt.TokenLadder),
					scenario.Bucket("parent_context_token_count_after", "mcp.manager.parent_context_after_token_bucket", receipt.TokenLadder),
					scenario.Hash("raw_summary", "mcp.manager.summary_hash"),
					scenario.Req(scenario.Const("mcp.manager.audit_gap", receipt.S("receipt_proves_schema_isolation_and_bounded_summary_not_tool_optimality"))),
					scenario.Const("privacy.raw_summary_recorded", receipt.B(false)),
					scenario.AfterAny("mcp.manager.parent_context.evaluated").Says("summary returned before any mcp.manager.parent_context.evaluated record"),
					scenario.Check("the parent after the summary holds less than the hidden catalog", managerSummarySmaller),
				},
			},
		},
		NewState: func() any { return &managerState{} },
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[managerState](s)
			if st.parentEvaluated {
				s.Span.Set("mcp.manager.full_schemas_loaded_in_parent", receipt.B(false))
			}
			s.Span.Set("mcp.manager.tool_invoked.count", receipt.Computed(st.invoked))
			return nil
		},
	}
}

func init() { scenario.Define("claudekit_mcp_manager", claudekitMcpManagerTable) }

// managerScope names what the receipt compares; the parent-context event
// carries it too, so the schema declares it as our own vocabulary.
const managerScope = "parent_vs_manager_subagent_context_budget"

// managerParentContext enforces the parent-side boundary and keeps the
// catalog size for the check on the summary.
func managerParentContext(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	if v := v.Get("full_schemas_loaded_in_parent"); v.IsBool() && v.Bool() {
		return fmt.Errorf("the parent context received the full mcp schema catalog")
	}
	visible, hidden := v.Get("parent_visible_token_count").Int(), v.Get("hidden_full_schema_token_count").Int()
	if visible >= hidden {
		return fmt.Errorf("parent_visible_token_count is not smaller than hidden_full_schema_token_count: the catalog may be in the parent")
	}
	st := scenario.StateOf[managerState](s)
	st.parentEvaluated, st.hiddenTokens = true, hidden
	s.Span.Set("mcp.manager.receipt.scope", receipt.S(managerScope))
	a.Set("mcp.manager.full_schemas_loaded_in_parent", receipt.B(false))
	if p := v.Get("pattern"); p.Exists() {
		s.Span.Set("mcp.manager.pattern", receipt.S(s.Label(p.String())))
	}
	return nil
}

// managerState is what the boundary checks and the root span keep: whether
// the parent context was evaluated, the size of the catalog it must not
// hold, and the tool calls.
type managerState struct {
	parentEvaluated       bool
	hiddenTokens, invoked int64
}

// managerSelectionCounts: every candidate was either expanded or suppressed.
func managerSelectionCounts(_ *scenario.Session, v *scenario.Values) error {
	cand, exp, sup := v.Get("candidate_tool_count"), v.Get("expanded_tool_count"), v.Get("suppressed_tool_count")
	if cand.Exists() && exp.Exists() && sup.Exists() && exp.Int()+sup.Int() != cand.Int() {
		return fmt.Errorf("expanded_tool_count plus suppressed_tool_count does not equal candidate_tool_count")
	}
	return nil
}

// managerSummarySmaller enforces that what the parent holds after the
// summary is still smaller than the catalog it must not have received.
func managerSummarySmaller(s *scenario.Session, v *scenario.Values) error {
	if v := v.Get("parent_context_token_count_after"); v.Exists() && v.Int() >= scenario.StateOf[managerState](s).hiddenTokens {
		return fmt.Errorf("parent_context_token_count_after is not smaller than the hidden schema catalog: the catalog may have crossed to the parent")
	}
	return nil
}
