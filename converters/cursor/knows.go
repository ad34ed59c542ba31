package cursor

import "github.com/contextreceipts/convert/internal/leak"

// cursorIDs are the ids a Cursor agent transcript carries (Format.IDs):
// its session id, the transcript's file name, a lower-case UUID
// (agent-transcripts/<uuid>.jsonl); the tool call ids of the models it
// calls, Anthropic's (toolu_bdrk_01..., as Cursor's toolFormerData
// writes them) and OpenAI's call_ ids; and the reader's own id of a call
// the log gives none, line:<file>:<line>:<index> (records.go).
var cursorIDs = leak.IDs{
	leak.UUIDs,
	leak.AnthropicIDs,
	leak.OpenAICallIDs,
	{Prefixes: []string{"line:"}, Alphabet: leak.Digits + ":", Min: 5, Max: 32, Examples: []string{"line:0:2:1"}},
}

// cursorModels are the model names Cursor writes of its own (Format.Models):
// Auto (its router; auto in some versions), its names of Anthropic's
// models (claude-4.5-sonnet, where Anthropic writes claude-sonnet-4-5) and
// its own Composer model.
var cursorModels = []string{"auto", "Auto", "claude-4.5-sonnet", "claude-4.5-opus", "claude-4.5-haiku",
	"claude-4-sonnet", "claude-4-opus", "composer-1"}
