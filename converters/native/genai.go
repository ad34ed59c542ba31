package native

import (
	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/receipt"
)

// contextChange is a receipt event that changes what an agent's context
// holds: a skill's instructions loaded, or a compaction.
type contextChange struct {
	span    string // the event's span key
	skill   string // the skill loaded; "" for a compaction
	full    bool   // a compaction that summarizes the history (not a microcompaction)
	atSpans int    // spans that existed when it happened
}

// noteContext remembers, in input order, the events the GenAI span
// attributes are derived from (genAISpans): every native reader writes them
// through emit, so none has to say so itself.
func (c *Base) noteContext(span, name string, a receipt.Attrs) {
	n := 0
	if c.Out != nil {
		n = len(c.Out.Spans)
	}
	switch name {
	case "context.skill.invoked":
		skill, ok := a.Get("context.skill.name")
		if !ok {
			skill, _ = a.Get("context.skill.id")
		}
		if skill.Str != "" {
			c.context = append(c.context, contextChange{span: span, skill: skill.Str, atSpans: n})
		}
	case "context.compaction.started":
		reason, _ := a.Get("context.compaction.reason")
		c.context = append(c.context, contextChange{span: span, full: reason.Str != "microcompact_boundary", atSpans: n})
	}
}

// genAISpans writes the GenAI attributes that need the whole run:
//
//   - gen_ai.skills on each invoke_agent span: the skills loaded into that
//     agent's context, in first-load order, compacted once a compaction of
//     that agent came after their last load;
//   - gen_ai.conversation.compacted (true, never false: the conventions make
//     it a positive indicator) on each chat span that began after a
//     compaction of its agent, microcompactions included;
//   - gen_ai.skill.name on the execute_tool span of a call that loaded a
//     skill (Claude Code's Skill tool), as the conventions qualify it;
//   - gen_ai.conversation.id on the root agent's chat spans;
//   - error.type tool_error on failed execute_tool spans.
func (c *Base) genAISpans(out *converters.Output) {
	index := make(map[string]int, len(out.Spans))
	for i, sp := range out.Spans {
		index[sp.Key] = i
	}
	agentOf := func(key string) string {
		for key != "" {
			i, ok := index[key]
			if !ok {
				return ""
			}
			if op, _ := out.Spans[i].Attrs.Get("gen_ai.operation.name"); op.Str == "invoke_agent" {
				return key
			}
			key = out.Spans[i].Parent
		}
		return ""
	}
	skills := map[string][]converters.Skill{}
	compactedFrom := map[string]int{} // agent -> spans existing at its first compaction
	for _, ch := range c.context {
		if i, ok := index[ch.span]; ok && ch.skill != "" {
			if op, _ := out.Spans[i].Attrs.Get("gen_ai.operation.name"); op.Str == "execute_tool" {
				out.Spans[i].Attrs.Set("gen_ai.skill.name", receipt.S(ch.skill))
			}
		}
		agent := agentOf(ch.span)
		list := skills[agent]
		if ch.skill == "" {
			if _, ok := compactedFrom[agent]; !ok {
				compactedFrom[agent] = ch.atSpans
			}
			for i := range list {
				list[i].Compacted = list[i].Compacted || ch.full
			}
			continue
		}
		found := false
		for i := range list {
			if list[i].Name == ch.skill {
				list[i].Compacted, found = false, true
			}
		}
		if !found {
			skills[agent] = append(list, converters.Skill{Name: ch.skill})
		}
	}
	out.Skills = skills[""]
	for i := range out.Spans {
		sp := &out.Spans[i]
		op, _ := sp.Attrs.Get("gen_ai.operation.name")
		switch op.Str {
		case "invoke_agent":
			if s := skills[sp.Key]; s != nil {
				if sp.Rare == nil {
					sp.Rare = &converters.SpanRare{}
				}
				sp.Rare.Skills = s
			}
			if sp.Error { // a subagent the log says failed
				sp.Attrs.Set("error.type", receipt.S("agent_error"))
			}
		case "chat":
			agent := agentOf(sp.Parent)
			if from, ok := compactedFrom[agent]; ok && i >= from {
				sp.Attrs.Set("gen_ai.conversation.compacted", receipt.B(true))
			}
			if agent == "" && c.Session != "" {
				sp.Attrs.Set("gen_ai.conversation.id", receipt.S(c.Session))
			}
		case "execute_tool":
			if sp.Error {
				sp.Attrs.Set("error.type", receipt.S("tool_error"))
			}
		}
	}
}
