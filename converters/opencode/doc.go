// Package opencode is the opencode reader: it registers the converter opencode.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `opencode`: OpenCode sessions, as `opencode export <session id>` writes them
//     (`{info, messages: [{info, parts}]}`, pretty-printed) and as the `storage/` tree keeps
//     them (see below). Tool parts (status `completed`,
//     `error`; `pending` and `running` ones counted as without result), MCP calls (OpenCode names
//     an MCP tool `<server>_<tool>`: a name that is not a built-in and holds an underscore is
//     split at its first one), the `skill` tool as `context.skill.invoked`, the `task` tool as a
//     subagent (its child session, exported on its own, names its parent: `subagent.spawned` with
//     `subagent.parent_thread_id`), `compaction` parts and the `summary` message that follows,
//     and per-model tokens of every assistant message as ccusage counts them (a message with
//     tokens, a model and a provider; input without the cache reads and writes, which are apart;
//     reasoning apart; a `total` alone counts as output). AGENTS.md and configured instructions
//     always load without a record: an audit gap says so.
package opencode
