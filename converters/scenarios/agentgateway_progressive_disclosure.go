package scenarios

import (
	"github.com/contextreceipts/convert/converters/scenario"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/receipt"
)

// agentgateway_progressive_disclosure proves the boundary of an MCP gateway
// in Search mode: the client sees a few meta-tools at startup, one upstream
// tool schema is hydrated when needed, then that tool is invoked. Gateway
// name and mode pass through; upstream server and tool names, schemas,
// selection reasons, arguments and results are private and only hashed.
func agentgatewayProgressiveDisclosureTable() scenario.Scenario {
	return scenario.Scenario{
		Name:     "agentgateway_progressive_disclosure",
		Doc:      "MCP gateway progressive disclosure: meta-tool index at startup, one upstream schema on demand, tool invoked",
		SpanName: "agent.session.mcp.gateway.progressive_disclosure",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"Search", "agentgateway",
		},
		Records: map[string]scenario.Rec{
			"mcp.gateway.index.loaded": {
				Event: "mcp.gateway.index.loaded",
				Title: "mcp.gateway.index.loaded: the gateway's small meta-tool index entered the context at startup",
				Moves: []scenario.Move{
					scenario.SessionIDs(), scenario.AgentName(),
					scenario.Req(scenario.Label("gateway", "mcp.gateway.name")),
					scenario.Label("mode", "mcp.gateway.tool_mode"),
					scenario.Hash("client_visible_tools", "mcp.gateway.visible_tools_hash"),
					scenario.Count("client_visible_tools", "mcp.gateway.visible_tool_count"),
					scenario.Hash("upstream_server", "mcp.gateway.upstream_server_hash"),
					scenario.Bucket("upstream_tool_count", "mcp.gateway.upstream_tool_count_bucket", receipt.CountLadder),
					scenario.Bucket("full_upstream_schema_token_count", "mcp.gateway.full_schema_token_count_bucket", receipt.TokenLadder),
					scenario.Bucket("visible_index_token_count", "mcp.gateway.visible_index_token_count_bucket", receipt.TokenLadder),
					scenario.Hash("raw_index", "mcp.gateway.index_hash"),
					scenario.Bool("full_upstream_schemas_loaded_at_startup", "mcp.gateway.full_upstream_schemas_loaded_at_startup"),
					scenario.Const("mcp.gateway.disclosure.strategy", receipt.S(gatewayStrategy)),
					scenario.Const("privacy.raw_index_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_upstream_tool_schemas_recorded", receipt.B(false)),
				},
				Hook: gatewayIndexLoaded,
			},
			"mcp.gateway.tool_schema.loaded": {
				Event: "mcp.gateway.tool_schema.loaded",
				Title: "mcp.gateway.tool_schema.loaded: one upstream tool schema was hydrated on demand through the gateway",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Req(scenario.Label("gateway", "mcp.gateway.name")),
					scenario.Req(scenario.Hash("tool", "mcp.tool.name_hash")),
					scenario.Hash("schema_command", "mcp.tool.schema_command_hash"),
					scenario.Hash("raw_schema", "mcp.tool.schema_hash"),
					scenario.Bucket("schema_token_count", "mcp.tool.schema_token_count_bucket", receipt.TokenLadder),
					scenario.Hash("selection_reason", "mcp.tool.schema_load_reason_hash"),
					scenario.Hash("unselected_tool_names", "mcp.tool.unselected_tools_hash"),
					scenario.Count("unselected_tool_names", "mcp.tool.unselected_tool_count"),
					scenario.Int("unselected_schema_loaded_count", "mcp.tool.unselected_schema_loaded_count"),
					scenario.Const("mcp.tool.schema_loaded_on_demand", receipt.B(true)),
					scenario.Const("privacy.raw_tool_schema_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_unselected_tool_names_recorded", receipt.B(false)),
					// A schema is hydrated only through a gateway whose index was
					// loaded first, and the hydrated tool is not also listed among
					// the tools whose schemas stayed out.
					scenario.After("gateway", "mcp.gateway.index.loaded", "gateway").
						Says("tool schema loaded through a gateway with no mcp.gateway.index.loaded record before it"),
					scenario.Disjoint("tool", "unselected_tool_names").Says("tool is listed both as loaded and in unselected_tool_names"),
				},
				Hook: func(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
					scenario.StateOf[gatewayState](s).schemas[gatewayKey(v)] = true
					return nil
				},
			},
			"mcp.gateway.tool_invoked": {
				Event: "mcp.gateway.tool_invoked",
				Title: "mcp.gateway.tool_invoked: an upstream tool was invoked through the gateway",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Req(scenario.Label("gateway", "mcp.gateway.name")),
					scenario.Req(scenario.Hash("tool", "mcp.tool.name_hash")),
					scenario.Label("status", "mcp.tool_call.status"),
					scenario.Hash("raw_arguments", "mcp.tool_call.arguments_hash"),
					scenario.Hash("raw_result_sample", "mcp.tool_call.result_sample_hash"),
					scenario.Bucket("result_count", "mcp.tool_call.result_count_bucket", receipt.CountLadder),
					scenario.Int("latency_ms", "mcp.tool_call.latency_ms"),
					scenario.Bucket("latency_ms", "mcp.tool_call.latency_bucket", receipt.LatencyLadder),
					scenario.Bucket("response_bytes", "mcp.tool_call.response_size_bucket", receipt.ByteLadder),
					scenario.Const("privacy.raw_tool_arguments_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_tool_results_recorded", receipt.B(false)),
					scenario.After("gateway", "mcp.gateway.index.loaded", "gateway").
						Says("tool invoked through a gateway with no mcp.gateway.index.loaded record before it"),
					scenario.Req(scenario.SeenBefore("mcp.tool_call.schema_loaded_before_call", "tool", "mcp.gateway.tool_schema.loaded", "tool").Within("gateway", "gateway")),
				},
				Hook: func(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
					scenario.StateOf[gatewayState](s).invoked[gatewayKey(v)] = true
					return nil
				},
			},
			"mcp.gateway.session.completed": {
				Event: "mcp.gateway.session.completed",
				Title: "mcp.gateway.session.completed: the gateway session ended: schema and invocation totals",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Label("status", "mcp.gateway.session.status"),
					scenario.Bool("full_upstream_schemas_loaded", "mcp.gateway.full_upstream_schemas_loaded"),
					scenario.Int("loaded_tool_schema_count", "mcp.gateway.loaded_tool_schema_count"),
					scenario.Int("invoked_tool_count", "mcp.gateway.invoked_tool_count"),
					scenario.Req(scenario.Const("mcp.gateway.progressive_disclosure.audit_gap", receipt.S("receipt_proves_gateway_disclosure_boundary_not_tool_result_correctness"))),
					// The log's totals count distinct tools.
					scenario.DistinctOf("loaded_tool_schema_count", "mcp.gateway.tool_schema.loaded", "gateway", "tool").
						Says("loaded_tool_schema_count does not match the distinct tools of mcp.gateway.tool_schema.loaded records before it"),
					scenario.DistinctOf("invoked_tool_count", "mcp.gateway.tool_invoked", "gateway", "tool").
						Says("invoked_tool_count does not match the distinct tools of mcp.gateway.tool_invoked records before it"),
				},
			},
		},
		NewState: func() any { return &gatewayState{schemas: map[string]bool{}, invoked: map[string]bool{}} },
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[gatewayState](s)
			s.Span.Set("mcp.gateway.loaded_tool_schema_count", receipt.Computed(int64(len(st.schemas))))
			s.Span.Set("mcp.gateway.invoked_tool_count", receipt.Computed(int64(len(st.invoked))))
			return nil
		},
	}
}

func init() {
	scenario.Define("agentgateway_progressive_disclosure", agentgatewayProgressiveDisclosureTable)
}

// gatewayStrategy names the disclosure pattern; the index event carries it
// too, so the schema declares it as our own vocabulary.
const gatewayStrategy = "meta_tool_index_then_on_demand_schema"

// gatewayState keeps the distinct tools (gateway and tool digests) whose
// schemas were loaded and that were invoked, for the root span.
type gatewayState struct{ schemas, invoked map[string]bool }

func gatewayKey(v *scenario.Values) string { return v.Digest("gateway") + "/" + v.Digest("tool") }

// gatewayIndexLoaded records the startup surface. When the log does not say
// whether full upstream schemas were loaded at startup, the receipt derives
// it: a visible index smaller than the full schema set cannot hold it.
func gatewayIndexLoaded(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	gw := v.Str("gateway")
	if _, ok := a.Get("mcp.gateway.full_upstream_schemas_loaded_at_startup"); !ok {
		visible, full := v.Get("visible_index_token_count"), v.Get("full_upstream_schema_token_count")
		if visible.Exists() && full.Exists() {
			a.Set("mcp.gateway.full_upstream_schemas_loaded_at_startup", receipt.B(visible.Int() >= full.Int()))
		}
	}
	s.Span.Set("mcp.gateway.name", receipt.S(s.Label(gw)))
	s.Span.Set("mcp.gateway.disclosure.strategy", receipt.S(gatewayStrategy))
	if m := v.Get("mode"); m.Type() == view.String {
		s.Span.Set("mcp.gateway.tool_mode", receipt.S(s.Label(m.Str())))
	}
	return nil
}
