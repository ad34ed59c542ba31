// Package zcode reads ZCode's usage ledger (Zhipu's ZCode coding agent):
// cli/db/db.sqlite under ~/.zcode (or $ZCODE_HOME), an SQLite database
// (store.go says which tables and columns) opened read-only and
// query-only, as ccusage 20.0.24 opens it (its binary: PRAGMA query_only,
// busy_timeout 5000), each session an input of its own. What each
// mapping rests on:
//
//   - ccusage 20.0.24's query, read from its binary (no source of its ZCode
//     adapter is public): SELECT m.id, m.session_id, m.started_at,
//     m.model_id, m.input_tokens, m.output_tokens, the cache and total
//     columns and m.provider_id when present, s.directory FROM model_usage m
//     LEFT JOIN session s ON s.id = m.session_id WHERE m.status =
//     'completed'. Its figures, printed for the database testdata/db.sql
//     builds, are in testdata/ccusage.json; the rules below were read off
//     its output for rows made to tell them apart.
//   - A model_usage row is one model call: a chat span from started_at
//     (Unix milliseconds) to completed_at (else started_at plus
//     duration_ms), failed when its status is error. Calls not completed
//     (error, cancelled) are counted, not their tokens, as ccusage does.
//   - Token usage, per model: a completed row naming a model, with a
//     started_at and whole-number counts, of some input, output or cache
//     tokens. cache_read_input_tokens and cache_creation_input_tokens are
//     parts of input_tokens: cache reads are min(cache reads, input), cache
//     writes min(cache writes, the rest), input what remains; output is
//     output_tokens; computed_total_tokens beyond input_tokens plus
//     output_tokens (reasoning, which ZCode counts into it) is written as
//     reasoning, as ccusage's total takes the larger of the two.
//   - The session row's directory is the working directory.
//
// What the ledger does not hold is an audit gap: it records model calls
// and their usage only, not the conversation, tool calls (MCP included),
// skills, subagents or compaction, and nothing of the instruction files
// ZCode loads. The working directory is raw: hashed, never copied.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `zcode`: ZCode's usage ledger, `cli/db/db.sqlite` under `~/.zcode` (or `$ZCODE_HOME`, as
//     ccusage 20.0.24 looks), an SQLite database opened read-only and query-only, each
//     `model_usage` session an input of its own. The store writes a session as its
//     `{zcode_session: ...}` row (id, directory) and `{zcode_model_usage: ...}` lines (ids,
//     model, status, times, token columns). Each row is a chat span; tokens are the completed
//     rows' per model, the cache reads and writes taken out of the input and
//     `computed_total_tokens` beyond input and output as reasoning, as ccusage counts them. The
//     ledger holds no messages, tool calls or instruction loads: audit gaps say so.
package zcode
