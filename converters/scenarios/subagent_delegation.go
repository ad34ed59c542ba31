package scenarios

import (
	"fmt"
	"strconv"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/internal/leak"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/receipt"
)

// subagent_delegation proves that bulky tool output stayed in a child
// context: the parent delegates an operation, the child captures its large
// output, and only a bounded summary crosses back. Operations, reasons,
// prompts, outputs, paths, summaries and notes are private and only hashed.
//
// The receipt states that raw child output and raw paths never entered the
// parent, so the converter refuses a log that says otherwise, and one whose
// parent budget does not add up. Each capture sits on its own child span, an
// invoke_agent span under the session's root from the delegation request to
// the summary, so a trace shows where the raw output lived.
func subagentDelegationTable() scenario.Scenario {
	return scenario.Scenario{
		Name:     "subagent_delegation",
		Doc:      "Subagent delegation: bulky tool output kept in a child context, bounded summary returned to the parent",
		SpanName: "agent.session.parent_with_delegation",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"delegate_outputs_over_50_lines", "test-runner", "validation-runner",
		},
		Records: map[string]scenario.Rec{
			"subagent.delegation.requested": {
				Event: "subagent.delegation.requested",
				Title: "subagent.delegation.requested: the parent delegated an operation with bulky output to a subagent",
				Moves: []scenario.Move{
					scenario.SessionIDs(), scenario.AgentName(),
					scenario.Req(scenario.Hash("operation", "subagent.delegation.operation_hash")),
					scenario.Hash("delegation_reason", "subagent.delegation.reason_hash"),
					scenario.Bucket("estimated_output_lines", "subagent.delegation.estimated_output_line_bucket", receipt.CountLadder),
					scenario.Bucket("parent_context_before_tokens", "subagent.delegation.parent_context_before_bucket", receipt.TokenLadder),
					scenario.Label("threshold_policy", "subagent.delegation.threshold_policy"),
					scenario.Int("threshold_lines", "subagent.delegation.threshold_lines"),
					scenario.Const("privacy.raw_parent_prompt_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_operation_output_recorded", receipt.B(false)),
				},
				Writes: []events.Attr{
					events.ReqAttr(events.SetsConst("subagent.delegation.policy", receipt.S("large_tool_output_to_isolated_subagent"))),
					// written when the record names no threshold policy: the key
					// is always there
					events.ReqAttr(events.SetsConst("subagent.delegation.threshold_policy", receipt.S("threshold_not_logged"))),
				},
				Hook: delegationRequested,
			},
			// Emitted by its hook, on the child span of the delegated run.
			"subagent.tool_output.captured": {
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Label("subagent_role", "subagent.role"),
					scenario.Req(scenario.Hash("operation", "subagent.operation_hash")),
					scenario.Int("exit_code", "subagent.tool.exit_code"),
					scenario.Bucket("output_lines", "subagent.tool.output_line_bucket", receipt.CountLadder),
					scenario.Bucket("output_bytes", "subagent.tool.output_byte_bucket", receipt.ByteLadder),
					scenario.Hash("raw_output_sample", "subagent.tool.output_hash"),
					delegationPathHashes("raw_paths", "subagent.tool.path_hashes"),
					scenario.Count("raw_paths", "subagent.tool.path_count"),
					scenario.Const("subagent.tool.output_entered_parent_context", receipt.B(false)),
					scenario.Const("subagent.output_boundary", receipt.S(delegationBoundary)),
					scenario.Const("privacy.raw_tool_output_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_paths_recorded", receipt.B(false)),
					scenario.After("operation", "subagent.delegation.requested", "operation").
						Says("tool output captured for an operation with no subagent.delegation.requested record before it"),
				},
				Hook: delegationCaptured,
			},
			"subagent.summary.returned": {
				Event: "subagent.summary.returned",
				Title: "subagent.summary.returned: only a bounded summary crossed back from the child to the parent",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Hash("raw_summary", "subagent.summary.hash"),
					scenario.Bucket("summary_chars", "subagent.summary.char_bucket", receipt.CountLadder),
					scenario.Int("summary_bullets", "subagent.summary.bullet_count"),
					scenario.Req(scenario.Bool("parent_received_raw_output", "subagent.summary.parent_received_raw_output").Schema(events.Prop{"const": false})),
					scenario.Req(scenario.Bool("parent_received_raw_paths", "subagent.summary.parent_received_raw_paths").Schema(events.Prop{"const": false})),
					scenario.Req(scenario.Const("subagent.summary.boundary", receipt.S("bounded_summary_only"))),
					scenario.Const("privacy.raw_summary_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_child_output_recorded", receipt.B(false)),
					scenario.AfterAny("subagent.tool_output.captured").Says("summary returned with no subagent.tool_output.captured record before it"),
				},
				Hook: delegationSummary,
			},
			"parent.context_budget.evaluated": {
				Event: "parent.context_budget.evaluated",
				Title: "parent.context_budget.evaluated: what the delegation added to the parent's context, against the child's output",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					scenario.Bucket("parent_context_after_tokens", "parent.context.after_bucket", receipt.TokenLadder),
					scenario.Req(scenario.Bucket("parent_added_tokens", "parent.context.added_token_bucket", receipt.TokenLadder)),
					scenario.Req(scenario.Bucket("child_output_tokens", "subagent.child_output_token_bucket", receipt.TokenLadder)),
					scenario.Req(scenario.Const("subagent.delegation.audit_gap", receipt.S("receipt_proves_parent_boundary_not_summary_correctness"))),
					scenario.Const("privacy.raw_parent_note_recorded", receipt.B(false)),
					scenario.AfterAny("subagent.summary.returned").Says("parent budget evaluated with no subagent.summary.returned record before it"),
				},
				Writes: []events.Attr{
					events.ReqAttr(events.Sets("subagent.context_savings.proven", events.DefBool)),
				},
				Hook: delegationBudget,
			},
		},
		Extra:    []string{"subagent.tool_output.captured"},
		NewState: func() any { return &delegationState{requestNS: map[string]int64{}} },
		End: func(s *scenario.Session) error {
			s.Span.Set("subagent.delegation.policy", receipt.S(delegationPolicy))
			st := scenario.StateOf[delegationState](s)
			s.Span.Set("subagent.delegation.count", receipt.Computed(st.requested))
			s.Span.Set("subagent.summary.count", receipt.Computed(st.summaries))
			return nil
		},
	}
}

func init() { scenario.Define("subagent_delegation", subagentDelegationTable) }

// delegationPolicy names the pattern on the root span; the request event
// carries it too, so the schema declares it as our own vocabulary.
const delegationPolicy = "large_tool_output_to_isolated_subagent"

// delegationBoundary says where the child's raw output stayed; the capture
// event and its child span carry it.
const delegationBoundary = "raw_output_isolated_summary_returned"

// delegationPathHashes writes one digest per path of a list, in input order.
func delegationPathHashes(path, key string) scenario.Move {
	return scenario.Move{Path: path, Apply: func(s *scenario.Session, v view.Value, a *receipt.Attrs) error {
		if !v.IsArray() {
			return fmt.Errorf("field %q must be a list", path)
		}
		out := []string{}
		for _, p := range v.Array() {
			if p.Type() != view.String {
				return fmt.Errorf("field %q must be a list of strings", path)
			}
			out = append(out, p.Str().Digest(s.Hash))
		}
		a.Set(key, receipt.L(out))
		return nil
	}}
}

// delegationState keeps, by operation digest, when each delegation was
// requested; the latest parent context before one; the child span a summary
// closes; and the counts for the root span.
type delegationState struct {
	requestNS            map[string]int64
	parentBefore         *int64
	openSpan             int // index+1 in Output.Spans of the latest capture's span
	requested, summaries int64
}

// delegationRequested records the delegation; a log that does not name its
// threshold policy gets an explicit "threshold_not_logged".
func delegationRequested(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	if _, ok := a.Get("subagent.delegation.threshold_policy"); !ok {
		a.Set("subagent.delegation.threshold_policy", receipt.S("threshold_not_logged"))
	}
	a.Set("subagent.delegation.policy", receipt.S(delegationPolicy))
	st, op := scenario.StateOf[delegationState](s), v.Get("operation").String().Digest(s.Hash)
	st.requestNS[op] = v.NS
	st.requested++
	if v := v.Get("parent_context_before_tokens"); v.Exists() {
		n := v.Int()
		st.parentBefore = &n
	}
	return nil
}

// delegationCaptured enforces that the child ran an operation the parent
// delegated, and places the capture on a child span of its own, from the
// delegation request until the summary comes back.
func delegationCaptured(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st, op := scenario.StateOf[delegationState](s), v.Get("operation").String().Digest(s.Hash)
	name := "invoke_agent"
	var span receipt.Attrs
	if s.ID != "" {
		span.Set("session.id", receipt.S(s.ID))
	}
	if s.Conversation != "" {
		span.Set("gen_ai.conversation.id", receipt.S(s.Conversation))
	}
	span.Set("gen_ai.operation.name", receipt.S("invoke_agent"))
	if role, ok := a.Get("subagent.role"); ok {
		span.Set("gen_ai.agent.name", role)
		span.Set("subagent.role", role)
		if v.Get("subagent_role").String().Fits(leak.Label) {
			name += " " + role.Str
		}
	}
	span.Set("subagent.operation_hash", receipt.S(op))
	span.Set("subagent.output_boundary", receipt.S(delegationBoundary))
	key := "delegation:" + strconv.Itoa(v.Line)
	start := st.requestNS[op]
	if start == 0 {
		start = v.NS
	}
	s.Out.Spans = append(s.Out.Spans, converters.Span{Key: key, Name: name, Kind: 1, Start: start, End: v.NS, Attrs: span})
	st.openSpan = len(s.Out.Spans)
	s.Emit(receipt.Event{Name: "subagent.tool_output.captured", Time: v.Time, Line: v.Line, Span: key, Attrs: *a})
	return nil
}

// delegationSummary enforces the boundary itself: only the summary crossed.
func delegationSummary(s *scenario.Session, v *scenario.Values, _ *receipt.Attrs) error {
	if v.Get("parent_received_raw_output").Bool() {
		return fmt.Errorf("raw child output crossed into the parent context")
	}
	if v.Get("parent_received_raw_paths").Bool() {
		return fmt.Errorf("raw child paths crossed into the parent context")
	}
	st := scenario.StateOf[delegationState](s)
	st.summaries++
	// The summary closes the child span of the latest capture.
	if i := st.openSpan; i > 0 && v.NS > s.Out.Spans[i-1].End {
		s.Out.Spans[i-1].End = v.NS
	}
	return nil
}

// delegationBudget enforces that the parent's context after the summary is
// its context before the delegation plus what was added, and says whether
// the delegation saved context: the parent added less than the child's
// output would have cost.
func delegationBudget(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st := scenario.StateOf[delegationState](s)
	added, child := v.Get("parent_added_tokens").Int(), v.Get("child_output_tokens").Int()
	if after := v.Get("parent_context_after_tokens"); after.Exists() && st.parentBefore != nil &&
		*st.parentBefore+added != after.Int() {
		return fmt.Errorf("parent_context_after_tokens is not the context before the delegation plus parent_added_tokens")
	}
	a.Set("subagent.context_savings.proven", receipt.B(added < child))
	return nil
}

// The schema of subagent.tool_output.captured, which this file writes (see events/eventschema.go).
var _ = events.DeclareEvent("subagent.tool_output.captured", events.EventDecl{
	Title: "subagent.tool_output.captured: the child subagent captured the operation's output; it stayed out of the parent",
	Keys: []events.Attr{
		events.Sets("gen_ai.conversation.id", events.DefID),
		events.Sets("privacy.raw_paths_recorded", events.DefNever),
		events.Sets("privacy.raw_tool_output_recorded", events.DefNever),
		events.Sets("session.id", events.DefID),
		events.ReqAttr(events.Sets("subagent.operation_hash", events.DefDigest)),
		events.ReqAttr(events.SetsConst("subagent.output_boundary", receipt.S("raw_output_isolated_summary_returned"))),
		events.Sets("subagent.role", events.DefLabel),
		events.SetsProp("subagent.tool.exit_code", events.Prop{"type": "integer"}),
		events.Sets("subagent.tool.output_byte_bucket", events.LadderDef(receipt.ByteLadder)),
		events.ReqAttr(events.SetsConst("subagent.tool.output_entered_parent_context", receipt.B(false))),
		events.Sets("subagent.tool.output_hash", events.DefDigest),
		events.Sets("subagent.tool.output_line_bucket", events.LadderDef(receipt.CountLadder)),
		events.Sets("subagent.tool.path_count", events.DefCount),
		events.SetsProp("subagent.tool.path_hashes", events.Prop{"items": events.Ref(events.DefDigest), "type": "array"}),
	},
})
