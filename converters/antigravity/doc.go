// Package antigravity reads Google Antigravity's conversations: each one
// an SQLite database of its own, conversations/<conversation id>.db,
// opened read-only and query-only as OpenCode's database is, its tables'
// blobs protobuf messages (store.go says which tables and columns,
// proto.go which fields). Its default places are ccusage 20.0.24's
// (ryoppippi/ccusage, its Antigravity adapter's paths): the conversations
// folders of ~/.gemini/antigravity (or $ANTIGRAVITY_DATA_DIR),
// ~/.gemini/antigravity-cli, ~/.gemini/antigravity-ide,
// ~/.gemini/antigravity-backup and ~/.config/antigravity.
//
// Antigravity publishes no schema of its blobs. Every field read is one
// ccusage 20.0.24's Antigravity parser reads (adapters/antigravity/src/parser.rs:
// parse_generator_metadata, parse_step_metadata, parse_model_usage,
// parse_model_info, parse_retry_info, parse_trajectory_timestamp), by the
// same number, and counted by its rules (append_usage_event,
// merge_usage_event):
//
//   - A steps row's metadata: 9 the usage of the step's model response,
//     28 retry infos (each: 2 a usage), 24 the model info (12, else 8, its
//     label; 1 its model id; 7 its API provider), 8 (else 1) the step's
//     time. A gen_metadata row's data: 1 the chat model, in it 4 the
//     usage, 17 retry infos, 9 the generation info (4 its time), 19 (else
//     21) the model's label, 3 its model id. A trajectory_metadata_blob
//     row's data: 2 the conversation's creation. A time is a
//     google.protobuf.Timestamp (1 seconds, 2 nanos).
//   - A usage (ModelUsage): 1 model id, 2 input, 3 total output, 4 cache
//     creation, 5 cache reads, 6 provider, 7 message id, 9 reasoning, 10
//     visible output, 11 response id, 12 the provider's message id. A
//     usage of no count is no response. The total output is at least the
//     visible output and reasoning; the output is the visible output, or
//     what the total leaves beyond reasoning; reasoning is the rest of the
//     total output (gen_ai.usage.reasoning.output_tokens).
//   - Every step's usage and retries, then every generation's, in idx
//     order; copies sharing a response, provider or message id (a step's
//     response recorded again in gen_metadata) are one response, each
//     count the largest copy's. Those ids are raw: they only tell copies
//     apart, and no output holds them.
//   - A response's model is its step's label (else its model id, written
//     antigravity-model-<id>), else the last generation's; a generation's
//     the label or id of the latest generation naming one. The labels are
//     Antigravity's own (ccusage renames them to price them; no output
//     here prices): one that is no known model is written as its digest.
//   - A step with usage is a model response: a chat span from the step
//     before. A step whose has_subtrajectory column is set ran a
//     subtrajectory (a subagent): counted, its own conversation not linked.
//
// What a step did (its step_type and its step_payload blob: the prompt,
// the commands, file edits, tool and MCP calls, the rules and the
// subagent it ran) is in fields whose numbers neither ccusage nor
// Antigravity document: they are not read, and audit gaps say so. A blob
// that is not protobuf fails the conversation, as it fails ccusage's
// report. ccusage also merges copies of a response across databases (a
// backup's copy of a conversation): here each database is an input, and a
// copy is converted again.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `antigravity`: Google Antigravity's conversations, each one an SQLite database of its own
//     (`conversations/<id>.db` under `~/.gemini/antigravity` or `$ANTIGRAVITY_DATA_DIR`,
//     `~/.gemini/antigravity-cli`, `~/.gemini/antigravity-ide`, `~/.gemini/antigravity-backup`,
//     `~/.config/antigravity`, as ccusage 20.0.24 looks), opened read-only and query-only, its
//     protobuf blobs decoded by the field numbers ccusage reads. The store writes a conversation as
//     `{antigravity_conversation: ...}`, `{antigravity_step: ...}` and
//     `{antigravity_generation: ...}` lines (times, model labels and ids, usage and retries). A
//     step with usage is a chat span. Tokens are counted as ccusage counts them: every step's and
//     generation's usage and retries, copies sharing a response, provider or message id merged
//     to the largest, the total output beyond the visible output as reasoning. What a step did
//     (its payload: prompts, commands, tool and MCP calls, rules, subagents) is in undocumented
//     fields: audit gaps say so.
package antigravity
