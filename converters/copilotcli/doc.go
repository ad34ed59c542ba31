// Package copilotcli is the copilot_cli reader: it registers the converter copilot_cli.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `copilot_cli`: GitHub Copilot CLI session logs (`events.jsonl`). Tool calls with their
//     success or error, MCP calls (`mcpServerName`), `skill.invoked`, compaction and its summary,
//     system messages as `context.input.loaded`, subagents nested under the `task` call that
//     `subagent.started` names, output tokens per model response, and the session's per-model
//     totals (input, output, cache read and write, requests) from `session.shutdown`, counted
//     as ccusage 20.0.24 counts them (per model and figure, the largest any shutdown gives;
//     `inputTokens` holds the cache reads and writes, which the one token model of `run` and
//     `report` takes out, as ccusage does).
//     A session with no shutdown record (still running, crashed, or left with `/new`) has no
//     totals, as ccusage lists none, and says so in an audit gap rather than reporting zeros;
//     the per-call `assistant.usage` records some builds write stay on the chat spans and are
//     summed on the root as `copilot_cli.usage.call_records.*`. A resumed session writes a
//     shutdown per run, each counting only that run: the root also carries them added up
//     (`copilot_cli.usage.all_shutdowns.*`), and model calls after the last one are named in an
//     audit gap. Why these differ from ccusage's: [formats.md](formats.md#token-totals-and-ccusage).
//     `session.usage_checkpoint` (running totals of AI credits, `totalNanoAiu`, and premium
//     requests; no tokens) is counted, and the last one is on the root as
//     `copilot_cli.billing.nano_aiu` and `copilot_cli.billing.premium_count`. Credits are a
//     count of their own unit (10^9 nano a credit, so a healthy session passes a token count's
//     bound of 999,999,999 after about one credit): read up to 10^15, exact below 10^9 and
//     rounded down to a millionth of a credit above, where a phone number's digits could hide.
package copilotcli
