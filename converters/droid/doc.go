// Package droid is the droid reader: it registers the converter droid.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `droid`: Factory Droid sessions (`session_start`, then `message` records whose content
//     blocks are Anthropic's: `text`, `thinking`, `tool_use`, `tool_result`). Each assistant
//     message is a chat span, each `tool_use` an `execute_tool` span closed by its
//     `tool_result` (`is_error` marks it failed); `mcp__server__tool` calls write
//     `mcp.tool_call.completed`; a `Task` call writes `subagent.spawned` (link
//     `task_tool_call`, layout `separate_session`) and its result
//     `subagent.result.returned`. The transcript holds no usage: Droid keeps the session's
//     totals in `<id>.settings.json` beside it (`model`, `tokenUsage` with `inputTokens`,
//     `outputTokens`, `cacheCreationTokens`, `cacheReadTokens`, `thinkingTokens`), which the
//     pipeline reads with the transcript (`Layout.MainSidecar`: at most 1 MiB, its strings
//     input to the leak check, its digest in the group digest and the run manifest, so an
//     edit to it alone converts the session again). Those totals are the session's
//     `gen_ai.token_usage.summarized` (dedupe `settings_sidecar_totals`), equal to ccusage
//     20.0.24's Droid report; thinking tokens, which ccusage adds to its total only, are on the
//     root (`droid.usage.thinking_tokens`). A session without a sidecar says so in an audit
//     gap. A `compaction_state` record (what Droid's `saveCompactionSummary` appends: `id`,
//     `timestamp`, `summaryText`, `summaryTokens`, `summaryKind` `llm_summary` or
//     `provider_switch_serialization`, `removedCount`, `anchorMessage`, `systemInfo`) writes
//     `context.compaction.started` (its reason the summary's kind) and
//     `context.compaction.summary_loaded` (the summary digested). A successful call of the
//     `Skill` tool writes `context.skill.invoked` (activation `model_tool_call`, the skill named
//     by `input.skill`, a duplicate when it is already in the context since the last
//     compaction); the root counts skills and compactions. Record types the reader does not
//     map (`todo_state`, and `session_settings`, `agent_turn_outcome`, `session_end` that
//     other readers of Droid logs name) are counted. AGENTS.md and the system prompt load
//     without a record: an audit gap says so. Evidence, as Droid is closed source: the record
//     shapes come from a decompiled `saveCompactionSummary` and the fixtures and parsers of
//     open-source tools that read Droid 0.2xx logs (tokscale, CodeBurn, agent session
//     converters); none shows the `Skill` tool's input, so its `skill` field is the Claude Code
//     tool's, which Droid's tool set mirrors; and none shows how Droid records a skill run
//     as `/skill-name`, so such a run is not recognised: it enters the context without a
//     receipt event.
package droid
