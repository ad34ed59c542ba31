// Package codex is the codex reader: it registers the converter codex.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `codex`: Codex CLI rollouts (`~/.codex/sessions`, plain or `.jsonl.zst`, pre-envelope to
//     0.149). Instruction loads wherever the version put them, each naming its place in
//     `context.input.delivered.via`; environment context, system prompt and developer
//     instructions as their own kinds; tool, MCP and tool-search calls; skills; compaction;
//     subagent rollouts linked by `parent_thread_id`, forks recorded as provenance. Subagent
//     and fork rollouts begin with a copy of the parent's history: it is counted
//     (`codex.copied_history_records.count`), not read again (before
//     `subagent_history_start_ordinal`, or, in a fork, until the first turn whose UUIDv7 turn
//     id is as new as the fork), and its token counts only set the baseline. A rollout is the
//     thread of its first `session_meta`: a child's second one (its parent's, `source: vscode`)
//     is a copy, and a resumed thread's repeated ones (0.142-0.146 write one at each resume,
//     up to 34 in a rollout) are no new baseline: `total_token_usage` keeps running across
//     them. A baseline restarts only where the totals go down (a process that counted from
//     zero again), so a session's usage is its last cumulative total, as ccusage counts it. Calls by `namespace`
//     (0.14x): `mcp__server` is an MCP call, `web` a web search, `collaboration` the subagent
//     tools (a spawn's output names the child when no `collab_agent_spawn_end` does; a wait's
//     output is what came back, `subagent.result.returned`), `codex_app` the Codex app's own
//     tools (`codex_app.create_thread`, `codex_app.send_message_to_thread`,
//     `codex_app.automation_update` in clear, others hashed); an output the app writes with no
//     call before it (namespace `codex_app`, no `call_id`: an automation's run, a task delegated
//     from another thread) is a `context.input.loaded` (`automation_run`, `delegated_task`,
//     via `codex_app_output`; digest and size only). Token usage
//     is the growth of the cumulative `token_count` totals per model (input includes cached
//     tokens, as OpenAI counts them; cached, cache-write and reasoning tokens apart).
package codex
