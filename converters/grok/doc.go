// Package grok reads Grok Build CLI's sessions (xAI's grok CLI): each
// session's folder, sessions/<url-encoded cwd>/<session id>/ under
// ~/.grok (or $GROK_HOME), as ccusage 20.0.24 finds them (its Grok
// adapter, ccusage/ccusage rust/crates/ccusage/src/adapter/grok:
// paths.rs, parser.rs). What each mapping rests on:
//
//   - updates.jsonl is the session's Agent Client Protocol stream as Grok
//     writes it: one JSON-RPC notification a line, {timestamp (Unix
//     seconds), method, params: {sessionId, update: {sessionUpdate, ...},
//     _meta: {eventId, ...}}}. The update types are ACP's
//     (agent-client-protocol-schema: user_message_chunk,
//     agent_message_chunk, agent_thought_chunk, tool_call,
//     tool_call_update, plan) and xAI's turn_completed (xai-grok-shell's
//     PromptUsage); detection rests on that shape in a file named
//     updates.jsonl. summary.json beside it (info.cwd, git_root_dir,
//     current_model_id) is read as its sidecar; the folder's other .jsonl
//     files (events.jsonl, chat_history.jsonl) are counted, never read.
//   - A turn_completed closes a turn: its chat span runs from the turn's
//     first update. A tool_call opens an execute_tool span, closed by the
//     tool_call_update (or tool_call) whose status is completed or failed.
//     The tool is named by update._meta["x.ai/tool"].name (the title may
//     hold a path and is never read); Grok Build's own tool names pass
//     through, any other is hashed. A tool of namespace mcp named
//     <server>__<tool> is that MCP server's tool (mcp.tool_call.completed);
//     one without a server in its name is counted. A tool of kind task runs
//     a subagent (subagent.spawned, link task_tool_call, layout
//     separate_session: ccusage's notes say a child's work is a sibling
//     session folder of its own, converted on its own); kind skill is
//     counted.
//   - Token usage is counted as ccusage 20.0.24 counts it (checked by
//     running it: testdata/ccusage.json): each turn_completed's
//     usage.modelUsage, one row a model (else usage itself, under
//     summary.json's current_model_id, else "unknown"); a count is a whole
//     number written plainly (a string, 2.0 or -3 reads 0); a row of zero
//     input, output, cached reads and reasoning is skipped; a row is
//     counted once per _meta.eventId and model (without an event id, once
//     per timestamp, model and counts). cachedReadTokens and
//     cacheCreationTokens are parts of inputTokens: cache reads are
//     min(cachedReadTokens, input), cache writes min(cacheCreationTokens,
//     the rest), input what remains. Reasoning tokens, which ccusage leaves
//     out of its totals, are on the root (grok.usage.reasoning_tokens);
//     costUsdTicks is not written. A line whose params._meta is not an
//     object is not counted (ccusage's parser drops it). A usage that is
//     not an object is not counted (ccusage's parser reads an array's
//     items by position: such lines are not Grok's).
//
// Not in the stream, so audit gaps: AGENTS.md and the system prompt load
// without a record; compaction leaves no update of its own. Prompts,
// thoughts, tool arguments and results are raw: hashed or measured, never
// copied.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `grok`: Grok Build CLI sessions, every `updates.jsonl` under `~/.grok/sessions` (or
//     `$GROK_HOME/sessions`, as ccusage 20.0.24 looks), `summary.json` beside it read as its
//     sidecar (working directory, current model). Lines are ACP session updates
//     (`params.update.sessionUpdate`): a `turn_completed` closes a chat span; `tool_call` /
//     `tool_call_update` open and close `execute_tool` spans (named by `_meta["x.ai/tool"]`); an
//     `mcp` tool named `<server>__<tool>` writes `mcp.tool_call.completed`; a `task` tool writes
//     `subagent.spawned` (layout `separate_session`) and `subagent.result.returned`. Tokens are
//     `turn_completed`'s `usage.modelUsage` per model, deduplicated by event id and model, the
//     cached reads and writes taken out of the input, as ccusage counts them (reasoning, outside
//     its totals, on the root: `grok.usage.reasoning_tokens`). AGENTS.md, the system prompt and
//     compaction leave no record: an audit gap says so.
package grok
