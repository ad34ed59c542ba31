package cursor

import "github.com/contextreceipts/convert/internal/leak"

// cursorIDs are the ids a Cursor agent transcript carries (Format.IDs):
// its session id, the transcript's file name, a lower-case UUID
// (agent-transcripts/<uuid>.jsonl); the tool call ids of the models it
// calls, Anthropic's (toolu_bdrk_01..., as Cursor's toolFormerData
// writes them) and OpenAI's call_ ids. The reader's own key of a call the
// log gives no id, line:<file>:<line>:<index> (records.go), is no id of
// Cursor's: it is written as its digest, which keys the same span.
var cursorIDs = leak.IDs{leak.UUIDs, leak.AnthropicIDs, leak.OpenAICallIDs}

// cursorModels are the model names Cursor writes of its own (Format.Models):
// Auto (its router; auto in some versions), its name of Anthropic's
// Sonnet 4.5 (claude-4.5-sonnet, where Anthropic writes claude-sonnet-4-5;
// the catalog knows its other claude-4* names) and its own Composer model.
var cursorModels = []string{"auto", "Auto", "claude-4.5-sonnet", "composer-1"}
