package converters

import (
	"fmt"

	"github.com/contextreceipts/convert/internal/receipt"
)

// mcp_tool_search proves a deferred-loading boundary: servers expose only a
// tool-name index at startup, a search selects a tool, and only that tool's
// full definition is loaded before it is called. Server and tool names are
// hashed (they are private and guessable in clear); queries, descriptions,
// definitions, arguments and results are raw and only ever hashed.
func init() {
	registerScenario(Scenario{
		Name:     "mcp_tool_search",
		Doc:      "MCP tool search with deferred tool loading: indexes at startup, definitions on demand, calls",
		SpanName: "agent.session.mcp.tool_search",
		Records: map[string]Rec{
			"mcp.tool_index.loaded": {
				Event: "mcp.tool_index.loaded",
				Moves: []Move{
					SessionIDs(), AgentName(),
					Req(Hash("server", "mcp.server.name_hash")),
					Label("transport", "mcp.transport"),
					Label("startup_strategy", "mcp.tool_loading.strategy"),
					Req(Hash("tool_names", "mcp.tool.names_hash")),
					Count("tool_names", "mcp.tool.count"),
					Int("full_definitions_loaded", "mcp.tool.full_definitions.loaded_at_startup"),
					Bucket("definition_token_count", "mcp.tool.definition_token_count_bucket", receipt.TokenLadder),
					Bucket("index_token_count", "mcp.tool.index_token_count_bucket", receipt.TokenLadder),
					Const("privacy.raw_tool_definitions_recorded", receipt.B(false)),
					Const("privacy.raw_tool_descriptions_recorded", receipt.B(false)),
				},
				Then: indexLoaded,
			},
			"mcp.tool_search.performed": {
				Event: "mcp.tool_search.performed",
				Moves: []Move{
					SessionIDs(),
					Req(Hash("raw_query", "mcp.tool_search.query_hash")),
					Bucket("candidate_count", "mcp.tool_search.candidate_count_bucket", receipt.CountLadder),
					Hash("selected_server", "mcp.tool_search.selected_server_hash"),
					Hash("selected_tool", "mcp.tool_search.selected_tool_hash"),
					Label("selection_policy", "mcp.tool_search.selection_policy"),
					Int("loaded_definition_count", "mcp.tool_search.loaded_definition_count"),
					Const("privacy.raw_query_recorded", receipt.B(false)),
					Const("privacy.raw_candidate_rationale_recorded", receipt.B(false)),
				},
				Then: searchPerformed,
			},
			"mcp.tool_definition.loaded": {
				Event: "mcp.tool_definition.loaded",
				Moves: []Move{
					SessionIDs(),
					Req(Hash("server", "mcp.server.name_hash")),
					Req(Hash("tool", "mcp.tool.name_hash")),
					Hash("raw_definition", "mcp.tool.definition_hash"),
					Label("load_reason", "mcp.tool.definition_load_reason"),
					Bucket("definition_token_count", "mcp.tool.definition_token_count_bucket", receipt.TokenLadder),
					Const("mcp.tool.definition_loaded_on_demand", receipt.B(true)),
					Const("privacy.raw_tool_definition_recorded", receipt.B(false)),
				},
				Then: definitionLoaded,
			},
			"mcp.tool_call.completed": {
				Event: "mcp.tool_call.completed",
				Moves: []Move{
					SessionIDs(),
					Req(Hash("server", "mcp.server.name_hash")),
					Req(Hash("tool", "mcp.tool.name_hash")),
					Label("status", "mcp.tool_call.status"),
					Bucket("result_count", "mcp.tool_call.result_count_bucket", receipt.CountLadder),
					Hash("raw_arguments", "mcp.tool_call.arguments_hash"),
					Hash("raw_result_sample", "mcp.tool_call.result_sample_hash"),
					Const("mcp.tool_search.audit_gap", receipt.S("receipt_proves_loaded_boundary_not_selection_optimality")),
					Const("privacy.raw_tool_arguments_recorded", receipt.B(false)),
					Const("privacy.raw_tool_results_recorded", receipt.B(false)),
				},
				Then: toolCalled,
			},
		},
		End: func(s *Session) error {
			s.Span.Set("mcp.server.count", receipt.I(int64(s.Len("servers"))))
			s.Span.Set("mcp.tool_definition.on_demand.count", receipt.I(s.Count("definitions")))
			s.Span.Set("mcp.tool_call.count", receipt.I(s.Count("calls")))
			return nil
		},
	})
}

// serverTool is the state key of a tool on a server; digests keep raw names
// out of state that error messages might print.
func serverTool(s *Session, server, tool string) string {
	return s.Hash.Text(server) + "/" + s.Hash.Text(tool)
}

func indexLoaded(s *Session, r Record, a *receipt.Attrs) error {
	server := r.JSON.Get("server").String()
	s.Mark("servers", server)
	for _, t := range r.JSON.Get("tool_names").Array() {
		s.Mark("indexed", serverTool(s, server, t.String()))
	}
	full := r.JSON.Get("full_definitions_loaded").Int()
	a.Set("mcp.tool.index_only", receipt.B(full == 0))
	if r.JSON.Get("startup_strategy").String() != "" {
		s.Span.Set("mcp.tool_loading.strategy", receipt.S(s.Label(r.JSON.Get("startup_strategy").String())))
	}
	return nil
}

// searchPerformed enforces that a search selects a tool from an index that
// was actually loaded: otherwise the receipt could not prove the boundary.
func searchPerformed(s *Session, r Record, a *receipt.Attrs) error {
	server, tool := r.JSON.Get("selected_server").String(), r.JSON.Get("selected_tool").String()
	if server != "" && !s.Has("servers", server) {
		return fmt.Errorf("selected_server has no mcp.tool_index.loaded record before it")
	}
	if tool != "" && !s.Has("indexed", serverTool(s, server, tool)) {
		return fmt.Errorf("selected_tool is not in the selected server's loaded index")
	}
	unselected := r.JSON.Get("loaded_definition_count").Int()
	if tool != "" {
		unselected--
		s.Mark("selected", serverTool(s, server, tool))
	}
	a.Set("mcp.tool_search.unselected_definitions_loaded", receipt.I(max(unselected, 0)))
	return nil
}

// definitionLoaded enforces that an on-demand definition belongs to a tool the
// server's index listed.
func definitionLoaded(s *Session, r Record, a *receipt.Attrs) error {
	key := serverTool(s, r.JSON.Get("server").String(), r.JSON.Get("tool").String())
	if !s.Has("indexed", key) {
		return fmt.Errorf("definition loaded for a tool absent from its server's loaded index")
	}
	s.Mark("defined", key)
	s.Add("definitions", 1)
	a.Set("mcp.tool.selected_by_search", receipt.B(s.Has("selected", key)))
	return nil
}

func toolCalled(s *Session, r Record, a *receipt.Attrs) error {
	key := serverTool(s, r.JSON.Get("server").String(), r.JSON.Get("tool").String())
	s.Add("calls", 1)
	a.Set("mcp.tool_call.definition_loaded_before_call", receipt.B(s.Has("defined", key)))
	return nil
}
