package copilotcli

import "github.com/contextreceipts/convert/internal/leak"

// copilotIDs are the ids a Copilot CLI events.jsonl carries (Format.IDs):
// session, turn, message and interaction ids, lower-case UUIDs
// (~/.copilot/session-state/<uuid>/events.jsonl), and the tool call ids
// of the models it calls: Anthropic's, also through Bedrock and Vertex AI
// (toolu_bdrk_01..., as Copilot Chat's session resources name them), and
// OpenAI's call_ ids.
var copilotIDs = leak.IDs{leak.UUIDs, leak.AnthropicIDs, leak.OpenAICallIDs}
