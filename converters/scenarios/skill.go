package scenarios

import (
	"fmt"
	"strings"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/receipt"
)

// skill records skills as prompt-like context rather than tool calls: a
// manual slash command, a hook-driven load and a duplicate candidate
// suppressed from another scanner root each become context.skill.invoked
// with activation, hook event, skill identity (digests: skill, plugin and
// path names are private and guessable), source and delivered hashes and the
// duplicate-suppression identity. The dedupe key is over the skill,
// activation, hook event and canonical delivered text, so a suppressed
// candidate is provably the same skill prompt as the load it defers to.
// candidate_count is streaming: the candidates with the event's key seen so
// far, this one included (the last event of a key carries the total).
func skillTable() scenario.Scenario {
	return scenario.Scenario{
		Name:     "skill",
		Doc:      "Skill invocations as context: manual, hook-driven and suppressed duplicate skill loads",
		SpanName: "agent.session.skill",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"cowork", "git:post-commit", "git:pre-push", "hook_post_commit", "hook_pre_push", "manual_slash_command", "post_commit",
			"pre_push",
		},
		Records: map[string]scenario.Rec{
			"skill.invoked": {
				Emits: []string{"context.skill.invoked"},
				Moves: []scenario.Move{
					scenario.Req(scenario.Const("context.input.kind", receipt.S("skill"))),
					scenario.Req(scenario.Hash("skill_id", "context.skill.id")),
					scenario.Hash("skill_name", "context.skill.name"),
					scenario.Hash("plugin", "context.skill.plugin"),
					scenario.Req(scenario.Move{Path: "source_path", Apply: skillPath}),
					scenario.Hash("source_text", "context.input.source.bytes_hash"),
					scenario.Req(scenario.Hash("delivered_text", "context.input.delivered.hash")),
					scenario.SessionIDs(),
					scenario.Label("loaded_by", "context.input.loaded_by"),
					scenario.Req(scenario.Label("activation", "context.input.activation")),
					scenario.Label("hook_event", "context.input.hook_event"),
					scenario.Label("trigger", "context.input.why_loaded"),
					scenario.Label("expected_benefit", "context.input.expected_benefit"),
					scenario.Label("eval_gap", "context.input.eval_gap"),
					scenario.Label("suppression_policy", "context.input.duplicate.suppression_policy"),
					scenario.Label("duplicate_role", "context.input.duplicate.role").Schema(skillRoles),
					scenario.Const("privacy.raw_context_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_prompt_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_tool_args_recorded", receipt.B(false)),
				},
				Writes: []events.Attr{
					// skillPath's
					events.Sets("context.input.source.path", events.DefDigest).Doc("digest of the skill file path (kept under the reference key; same value as path_hash)"),
					events.Sets("context.input.source.path_hash", events.DefDigest),
					events.SetsProp("context.input.source.root", events.Enum("user", "plugin", "repo", "other")),
					// skillInvoked's
					events.SetsConst("context.input.hook_event", receipt.S("none")),
					events.SetsProp("context.input.loaded_by", events.Enum("hook", "skill-runtime")),
					events.SetsProp("context.input.scope", events.Enum("plugin", "repo", "user", "unknown")),
					events.Sets("context.input.applies_to", events.DefID),
					events.SetsConst("context.input.duplicate.suppression_policy", receipt.S(policySuppressEqual)),
					events.SetsProp("context.input.duplicate.dedupe_key", events.Prop{"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,127}:(sha256|hmac-sha256):[0-9a-f]{64}$"}.Doc("<conversation>:<digest over skill id digest, activation, hook event and canonical delivered digest>")),
					events.SetsConst("context.input.duplicate.dedupe_scope", receipt.S("conversation")),
					events.ReqAttr(events.SetsProp("context.input.duplicate.role", skillRoles)),
					events.Sets("context.input.duplicate.candidate_count", events.DefCount).Doc("candidates with this dedupe key seen so far, this one included; the last event of a key carries the total"),
				},
				Hook: skillInvoked,
			},
		},
		NewState: func() any { return &skillState{selected: map[string]bool{}, candidates: map[string]int64{}} },
		End:      skillEnd,
	}
}

func init() { scenario.Define("skill", skillTable) }

// skillRoles are the duplicate roles of a skill load.
var skillRoles = events.Enum("selected", "suppressed", "duplicate")

// skillPath writes the path's digest and, as a categorical value, the kind
// of root it was found under (the path itself is never written).
func skillPath(s *scenario.Session, v view.Value, a *receipt.Attrs) error {
	p := v.String()
	a.Set("context.input.source.path", receipt.S(p.Digest(s.Hash)))
	a.Set("context.input.source.path_hash", receipt.S(p.Digest(s.Hash)))
	root := "other"
	switch {
	case p.HasPrefix("~/"), p.HasPrefix("/"):
		root = "user"
	case p.Contains("/plugins/"):
		root = "plugin"
	case p.HasPrefix(".claude/skills/"), p.HasPrefix(".agents/skills/"), p.HasPrefix("skills/"):
		root = "repo"
	}
	a.Set("context.input.source.root", receipt.S(root))
	return nil
}

// skillInvoked derives the loader, scope and dedupe identity and enforces:
// a hook activation names its hook event and a manual one names none; a
// suppressed or duplicate load follows a selected load with the same key;
// a second selected load of a key the policy suppresses is an error.
func skillInvoked(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	act := events.AttrStr(a, "context.input.activation")
	hook := events.AttrStr(a, "context.input.hook_event")
	if hook == "" {
		hook = "none"
		a.Set("context.input.hook_event", receipt.S(hook))
	}
	isHook := strings.HasPrefix(act, "hook_")
	switch {
	case isHook && hook == "none":
		return fmt.Errorf("hook activation without a hook_event")
	case !isHook && hook != "none":
		return fmt.Errorf("hook_event given for a non-hook activation")
	}
	if events.AttrStr(a, "context.input.loaded_by") == "" {
		a.Set("context.input.loaded_by", receipt.S(map[bool]string{true: "hook", false: "skill-runtime"}[isHook]))
	}
	a.Set("context.input.scope", receipt.S(map[string]string{"plugin": "plugin", "repo": "repo", "user": "user"}[events.AttrStr(a, "context.input.source.root")]))
	if events.AttrStr(a, "context.input.scope") == "" {
		a.Set("context.input.scope", receipt.S("unknown"))
	}
	if s.Agent != "" {
		a.Set("context.input.applies_to", receipt.S(s.Agent))
	}
	scope := s.Conversation
	if scope == "" {
		scope = s.ID
	}
	if scope == "" {
		scope = "unknown_session"
	}
	delivered := v.Get("delivered_text").String()
	key := scope + ":" + s.Hash.Text(strings.Join([]string{
		v.Get("skill_id").String().Digest(s.Hash), act, hook, delivered.CanonicalDigest(s.Hash)}, "\x00"))
	policy := events.AttrStr(a, "context.input.duplicate.suppression_policy")
	if policy == "" {
		policy = policySuppressEqual
		a.Set("context.input.duplicate.suppression_policy", receipt.S(policy))
	}
	role := events.AttrStr(a, "context.input.duplicate.role")
	st := scenario.StateOf[skillState](s)
	seen := st.selected[key]
	switch role {
	case "", "selected":
		if seen && policy == policySuppressEqual {
			return fmt.Errorf("a second selected load of a skill prompt the policy suppresses")
		}
		role = "selected"
		st.selected[key] = true
	case "suppressed", "duplicate":
		if !seen {
			return fmt.Errorf("duplicate_role %s without an earlier selected load of the same skill prompt", role)
		}
		st.suppressed++
	default:
		return fmt.Errorf("unknown duplicate_role")
	}
	a.Set("context.input.duplicate.dedupe_key", receipt.S(key))
	a.Set("context.input.duplicate.dedupe_scope", receipt.S("conversation"))
	a.Set("context.input.duplicate.role", receipt.S(role))
	st.candidates[key]++
	a.Set("context.input.duplicate.candidate_count", receipt.Computed(st.candidates[key]))
	st.invoked++
	if isHook {
		st.hook++
	}
	s.Emit(receipt.Event{Name: "context.skill.invoked", Time: v.Time, Line: v.Line, Attrs: *a})
	return nil
}

// skillState keeps the selected loads and the loads per dedupe key (digests
// and the conversation scope only), and the counts for the root span.
type skillState struct {
	selected                  map[string]bool
	candidates                map[string]int64
	invoked, hook, suppressed int64
}

func skillEnd(s *scenario.Session) error {
	st := scenario.StateOf[skillState](s)
	s.Span.Set("context.skill.invoked_count", receipt.Computed(st.invoked))
	s.Span.Set("context.skill.hook_driven_count", receipt.Computed(st.hook))
	s.Span.Set("context.skill.suppressed_count", receipt.Computed(st.suppressed))
	return nil
}
