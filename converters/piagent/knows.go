package piagent

import "github.com/contextreceipts/convert/internal/leak"

// piIDs are the ids a pi session carries (Format.IDs): session and run
// ids, lower-case UUIDs (<time>_<uuid>.jsonl; the session header's id),
// and the tool call ids of the models it calls, Anthropic's and OpenAI's
// call_ ids (a Responses call's "call_...|fc_..." pair is neither, and is
// a digest).
var piIDs = leak.IDs{leak.UUIDs, leak.AnthropicIDs, leak.OpenAICallIDs}
