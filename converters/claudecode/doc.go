// Package claudecode is the claude_code reader: it registers the converter claude_code.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `claude_code`: Claude Code transcripts from 1.0 to 2.1 (`~/.claude/projects`), with their
//     subagents in every layout. Receipts: nested CLAUDE.md and hook context, MCP server
//     instructions, @-file attachments and skill bodies as `context.input.loaded`; the explicit
//     audit gap that root CLAUDE.md, CLAUDE.local.md and MEMORY.md loads are never logged;
//     memory-file reads and writes (including `/init` writes of CLAUDE.md); Skill calls, slash
//     commands and re-injected skills; the skill listing; deferred-tool indexes, ToolSearch
//     calls, on-demand definitions and `mcp__server__tool` calls; compaction boundaries and
//     summaries; subagent spawn and what crossed back; built-in slash commands (`/init`,
//     `/review`, `/compact`, ...: public names, in clear) as the prompt they expand into; per-model
//     token usage, each API response counted once (by message id, whatever its streamed rows say
//     of request id; the largest output wins), across all the files of the session: a response
//     a subagent's transcript repeats under fresh record uuids (`aside_question`) counts once,
//     with the parent, keeping the largest usage of all its copies, as ccusage's key (message
//     id and request id) does; a copy under another request id is not folded in. 2.1.2xx sessions open with control records
//     (`queue-operation`, `mode`, `last-prompt`, `bridge-session`, ...) and their subagent records
//     carry no `agentId` (the file name gives it); subagent transcripts that replay the parent's
//     history (same uuids) are counted as replays, not read twice; unknown record types are
//     counted by digest. The advisor tool (2.1.227: `server_tool_use` and `advisor_tool_result`
//     blocks) runs another model inside a response: each `advisor_message` entry of
//     `usage.iterations` is counted under its own model, as ccusage counts it (the `message`
//     entries restate the top-level counts; an entry naming no model is left out, as ccusage
//     leaves it). The record types of 2.1.167-2.1.237 (`fork-context-ref`, `atis-latch`,
//     `agent-setting`, `relocated`, `worktree-state`, `frame-link`) are counted by name; their
//     tools (`Workflow`, `Monitor`, `ScheduleWakeup`, `CronCreate`, `TeamCreate`, `SendMessage`,
//     `StructuredOutput`, `EnterWorktree`, ...) are built-ins, named in clear. A subagent's
//     responses are also repeated, usage included, in its parent's `agent_progress` records
//     (2.1.x): a response found only there (its subagent transcript is gone, or was never
//     copied) is counted, under a chat span below the call that spawned the subagent, and
//     `claude_code.agent_progress_responses.count` on the root span says how many; a response a
//     transcript holds (same message id) is counted once, from the transcript. Counting it
//     rather than naming an audit gap keeps the tokens a user was billed for, and is what
//     ccusage's `daily` report does (its `session` report leaves these records out, so on a
//     parent whose subagent transcripts are missing `convert` is higher than `ccusage session`
//     by exactly that usage). A workflow run
//     (the `Workflow` tool, `<session>/subagents/workflows/wf_*/`) is a session of its own, as
//     ccusage groups it: its `journal.jsonl` is the main file (`started` and `result` records
//     counted; each result, which the run's script receives, as `subagent.result.returned` with
//     boundary `workflow_script`, digest and size only) and its agent transcripts are subagents
//     linked by the journal (`workflow_journal`, layout `workflow_run_dir`); the root says
//     `claude_code.workflow.parent_session.id`. A folder without a journal has its first agent
//     transcript as the main file. Walking the project, or giving the parent transcript alone,
//     leaves the run out of the parent. A forked subagent (`/fork`, later `/subtask`: a sidecar with `isFork`,
//     `agentType: "fork"`, a `name` and no `toolUseId`; an agent id that is a slug of the
//     prompt, written as a digest) is linked as `forked_from_parent`. Totals equal ccusage's on our samples except where ccusage counts a
//     row without `requestId` again or a fork's copy of its parent: see
//     [the comparison](../converters/testdata/ccusage.json). Trace: an `invoke_agent` root, `chat` spans per response with `gen_ai.*`
//     usage (input counting cached tokens, [as the conventions do](formats.md#genai-conventions)), `execute_tool` spans timed from tool_use to tool_result (error status from
//     `is_error`), subagents as `invoke_agent` spans under the call that spawned them.
package claudecode
