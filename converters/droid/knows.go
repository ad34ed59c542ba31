package droid

import "github.com/contextreceipts/convert/internal/leak"

// droidIDs are the ids a Factory Droid session carries (Format.IDs):
// session ids, lower-case UUIDs (~/.factory/sessions/<uuid>.jsonl and its
// <uuid>.settings.json), and the tool call ids of the models it calls
// with the user's own keys: Anthropic's and OpenAI's call_ ids.
var droidIDs = leak.IDs{leak.UUIDs, leak.AnthropicIDs, leak.OpenAICallIDs}
