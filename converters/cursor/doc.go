// Package cursor is the cursor reader: it registers the converter cursor.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `cursor`: `cursor-agent --output-format stream-json` captures and on-disk agent
//     transcripts. Cursor logs never record instruction loads, and transcripts record no times,
//     usage or tool results: every receipt says so with `context.audit_gap.recorded` instead of
//     inventing values (their traces are on the [record clock](usage.md#sending-traces-to-an-opentelemetry-collector-otlp)).
//     Today's transcripts wrap prompts in `<user_query>` (and `<timestamp>`), mark redacted
//     thinking `[REDACTED]`, and write shell output as `command_output` blocks, which close
//     their Shell call; all three are counted on the root (`cursor.*.count`).
package cursor
