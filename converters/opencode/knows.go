package opencode

import "github.com/contextreceipts/convert/internal/leak"

// opencodeIDs are the ids an OpenCode (or Kilo, its fork: Variant)
// session carries (Format.IDs): its own session, message and part ids,
// ses_, msg_ or prt_ then 12 hex digits of time and 14 Base62 characters
// (anomalyco/opencode, packages/opencode/src/id/id.ts, Identifier), and
// the tool call ids of the models it calls, Anthropic's and OpenAI's
// call_ ids.
var opencodeIDs = leak.IDs{
	{Prefixes: []string{"ses_", "msg_", "prt_"}, Head: leak.LowerHex, HeadLen: 12, Alphabet: leak.Base62, Min: 26, Max: 26,
		Examples: []string{"ses_4f1e2d3c5ffeA1b2C3d4E5f6G7", "prt_b20000000002ffeZx9Cv8Bn7Ma"}},
	leak.AnthropicIDs,
	leak.OpenAICallIDs,
}
