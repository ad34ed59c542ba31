// Package amp reads Amp's threads (Sourcegraph's coding agent,
// ampcode.com): one JSON document per thread,
//
//	~/.local/share/amp/threads/T-<uuid>.json
//
// (AMP_DATA_DIR moves ~/.local/share/amp, as ccusage 20.0.24 reads it:
// ryoppippi/ccusage, rust/crates/ccusage/src/adapter/amp/paths.rs and
// loader.rs, which read every threads/*.json below it). A thread is
// {v, id, created, title, agentMode, env, messages, usageLedger}; the
// pipeline reads the whole document as one record (Format.DocumentAt).
// What each mapping rests on:
//
//   - The thread id is T-<uuid> (Amp's thread URLs and CLI, and the file
//     name): a document whose id has that prefix and that holds messages
//     or a usage ledger is Amp's; nothing else is claimed. The session is
//     the thread id, as ccusage names it. env.initial.trees[0].uri is the workspace (its
//     project key), env.initial.platform.clientVersion the version.
//   - messages are Anthropic-style ({role, messageId, content[], meta
//     {sentAt}, state {type, stopReason}, usage}), as ccusage's schema
//     and the thread readers of other tools (cross_agent_session_resumer's
//     providers/amp.rs) read them: a user message's text blocks are a
//     prompt, its tool_result blocks {toolUseID, run {status, result}}
//     close the call they name (done succeeds; error, cancelled and
//     rejected-by-user fail); an assistant message is a chat span, its
//     tool_use blocks {id, name, input} execute_tool spans; an info
//     message's summary block of type message is the summary that
//     replaced the context (a compaction). An assistant message with a
//     parentToolUseId is a subagent's own response, inline in the thread:
//     its chat span sits under the call that runs the subagent.
//   - discoveredGuidanceFiles [{uri, lineCount}] on a user message, and
//     in a done Read result (run.result.discoveredGuidanceFiles), are the
//     guidance files (AGENTS.md) Amp put in the context then (Amp's
//     client code keeps them on the message it sent; the open-source
//     readers of its threads show the same field): each file is a
//     context load of kind agents_md, once per thread, identified by the
//     digest of its path (its base name in clear when conventional); the
//     thread never holds its text, which the event says.
//   - Tool names are Amp's own (the manual's tools: Bash, Read,
//     edit_file, oracle, Task, ...): they pass through. Task and the
//     built-in subagents the manual names (oracle, librarian, finder)
//     run a subagent whose result is the call's result; skill {name}
//     loads an Agent Skill; mcp__server__tool is an MCP server's tool, as
//     Amp's permission rules name them.
//   - Tokens are counted as ccusage 20.0.24 counts them (adapter/amp/
//     parser.rs): when the thread has usageLedger.events, each event with
//     a time, a model and tokens is one response of that model, input and
//     output its tokens.input and tokens.output, its cache creation and
//     read those of the assistant message its toMessageId names (the last
//     message of that id); without a ledger, each assistant message's
//     usage (inputTokens, outputTokens, cacheCreationInputTokens,
//     cacheReadInputTokens, its model and time). Counts are whole
//     numbers or nothing; a total larger than the parts is the output
//     when there is none, else extra tokens (written as reasoning, as
//     ccusage adds them to its total); a response of no tokens is left
//     out.
//
// What the thread does not hold is an audit gap: the guidance files'
// text and the system prompt. Prompts, thoughts, tool inputs and
// results, summaries, titles and paths are raw: hashed or measured, never
// copied. MCP server and tool names, skill and unknown tool names are
// hashed unless --reveal names.
//
// reader.go registers the reader and tells Amp's threads by their shape;
// records.go maps them.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `amp`: Amp threads (`~/.local/share/amp/threads/T-<uuid>.json`, moved by `$AMP_DATA_DIR`),
//     one JSON document each, claimed only when its `id` is a `T-` thread id and it holds
//     `messages` or a `usageLedger`. Each assistant message is a chat span; each `tool_use`
//     block an `execute_tool` span closed by the `tool_result` whose `toolUseID` names it
//     (`run.status` `done`, `error`, `cancelled`, `rejected-by-user`); `mcp__server__tool`
//     calls write `mcp.tool_call.completed`; `Task`, `oracle`, `librarian` and `finder` write
//     `subagent.spawned` and `subagent.result.returned`; `skill` writes `context.skill.invoked`;
//     an `info` message's `summary` records a compaction and its summary; the guidance files
//     (`discoveredGuidanceFiles` on a user message or a `Read` result) are `context.input.loaded`
//     of kind `agents_md`, by path digest (their text is not in the thread); a response with a
//     `parentToolUseId` is a subagent's, under its call. Tokens per model are
//     the `usageLedger` events as ccusage 20.0.24 counts them (input and output from the event,
//     cache creation and reads from the assistant message its `toMessageId` names), or each
//     assistant message's `usage` for a thread without a ledger. The guidance files' text and
//     the system prompt are not logged: an audit gap says so.
package amp
