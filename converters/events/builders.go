package events

import (
	"github.com/contextreceipts/convert/converters/view"

	"github.com/contextreceipts/convert/internal/receipt"
)

// The event builders write the attribute blocks that several converters
// share, so that each key is spelled in one place: the identity of a
// context.input.loaded input, skill invocations, MCP calls, compaction,
// subagents and token usage. They take digests, sizes and categorical
// values, never raw text they would have to judge, and keep the order in
// which receipts have always carried the keys (an Attrs list is ordered).
// Scenario and native converters alike may use them; a converter appends
// its own keys after a builder's.

// InputLoaded starts a context.input.loaded event: what kind of input, the
// agent that loaded it and what made it load.
func InputLoaded(kind, loadedBy, activation string) receipt.Attrs {
	return receipt.Attrs{
		{Key: "context.input.kind", Value: receipt.S(kind)},
		{Key: "context.input.loaded_by", Value: receipt.S(loadedBy)},
		{Key: "context.input.activation", Value: receipt.S(activation)},
	}
}

// SourceIdentity sets the identity of an input's source text: its digest,
// size bucket and digest in the canonical text form. digest is
// h.Text(source) when the caller has it already, else "": the same text
// was hashed up to three times per load (an instruction text is tens of
// KB, repeated in every Codex session), and it returns the digest for
// deliveredIdentity when the delivered text is the source.
func SourceIdentity(a *receipt.Attrs, h receipt.Hasher, source view.Text, digest string) string {
	if digest == "" {
		digest = source.Digest(h)
	}
	a.Set("context.input.source.bytes_hash", receipt.S(digest))
	a.Set("context.input.source.size_bucket", receipt.S(receipt.ByteLadder.Bucket(int64(source.Len()))))
	a.Set("context.input.source.canonical.form", receipt.S(receipt.CanonicalTextForm))
	a.Set("context.input.source.canonical.hash", receipt.S(source.CanonicalDigest(h)))
	a.Set("context.input.source.canonicalization", receipt.S(receipt.CanonicalTextSteps))
	return digest
}

// DeliveredIdentity sets the identity of the text that entered the prompt
// and how it was made from the source (transform). sized adds its size
// bucket; Claude Code's receipts, whose delivered text is the source as
// recorded, have never carried it. digest is h.Text(delivered), or "".
func DeliveredIdentity(a *receipt.Attrs, h receipt.Hasher, delivered view.Text, digest, transform string, sized bool) {
	if digest == "" {
		digest = delivered.Digest(h)
	}
	a.Set("context.input.delivered.hash", receipt.S(digest))
	if sized {
		a.Set("context.input.delivered.size_bucket", receipt.S(receipt.ByteLadder.Bucket(int64(delivered.Len()))))
	}
	a.Set("context.input.delivered.transform", receipt.S(transform))
}

// DeliveredNotLogged is the audit gap of an input whose text the log does
// not hold.
func DeliveredNotLogged(a *receipt.Attrs) {
	a.Set("context.input.audit_gap", receipt.S("delivered_text_not_logged"))
}

// BodyIdentity sets the identity of an injected body (a skill, MCP server
// instructions): the digest of what was delivered and its size bucket.
func BodyIdentity(a *receipt.Attrs, h receipt.Hasher, body view.Text) {
	a.Set("context.input.delivered.hash", receipt.S(body.Digest(h)))
	a.Set("context.input.source.size_bucket", receipt.S(receipt.ByteLadder.Bucket(int64(body.Len()))))
}

// SkillInvocation starts a context.skill.invoked event: the skill's digest,
// what activated it and whether it was already loaded (role duplicate).
func SkillInvocation(h receipt.Hasher, loadedBy, activation string, skill view.Text, duplicate bool) receipt.Attrs {
	role := "selected"
	if duplicate {
		role = "duplicate"
	}
	return receipt.Attrs{
		{Key: "context.input.kind", Value: receipt.S("skill")},
		{Key: "context.input.activation", Value: receipt.S(activation)},
		{Key: "context.input.loaded_by", Value: receipt.S(loadedBy)},
		{Key: "context.skill.id", Value: receipt.S(skill.Digest(h))},
		{Key: "context.input.duplicate.role", Value: receipt.S(role)},
	}
}

// MCPCall is what an mcp.tool_call.completed event says of a call: the
// server and tool (name attributes, see native.nameAttr), its status and
// the digests and sizes of its arguments and result.
type MCPCall struct {
	Server, Tool         receipt.Attr
	Status               string
	ArgsHash, ResultHash string
	ArgsSize, ResultSize int
}

// Attrs is the event's attributes.
func (m MCPCall) Attrs() receipt.Attrs {
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

// CompactionStarted starts a context.compaction.started event: the
// compaction's id digest and why it happened.
func CompactionStarted(idHash, reason string) receipt.Attrs {
	return receipt.Attrs{
		{Key: "context.compaction.id_hash", Value: receipt.S(idHash)},
		{Key: "context.compaction.reason", Value: receipt.S(reason)},
	}
}

// TokensBefore sets the bucket of the context's token count before a
// compaction.
func TokensBefore(a *receipt.Attrs, n int64) {
	a.Set("context.compaction.token_count.before_bucket", receipt.S(receipt.TokenLadder.Bucket(n)))
}

// CompactionSummary starts a context.compaction.summary_loaded event: the
// summary's digest and size, never its text.
func CompactionSummary(hash string, size int) receipt.Attrs {
	return receipt.Attrs{
		{Key: "context.compaction.summary.hash", Value: receipt.S(hash)},
		{Key: "context.compaction.summary.size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(size)))},
		{Key: "privacy.raw_summary_recorded", Value: receipt.B(false)},
	}
}

// Operation names a span's GenAI operation: invoke_agent, chat,
// execute_tool.
func Operation(op string) receipt.Attr {
	return receipt.Attr{Key: "gen_ai.operation.name", Value: receipt.S(op)}
}

// AgentSpan starts the attributes of an invoke_agent span for the agent
// called name (a subagent: "codex-subagent").
func AgentSpan(name string) receipt.Attrs {
	return receipt.Attrs{Operation("invoke_agent"), {Key: "gen_ai.agent.name", Value: receipt.S(name)}}
}

// ChatSpan starts the attributes of a chat span: a model call to provider.
func ChatSpan(provider string) receipt.Attrs {
	return receipt.Attrs{Operation("chat"), {Key: "gen_ai.provider.name", Value: receipt.S(provider)}}
}

// SubagentReturned starts a subagent.result.returned event: the digest and
// size of what crossed back to the parent, its status and which boundary
// it crossed. The caller ends it with rawSummaryNotRecorded.
func SubagentReturned(hash string, size int, status, boundary string) receipt.Attrs {
	return receipt.Attrs{
		{Key: "subagent.result.hash", Value: receipt.S(hash)},
		{Key: "subagent.result.size_bucket", Value: receipt.S(receipt.ByteLadder.Bucket(int64(size)))},
		{Key: "subagent.result.status", Value: receipt.S(status)},
		{Key: "subagent.result.boundary", Value: receipt.S(boundary)},
	}
}

// RawSummaryNotRecorded ends an event about a summary: its text is not in
// the receipt.
var RawSummaryNotRecorded = receipt.Attr{Key: "privacy.raw_summary_recorded", Value: receipt.B(false)}

// Tokens are the token counts every agent reports, written under the
// OpenTelemetry GenAI names. Input counts as the agent counts it.
type Tokens struct {
	Input, Output, CacheRead, CacheWrite int64
}

// Set sets the four counts on an event's attributes, under the receipt's
// names (spans count as the GenAI conventions do: see native.ChatUsage).
func (t Tokens) Set(a *receipt.Attrs) {
	a.Set("gen_ai.usage.input_tokens", receipt.Copied(t.Input))
	a.Set("gen_ai.usage.output_tokens", receipt.Copied(t.Output))
	a.Set("gen_ai.usage.cache_read.input_tokens", receipt.Copied(t.CacheRead))
	a.Set("gen_ai.usage.cache_creation.input_tokens", receipt.Copied(t.CacheWrite))
}

// UsageSummary is a gen_ai.token_usage.summarized event's attributes: the
// model (as written: see native.Base.Pass), its counts, the format's own counts
// (extra), how responses were deduplicated and what the totals cover.
func UsageSummary(model string, t Tokens, extra receipt.Attrs, dedupe, scope string) receipt.Attrs {
	a := receipt.Attrs{{Key: "gen_ai.request.model", Value: receipt.S(model)}}
	t.Set(&a)
	for _, x := range extra {
		a.Set(x.Key, x.Value)
	}
	a.Set("gen_ai.usage.dedupe", receipt.S(dedupe))
	a.Set("gen_ai.usage.scope", receipt.S(scope))
	return a
}

// AuditGap is a context.audit_gap.recorded event's attributes: what the
// format never records, and why.
func AuditGap(gap, detail string) receipt.Attrs {
	return receipt.Attrs{
		{Key: "context.audit_gap", Value: receipt.S(gap)},
		{Key: "context.audit_gap.detail", Value: receipt.S(detail)},
	}
}

// ToolIndex is what an mcp.tool_index.loaded event says: tools listed at
// startup, and how many of them came with their full definitions.
type ToolIndex struct {
	Strategy  string // deferred_tool_loading, all_definitions_at_startup
	NamesHash string // digest of the tool names (native.listDigest)
	Count     int64
	Servers   receipt.Attrs // what the agent says of its servers, after the count
	AtStartup int64         // full definitions loaded at startup; 0: an index only
}

// Attrs is the event's attributes.
func (t ToolIndex) Attrs() receipt.Attrs {
	a := receipt.Attrs{
		{Key: "mcp.tool_loading.strategy", Value: receipt.S(t.Strategy)},
		{Key: "mcp.tool.names_hash", Value: receipt.S(t.NamesHash)},
		{Key: "mcp.tool.count", Value: receipt.Computed(t.Count)},
	}
	a = append(a, t.Servers...)
	return append(a,
		receipt.Attr{Key: "mcp.tool.full_definitions.loaded_at_startup", Value: receipt.Computed(t.AtStartup)},
		receipt.Attr{Key: "mcp.tool.index_only", Value: receipt.B(t.AtStartup == 0)},
		receipt.Attr{Key: "privacy.raw_tool_definitions_recorded", Value: receipt.B(false)},
		receipt.Attr{Key: "privacy.raw_tool_descriptions_recorded", Value: receipt.B(false)})
}

// ToolSearch is what an mcp.tool_search.performed event says: the query's
// digest, the tools it selected and who chose them.
type ToolSearch struct {
	QueryHash    string
	Selected     int
	SelectedHash string        // digest of the selected names; "" when none were
	Deferred     receipt.Attrs // how many tools were searchable, when the log says
	Policy       string        // model_tool_search, server_tool_search
}

// Attrs is the event's attributes.
func (t ToolSearch) Attrs() receipt.Attrs {
	a := receipt.Attrs{
		{Key: "mcp.tool_search.query_hash", Value: receipt.S(t.QueryHash)},
		{Key: "mcp.tool_search.selected_count", Value: receipt.Computed(int64(t.Selected))},
		{Key: "mcp.tool_search.candidate_count_bucket", Value: receipt.S(receipt.CountLadder.Bucket(int64(t.Selected)))},
	}
	a = append(a, t.Deferred...)
	if t.SelectedHash != "" {
		a = append(a, receipt.Attr{Key: "mcp.tool_search.selected_tools_hash", Value: receipt.S(t.SelectedHash)})
	}
	return append(a, receipt.Attr{Key: "mcp.tool_search.selection_policy", Value: receipt.S(t.Policy)},
		receipt.Attr{Key: "privacy.raw_query_recorded", Value: receipt.B(false)})
}

// DefinitionOnDemand ends an mcp.tool_definition.loaded event (after the
// tool's name attributes): why the definition was loaded, on demand.
func DefinitionOnDemand(reason string) receipt.Attrs {
	return receipt.Attrs{
		{Key: "mcp.tool.definition_load_reason", Value: receipt.S(reason)},
		{Key: "mcp.tool.definition_loaded_on_demand", Value: receipt.B(true)},
		{Key: "privacy.raw_tool_definition_recorded", Value: receipt.B(false)},
	}
}

// SubagentSpawned starts a subagent.spawned event: how the subagent is
// tied to its parent (link) and how deep it is.
func SubagentSpawned(link string, depth int64) receipt.Attrs {
	return receipt.Attrs{
		{Key: "subagent.link", Value: receipt.S(link)},
		{Key: "subagent.depth", Value: receipt.Computed(depth)},
	}
}

// TranscriptLayout says where a subagent's records are kept.
func TranscriptLayout(layout string) receipt.Attr {
	return receipt.Attr{Key: "subagent.transcript_layout", Value: receipt.S(layout)}
}

// What the native readers write with these builders and around them, event
// by event: the schemas of these events are generated from these
// declarations and the scenario tables that write the same events (see
// eventschema.go). Each declaration is the native readers' part.

var _ = DeclareEvent("context.audit_gap.recorded", EventDecl{
	Title:       "context.audit_gap.recorded: something entered (or may have entered) the context without any record of it",
	Description: "An explicit gap: the receipt cannot prove what the log does not record. Claude Code loads the root CLAUDE.md, CLAUDE.local.md and auto-memory MEMORY.md at session start and writes no transcript record of it.",
	Keys: []Attr{
		ReqAttr(SetsProp("context.audit_gap", Enum("root_instruction_files_not_logged", "instruction_loads_not_logged", "token_usage_not_logged", "timestamps_not_logged", "tool_results_not_logged", "transcript_missing"))),
		SetsProp("context.audit_gap.detail", Enum("claude_md_claude_local_md_and_memory_md_load_at_session_start_without_a_record", "cursor_rules_agents_md_and_user_rules_load_without_a_record", "cursor_stream_json_result_has_no_usage", "cursor_stream_json_has_no_result_record", "cursor_transcripts_have_no_usage", "cursor_records_have_no_timestamps", "cursor_transcripts_have_no_tool_results", "gemini_md_context_files_load_without_a_record", "gemini_messages_have_no_token_counts", "copilot_instructions_and_agents_md_load_without_a_record", "copilot_session_has_no_shutdown_metrics", "copilot_calls_after_last_shutdown_not_counted", "pi_agents_md_and_system_prompt_load_without_a_record", "pi_messages_have_no_usage", "opencode_agents_md_and_instructions_load_without_a_record", "opencode_messages_have_no_token_counts", "droid_agents_md_and_system_prompt_load_without_a_record", "droid_session_has_no_settings_usage", "droid_settings_without_session_transcript")),
		Sets("session.id", DefID),
	},
})
var _ = DeclareEvent("context.compaction.summary_loaded", EventDecl{
	Title: "context.compaction.summary_loaded: the summary that replaced compacted context entered the prompt",
	Keys: []Attr{
		SetsProp("context.compaction.audit_gap", Enum("summary_without_compact_boundary")),
		ReqAttr(Sets("context.compaction.summary.hash", DefDigest)),
		ReqAttr(Sets("context.compaction.summary.size_bucket", LadderDef(receipt.ByteLadder))),
		Sets("context.compaction.token_count.after_bucket", LadderDef(receipt.TokenLadder)),
		Sets("privacy.raw_summary_recorded", DefNever),
		Sets("session.id", DefID),
	},
})
var _ = DeclareEvent("gen_ai.token_usage.summarized", EventDecl{
	Title:       "gen_ai.token_usage.summarized: token usage of one model over the session, each API response counted once",
	Description: "One API response is written as several transcript lines that repeat its usage; responses are keyed by message id (and request id when present) and the line with the largest output count is kept.",
	Keys: []Attr{
		ReqAttr(Sets("gen_ai.request.model", DefModel)),
		Sets("gen_ai.usage.cache_creation.ephemeral_1h_input_tokens", DefCount),
		Sets("gen_ai.usage.cache_creation.ephemeral_5m_input_tokens", DefCount),
		Sets("gen_ai.usage.cache_creation.input_tokens", DefCount),
		Sets("gen_ai.usage.cache_read.input_tokens", DefCount),
		SetsProp("gen_ai.usage.dedupe", Enum("message_id_and_request_id_largest_output", "cumulative_total_deltas", "terminal_result_usage", "message_id_last_record", "shutdown_model_metrics", "assistant_usage_records", "time_model_and_usage", "settings_sidecar_totals")),
		ReqAttr(Sets("gen_ai.usage.input_tokens", DefCount)),
		ReqAttr(Sets("gen_ai.usage.output_tokens", DefCount)),
		Sets("gen_ai.usage.reasoning.output_tokens", DefCount).Doc("reasoning tokens, already included in gen_ai.usage.output_tokens (OpenAI)"),
		Sets("gen_ai.usage.responses", DefCount),
		SetsProp("gen_ai.usage.scope", Enum("session_with_subagents", "thread", "run", "session")),
		Sets("gen_ai.usage.total_tokens", DefCount),
		Sets("gen_ai.usage.web_search_requests", DefCount),
		Sets("session.id", DefID),
	},
})
var _ = DeclareEvent("subagent.result.returned", EventDecl{
	Title:       "subagent.result.returned: what a subagent's final answer brought back into its parent's context",
	Description: "Native transcripts: the tool result of the Agent/Task call is the only thing that crosses from the subagent back to the parent; its digest and size are recorded, never its text.",
	Keys: []Attr{
		Sets("privacy.raw_summary_recorded", DefNever),
		Sets("session.id", DefID),
		SetsProp("subagent.result.boundary", Enum("final_text_returned_to_parent", "inter_agent_message", "workflow_script")),
		ReqAttr(Sets("subagent.result.hash", DefDigest)),
		ReqAttr(Sets("subagent.result.size_bucket", LadderDef(receipt.ByteLadder))),
		ReqAttr(SetsProp("subagent.result.status", Enum("success", "error"))),
		Sets("subagent.tool_call_count", DefCount),
		Sets("subagent.total_token_bucket", LadderDef(receipt.TokenLadder)),
		Sets("subagent.type", DefName),
	},
})
var _ = DeclareEvent("subagent.spawned", EventDecl{
	Title: "subagent.spawned: a subagent started; its span nests under the tool call that spawned it",
	Keys: []Attr{
		Sets("session.id", DefID),
		Sets("subagent.agent_id", DefID),
		ReqAttr(SetsProp("subagent.depth", Prop{"minimum": 1, "type": "integer"})),
		Sets("subagent.description_hash", DefDigest),
		ReqAttr(SetsProp("subagent.link", Enum("sidecar_tool_use_id", "result_agent_id", "prompt_digest", "inline_order", "unlinked", "workflow_journal", "forked_from_parent", "parent_thread_id", "spawn_call_id", "task_tool_call", "tool_call_agent_id").Doc("how the subagent was tied to its spawning call"))),
		Sets("subagent.parent_thread_id", DefID).Doc("the parent thread of a subagent that writes its own log (Codex): the parent's log is converted on its own"),
		Sets("subagent.prompt_hash", DefDigest),
		ReqAttr(SetsProp("subagent.transcript_layout", Enum("sidechain_inline", "sibling_agent_file", "session_subagents_dir", "separate_rollout", "inline_tool_call", "separate_session", "workflow_run_dir"))),
		Sets("subagent.type", DefName),
	},
})
var _ = DeclareEvent("context.input.loaded", EventDecl{
	Title:       "context.input.loaded: one instruction file, skill, memory or retrieved text entered the prompt",
	Description: "Source identity (bytes, canonical form), delivered identity (what the model got), full render (or why it is unknown), template, nondeterminism, truncation and duplicate suppression; selection rank and memory joins where the log has them. Paths are in clear only for conventional instruction files; everything else is a digest.",
	Keys: []Attr{
		ReqAttr(SetsProp("context.input.kind", AnyOf(Ref(DefLabel), Enum("agents_md", "user_instructions", "system_prompt", "developer_instructions", "environment_context").Doc("native agent instruction kinds (codex)")))),
		Sets("context.input.loaded_by", DefLabel),
		Sets("context.input.activation", DefLabel),
		Sets("context.input.source.bytes_hash", DefDigest).Doc("digest of the source bytes as read"),
		Sets("context.input.source.size_bucket", LadderDef(receipt.ByteLadder)),
		SetsConst("context.input.source.canonical.form", receipt.S(receipt.CanonicalTextForm)),
		Sets("context.input.source.canonical.hash", DefDigest).Doc("digest of the source after the canonical form named in context.input.source.canonical.form; comparable only between equal forms"),
		SetsConst("context.input.source.canonicalization", receipt.S(receipt.CanonicalTextSteps)),
		SetsProp("context.input.source.path", PublicPathProp()),
		Sets("context.input.source.path_hash", DefDigest),
		Sets("context.input.delivered.hash", DefDigest).Doc("digest of what the harness delivered to the model (after templates, headers, clipping)"),
		Sets("context.input.delivered.size_bucket", LadderDef(receipt.ByteLadder)),
		SetsProp("context.input.delivered.transform", AnyOf(Ref(DefLabel), Enum("as-recorded-by-session-log", "source-as-delivered", "as-returned-by-memory-client")).Doc("how the delivered text was obtained from the source")),
		SetsProp("context.input.delivered.via", Enum("session_header_instructions", "session_meta_instructions", "session_meta_base_instructions", "turn_context_user_instructions", "turn_context_developer_instructions", "collaboration_mode_developer_instructions", "user_instructions_message", "agents_md_message", "environment_context_message", "developer_message", "system_message_event", "world_state_agents_md", "codex_app_output").Doc("where the log carried the text (Codex moved instructions between header, messages, turn context and world state across versions)")),
		SetsConst("context.input.audit_gap", receipt.S("delivered_text_not_logged")),
		SetsProp("context.input.command.name", Prop{"pattern": "^/[a-z][a-z0-9-]{0,39}$", "type": "string"}.Doc("a built-in slash command of the agent (public names, e.g. /init, /review), whose prompt entered the context; custom commands are skills, named only by digest")),
		Sets("mcp.server.name", DefName).Doc(revealedName),
		Sets("mcp.server.name_hash", DefDigest).Doc("digest of the MCP server whose instructions were loaded"),
		Sets("privacy.raw_context_recorded", DefNever),
		Sets("gen_ai.conversation.id", DefID),
		Sets("session.id", DefID),
	},
})

var _ = DeclareEvent("context.skill.invoked", EventDecl{
	Title: "context.skill.invoked: a skill body entered the prompt as context (or a duplicate candidate was suppressed)",
	Keys: []Attr{
		ReqAttr(SetsConst("context.input.kind", receipt.S("skill"))),
		ReqAttr(Sets("context.input.activation", DefLabel)),
		Sets("context.input.loaded_by", DefLabel),
		ReqAttr(Sets("context.skill.id", DefDigest).Doc("digest of the skill id (skill, plugin and path names are private and guessable: never written in clear)")),
		ReqAttr(SetsProp("context.input.duplicate.role", Enum("selected", "duplicate"))),
		Sets("context.skill.name", DefName).Doc("digest of the skill name; the name itself only with --reveal names (claude_code)"),
		Sets("context.input.delivered.hash", DefDigest),
		Sets("context.input.source.path_hash", DefDigest),
		Sets("context.input.source.size_bucket", LadderDef(receipt.ByteLadder)),
		Sets("gen_ai.conversation.id", DefID),
		Sets("session.id", DefID),
	},
})

var _ = DeclareEvent("mcp.tool_call.completed", EventDecl{
	Keys: []Attr{
		Sets("mcp.server.name", DefName).Doc(revealedName),
		Sets("mcp.server.name_hash", DefDigest),
		Sets("mcp.tool.name", DefName).Doc(revealedName),
		Sets("mcp.tool.name_hash", DefDigest),
		Sets("mcp.tool_call.status", DefLabel),
		Sets("mcp.tool_call.arguments_hash", DefDigest),
		Sets("mcp.tool_call.arguments_size_bucket", LadderDef(receipt.ByteLadder)),
		Sets("mcp.tool_call.result_hash", DefDigest),
		Sets("mcp.tool_call.result_size_bucket", LadderDef(receipt.ByteLadder)),
		Sets("privacy.raw_tool_arguments_recorded", DefNever),
		Sets("privacy.raw_tool_results_recorded", DefNever),
		Sets("gen_ai.conversation.id", DefID),
		Sets("session.id", DefID),
	},
	OneOf: [][]string{{"mcp.server.name_hash", "mcp.server.name"}, {"mcp.tool.name_hash", "mcp.tool.name"}},
})

var _ = DeclareEvent("mcp.tool_definition.loaded", EventDecl{
	Keys: []Attr{
		Sets("mcp.server.name", DefName).Doc(revealedName),
		Sets("mcp.server.name_hash", DefDigest),
		Sets("mcp.tool.name", DefName).Doc(revealedName),
		Sets("mcp.tool.name_hash", DefDigest),
		SetsProp("gen_ai.tool.name", Prop{"pattern": "^[A-Za-z][A-Za-z0-9_]{0,63}$", "type": "string"}.Doc("a built-in tool name (public)")),
		Sets("mcp.tool.definition_load_reason", DefLabel),
		SetsConst("mcp.tool.definition_loaded_on_demand", receipt.B(true)),
		Sets("privacy.raw_tool_definition_recorded", DefNever),
		Sets("session.id", DefID),
	},
	OneOf: [][]string{{"mcp.tool.name_hash", "mcp.tool.name", "gen_ai.tool.name"}},
})

var _ = DeclareEvent("mcp.tool_index.loaded", EventDecl{
	Keys: []Attr{
		Sets("mcp.tool_loading.strategy", DefLabel),
		ReqAttr(Sets("mcp.tool.names_hash", DefDigest)),
		Sets("mcp.tool.count", DefCount),
		Sets("mcp.server.count", DefCount),
		Sets("mcp.server.needs_auth_count", DefCount),
		Sets("mcp.server.pending_count", DefCount),
		Sets("mcp.tool.removed_count", DefCount),
		Sets("mcp.tool.full_definitions.loaded_at_startup", DefCount),
		Sets("mcp.tool.index_only", DefBool),
		Sets("privacy.raw_tool_definitions_recorded", DefNever),
		Sets("privacy.raw_tool_descriptions_recorded", DefNever),
		Sets("session.id", DefID),
	},
})

var _ = DeclareEvent("mcp.tool_search.performed", EventDecl{
	Keys: []Attr{
		ReqAttr(Sets("mcp.tool_search.query_hash", DefDigest)),
		Sets("mcp.tool_search.selected_count", DefCount),
		Sets("mcp.tool_search.candidate_count_bucket", LadderDef(receipt.CountLadder)),
		Sets("mcp.tool_search.deferred_tool_count", DefCount),
		Sets("mcp.tool_search.selected_tools_hash", DefDigest),
		Sets("mcp.tool_search.selection_policy", DefLabel),
		Sets("privacy.raw_query_recorded", DefNever),
		Sets("session.id", DefID),
	},
})

var _ = DeclareEvent("context.compaction.started", EventDecl{
	Keys: []Attr{
		ReqAttr(Sets("context.compaction.id_hash", DefDigest)),
		Sets("context.compaction.reason", DefLabel),
		Sets("context.compaction.trigger", DefLabel),
		Sets("context.compaction.token_count.before_bucket", LadderDef(receipt.TokenLadder)),
		Sets("privacy.raw_context_recorded", DefNever),
		Sets("session.id", DefID),
	},
})

// revealedName describes a name written in clear.
const revealedName = "the name in clear, written only with --reveal names (otherwise the *_hash key)"

// AttrStr is the string value of key in a, "" when it is not set.
func AttrStr(a *receipt.Attrs, key string) string {
	v, ok := a.Get(key)
	if !ok {
		return ""
	}
	return v.Str
}
