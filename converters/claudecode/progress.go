package claudecode

import (
	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// claudeProgress is one subagent response as the parent's agent_progress
// records repeat it (2.1.x: type progress, data.type agent_progress,
// data.message the subagent's assistant row, usage included).
type claudeProgress struct {
	id, request string // the message id as written, the request id as a key part
	requestID   string // the request id as written ("" when the record has none)
	model       claudeModel
	tool        string // the spawning tool call's span key
	start, end  int64
	usage       claudeUsage
}

// agentProgress keeps the usage of a subagent response its parent's
// progress record carries. Claude Code writes each subagent response both
// in the subagent's transcript and, as it streams, in the parent's
// agent_progress records; the transcript may be gone (deleted, never
// copied, a session moved without its folder) while the parent still
// holds the usage. End counts a response from here only when no transcript
// row of the session holds its message id, so a whole session folder
// counts each response once, and a parent alone still counts what its
// subagents spent, as ccusage's daily report does.
func (c *claudeState) agentProgress(r converters.Record) {
	msg := r.Get("data.message")
	if !msg.Get("type").Str().Is("assistant") {
		return
	}
	f := msg.Get("message").Fields("model", "id", "usage")
	raw, mid := f[0].Str(), f[1].Str()
	if raw.Empty() || raw.Is("<synthetic>") || mid.Empty() || !f[2].Exists() {
		return
	}
	p, seen := view.Lookup(c.progress, mid)
	if !seen {
		if c.progress == nil {
			c.progress = map[string]*claudeProgress{}
		}
		key := mid.Own()
		p = &claudeProgress{id: c.Pass(leak.ID, mid), start: r.NS, end: r.NS}
		if rq := msg.Get("requestId").Str(); !rq.Empty() {
			p.request, p.requestID = c.KeyPart(rq), c.Pass(leak.ID, rq)
		}
		if t := r.Get("parentToolUseID").Str(); !t.Empty() {
			p.tool = "tool:" + c.KeyPart(t)
		}
		c.progress[key] = p
		c.progressOrder = append(c.progressOrder, key)
	}
	p.start, p.end = min(p.start, r.NS), max(p.end, r.NS)
	p.model = c.modelOf(raw)
	// The usage is read as a transcript row's is (recordUsage), into a
	// message of its own: the largest output of its rows wins.
	m := claudeMessage{span: -1, usage: -1}
	saved := len(c.usages)
	c.recordUsage(&m, p.model.raw, f[2])
	if m.usage >= 0 {
		if n := c.usages[m.usage]; p.usage.model == "" || n.Output >= p.usage.Output {
			p.usage = n
		}
		c.usages = c.usages[:saved]
	}
}

// progressResponses counts, at End, the responses known only from
// agent_progress records: each gets a chat span under the tool call that
// spawned its subagent (the root when that call is not in the log) and is
// counted with the session's usage; claude_code.agent_progress_responses
// says how many.
func (c *claudeState) progressResponses() {
	for _, key := range c.progressOrder {
		p := c.progress[key]
		if _, inTranscript := c.messages[key]; inTranscript || p.usage.model == "" {
			continue
		}
		parent := ""
		if _, ok := c.tools[p.tool]; ok {
			parent = p.tool
		}
		span := len(c.Out.Spans)
		spanKey := "chat:progress:" + c.KeyPart(view.Borrow(key))
		if p.request != "" {
			spanKey += ":" + p.request
		}
		c.Out.Spans = append(c.Out.Spans, converters.Span{Key: spanKey, Parent: parent, Name: p.model.span, Kind: 3,
			Start: p.start, End: p.end, Attrs: append(append(make(receipt.Attrs, 0, claudeChatAttrs), events.ChatSpan("anthropic")...),
				receipt.Attr{Key: "gen_ai.request.model", Value: receipt.S(p.model.out)},
				receipt.Attr{Key: "gen_ai.response.id", Value: receipt.S(p.id)})})
		if p.requestID != "" {
			c.Out.Spans[span].Attrs.Set(requestAttr, receipt.S(p.requestID))
		}
		u := p.usage
		u.span = span
		for i := range u.advisors {
			u.advisors[i].span = span
		}
		c.usages = append(c.usages, u)
		c.counts["agent_progress_responses"]++
	}
}
