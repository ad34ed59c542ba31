// Package goose reads Goose's sessions (block/goose): every session in
// sessions.db, an SQLite database (store.go says which tables and
// columns), opened read-only and query-only as OpenCode's database is,
// each session an input of its own. Its default places are ccusage
// 20.0.24's (ryoppippi/ccusage, apps/ccusage/src/adapter/goose/paths.ts):
// ~/.local/share/goose/sessions, ~/.local/share/Block/goose/sessions,
// macOS's Library/Application Support/goose/sessions, or
// $GOOSE_PATH_ROOT/data/sessions. What each mapping rests on:
//
//   - A message's content_json is Goose's Vec<MessageContent>
//     (crates/goose/src/conversation/message.rs), each item tagged by
//     type: text, image, thinking, redactedThinking, toolRequest {id,
//     toolCall: {status, value: {name, arguments}}}, toolResponse {id,
//     toolResult: {status, value | error}}, and Goose's own notices. An
//     assistant message is a chat span; a toolRequest opens an
//     execute_tool span that the toolResponse naming its id closes.
//   - Every Goose tool belongs to an extension, an MCP server, and is
//     named <extension>__<tool> (developer__shell): each call is an MCP
//     call of that server and tool (their names hashed unless --reveal
//     names). A tool without the separator is hashed as a tool Goose does
//     not ship.
//   - Token usage is the session row's, as ccusage's Goose loader counts
//     it (adapter/goose/loader.ts): a session whose model_config_json
//     names a model, input accumulated_input_tokens (else input_tokens),
//     output accumulated_output_tokens (else output_tokens), and the
//     rest of the total (accumulated_total_tokens, else total_tokens)
//     as reasoning; a session of zero counts, or naming no model, counts
//     nothing. Goose's messages carry no usage of their own.
//   - session_type sub_agent marks a subagent's session (a session of its
//     own, as ccusage counts it).
//
// What the database does not hold is an audit gap: .goosehints and the
// system prompt load without a record. Prompts, thinking, tool arguments
// and results and the working directory are raw: hashed or measured,
// never copied.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `goose`: Goose's sessions, every one in `sessions.db` (`~/.local/share/goose/sessions`,
//     `~/.local/share/Block/goose/sessions`, macOS `Library/Application Support/goose/sessions`,
//     or `$GOOSE_PATH_ROOT/data/sessions`, as ccusage 20.0.24 looks), an SQLite database opened
//     read-only and query-only, each session an input of its own. The store writes a session
//     as `{goose_session: ...}` (the row's ids, times, type, token columns and model config) and
//     `{goose_message: ...}` lines (role, time, content items). Assistant messages are chat
//     spans; `toolRequest`/`toolResponse` items open and close `execute_tool` spans. Goose
//     names every tool `<extension>__<tool>`, an MCP server's tool: each call writes
//     `mcp.tool_call.completed`. Tokens are the session row's, as ccusage counts them
//     (accumulated counts, else the last ones; the rest of the total as reasoning; a session
//     naming no model counts nothing, with an audit gap). `.goosehints` and the system prompt
//     load without a record: an audit gap says so.
package goose
