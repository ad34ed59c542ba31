package codex

import "github.com/contextreceipts/convert/internal/leak"

// codexIDs are the ids a Codex rollout carries (Format.IDs): session,
// thread, turn and window ids, lower-case UUIDs (v7, as the rollout's own
// file name rollout-<time>-<uuid>.jsonl carries them; all 4 threads of
// corpus-seed/codex: 019ed917-1cf7-72a3-92f5-c0aa98fb134e), and the
// model's call ids, OpenAI's call_ and 24 Base62 characters
// (leak.OpenAICallIDs: all 1,038 of corpus-seed/codex).
var codexIDs = leak.IDs{leak.UUIDs, leak.OpenAICallIDs}
