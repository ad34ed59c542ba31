package scenarios

import (
	"fmt"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/receipt"
)

// compaction proves what a long-session compaction did to each context item
// (preserved, summarized, dropped, or kept as a hash only) and that the
// completion's item counts add up to those decisions. Item ids and sources
// are hashed (a conventional instruction-file name such as CLAUDE.md is
// also written in clear); objectives, item texts and summaries are raw and
// only ever hashed.
func compactionTable() scenario.Scenario {
	return scenario.Scenario{
		Name:     "compaction",
		Doc:      "Context compaction: per-item decisions (preserved, summarized, dropped, hash only) and item counts that add up",
		SpanName: "agent.session.context.compaction",
		// the values of its label fields it knows, written in clear (others as digests)
		Labels: []string{
			"archived", "auto_compact_threshold", "bulk_log_output", "context_window_pressure", "debugging_method",
			"mcp_memory", "near_limit", "prior_decision", "project_invariants",
			"reconstructable_from_command_and_artifact_hash", "system_instructions",
		},
		Records: map[string]scenario.Rec{
			"context.compaction.start": {
				Event: "context.compaction.started",
				Title: "context.compaction.started: a compaction began under context-window pressure",
				Moves: []scenario.Move{
					scenario.Use("compaction_id"),
					scenario.SessionIDs(), scenario.AgentName(),
					scenario.Label("reason", "context.compaction.reason"),
					scenario.Label("trigger", "context.compaction.trigger"),
					scenario.Bucket("token_count_before", "context.compaction.token_count.before_bucket", receipt.TokenLadder),
					scenario.Bucket("token_threshold", "context.compaction.token_threshold_bucket", receipt.TokenLadder),
					scenario.Label("window_bucket", "context.compaction.window_bucket"),
					scenario.Hash("raw_recent_task", "context.compaction.objective.before_hash"),
					scenario.Const("privacy.raw_prompt_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_context_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_tool_output_recorded", receipt.B(false)),
				},
				Writes: []events.Attr{
					events.ReqAttr(events.Sets("context.compaction.id_hash", events.DefDigest)),
				},
				Hook: compactionStart,
			},
			"context.item.evaluated": {
				Event: "context.compaction.item.evaluated",
				Title: "context.compaction.item.evaluated: one context item's compaction decision",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					compactionID,
					scenario.Req(scenario.Hash("item_id", "context.item.id_hash")),
					scenario.Label("kind", "context.item.kind"),
					{Path: "source", Apply: compactionItemSource},
					scenario.Label("semantic_role", "context.item.semantic_role"),
					scenario.Req(scenario.Label("action", "context.item.action").Schema(events.Enum("preserved", "summarized", "dropped", "preserved_hash_only"))),
					scenario.Bucket("token_count", "context.item.token_count_bucket", receipt.TokenLadder),
					scenario.Bucket("summary_token_count", "context.item.summary_token_count_bucket", receipt.TokenLadder),
					scenario.Label("drop_reason", "context.item.drop_reason"),
					scenario.Hash("raw_text", "context.item.raw_text_hash"),
					scenario.Const("context.item.raw_text_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_context_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_tool_output_recorded", receipt.B(false)),
				},
				Writes: []events.Attr{
					events.ReqAttr(events.Sets("context.item.reconstructable_from_hash", events.DefBool)),
					events.SetsProp("context.item.source", events.AnyOf(events.Enum("AGENTS.md", "AGENT.md", "CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md", "GEMINI.md", "CONVENTIONS.md", ".cursorrules", ".windsurfrules", ".github/copilot-instructions.md"), events.Ref(events.DefDigest)).Doc("a conventional instruction-file name in clear, else the digest")),
					events.Sets("context.item.source.hash", events.DefDigest),
				},
				Hook: compactionItem,
			},
			"context.compaction.completed": {
				Event: "context.compaction.completed",
				Title: "context.compaction.completed: the compaction finished; its item counts add up to the item decisions",
				Moves: []scenario.Move{
					scenario.SessionIDs(),
					compactionID,
					scenario.Bucket("token_count_after", "context.compaction.token_count.after_bucket", receipt.TokenLadder),
					scenario.Hash("summary_hash_basis", "context.compaction.summary.hash"),
					scenario.Hash("objective_hash_basis", "context.compaction.objective.after_hash"),
					scenario.Req(scenario.Int("dropped_count", "context.compaction.items.dropped")),
					scenario.Req(scenario.Int("summarized_count", "context.compaction.items.summarized")),
					scenario.Req(scenario.Int("preserved_count", "context.compaction.items.preserved")),
					scenario.Const("context.compaction.audit_gap", receipt.S("cannot_prove_semantic_equivalence_without_eval")),
					scenario.Const("privacy.raw_summary_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_prompt_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_context_recorded", receipt.B(false)),
					scenario.Const("privacy.raw_tool_output_recorded", receipt.B(false)),
				},
				Writes: []events.Attr{
					events.ReqAttr(events.Sets("context.compaction.item.count", events.DefCount)),
					events.ReqAttr(events.SetsConst("context.compaction.item_counts_add_up", receipt.B(true))),
					events.Sets("context.compaction.items.preserved_hash_only", events.DefCount),
					events.Sets("context.compaction.token_count.reduced", events.DefBool),
				},
				Hook: compactionCompleted,
			},
		},
		NewState: func() any { return &compactionState{} },
		End: func(s *scenario.Session) error {
			st := scenario.StateOf[compactionState](s)
			s.Span.Set("context.compaction.count", receipt.Computed(st.compactions))
			s.Span.Set("context.compaction.open_at_end", receipt.B(st.open))
			return nil
		},
	}
}

func init() { scenario.Define("compaction", compactionTable) }

// compactionActions are the decisions a compaction may take for an item.
var compactionActions = []string{"preserved", "summarized", "dropped", "preserved_hash_only"}

// compactionState is the open compaction: its id digest, its items by
// action, the token count before it; and the compactions for the root span.
type compactionState struct {
	open         bool
	id           string
	items        map[string]int64
	tokensBefore *int64
	compactions  int64
}

// compactionID writes the open compaction's id on the events inside it.
var compactionID = scenario.Move{Attr: events.Attr{Key: "context.compaction.id_hash", Def: events.DefDigest}, Apply: func(s *scenario.Session, _ view.Value, a *receipt.Attrs) error {
	if id := scenario.StateOf[compactionState](s).id; id != "" {
		a.Set("context.compaction.id_hash", receipt.S(id))
	}
	return nil
}}

// compactionStart opens a compaction. Its id is the record's compaction_id
// when the log has one, else derived from the session and start time, so
// every event of one compaction joins on it.
func compactionStart(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st := scenario.StateOf[compactionState](s)
	if st.open {
		return fmt.Errorf("compaction started while another compaction is still open")
	}
	id := s.Hash.Text("context.compaction:" + s.ID + ":" + v.Time)
	if c := v.Get("compaction_id"); c.Type() == view.String {
		id = c.Str().Digest(s.Hash)
	}
	a.Set("context.compaction.id_hash", receipt.S(id))
	*st = compactionState{open: true, id: id, items: map[string]int64{}, compactions: st.compactions + 1}
	if b := v.Get("token_count_before"); b.Exists() {
		n := b.Int()
		st.tokensBefore = &n
	}
	return nil
}

// compactionItemSource writes the source in clear only when it is a
// conventional instruction-file name; any other source (a path, a URI, a
// command) is written as its digest in both attributes.
func compactionItemSource(s *scenario.Session, v view.Value, a *receipt.Attrs) error {
	src, d := v.String(), v.String().Digest(s.Hash)
	if p, ok := src.TrimPrefix("./").Word(events.PublicInstructionPathList...); ok {
		a.Set("context.item.source", receipt.S(p))
	} else {
		a.Set("context.item.source", receipt.S(d))
	}
	a.Set("context.item.source.hash", receipt.S(d))
	return nil
}

// compactionItem enforces the action vocabulary and the reasons that go with
// it, and counts each decision.
func compactionItem(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st := scenario.StateOf[compactionState](s)
	if !st.open {
		return fmt.Errorf("item evaluated outside a compaction (no open context.compaction.start)")
	}
	act, known := v.Get("action").String().Word(compactionActions...)
	if !known {
		return fmt.Errorf("action must be preserved, summarized, dropped or preserved_hash_only")
	}
	if act == "dropped" && v.Get("drop_reason").String().Empty() {
		return fmt.Errorf("dropped item without drop_reason")
	}
	if act == "summarized" && !v.Get("summary_token_count").Exists() {
		return fmt.Errorf("summarized item without summary_token_count")
	}
	st.items[act]++
	a.Set("context.item.reconstructable_from_hash", receipt.B(act == "dropped" || act == "preserved_hash_only"))
	return nil
}

// compactionCompleted enforces that the item counts add up: dropped and
// summarized as evaluated, preserved counting both preserved and
// preserved_hash_only items.
func compactionCompleted(s *scenario.Session, v *scenario.Values, a *receipt.Attrs) error {
	st := scenario.StateOf[compactionState](s)
	if !st.open {
		return fmt.Errorf("compaction completed without an open context.compaction.start")
	}
	n := func(f string) int64 { return v.Get(f).Int() }
	kept := st.items["preserved"] + st.items["preserved_hash_only"]
	switch {
	case n("dropped_count") != st.items["dropped"]:
		return fmt.Errorf("item counts do not add up: dropped_count differs from the dropped items evaluated")
	case n("summarized_count") != st.items["summarized"]:
		return fmt.Errorf("item counts do not add up: summarized_count differs from the summarized items evaluated")
	case n("preserved_count") != kept:
		return fmt.Errorf("item counts do not add up: preserved_count differs from the preserved and preserved_hash_only items evaluated")
	}
	total := kept + st.items["dropped"] + st.items["summarized"]
	a.Set("context.compaction.item.count", receipt.Computed(total))
	a.Set("context.compaction.items.preserved_hash_only", receipt.Computed(st.items["preserved_hash_only"]))
	a.Set("context.compaction.item_counts_add_up", receipt.B(true))
	if after := v.Get("token_count_after"); after.Exists() && st.tokensBefore != nil {
		a.Set("context.compaction.token_count.reduced", receipt.B(after.Int() < *st.tokensBefore))
	}
	st.open = false
	return nil
}
