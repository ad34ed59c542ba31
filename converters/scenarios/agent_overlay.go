package scenarios

import (
	"fmt"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/receipt"
)

// agent_overlay proves how a shared AGENTS.md base and agent-specific
// overlays (AGENTS.cursor.md, AGENTS.codex.md, ...) were composed for one
// agent: which base loaded, which target overlay loaded after it, in what
// order, under which composition and fallback policy, and which non-target
// overlays were suppressed. A record with load_order 0 is a discovered
// candidate that was not loaded. Instruction text, free-text reasons and
// workspace names are raw: only hashed.
func agentOverlayTable() scenario.Scenario {
	return scenario.Scenario{
		Name:     "agent_overlay",
		Doc:      "AGENTS.md base + agent overlay composition: load order, target agent, suppressed non-target overlays",
		SpanName: "agent.session.agent_overlay",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"AGENTS.claude.md", "AGENTS.codex.md", "AGENTS.cursor.md", "agent_overlay_candidate",
			"base_only_when_overlay_missing", "base_then_agent_overlay", "directory_rules", "file_access",
			"native-file-discovery", "overlay_replaces_base",
		},
		Records: map[string]scenario.Rec{
			"session.start": overlaySessionStart,
			"agent_context.loaded": {
				Emits: []string{"context.input.loaded", "context.input.candidate_suppressed"},
				Moves: []scenario.Move{
					scenario.Use("delivered_text"), // its identity, never the text
					scenario.Req(scenario.Const("context.input.kind", receipt.S("agent_instructions"))),
					scenario.Req(scenario.Move{Path: "source_path", Pass: true, Apply: sourcePath}), // public overlay names are tokens; other paths are only hashed
					scenario.Req(scenario.Label("source_role", "context.input.source.role")),
					scenario.Hash("source_text", "context.input.source.bytes_hash"),
					scenario.SessionIDs(), scenario.AgentName(),
					scenario.Label("loaded_by", "context.input.loaded_by"),
					scenario.Req(scenario.Label("activation", "context.input.activation")),
					scenario.Label("scope", "context.input.scope"),
					scenario.Req(scenario.Label("target_agent", "context.input.applies_to")),
					scenario.Req(scenario.Int("load_order", "context.input.load_order")),
					scenario.Req(scenario.Label("composition_policy", "context.input.composition_policy")),
					scenario.Req(scenario.Label("fallback_policy", "context.input.fallback_policy")),
					scenario.Label("why_loaded", "context.input.why_loaded"),
					scenario.Label("expected_benefit", "context.input.expected_benefit"),
					scenario.Const("context.input.duplicate.dedupe_scope", receipt.S("conversation")),
					scenario.Const("privacy.raw_context_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_prompt_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_tool_args_recorded", receipt.B(false)),
				},
				Writes: append([]events.Attr{
					events.Sets("workspace.name", events.DefDigest).Doc("digest of the workspace name: private names are never copied"),
					events.SetsConst("context.input.scope", receipt.S("repo")),
					events.SetsConst("context.input.loaded_by", receipt.S("overlay-selector")),
					events.Sets("context.input.delivered.hash", events.DefDigest),
					events.Sets("context.input.delivered.truncated", events.DefBool),
					events.SetsConst("context.input.duplicate.suppression_policy", receipt.S("keep_distinct_source_roles_in_order")),
					events.ReqAttr(events.SetsConst("context.input.duplicate.role", receipt.S("selected"))),
				}, sourcePathWrites...),
				Hook: overlayRecord,
			},
		},
		NewState: func() any { return &overlayState{} },
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[overlayState](s)
			if st.loaded > 0 && !st.base {
				return fmt.Errorf("instructions were loaded but no base file: the composition has nothing to overlay")
			}
			s.Span.Set("context.overlay.base_loaded", receipt.B(st.base))
			s.Span.Set("context.overlay.target_overlay_loaded", receipt.B(st.target))
			s.Span.Set("context.overlay.loaded_count", receipt.Computed(st.loaded))
			s.Span.Set("context.overlay.suppressed_count", receipt.Computed(st.suppressed))
			if p := st.composition; p != "" {
				s.Span.Set("context.input.composition_policy", receipt.S(p))
			}
			return nil
		},
	}
}

func init() { scenario.Define("agent_overlay", agentOverlayTable) }

// A loaded overlay has a position in the load order; a suppressed
// candidate delivered nothing and says why (overlayRecord).
var _ = events.DeclareEvent("context.input.loaded", events.EventDecl{Adds: true, Narrow: []events.Attr{
	events.SetsProp("context.input.load_order", events.Prop{"type": "integer", "minimum": 1}.Doc("1-based position in the composed instructions")),
}})

var _ = events.DeclareEvent("context.input.candidate_suppressed", events.EventDecl{
	Adds:  true,
	Title: "context.input.candidate_suppressed: an instruction file was discovered but deliberately not loaded (e.g. an overlay for another agent)",
	Keys:  []events.Attr{events.Sets("context.input.suppression.reason", events.DefLabel)},
	Narrow: []events.Attr{
		events.SetsProp("context.input.load_order", events.Prop{"const": 0}.Doc("0: discovered, not in the load order")),
		events.SetsProp("context.input.delivered.hash", events.Prop{"const": "none"}.Doc("none: the candidate was not delivered")),
		events.SetsConst("context.input.delivered.truncated", receipt.B(false)),
		events.SetsConst("context.input.duplicate.role", receipt.S("suppressed")),
		events.SetsConst("context.input.duplicate.suppression_policy", receipt.S("suppress_overlay_for_non_target_agent")),
	},
})

// Source roles the composition knows.
const (
	roleBase    = "base"
	roleOverlay = "agent_overlay"
)

// overlayState is the composition so far: the workspace digest, the policy
// every record names, the latest load order, whether the base and the target
// overlay loaded, and the counts for the root span.
type overlayState struct {
	workspace, composition string
	lastOrder              int64
	base, target           bool
	loaded, suppressed     int64
}

// overlayRecord writes one loaded input or suppressed candidate and enforces
// the composition: the base loads first, at most one overlay loads and only
// for the session's agent, load orders increase, every record names the same
// composition policy, a suppressed candidate delivers nothing, and a
// candidate suppressed as "wrong agent" really targets another agent.
func overlayRecord(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st := scenario.StateOf[overlayState](s)
	if ws := st.workspace; ws != "" {
		a.Set("workspace.name", receipt.S(ws))
	}
	order := v.Get("load_order").Int()
	role := events.AttrStr(a, "context.input.source.role")
	target := events.AttrStr(a, "context.input.applies_to")
	agent := s.Agent
	policy := events.AttrStr(a, "context.input.composition_policy")
	if prev := st.composition; prev != "" && prev != policy {
		return fmt.Errorf("composition_policy differs from an earlier record of the same composition")
	}
	st.composition = policy
	if events.AttrStr(a, "context.input.scope") == "" {
		a.Set("context.input.scope", receipt.S("repo"))
	}
	delivered := v.Get("delivered_text")
	if delivered.Exists() && delivered.Type() != view.String {
		return fmt.Errorf("field %q must be a string", "delivered_text")
	}
	if delivered.Type() == view.String && !delivered.Str().Empty() {
		a.Set("context.input.delivered.hash", receipt.S(delivered.Str().Digest(s.Hash)))
	}

	if order == 0 { // a discovered candidate that was not loaded
		if !delivered.Str().Empty() {
			return fmt.Errorf("a suppressed candidate (load_order 0) has delivered_text")
		}
		if events.AttrStr(a, "context.input.activation") == "not_loaded_wrong_agent" && (target == agent || target == "all") {
			return fmt.Errorf("candidate suppressed as wrong agent targets the session agent")
		}
		if events.AttrStr(a, "context.input.loaded_by") == "" {
			a.Set("context.input.loaded_by", receipt.S("overlay-selector"))
		}
		a.Set("context.input.delivered.hash", receipt.S("none")) // nothing was delivered
		a.Set("context.input.delivered.truncated", receipt.B(false))
		a.Set("context.input.suppression.reason", receipt.S(events.AttrStr(a, "context.input.activation")))
		a.Set("context.input.duplicate.suppression_policy", receipt.S("suppress_overlay_for_non_target_agent"))
		a.Set("context.input.duplicate.role", receipt.S("suppressed"))
		st.suppressed++
		s.Emit(receipt.Event{Name: "context.input.candidate_suppressed", Time: v.Time, Line: v.Line, Attrs: *a})
		return nil
	}

	if delivered.Str().Empty() {
		return fmt.Errorf("a loaded input (load_order above 0) has no delivered_text")
	}
	if order < 1 {
		return fmt.Errorf("load_order must be 0 (not loaded) or a positive position")
	}
	if order <= st.lastOrder {
		return fmt.Errorf("load_order does not increase: inputs were not loaded in the recorded order")
	}
	st.lastOrder = order
	switch role {
	case roleBase:
		if st.base {
			return fmt.Errorf("a second base file was loaded")
		}
		if st.target {
			return fmt.Errorf("the base file was loaded after the agent overlay")
		}
		st.base = true
	case roleOverlay:
		if agent != "" && target != agent {
			return fmt.Errorf("an overlay for another agent was loaded into this session")
		}
		if st.target {
			return fmt.Errorf("a second agent overlay was loaded")
		}
		if !st.base {
			return fmt.Errorf("the agent overlay was loaded before any base file")
		}
		st.target = true
	}
	if events.AttrStr(a, "context.input.loaded_by") == "" {
		a.Set("context.input.loaded_by", receipt.S(events.AttrStr(a, "context.input.activation")))
	}
	src := v.Get("source_text")
	truncated := src.Type() == view.String && isClipOf(delivered.Str(), src.Str())
	a.Set("context.input.delivered.truncated", receipt.B(truncated))
	a.Set("context.input.duplicate.suppression_policy", receipt.S("keep_distinct_source_roles_in_order"))
	a.Set("context.input.duplicate.role", receipt.S("selected"))
	st.loaded++
	s.Emit(receipt.Event{Name: "context.input.loaded", Time: v.Time, Line: v.Line, Attrs: *a})
	return nil
}

// overlaySessionStart extends the shared session.start mapping: workspace
// names are private, so every event carries their digest.
var overlaySessionStart = scenario.Rec{Moves: append(append([]scenario.Move(nil), scenario.SessionStart.Moves...),
	scenario.Move{Path: "workspace", Apply: func(s *scenario.Session, v view.Value, _ *receipt.Attrs) error {
		scenario.StateOf[overlayState](s).workspace = v.String().Digest(s.Hash)
		return nil
	}})}
