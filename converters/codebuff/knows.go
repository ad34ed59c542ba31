package codebuff

import "github.com/contextreceipts/convert/internal/leak"

// codebuffIDs are the ids a Codebuff chat carries (Format.IDs): the tool
// call ids of the models it calls, Anthropic's and OpenAI's call_ ids, and
// lower-case UUIDs. Its chat id is the time the chat began
// (2026-01-02T03-04-05.000Z, doc.go), no id the id shape admits.
var codebuffIDs = leak.IDs{leak.UUIDs, leak.AnthropicIDs, leak.OpenAICallIDs}
