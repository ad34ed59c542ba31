// Package codebuff reads Codebuff's chats (CodebuffAI/codebuff, formerly
// Manicode): one folder per chat,
//
//	~/.config/manicode/projects/<project>/chats/<chat id>/chat-messages.json
//
// (the -dev and -staging channels keep theirs in manicode-dev and
// manicode-staging; CODEBUFF_DATA_DIR moves the channel folder, as ccusage
// 20.0.24 reads it: ryoppippi/ccusage, apps/ccusage/src/adapter/codebuff/
// paths.ts and parser.ts). The chat id is the time the chat began
// (2026-01-02T03-04-05.000Z). What each mapping rests on:
//
//   - chat-messages.json is the CLI's ChatMessage[] written whole at each
//     save (cli/src/utils/run-state-storage.ts, saveChatState): a JSON
//     array, pretty-printed. Format.Document has the pipeline read it, and
//     an array document is read one element a record (element n on line
//     n). run-state.json beside it (the SDK's RunState, {sessionState,
//     output}) is read with it as a companion, for its knowledge files
//     only; it is typed there, never given alone. ccusage reads it not.
//   - A message is {id, variant: ai | user | agent | error, content,
//     blocks, timestamp, credits, isComplete, metadata {runState, ...}}
//     (cli/src/types/chat.ts), typed by its variant. A message that names a
//     role instead (ccusage reads role when there is no variant) is typed
//     only when it carries what only Codebuff writes: credits, or Codebuff's
//     usage or run state in its metadata; {role, content} alone is every
//     chat log's shape, and is not claimed.
//   - A user message is a prompt (its attachments counted); an ai, agent
//     or assistant message a reply: one chat span per reply, from the
//     prompt before it. Its blocks are ContentBlocks: tool {toolCallId,
//     toolName, input, output, outputRaw} opens an execute_tool span,
//     finished when the output is there (failed when outputRaw carries an
//     errorMessage); agent {agentId, agentType, status, initialPrompt,
//     spawnToolCallId, blocks} is a subagent, an invoke_agent span under
//     the spawn_agents call that started it, with subagent.spawned and,
//     once complete, failed or cancelled, subagent.result.returned; its own
//     blocks are read beneath it. text blocks of textType reasoning,
//     ask-user, plan, mode-divider, image and gate-state blocks are counted.
//   - Tool names are Codebuff's own (common/src/tools/constants.ts,
//     toolNames): they pass through. Any other (an MCP server's tool, an
//     agent template's custom tool) is hashed; Codebuff does not mark MCP
//     calls apart, so only a tool named mcp__<server>__<tool> (the naming
//     Claude-compatible hosts give MCP tools) writes mcp.tool_call.completed.
//     The skill tool writes context.skill.invoked.
//   - Knowledge files (knowledge.md, AGENTS.md, CLAUDE.md: Codebuff's
//     instruction files) are in the chat's run-state.json and a message's
//     saved run state (sessionState.fileContext.knowledgeFiles and
//     userKnowledgeFiles, path to body): each is written once as
//     context.input.loaded (digests and size, never the path or text). A
//     chat without one has an audit gap instead.
//   - Tokens are counted as ccusage's parser.ts counts them: every reply
//     (variant, else role, ai, agent or assistant) whose usage has a
//     positive count or credits; model metadata.model, then metadata.usage,
//     metadata.codebuff.usage and the run state's main agent's assistant
//     messages (providerOptions.usage and providerOptions.codebuff, latest
//     first) fill each count still zero; a count is the first positive of
//     its names (inputTokens, input_tokens, promptTokens, prompt_tokens;
//     outputTokens, output_tokens, completionTokens, completion_tokens;
//     cacheReadInputTokens, cache_read_input_tokens, then
//     promptTokensDetails.cachedTokens, prompt_tokens_details.cached_tokens;
//     cacheCreationInputTokens and the four other cache-creation names);
//     a fraction is passed over, as ccusage 20.0.24 does (run on such a
//     chat, it counts 7 of {inputTokens: 10.9, input_tokens: 7}). Replies with one message id count once, the last one read;
//     replies without an id each count. A reply without a model counts as
//     unknown (ccusage's codebuff-unknown). Credits are not tokens: they
//     are counted (replies_with_credits), not summed. The summary's input
//     is ccusage's, the cache apart (dedupe assistant_usage_records, whose
//     input holds no cache); a chat span's input holds the cache, as the
//     GenAI conventions count it.
//
// Prompts, replies, tool arguments and results, subagent prompts and
// results, knowledge files and paths are raw: hashed or measured, never
// copied. The session is named by its first message's id, as a digest
// (ccusage names it by its folders, channel/project/chat id, which the
// reader does not see).
// What ccusage reads that is not read here: a CODEBUFF_DATA_DIR that
// names the projects folder itself, or a list of folders.
//
// reader.go registers the reader and types the records; records.go maps
// them.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `codebuff`: Codebuff chats (`~/.config/manicode/projects/<project>/chats/<chat id>/chat-messages.json`,
//     and the `manicode-dev` and `manicode-staging` channels; moved by `$CODEBUFF_DATA_DIR`): the
//     file is one JSON array of the CLI's chat messages, read one message a record and typed by
//     `variant` (`ai`, `user`, `agent`, `error`); a message naming a `role` instead is typed only
//     with Codebuff's credits, usage or run state. Each reply is a chat span; `tool` blocks are
//     `execute_tool` spans (Codebuff's tool names in clear, others hashed), `agent` blocks
//     subagents (`subagent.spawned` under their `spawn_agents` call, `subagent.result.returned`
//     once finished, their own blocks beneath), the `skill` tool `context.skill.invoked`, and the
//     knowledge files a saved run state holds (the chat's `run-state.json`, read with it, or a
//     message's) `context.input.loaded`. Tokens are every reply's
//     usage as ccusage 20.0.24 counts it (`metadata.usage`, `metadata.codebuff.usage`, then the
//     run state's provider usage; one message id counted once, the last one read); no knowledge
//     file in the chat, or no usage, is an audit gap.
package codebuff
