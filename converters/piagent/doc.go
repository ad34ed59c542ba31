// Package piagent is the pi_agent reader: it registers the converter pi_agent.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `pi_agent`: pi coding agent sessions (session format v3) and OpenClaw's, which are the
//     same format. Each assistant message is a chat span with its usage, each `toolCall` block
//     an `execute_tool` span closed by its `toolResult` (`isError` marks it failed);
//     `mcp__server__tool` calls write `mcp.tool_call.completed`; `/skill:name` (the
//     `<skill name=...>` block it expands into) and a `read` of a `SKILL.md` write
//     `context.skill.invoked`; `compaction` entries write the compaction and its summary;
//     a call of the `subagent` tool writes `subagent.spawned` and `subagent.result.returned`
//     (the run is a session of its own, see below);
//     branch summaries, extension messages (`custom_message`) and the output of shell commands
//     the user ran (`!cmd`) are `context.input.loaded`. Tokens per model are the assistant
//     messages' `usage` (input without cache reads and writes, which are apart, as Anthropic
//     counts them), each counted once as ccusage 20.0.24 counts them: for pi, entries with the
//     same time, model, figures, total and cost count once; for OpenClaw, messages with the
//     same time in milliseconds, model, figures and cost (ids are compared by neither). A
//     message whose entry time does not parse is left out of the totals, as ccusage leaves it
//     out, and counted on the root (`pi_agent.usage_without_time.count`). AGENTS.md and the system prompt load without a
//     record: an audit gap says so. Entries of abandoned branches stay in the file and are read.
//     OpenClaw's agent database (`agents/<agent>/agent/openclaw-agent.sqlite`, table `transcript_events`:
//     session_id, seq, event_json, created_at), where newer OpenClaw builds keep the same entries, is opened
//     read-only and each of its sessions read as a transcript of OpenClaw's (rests on ccusage 20.0.24's
//     query of that table and its path, and on OpenClaw's store schema); an entry without a time takes its
//     row's, a row that is not JSON is skipped, as ccusage does. A session a transcript file and the
//     database both hold is read from the database. Locations: `OPENCLAW_STATE_DIR` (OpenClaw's) and
//     `OPENCLAW_DIR` (ccusage's) move `~/.openclaw`; `~/.clawdbot`, `~/.moltbot`, `~/.moldbot` are read too.
//     OpenClaw's trajectories (`<session>.trajectory.jsonl`, events carrying
//     `traceSchema: "openclaw-trajectory"`: rests on openclaw/openclaw's src/trajectory) are inputs of their
//     own: `model.completed` is a chat span with its usage, `tool.call`/`tool.result` execute_tool spans,
//     a `context.compiled` system prompt a context load (then no instruction gap); their usage is in no
//     total, as ccusage 20.0.24, which reads the file, counts none of it (its tokens are the transcript's):
//     an audit gap `token_usage_not_counted` says so.
package piagent
