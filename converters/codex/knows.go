package codex

import "github.com/contextreceipts/convert/internal/leak"

// codexIDs are the ids a Codex rollout carries (Format.IDs): session,
// thread, turn and window ids, lower-case UUIDs (v7, as the rollout's own
// file name rollout-<time>-<uuid>.jsonl carries them; all 4 threads of
// corpus-seed/codex: 019ed917-1cf7-72a3-92f5-c0aa98fb134e), the model's
// call ids, OpenAI's call_ and 24 Base62 characters (leak.OpenAICallIDs:
// all 1,038 of corpus-seed/codex), and the Responses API's item ids
// (responseItemIDs).
var codexIDs = leak.IDs{leak.UUIDs, leak.OpenAICallIDs, responseItemIDs}

// responseItemIDs are the OpenAI Responses API's ids of a response and of
// its output items, which a rollout's response_item records keep: a type
// prefix (resp_ a response, msg_ a message, rs_ a reasoning item, fc_ a
// function call) and lower-case hex digits, 48 in the API reference's
// examples (resp_67cb71b351908190a308f3859487620d06981a8637e6bc44) and 50
// in all 1,336 item ids of corpus-seed/codex (660 fc_, 359 msg_, 317 rs_:
// fc_0b687d5ffc07d9a7016a437fa559a4819196f6a36ef1f6e4bf).
var responseItemIDs = leak.IDRule{Prefixes: []string{"resp_", "msg_", "rs_", "fc_"}, Alphabet: leak.LowerHex, Min: 48, Max: 50,
	Examples: []string{"resp_67cb71b351908190a308f3859487620d06981a8637e6bc44",
		"fc_0b687d5ffc07d9a7016a437fa559a4819196f6a36ef1f6e4bf", "rs_0b687d5ffc07d9a7016a437f9a8d38819186446a99d5d41211",
		"msg_0b687d5ffc07d9a7016a437f9f6e5c8191962cdfdd0443ebf7"}}
