// Package hermes reads Hermes Agent's sessions (NousResearch/hermes-agent):
// every session in state.db, an SQLite database in its home (~/.hermes,
// which HERMES_HOME moves, as ccusage 20.0.24 reads it: ryoppippi/ccusage,
// apps/ccusage/src/adapter/hermes/{paths,parser}.ts), opened read-only and
// query-only as OpenCode's database is, each session an input of its own.
// store.go says which tables and columns. What each mapping rests on:
//
//   - Messages are OpenAI chat messages (hermes_state_common.py): role
//     user, assistant, tool or system; an assistant message is a chat span
//     and its tool_calls [{id, function: {name, arguments}}] open
//     execute_tool spans that the tool message naming tool_call_id closes.
//     Hermes logs no tool error flag: a call's status is success when its
//     result comes.
//   - A message marked _compressed_summary is the summary a compression
//     put in place of the history: a compaction and its summary. A session
//     ended by compression (end_reason) continues in a child session
//     (parent_session_id), a session of its own, as ccusage counts it; a
//     child is said on its root (hermes.parent_session).
//   - Token usage is the session row's, as ccusage's Hermes parser counts
//     it: a session naming a model, input_tokens, output_tokens,
//     cache_read_tokens, cache_write_tokens and reasoning_tokens; a session
//     whose counts and cost are all zero counts nothing.
//   - Tool names are Hermes's own toolsets' (terminal, read_file, ...):
//     they pass through when they are; any other (an MCP server's) is
//     hashed. Hermes does not tell an MCP tool by its name: no MCP event.
//
// What the database does not hold is an audit gap: the system prompt and
// the memory and context files it is built from load without a message.
// Prompts, reasoning, tool arguments and results and cwd are raw: hashed
// or measured, never copied.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `hermes`: Hermes Agent's sessions, every one in `state.db` (`~/.hermes`, moved by
//     `$HERMES_HOME`), an SQLite database opened read-only and query-only, each session an input
//     of its own. The store writes a session as `{hermes_session: ...}` (the row's ids, times,
//     source, model, lineage and token columns) and `{hermes_message: ...}` lines (OpenAI chat
//     messages). Assistant messages are chat spans, their `tool_calls` `execute_tool` spans
//     closed by the `tool` message naming `tool_call_id` (Hermes logs no error flag); a message
//     marked `_compressed_summary` is a compaction's summary; a session a compression continued
//     says so (`hermes.parent_session`). Tokens are the session row's, as ccusage 20.0.24 counts
//     them (input, output, cache reads and writes, reasoning; a session naming no model, or of
//     zero counts and cost, counts nothing). The system prompt and the memory and context files
//     it is built from load without a message: an audit gap says so.
package hermes
