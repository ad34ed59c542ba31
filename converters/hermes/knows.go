package hermes

import "github.com/contextreceipts/convert/internal/leak"

// hermesIDs are the ids a Hermes Agent state.db carries (Format.IDs): the
// tool call ids of the models it calls through OpenAI-compatible APIs,
// OpenAI's call_ ids and Anthropic's, and lower-case UUIDs. Its session
// ids, <yyyymmdd>_<hhmmss>_<hex> ("20261120_100000_a1b2c3"), are refused
// by the id shape (a date first) and written as digests, as they were.
var hermesIDs = leak.IDs{leak.UUIDs, leak.OpenAICallIDs, leak.AnthropicIDs}
