// Package geminicli is the gemini_cli reader: it registers the converter gemini_cli.
//
// What it reads and writes, as docs/converters.md shows it (make generate
// copies the lines below into its notes on native formats):
//
//   - `gemini_cli`: Gemini CLI chat recordings, the JSONL files of 0.40 and newer and the
//     older one-document session files (see below). Tool calls (status `success`, `error`,
//     `cancelled`; unfinished ones have none), MCP calls under both naming schemes
//     (`server__tool`, `mcp_<server>_<tool>`), `activate_skill` as `context.skill.invoked`,
//     subagent chats nested under the call that started them, per-model tokens of every model
//     message (input is the prompt count, cached tokens included as Google counts them, plus
//     the tool-use prompt count, as the CLI's own totals add it; thinking tokens apart as
//     reasoning tokens; `convert run` and `report` take the cached tokens out, as for every
//     agent). A summary without an output count, or with 0, still has its total, which Gemini
//     counts as prompt + output + thoughts + tool: the output is what the total leaves, as
//     ccusage derives it (ccusage takes the cached tokens out of it again, which the log does
//     not say: `converters/testdata/ccusage.json` records the difference). Older builds' names
//     (`prompt`, `candidates`, `*_tokens`) count as the CLI's. And audit gaps: GEMINI.md context files always load without a record,
//     and messages may carry no tokens. Rewound turns (`$rewindTo`) stay in the receipt, their
//     chat spans marked `gemini_cli.rewound`: the model calls happened and their tokens were spent.
package geminicli
