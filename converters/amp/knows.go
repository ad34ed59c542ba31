package amp

import "github.com/contextreceipts/convert/internal/leak"

// ampIDs are the ids an Amp thread carries (Format.IDs): its thread id,
// "T-" and a lower-case UUID (threads/T-<uuid>.json, the id ccusage's amp
// adapter names sessions by), and the tool use ids of the models it
// calls, Anthropic's and OpenAI's call_ ids.
var ampIDs = leak.IDs{
	{Prefixes: []string{"T-"}, UUID: true, Alphabet: leak.LowerHex, Examples: []string{"T-1b2c3d4e-5f60-4b7c-9d8e-0f1a2b3c4d5e"}},
	leak.AnthropicIDs,
	leak.OpenAICallIDs,
}
