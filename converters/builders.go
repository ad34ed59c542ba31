package converters

import "github.com/contextreceipts/convert/internal/receipt"

// The event builders write the attribute blocks that several converters
// share, so that each key is spelled in one place: the identity of a
// context.input.loaded input, skill invocations, MCP calls, compaction,
// subagents and token usage. They take digests, sizes and categorical
// values, never raw text they would have to judge, and keep the order in
// which receipts have always carried the keys (an Attrs list is ordered).
// Scenario and native converters alike may use them; a converter appends
// its own keys after a builder's.

// inputLoaded starts a context.input.loaded event: what kind of input, the
// agent that loaded it and what made it load.
func inputLoaded(kind, loadedBy, activation string) receipt.Attrs {
	return receipt.Attrs{
		{Key: "context.input.kind", Value: receipt.S(kind)},
		{Key: "context.input.loaded_by", Value: receipt.S(loadedBy)},
		{Key: "context.input.activation", Value: receipt.S(activation)},
	}
}

// sourceIdentity sets the identity of an input's source text: its digest,
// size bucket and digest in the canonical text form.
func sourceIdentity(a *receipt.Attrs, h receipt.Hasher, source string) {
	a.Set("context.input.source.bytes_hash", receipt.S(h.Text(source)))
	a.Set("context.input.source.size_bucket", receipt.S(receipt.ByteLadder.Bucket(int64(len(source)))))
	a.Set("context.input.source.canonical.form", receipt.S(receipt.CanonicalTextForm))
	a.Set("context.input.source.canonical.hash", receipt.S(h.CanonicalText(source)))
	a.Set("context.input.source.canonicalization", receipt.S(receipt.CanonicalTextSteps))
}

// deliveredIdentity sets the identity of the text that entered the prompt
// and how it was made from the source (transform). sized adds its size
// bucket; Claude Code's receipts, whose delivered text is the source as
// recorded, have never carried it.
func deliveredIdentity(a *receipt.Attrs, h receipt.Hasher, delivered, transform string, sized bool) {
	a.Set("context.input.delivered.hash", receipt.S(h.Text(delivered)))
	if sized {
		a.Set("context.input.delivered.size_bucket", receipt.S(receipt.ByteLadder.Bucket(int64(len(delivered)))))
	}
	a.Set("context.input.delivered.transform", receipt.S(transform))
}

// deliveredNotLogged is the audit gap of an input whose text the log does
// not hold.
func deliveredNotLogged(a *receipt.Attrs) {
	a.Set("context.input.audit_gap", receipt.S("delivered_text_not_logged"))
}

// bodyIdentity sets the identity of an injected body (a skill, MCP server
// instructions): the digest of what was delivered and its size bucket.
func bodyIdentity(a *receipt.Attrs, h receipt.Hasher, body string) {
	a.Set("context.input.delivered.hash", receipt.S(h.Text(body)))
	a.Set("context.input.source.size_bucket", receipt.S(receipt.ByteLadder.Bucket(int64(len(body)))))
}

// skillInvocation starts a context.skill.invoked event: the skill's digest,
// what activated it and whether it was already loaded (role duplicate).
func skillInvocation(h receipt.Hasher, loadedBy, activation, skill string, duplicate bool) receipt.Attrs {
	role := "selected"
	if duplicate {
		role = "duplicate"
	}
	return receipt.Attrs{
		{Key: "context.input.kind", Value: receipt.S("skill")},
		{Key: "context.input.activation", Value: receipt.S(activation)},
		{Key: "context.input.loaded_by", Value: receipt.S(loadedBy)},
		{Key: "context.skill.id", Value: receipt.S(h.Text(skill))},
		{Key: "context.input.duplicate.role", Value: receipt.S(role)},
	}
}

// mcpCall is what an mcp.tool_call.completed event says of a call: the
// server and tool (name attributes, see native.nameAttr), its status and
// the digests and sizes of its arguments and result.
type mcpCall struct {
	Server, Tool         receipt.Attr
	Status               string
	ArgsHash, ResultHash string
	ArgsSize, ResultSize int
}

// Attrs is the event's attributes.
func (m mcpCall) Attrs() receipt.Attrs {
	return receipt.Attrs{
		m.Server,
		m.Tool,
		{Key: "mcp.tool_call.status", Value: receipt.S(m.Status)},
		{Key: "mcp.tool_call.arguments_hash", Value: receipt.S(m.ArgsHash)},
		{Key: "mcp.tool_call.arguments_size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(m.ArgsSize)))},
		{Key: "mcp.tool_call.result_hash", Value: receipt.S(m.ResultHash)},
		{Key: "mcp.tool_call.result_size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(m.ResultSize)))},
		{Key: "privacy.raw_tool_arguments_recorded", Value: receipt.B(false)},
		{Key: "privacy.raw_tool_results_recorded", Value: receipt.B(false)},
	}
}

// compactionStarted starts a context.compaction.started event: the
// compaction's id digest and why it happened.
func compactionStarted(idHash, reason string) receipt.Attrs {
	return receipt.Attrs{
		{Key: "context.compaction.id_hash", Value: receipt.S(idHash)},
		{Key: "context.compaction.reason", Value: receipt.S(reason)},
	}
}

// tokensBefore sets the bucket of the context's token count before a
// compaction.
func tokensBefore(a *receipt.Attrs, n int64) {
	a.Set("context.compaction.token_count.before_bucket", receipt.S(receipt.TokenLadder.Bucket(n)))
}

// compactionSummary starts a context.compaction.summary_loaded event: the
// summary's digest and size, never its text.
func compactionSummary(hash string, size int) receipt.Attrs {
	return receipt.Attrs{
		{Key: "context.compaction.summary.hash", Value: receipt.S(hash)},
		{Key: "context.compaction.summary.size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(size)))},
		{Key: "privacy.raw_summary_recorded", Value: receipt.B(false)},
	}
}

// operation names a span's GenAI operation: invoke_agent, chat,
// execute_tool.
func operation(op string) receipt.Attr {
	return receipt.Attr{Key: "gen_ai.operation.name", Value: receipt.S(op)}
}

// agentSpan starts the attributes of an invoke_agent span for the agent
// called name (a subagent: "codex-subagent").
func agentSpan(name string) receipt.Attrs {
	return receipt.Attrs{operation("invoke_agent"), {Key: "gen_ai.agent.name", Value: receipt.S(name)}}
}

// chatSpan starts the attributes of a chat span: a model call to provider.
func chatSpan(provider string) receipt.Attrs {
	return receipt.Attrs{operation("chat"), {Key: "gen_ai.provider.name", Value: receipt.S(provider)}}
}

// subagentReturned starts a subagent.result.returned event: the digest and
// size of what crossed back to the parent, its status and which boundary
// it crossed. The caller ends it with rawSummaryNotRecorded.
func subagentReturned(hash string, size int, status, boundary string) receipt.Attrs {
	return receipt.Attrs{
		{Key: "subagent.result.hash", Value: receipt.S(hash)},
		{Key: "subagent.result.size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(size)))},
		{Key: "subagent.result.status", Value: receipt.S(status)},
		{Key: "subagent.result.boundary", Value: receipt.S(boundary)},
	}
}

// rawSummaryNotRecorded ends an event about a summary: its text is not in
// the receipt.
var rawSummaryNotRecorded = receipt.Attr{Key: "privacy.raw_summary_recorded", Value: receipt.B(false)}

// tokens are the token counts every agent reports, written under the
// OpenTelemetry GenAI names. Input counts as the agent counts it.
type tokens struct {
	Input, Output, CacheRead, CacheWrite int64
}

// Set sets the four counts on a (a span's or an event's attributes).
func (t tokens) Set(a *receipt.Attrs) {
	a.Set("gen_ai.usage.input_tokens", receipt.I(t.Input))
	a.Set("gen_ai.usage.output_tokens", receipt.I(t.Output))
	a.Set("gen_ai.usage.cache_read.input_tokens", receipt.I(t.CacheRead))
	a.Set("gen_ai.usage.cache_creation.input_tokens", receipt.I(t.CacheWrite))
}

// usageSummary is a gen_ai.token_usage.summarized event's attributes: the
// model (as written: see native.pass), its counts, the format's own counts
// (extra), how responses were deduplicated and what the totals cover.
func usageSummary(model string, t tokens, extra receipt.Attrs, dedupe, scope string) receipt.Attrs {
	a := receipt.Attrs{{Key: "gen_ai.request.model", Value: receipt.S(model)}}
	t.Set(&a)
	for _, x := range extra {
		a.Set(x.Key, x.Value)
	}
	a.Set("gen_ai.usage.dedupe", receipt.S(dedupe))
	a.Set("gen_ai.usage.scope", receipt.S(scope))
	return a
}
