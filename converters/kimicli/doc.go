// Package kimicli reads Kimi CLI's sessions (MoonshotAI/kimi-cli): one
// folder per session,
//
//	~/.kimi/sessions/<work dir hash>/<session id>/wire.jsonl
//	~/.kimi/sessions/<work dir hash>/<session id>/context.jsonl
//
// (KIMI_DATA_DIR moves ~/.kimi, as ccusage 20.0.24 reads it:
// ryoppippi/ccusage, apps/ccusage/src/adapter/kimi/paths.ts and
// parser.ts). What each mapping rests on:
//
//   - the session id is the session folder's name (a Kimi Code agent's
//     wire: the folder above agents/), as ccusage names sessions; the
//     wire itself holds none. A folder that is no UUID names nothing, and
//     the receipt says no_session_id.
//   - wire.jsonl is the session's wire (src/kimi_cli/wire/file.py and
//     types.py): a metadata line {type: "metadata", protocol_version},
//     then one line per wire message {timestamp (Unix seconds, a float),
//     message: {type, payload}}, typed by the message's type: TurnBegin
//     {user_input} is a prompt; StepBegin {n} starts a model call (a chat
//     span); ContentPart {type: text | think}; ToolCall {id, function
//     {name, arguments}} opens an execute_tool span that ToolResult
//     {tool_call_id, return_value {is_error, output, message}} closes;
//     StatusUpdate {token_usage, message_id} carries the step's usage;
//     CompactionBegin and CompactionEnd a compaction; ApprovalRequest and
//     ApprovalResponse {response: approve, approve_for_session, reject}
//     an approval; SubagentEvent {parent_tool_call_id, agent_id,
//     subagent_type, event} a subagent's own events, nested.
//   - Tool names are Kimi CLI's own (src/kimi_cli/tools: Shell, ReadFile,
//     WriteFile, StrReplaceFile, Glob, Grep, SearchWeb, FetchURL, Task,
//     SetTodoList, Think, ...): they pass through. An MCP tool is called
//     by the server's own tool name, so it cannot be told from another
//     tool the agent does not ship: its name is hashed, and no MCP event
//     is written.
//   - Task (and Agent) runs a subagent: subagent.spawned at the call,
//     subagent.result.returned at its result; its SubagentEvents are
//     counted, its usage is not summed (ccusage does not count it).
//   - token_usage is kosong's TokenUsage: input_other (input without the
//     cache), output, input_cache_read, input_cache_creation. Totals count
//     every top-level StatusUpdate with usage as ccusage's parser.ts does:
//     one whose four counts are all zero is left out, one repeating the
//     message id, time and counts of one read before counted once. The
//     wire names no model (ccusage takes it from config.json beside the
//     sessions, else kimi-for-coding): the totals' model is unknown.
//   - context.jsonl is the model's history (src/kimi_cli/soul/context.py):
//     messages {role, content, tool_calls, tool_call_id}, checkpoints
//     {role: _checkpoint, id} and the context size {role: _usage,
//     token_count}. It is read with the wire, as a companion: its lines
//     are typed only there, never in a file given alone, whose role and
//     content shape is every chat log's.
//
// What the logs do not hold is an audit gap: AGENTS.md and the system
// prompt load without a record, and a compaction's summary is not in the
// wire. Prompts, thinking, tool arguments and results, approvals'
// descriptions and paths are raw: hashed or measured, never copied.
//
// Kimi Code's newer wire (~/.kimi-code/sessions/<work dir>/<session
// id>/agents/<agent>/wire.jsonl, camelCase usage.record lines) is read
// here too: code.go says what that rests on.
//
// reader.go registers the reader and types the records; records.go maps
// them; code.go maps Kimi Code's.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `kimi_cli`: Kimi CLI sessions (`~/.kimi/sessions/<work dir hash>/<session id>/`, moved by
//     `$KIMI_DATA_DIR`): the folder's `wire.jsonl` is the session, its `context.jsonl` (the
//     model's history) is read with it. Wire lines `{timestamp, message: {type, payload}}` are
//     typed by the message's type; a context line is typed (by its role) only as a companion of
//     a wire, never in a file given alone. Each `StepBegin` is a chat span, each `ToolCall` an
//     `execute_tool` span closed by its `ToolResult` (`is_error` marks it failed); `Task` (and
//     `Agent`) calls write `subagent.spawned` and `subagent.result.returned`, the subagent's
//     `SubagentEvent`s are counted; `CompactionBegin` writes `context.compaction.started`;
//     approvals are counted by response. Tokens are every top-level `StatusUpdate`'s
//     `token_usage` as ccusage 20.0.24 counts them (input `input_other`, the cache reads and
//     writes apart; four zero counts left out; a repeated message id, time and counts counted
//     once); the wire names no model, so the totals' model is `unknown`, and a subagent's
//     usage is not summed, as ccusage does not sum it. Kimi CLI calls an MCP tool by its own
//     name, so MCP calls cannot be told from other tools: their names are hashed. AGENTS.md
//     and the system prompt load without a record: an audit gap says so. Kimi Code's wires
//     (`~/.kimi-code/sessions/<work dir>/<session id>/agents/<agent>/wire.jsonl`, one per
//     agent; `KIMI_DATA_DIR` moves both homes) are read as Kimi Code's: `{type: metadata,
//     protocolVersion}`, then `{type, time (ms)}` records; each `usage.record` of `usageScope`
//     `turn` is a chat span with its camelCase usage (`inputOther`, `output`, `inputCacheRead`,
//     `inputCacheCreation`) and counts once per time, model and figures, as ccusage 20.0.24
//     counts it (checked by running it; `session`-scope sums are not counted); a user's
//     `context.append_message` is a prompt. A session's figures are the sum of its agents'
//     receipts, as ccusage sums them under the session id.
package kimicli
