package scenarios

import (
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"
	"github.com/contextreceipts/convert/internal/receipt"
)

// cli_progressive_disclosure proves the disclosure boundary of an
// agent-friendly CLI: a tiny agent prompt at startup instead of a full
// OpenAPI spec or MCP schema set, one command's help loaded when needed, then
// the command run. The CLI's own name and categorical fields pass through;
// commands, help text, selection reasons, arguments and results are private
// and only ever hashed.
func cliProgressiveDisclosureTable() scenario.Scenario {
	return scenario.Scenario{
		Name:     "cli_progressive_disclosure",
		Doc:      "CLI progressive disclosure: tiny agent prompt, one command's help on demand, command executed",
		SpanName: "agent.session.cli.progressive_disclosure",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"agent_prompt_only", "apideck", "claude_skill", "codex-cli", "codex_agents_md", "ghx",
		},
		Records: map[string]scenario.Rec{
			"cli.agent_prompt.loaded": {
				Event: "cli.agent_prompt.loaded",
				Title: "cli.agent_prompt.loaded: the small agent prompt of a CLI entered the context at startup",
				Moves: []scenario.Move{
					scenario.SessionIDs(), scenario.AgentName(),
					scenario.Req(scenario.Label("cli_name", "cli.name")),
					scenario.Hash("prompt_command", "cli.prompt.command_hash"),
					scenario.Hash("raw_prompt", "cli.prompt.hash"),
					scenario.Bucket("prompt_token_count", "cli.prompt.token_count_bucket", receipt.TokenLadder),
					scenario.Bucket("full_openapi_token_count", "cli.full_openapi.token_count_bucket", receipt.TokenLadder),
					scenario.Bucket("full_mcp_schema_token_count", "cli.full_mcp_schema.token_count_bucket", receipt.TokenLadder),
					scenario.Label("startup_strategy", "cli.startup.strategy"),
					scenario.Label("install_target", "cli.install.target"),
					scenario.Const("cli.disclosure.strategy", receipt.S(cliStrategy)),
					scenario.Const("privacy.raw_agent_prompt_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_openapi_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_mcp_schemas_recorded", receipt.B(false)),
				},
				Hook: cliPromptLoaded,
			},
			"cli.command_help.loaded": {
				Event: "cli.command_help.loaded",
				Title: "cli.command_help.loaded: the help of one CLI command was loaded on demand",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Req(scenario.Label("cli_name", "cli.name")),
					scenario.Req(scenario.Hash("command", "cli.command.hash")),
					scenario.Hash("help_command", "cli.help.command_hash"),
					scenario.Hash("raw_help", "cli.help.hash"),
					scenario.Bucket("help_token_count", "cli.help.token_count_bucket", receipt.TokenLadder),
					scenario.Hash("selection_reason", "cli.help.load_reason_hash"),
					scenario.Hash("unselected_commands", "cli.unselected_commands.hash"),
					scenario.Count("unselected_commands", "cli.unselected_commands.count"),
					scenario.Int("unselected_help_loaded", "cli.unselected_help.loaded_count"),
					scenario.Const("privacy.raw_help_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_unselected_commands_recorded", receipt.B(false)),
					// The agent prompt of the CLI came first, and the selected
					// command is not also among those whose help stayed out.
					scenario.After("cli_name", "cli.agent_prompt.loaded", "cli_name").
						Says("command help loaded before any cli.agent_prompt.loaded record of its cli"),
					scenario.Disjoint("command", "unselected_commands").Says("command is listed both as selected and in unselected_commands"),
				},
				Hook: func(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
					st := scenario.StateOf[cliState](s)
					st.help++
					st.unselectedHelp += v.Int("unselected_help_loaded")
					return nil
				},
			},
			"cli.command.executed": {
				Event: "cli.command.executed",
				Title: "cli.command.executed: a CLI command ran",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Req(scenario.Label("cli_name", "cli.name")),
					scenario.Req(scenario.Hash("command", "cli.command.hash")),
					scenario.Label("status", "cli.command.status"),
					scenario.Hash("raw_arguments", "cli.command.arguments_hash"),
					scenario.Hash("raw_result_sample", "cli.command.result_sample_hash"),
					scenario.Bucket("result_count", "cli.command.result_count_bucket", receipt.CountLadder),
					scenario.Int("latency_ms", "cli.command.latency_ms"),
					scenario.Bucket("latency_ms", "cli.command.latency_bucket", receipt.LatencyLadder),
					scenario.Bucket("stdout_bytes", "cli.command.stdout_size_bucket", receipt.ByteLadder),
					scenario.Bucket("stderr_bytes", "cli.command.stderr_size_bucket", receipt.ByteLadder),
					scenario.Const("privacy.raw_arguments_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_results_recorded", receipt.B(false)),
					scenario.After("cli_name", "cli.agent_prompt.loaded", "cli_name").
						Says("command executed before any cli.agent_prompt.loaded record of its cli"),
					scenario.Req(scenario.SeenBefore("cli.command.help_loaded_before_execution", "command", "cli.command_help.loaded", "command").Within("cli_name", "cli_name")),
				},
				Hook: func(s *scenario.Session, _ *scenario.Values, _ *receipt.Attrs) error {
					scenario.StateOf[cliState](s).executed++
					return nil
				},
			},
			"cli.session.completed": {
				Event: "cli.session.completed",
				Title: "cli.session.completed: the CLI session ended: totals and whether the disclosure boundary held",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Label("status", "cli.session.status"),
					scenario.Int("commands_executed", "cli.commands.executed"),
					scenario.Int("loaded_command_help_count", "cli.command_help.loaded_count"),
					scenario.Bool("loaded_full_openapi", "cli.full_openapi.loaded"),
					scenario.Bool("loaded_mcp_schemas", "cli.full_mcp_schemas.loaded"),
					scenario.CountOf("commands_executed", "cli.command.executed"),
					scenario.CountOf("loaded_command_help_count", "cli.command_help.loaded"),
					scenario.Req(scenario.Const("cli.progressive_disclosure.audit_gap", receipt.S("receipt_proves_disclosure_boundary_not_api_result_correctness"))),
				},
				Writes: []events.Attr{
					events.Sets("cli.progressive_disclosure.boundary_held", events.DefBool),
				},
				Hook: cliSessionCompleted,
			},
		},
		NewState: func() any { return &cliState{} },
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[cliState](s)
			s.Span.Set("cli.command_help.loaded_count", receipt.Computed(st.help))
			s.Span.Set("cli.commands.executed", receipt.Computed(st.executed))
			s.Span.Set("cli.unselected_help.loaded_count", receipt.Computed(st.unselectedHelp))
			return nil
		},
	}
}

func init() { scenario.Define("cli_progressive_disclosure", cliProgressiveDisclosureTable) }

// cliStrategy names the disclosure pattern; the prompt event carries it too,
// so the schema declares it as our own vocabulary.
const cliStrategy = "agent_prompt_then_command_help"

// cliState counts what the root span reports.
type cliState struct{ help, executed, unselectedHelp int64 }

func cliPromptLoaded(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
	name := v.Str("cli_name")
	s.Span.Set("cli.name", receipt.S(s.Label(name)))
	s.Span.Set("cli.disclosure.strategy", receipt.S(cliStrategy))
	return nil
}

// cliSessionCompleted states whether the disclosure boundary held: no full spec or schema set
// and no unselected command's help entered the context.
func cliSessionCompleted(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	openapi, mcp := v.Get("loaded_full_openapi"), v.Get("loaded_mcp_schemas")
	if openapi.IsBool() && mcp.IsBool() {
		held := !openapi.Bool() && !mcp.Bool() && scenario.StateOf[cliState](s).unselectedHelp == 0
		a.Set("cli.progressive_disclosure.boundary_held", receipt.B(held))
		s.Span.Set("cli.progressive_disclosure.boundary_held", receipt.B(held))
	}
	return nil
}
