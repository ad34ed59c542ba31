// Package qwencode reads Qwen Code's chat recordings (QwenLM/qwen-code,
// packages/core/src/services/chatRecordingService.ts, the ChatRecord
// type): one JSONL file per session,
//
//	~/.qwen/projects/<sanitized cwd>/chats/<session id>.jsonl
//
// (QWEN_DATA_DIR moves ~/.qwen, as ccusage 20.0.24 reads it:
// ryoppippi/ccusage, apps/ccusage/src/adapter/qwen/paths.ts). Every line
// is a record {uuid, parentUuid, sessionId, timestamp, type, subtype?,
// cwd, version, gitBranch?, ...} of type user, assistant, tool_result or
// system. What each mapping rests on:
//
//   - message is the Gemini API Content sent to or received from the
//     model ({role, parts}): text parts, thought parts (thought: true),
//     functionCall {id, name, args} on assistant records, functionResponse
//     {id, name, response} on tool_result records. An assistant record is
//     a chat span; a functionCall opens an execute_tool span that the
//     tool_result whose toolCallResult.callId names it closes, with its
//     status (success, error, cancelled).
//   - Tool names are Qwen Code's (packages/core/src/tools/tool-names.ts,
//     with the legacy names of ToolNamesMigration): they pass through. An
//     MCP tool is mcp__<server>__<tool> (tools/mcp-tool.ts): an MCP call;
//     an older build's legacy MCP name is read as a tool Qwen does not
//     ship (hashed). skill {skill} loads a skill; agent
//     (formerly task) {subagent_type, prompt} runs a subagent whose report
//     is the call's result.
//   - usageMetadata is the response's GenerateContentResponseUsageMetadata:
//     promptTokenCount (cached tokens included, as Google counts them),
//     candidatesTokenCount, thoughtsTokenCount, cachedContentTokenCount.
//     Totals count them as ccusage's parser.ts does: every assistant
//     record with usage, one whose four counts are all zero left out, a
//     record repeating the session, time, model and counts of one read
//     before counted once. Input is the prompt count, cached included,
//     which is ccusage's input too.
//   - system records (subtype and systemPayload): chat_compression
//     {info {originalTokenCount, newTokenCount}, compressedHistory} is a
//     compaction whose summary is the compressed history; at_command
//     {filesRead} names the files an @-reference read into the prompt
//     (their text is the user message's "--- Content from referenced
//     files ---" part, a context load); slash_command, ui_telemetry,
//     session_approval_mode and the others are counted.
//
// What the log does not hold is an audit gap: QWEN.md context files and
// the system prompt load without a record. Prompts, thoughts, tool
// arguments and results, summaries, paths and cwd are raw: hashed or
// measured, never copied. MCP server and tool names and skill and
// subagent names are hashed unless --reveal names.
//
// reader.go registers the reader and tells Qwen's records by their shape
// (so that the Claude Code reader, whose type names they share, never
// takes them); records.go maps them.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `qwen_code`: Qwen Code chats (`~/.qwen/projects/<cwd>/chats/<session id>.jsonl`, moved
//     by `$QWEN_DATA_DIR`), records `user`, `assistant`, `tool_result` and `system` holding a
//     Gemini API Content (`message.parts`). They share Claude Code's type names, `uuid` and
//     `sessionId`; a record with `message.parts`, `systemPayload`, `usageMetadata` or
//     `toolCallResult` is Qwen's and never Claude's, so neither reader takes the other's logs.
//     Each assistant record is a chat span; each `functionCall` an `execute_tool` span closed by
//     the `tool_result` its `toolCallResult.callId` names (status `success`, `error`,
//     `cancelled`); `mcp__server__tool` calls write `mcp.tool_call.completed`; the `skill` tool
//     writes `context.skill.invoked`, the `agent` (formerly `task`) tool `subagent.spawned` and
//     `subagent.result.returned`; `chat_compression` records the compaction and its summary
//     (the compressed history's first text); the files an `@`-reference read into a prompt
//     are `context.input.loaded`. Tokens per model are every assistant record's
//     `usageMetadata` as ccusage 20.0.24 counts them: input is `promptTokenCount` (cached tokens
//     included, as Google counts them), output `candidatesTokenCount`, cache reads
//     `cachedContentTokenCount`, thinking apart as reasoning; records with four zero counts are
//     left out, and one repeating the session, time, model and counts counts once. QWEN.md
//     context files and the system prompt load without a record: an audit gap says so.
package qwencode
