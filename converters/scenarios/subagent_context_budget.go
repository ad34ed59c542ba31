package scenarios

import (
	"fmt"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/receipt"
)

// subagent_context_budget accounts for the context a subagent receives
// before its first task: MCP tool schemas, skill listings, project rules and
// memory indexes loaded eagerly or suppressed by policy, and how much of the
// window was left. Subagent ids and roles, reasons, samples of each component,
// the first task and the mitigation are private and only hashed; component
// kinds, policies and statuses are categorical and pass through.
func subagentContextBudgetTable() scenario.Scenario {
	component := func(event, title string) scenario.Rec {
		return scenario.Rec{
			Event: event,
			Title: title,
			Moves: []scenario.Move{
				scenario.SessionIDs(),
				budgetSubagentID(),
				scenario.Req(scenario.Label("component", "subagent.context.component")),
				scenario.Hash("reason", "subagent.context.component_reason_hash"),
				scenario.Req(scenario.Bucket("candidate_count", "subagent.context.candidate_count_bucket", receipt.CountLadder)),
				scenario.Req(scenario.Bucket("selected_count", "subagent.context.selected_count_bucket", receipt.CountLadder)),
				scenario.Req(scenario.Bucket("suppressed_count", "subagent.context.suppressed_count_bucket", receipt.CountLadder)),
				scenario.Bucket("token_count", "subagent.context.token_bucket", receipt.TokenLadder),
				scenario.Hash("raw_component_sample", "subagent.context.component_sample_hash"),
				scenario.Const("privacy.raw_component_recorded", receipt.B(false)),
				// A component belongs to an evaluated boot, and every
				// candidate is selected or suppressed.
				scenario.AfterAny("subagent.boot.context_budget.evaluated").Says("context component before any subagent.boot.context_budget.evaluated record"),
				scenario.SumEq("candidate_count", "selected_count", "suppressed_count").
					Says("selected_count plus suppressed_count does not equal candidate_count"),
			},
			Hook: budgetComponent,
		}
	}
	return scenario.Scenario{
		Name:     "subagent_context_budget",
		Doc:      "Subagent boot context budget: components loaded or suppressed before the first task, budget left",
		SpanName: "agent.subagent.boot.context_budget",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"budget_exhausted_before_first_task", "default_permissive", "mcp_tool_schemas", "memory_index",
			"project_rules",
		},
		Records: map[string]scenario.Rec{
			"subagent.boot.context_budget.evaluated": {
				Event: "subagent.boot.context_budget.evaluated",
				Title: "subagent.boot.context_budget.evaluated: a subagent's startup context budget before its first task",
				Moves: []scenario.Move{
					scenario.SessionIDs(), scenario.AgentName(),
					scenario.Req(scenario.Hash("subagent_id", "subagent.id_hash")),
					scenario.Hash("subagent_role", "subagent.role_hash"),
					scenario.Label("tools_policy", "subagent.tools.policy"),
					scenario.Bucket("parent_context_token_count", "subagent.context.parent_token_bucket", receipt.TokenLadder),
					scenario.Req(scenario.Bucket("subagent_startup_context_token_count", "subagent.context.startup_token_bucket", receipt.TokenLadder)),
					scenario.Req(scenario.Bucket("total_context_window_tokens", "subagent.context.window_token_bucket", receipt.TokenLadder)),
					scenario.Bucket("mcp_server_count", "subagent.mcp.server_count_bucket", receipt.CountLadder),
					scenario.Bucket("mcp_tool_schema_count", "subagent.mcp.tool_schema_count_bucket", receipt.CountLadder),
					scenario.Bucket("skill_listing_count", "subagent.skill.listing_count_bucket", receipt.CountLadder),
					scenario.Bucket("project_rule_count", "subagent.rule.count_bucket", receipt.CountLadder),
					scenario.Bucket("memory_index_count", "subagent.memory.index_count_bucket", receipt.CountLadder),
					scenario.Const("subagent.context.receipt.scope", receipt.S(budgetScope)),
					scenario.Const("privacy.raw_skill_listing_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_mcp_schemas_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_project_rules_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_memory_index_recorded", receipt.B(false)),
				},
				Writes: []events.Attr{
					events.ReqAttr(events.Sets("subagent.context.startup_ratio_bucket", events.LadderDef(budgetRatioLadder))),
				},
				Hook: budgetEvaluated,
			},
			"subagent.context_component.loaded": component("subagent.context_component.loaded",
				"subagent.context_component.loaded: a context component was loaded eagerly into the subagent at boot"),
			"subagent.context_component.suppressed": component("subagent.context_component.suppressed",
				"subagent.context_component.suppressed: a context component stayed out of the subagent's startup context by policy"),
			"subagent.boot.completed": {
				Event: "subagent.boot.completed",
				Title: "subagent.boot.completed: the subagent boot finished: budget left, components selected and suppressed",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					budgetSubagentID(),
					scenario.Label("status", "subagent.boot.status"),
					scenario.Bucket("startup_context_token_count", "subagent.context.startup_token_bucket", receipt.TokenLadder),
					scenario.Bucket("remaining_context_token_count", "subagent.context.remaining_token_bucket", receipt.TokenLadder),
					scenario.Hash("first_task", "subagent.boot.first_task_hash"),
					scenario.Hash("mitigation", "subagent.boot.mitigation_hash"),
					scenario.Req(scenario.Const("subagent.boot.audit_gap", receipt.S("receipt_proves_startup_budget_and_disclosure_boundary_not_tool_or_skill_choice"))),
					scenario.AfterAny("subagent.boot.context_budget.evaluated").Says("boot completed before any subagent.boot.context_budget.evaluated record"),
				},
				Writes: []events.Attr{
					events.ReqAttr(events.Sets("subagent.context.loaded_token_bucket", events.LadderDef(receipt.TokenLadder))),
					events.ReqAttr(events.Sets("subagent.context.selected_component_count_bucket", events.LadderDef(receipt.CountLadder))),
					events.ReqAttr(events.Sets("subagent.context.suppressed_component_count_bucket", events.LadderDef(receipt.CountLadder))),
				},
				Hook: budgetCompleted,
			},
		},
		NewState: func() any { return &budgetState{} },
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[budgetState](s)
			s.Span.Set("subagent.context.component.loaded_count", receipt.Computed(st.loaded))
			s.Span.Set("subagent.context.component.suppressed_count", receipt.Computed(st.suppressed))
			return nil
		},
	}
}

func init() { scenario.Define("subagent_context_budget", subagentContextBudgetTable) }

// budgetScope names what the receipt covers; the evaluation event carries
// it too, so the schema declares it as our own vocabulary.
const budgetScope = "startup_budget_before_first_task"

// budgetRatioLadder buckets the share of the context window a subagent's
// startup context takes, in percent.
var budgetRatioLadder = events.CustomLadder(receipt.Ladder{Name: "context_window_percent",
	Bounds: []int64{10, 25, 50, 75, 90, 100},
	Labels: []string{"under_10_percent", "under_25_percent", "under_50_percent", "under_75_percent", "under_90_percent", "under_100_percent", "100_percent_plus"}})

// budgetSubagentID writes the digest of the subagent the boot evaluation
// named: component and completion records carry no id of their own.
func budgetSubagentID() scenario.Move {
	return scenario.Move{Attr: events.Attr{Key: "subagent.id_hash", Def: events.DefDigest}, Apply: func(s *scenario.Session, _ view.Value, a *receipt.Attrs) error {
		if v, ok := s.Span.Get("subagent.id_hash"); ok {
			a.Set("subagent.id_hash", v)
		}
		return nil
	}}
}

// budgetBoot is the accounting of the latest subagent boot evaluated.
type budgetBoot struct{ startup, window, selected, suppressedItems, loadedTokens int64 }

// budgetState is the open boot and the components for the root span.
type budgetState struct {
	boot               budgetBoot
	loaded, suppressed int64
}

// budgetEvaluated starts the accounting of one subagent boot. The startup
// context cannot exceed the window it is loaded into.
func budgetEvaluated(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	startup, window := v.Get("subagent_startup_context_token_count").Int(), v.Get("total_context_window_tokens").Int()
	if window <= 0 || startup > window {
		return fmt.Errorf("subagent_startup_context_token_count exceeds total_context_window_tokens")
	}
	a.Set("subagent.context.startup_ratio_bucket", receipt.S(budgetRatioLadder.Bucket(startup*100/window)))
	scenario.StateOf[budgetState](s).boot = budgetBoot{startup: startup, window: window}
	s.Span.Set("subagent.id_hash", receipt.S(v.Get("subagent_id").String().Digest(s.Hash)))
	if p := v.Get("tools_policy"); p.Exists() {
		s.Span.Set("subagent.tools.policy", receipt.S(s.Label(p.String())))
	}
	s.Span.Set("subagent.context.receipt.scope", receipt.S(budgetScope))
	return nil
}

// budgetComponent enforces that a loaded component selected something and
// a suppressed one suppressed something.
func budgetComponent(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
	st, sel, sup := scenario.StateOf[budgetState](s), v.Int("selected_count"), v.Int("suppressed_count")
	st.boot.selected += sel
	st.boot.suppressedItems += sup
	if v.Type == "subagent.context_component.loaded" {
		if sel == 0 {
			return fmt.Errorf("loaded component selected nothing")
		}
		st.loaded++
		st.boot.loadedTokens += v.Int("token_count")
	} else {
		if sup == 0 {
			return fmt.Errorf("suppressed component suppressed nothing")
		}
		st.suppressed++
	}
	return nil
}

// budgetCompleted closes the boot: the startup context matches the one
// evaluated, holds every loaded component, and together with what remains
// fills the window exactly.
func budgetCompleted(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	b := scenario.StateOf[budgetState](s).boot
	startup, remaining := v.Get("startup_context_token_count"), v.Get("remaining_context_token_count")
	if startup.Exists() && startup.Int() != b.startup {
		return fmt.Errorf("startup_context_token_count differs from the boot evaluation")
	}
	if remaining.Exists() && b.startup+remaining.Int() != b.window {
		return fmt.Errorf("startup and remaining context tokens do not add up to the context window")
	}
	if b.loadedTokens > b.startup {
		return fmt.Errorf("loaded components hold more tokens than the startup context")
	}
	a.Set("subagent.context.selected_component_count_bucket", receipt.S(receipt.CountLadder.Bucket(b.selected)))
	a.Set("subagent.context.suppressed_component_count_bucket", receipt.S(receipt.CountLadder.Bucket(b.suppressedItems)))
	a.Set("subagent.context.loaded_token_bucket", receipt.S(receipt.TokenLadder.Bucket(b.loadedTokens)))
	return nil
}
