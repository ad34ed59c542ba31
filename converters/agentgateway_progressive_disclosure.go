package converters

import (
	"fmt"

	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
)

// agentgateway_progressive_disclosure proves the boundary of an MCP gateway
// in Search mode: the client sees a few meta-tools at startup, one upstream
// tool schema is hydrated when needed, then that tool is invoked. Gateway
// name and mode pass through; upstream server and tool names, schemas,
// selection reasons, arguments and results are private and only hashed.
func init() {
	registerScenario(Scenario{
		Name:     "agentgateway_progressive_disclosure",
		Doc:      "MCP gateway progressive disclosure: meta-tool index at startup, one upstream schema on demand, tool invoked",
		SpanName: "agent.session.mcp.gateway.progressive_disclosure",
		Records: map[string]Rec{
			"mcp.gateway.index.loaded": {
				Event: "mcp.gateway.index.loaded",
				Moves: []Move{
					SessionIDs(), AgentName(),
					Req(Label("gateway", "mcp.gateway.name")),
					Label("mode", "mcp.gateway.tool_mode"),
					Hash("client_visible_tools", "mcp.gateway.visible_tools_hash"),
					Count("client_visible_tools", "mcp.gateway.visible_tool_count"),
					Hash("upstream_server", "mcp.gateway.upstream_server_hash"),
					Bucket("upstream_tool_count", "mcp.gateway.upstream_tool_count_bucket", receipt.CountLadder),
					Bucket("full_upstream_schema_token_count", "mcp.gateway.full_schema_token_count_bucket", receipt.TokenLadder),
					Bucket("visible_index_token_count", "mcp.gateway.visible_index_token_count_bucket", receipt.TokenLadder),
					Hash("raw_index", "mcp.gateway.index_hash"),
					Bool("full_upstream_schemas_loaded_at_startup", "mcp.gateway.full_upstream_schemas_loaded_at_startup"),
					Const("mcp.gateway.disclosure.strategy", receipt.S(gatewayStrategy)),
					Const("privacy.raw_index_recorded", receipt.B(false)),
					Const("privacy.raw_upstream_tool_schemas_recorded", receipt.B(false)),
				},
				Hook: gatewayIndexLoaded,
			},
			"mcp.gateway.tool_schema.loaded": {
				Event: "mcp.gateway.tool_schema.loaded",
				Moves: []Move{
					SessionIDs(),
					Req(Label("gateway", "mcp.gateway.name")),
					Req(Hash("tool", "mcp.tool.name_hash")),
					Hash("schema_command", "mcp.tool.schema_command_hash"),
					Hash("raw_schema", "mcp.tool.schema_hash"),
					Bucket("schema_token_count", "mcp.tool.schema_token_count_bucket", receipt.TokenLadder),
					Hash("selection_reason", "mcp.tool.schema_load_reason_hash"),
					Hash("unselected_tool_names", "mcp.tool.unselected_tools_hash"),
					Count("unselected_tool_names", "mcp.tool.unselected_tool_count"),
					Int("unselected_schema_loaded_count", "mcp.tool.unselected_schema_loaded_count"),
					Const("mcp.tool.schema_loaded_on_demand", receipt.B(true)),
					Const("privacy.raw_tool_schema_recorded", receipt.B(false)),
					Const("privacy.raw_unselected_tool_names_recorded", receipt.B(false)),
				},
				Hook: gatewaySchemaLoaded,
			},
			"mcp.gateway.tool_invoked": {
				Event: "mcp.gateway.tool_invoked",
				Moves: []Move{
					SessionIDs(),
					Req(Label("gateway", "mcp.gateway.name")),
					Req(Hash("tool", "mcp.tool.name_hash")),
					Label("status", "mcp.tool_call.status"),
					Hash("raw_arguments", "mcp.tool_call.arguments_hash"),
					Hash("raw_result_sample", "mcp.tool_call.result_sample_hash"),
					Bucket("result_count", "mcp.tool_call.result_count_bucket", receipt.CountLadder),
					Int("latency_ms", "mcp.tool_call.latency_ms"),
					Bucket("latency_ms", "mcp.tool_call.latency_bucket", receipt.LatencyLadder),
					Bucket("response_bytes", "mcp.tool_call.response_size_bucket", receipt.ByteLadder),
					Const("privacy.raw_tool_arguments_recorded", receipt.B(false)),
					Const("privacy.raw_tool_results_recorded", receipt.B(false)),
				},
				Hook: gatewayToolInvoked,
			},
			"mcp.gateway.session.completed": {
				Event: "mcp.gateway.session.completed",
				Moves: []Move{
					SessionIDs(),
					Label("status", "mcp.gateway.session.status"),
					Bool("full_upstream_schemas_loaded", "mcp.gateway.full_upstream_schemas_loaded"),
					Int("loaded_tool_schema_count", "mcp.gateway.loaded_tool_schema_count"),
					Int("invoked_tool_count", "mcp.gateway.invoked_tool_count"),
					Const("mcp.gateway.progressive_disclosure.audit_gap", receipt.S("receipt_proves_gateway_disclosure_boundary_not_tool_result_correctness")),
				},
				Hook: gatewayCompleted,
			},
		},
		End: func(s *Session) error {
			s.Span.Set("mcp.gateway.loaded_tool_schema_count", receipt.I(int64(s.Len("gw.schema"))))
			s.Span.Set("mcp.gateway.invoked_tool_count", receipt.I(int64(s.Len("gw.invoked"))))
			return nil
		},
	})
}

// gatewayStrategy names the disclosure pattern; the index event carries it
// too, so the schema declares it as our own vocabulary.
const gatewayStrategy = "meta_tool_index_then_on_demand_schema"

func gatewayKey(s *Session, v *Values, field string) string {
	return s.Hash.Text(v.Get("gateway").String()) + "/" + s.Hash.Text(v.Get(field).String())
}

// gatewayIndexLoaded records the startup surface. When the log does not say
// whether full upstream schemas were loaded at startup, the receipt derives
// it: a visible index smaller than the full schema set cannot hold it.
func gatewayIndexLoaded(s *Session, v *Values, a *receipt.Attrs) error {
	gw := v.Get("gateway").String()
	s.Mark("gw.indexed", s.Hash.Text(gw))
	if _, ok := a.Get("mcp.gateway.full_upstream_schemas_loaded_at_startup"); !ok {
		visible, full := v.Get("visible_index_token_count"), v.Get("full_upstream_schema_token_count")
		if visible.Exists() && full.Exists() {
			a.Set("mcp.gateway.full_upstream_schemas_loaded_at_startup", receipt.B(visible.Int() >= full.Int()))
		}
	}
	s.Span.Set("mcp.gateway.name", receipt.S(s.Label(gw)))
	s.Span.Set("mcp.gateway.disclosure.strategy", receipt.S(gatewayStrategy))
	if m := v.Get("mode"); m.Type == gjson.String {
		s.Span.Set("mcp.gateway.tool_mode", receipt.S(s.Label(m.Str)))
	}
	return nil
}

// gatewaySchemaLoaded enforces that a schema is hydrated only through a
// gateway whose index was loaded first, and that the hydrated tool is not
// also listed among the tools whose schemas stayed out.
func gatewaySchemaLoaded(s *Session, v *Values, _ *receipt.Attrs) error {
	if !s.Has("gw.indexed", s.Hash.Text(v.Get("gateway").String())) {
		return fmt.Errorf("tool schema loaded through a gateway with no mcp.gateway.index.loaded record before it")
	}
	tool := v.Get("tool").String()
	for _, u := range v.Get("unselected_tool_names").Array() {
		if u.String() == tool {
			return fmt.Errorf("tool is listed both as loaded and in unselected_tool_names")
		}
	}
	s.Mark("gw.schema", gatewayKey(s, v, "tool"))
	return nil
}

func gatewayToolInvoked(s *Session, v *Values, a *receipt.Attrs) error {
	if !s.Has("gw.indexed", s.Hash.Text(v.Get("gateway").String())) {
		return fmt.Errorf("tool invoked through a gateway with no mcp.gateway.index.loaded record before it")
	}
	key := gatewayKey(s, v, "tool")
	s.Mark("gw.invoked", key)
	a.Set("mcp.tool_call.schema_loaded_before_call", receipt.B(s.Has("gw.schema", key)))
	return nil
}

// gatewayCompleted checks the log's totals (distinct tools) against the
// records seen.
func gatewayCompleted(s *Session, v *Values, _ *receipt.Attrs) error {
	if v := v.Get("loaded_tool_schema_count"); v.Exists() && v.Int() != int64(s.Len("gw.schema")) {
		return fmt.Errorf("loaded_tool_schema_count does not match the distinct tools of mcp.gateway.tool_schema.loaded records before it")
	}
	if v := v.Get("invoked_tool_count"); v.Exists() && v.Int() != int64(s.Len("gw.invoked")) {
		return fmt.Errorf("invoked_tool_count does not match the distinct tools of mcp.gateway.tool_invoked records before it")
	}
	return nil
}
