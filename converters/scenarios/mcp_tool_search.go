package scenarios

import (
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"
	"github.com/contextreceipts/convert/internal/receipt"
)

// mcp_tool_search proves a deferred-loading boundary: servers expose only a
// tool-name index at startup, a search selects a tool, and only that tool's
// full definition is loaded before it is called. Server and tool names are
// hashed (they are private and guessable in clear); queries, descriptions,
// definitions, arguments and results are raw and only ever hashed.
func mcpToolSearchTable() scenario.Scenario {
	return scenario.Scenario{
		Name:     "mcp_tool_search",
		Doc:      "MCP tool search with deferred tool loading: indexes at startup, definitions on demand, calls",
		SpanName: "agent.session.mcp.tool_search",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"eager_full_definitions", "least_privilege_relevant_tool", "stdio",
		},
		Records: map[string]scenario.Rec{
			"mcp.tool_index.loaded": {
				Event: "mcp.tool_index.loaded",
				Title: "mcp.tool_index.loaded: the tool-name index of one MCP server was loaded at startup",
				Moves: []scenario.Move{
					scenario.SessionIDs(), scenario.AgentName(),
					scenario.Req(scenario.Hash("server", "mcp.server.name_hash")),
					scenario.Label("transport", "mcp.transport"),
					scenario.Label("startup_strategy", "mcp.tool_loading.strategy"),
					scenario.Req(scenario.Hash("tool_names", "mcp.tool.names_hash")),
					scenario.Count("tool_names", "mcp.tool.count"),
					scenario.Int("full_definitions_loaded", "mcp.tool.full_definitions.loaded_at_startup"),
					scenario.Bucket("definition_token_count", "mcp.tool.definition_token_count_bucket", receipt.TokenLadder),
					scenario.Bucket("index_token_count", "mcp.tool.index_token_count_bucket", receipt.TokenLadder),
					scenario.Const("privacy.raw_tool_definitions_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_tool_descriptions_recorded", receipt.B(false)),
				},
				Writes: []events.Attr{events.Sets("mcp.tool.index_only", events.DefBool)},
				Hook:   indexLoaded,
			},
			"mcp.tool_search.performed": {
				Event: "mcp.tool_search.performed",
				Title: "mcp.tool_search.performed: a tool search selected (or not) a tool from the loaded indexes",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Req(scenario.Hash("raw_query", "mcp.tool_search.query_hash")),
					scenario.Bucket("candidate_count", "mcp.tool_search.candidate_count_bucket", receipt.CountLadder),
					scenario.Hash("selected_server", "mcp.tool_search.selected_server_hash"),
					scenario.Hash("selected_tool", "mcp.tool_search.selected_tool_hash"),
					scenario.Label("selection_policy", "mcp.tool_search.selection_policy"),
					scenario.Int("loaded_definition_count", "mcp.tool_search.loaded_definition_count"),
					scenario.Const("privacy.raw_query_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_candidate_rationale_recorded", receipt.B(false)),
					// A search selects a tool from an index that was actually
					// loaded: otherwise the receipt could not prove the boundary.
					scenario.After("selected_server", "mcp.tool_index.loaded", "server"),
					scenario.SubsetOf("selected_tool", "mcp.tool_index.loaded", "tool_names").Within("selected_server", "server").
						Says("selected_tool is not in the selected server's loaded index"),
				},
				Writes: []events.Attr{events.Sets("mcp.tool_search.unselected_definitions_loaded", events.DefCount)},
				Hook:   searchPerformed,
			},
			"mcp.tool_definition.loaded": {
				Event: "mcp.tool_definition.loaded",
				Title: "mcp.tool_definition.loaded: one full tool definition was loaded on demand",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Req(scenario.Hash("server", "mcp.server.name_hash")),
					scenario.Req(scenario.Hash("tool", "mcp.tool.name_hash")),
					scenario.Hash("raw_definition", "mcp.tool.definition_hash"),
					scenario.Label("load_reason", "mcp.tool.definition_load_reason"),
					scenario.Bucket("definition_token_count", "mcp.tool.definition_token_count_bucket", receipt.TokenLadder),
					scenario.Const("mcp.tool.definition_loaded_on_demand", receipt.B(true)),
					scenario.Const("privacy.raw_tool_definition_recorded", receipt.B(false)),
					scenario.SubsetOf("tool", "mcp.tool_index.loaded", "tool_names").Within("server", "server").
						Says("definition loaded for a tool absent from its server's loaded index"),
					scenario.SeenBefore("mcp.tool.selected_by_search", "tool", "mcp.tool_search.performed", "selected_tool").Within("server", "selected_server"),
				},
				Hook: func(s *scenario.Session, _ *scenario.Values, _ *receipt.Attrs) error {
					scenario.StateOf[mcpSearchState](s).definitions++
					return nil
				},
			},
			"mcp.tool_call.completed": {
				Event: "mcp.tool_call.completed",
				Title: "mcp.tool_call.completed: an MCP tool call finished",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Req(scenario.Hash("server", "mcp.server.name_hash")),
					scenario.Req(scenario.Hash("tool", "mcp.tool.name_hash")),
					scenario.Label("status", "mcp.tool_call.status"),
					scenario.Bucket("result_count", "mcp.tool_call.result_count_bucket", receipt.CountLadder),
					scenario.Hash("raw_arguments", "mcp.tool_call.arguments_hash"),
					scenario.Hash("raw_result_sample", "mcp.tool_call.result_sample_hash"),
					scenario.Const("mcp.tool_search.audit_gap", receipt.S("receipt_proves_loaded_boundary_not_selection_optimality")),
					scenario.Const("privacy.raw_tool_arguments_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_tool_results_recorded", receipt.B(false)),
					scenario.SeenBefore("mcp.tool_call.definition_loaded_before_call", "tool", "mcp.tool_definition.loaded", "tool").Within("server", "server"),
				},
				Hook: func(s *scenario.Session, _ *scenario.Values, _ *receipt.Attrs) error {
					scenario.StateOf[mcpSearchState](s).calls++
					return nil
				},
			},
		},
		NewState: func() any { return &mcpSearchState{servers: map[string]bool{}} },
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[mcpSearchState](s)
			s.Span.Set("mcp.server.count", receipt.Computed(int64(len(st.servers))))
			s.Span.Set("mcp.tool_definition.on_demand.count", receipt.Computed(st.definitions))
			s.Span.Set("mcp.tool_call.count", receipt.Computed(st.calls))
			return nil
		},
	}
}

func init() { scenario.Define("mcp_tool_search", mcpToolSearchTable) }

// mcpSearchState counts what the root span reports: servers by digest.
type mcpSearchState struct {
	servers            map[string]bool
	definitions, calls int64
}

func indexLoaded(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	scenario.StateOf[mcpSearchState](s).servers[v.Digest("server")] = true
	a.Set("mcp.tool.index_only", receipt.B(v.Int("full_definitions_loaded") == 0))
	if strategy := v.Str("startup_strategy"); !strategy.Empty() {
		s.Span.Set("mcp.tool_loading.strategy", receipt.S(s.Label(strategy)))
	}
	return nil
}

// searchPerformed counts the definitions a search loaded beyond the one it
// selected.
func searchPerformed(_ *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	unselected := v.Int("loaded_definition_count")
	if !v.Str("selected_tool").Empty() {
		unselected--
	}
	a.Set("mcp.tool_search.unselected_definitions_loaded", receipt.Computed(max(unselected, 0)))
	return nil
}
