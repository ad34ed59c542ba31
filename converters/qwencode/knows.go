package qwencode

import "github.com/contextreceipts/convert/internal/leak"

// qwenIDs are the ids a Qwen Code chat carries (Format.IDs): session and
// record ids, lower-case UUIDs (~/.qwen/tmp/<hash>/chats/<uuid>.jsonl),
// and call ids in OpenAI's form, call_ and 24 characters (DashScope's are
// lower-case hex, "call_4b2d8e6f1a3c5e7d9f0b2a4c").
var qwenIDs = leak.IDs{leak.UUIDs, leak.OpenAICallIDs}

// qwenModels are the model names Qwen Code writes of its own defaults,
// which genai-prices lists only behind OpenRouter's prefix (QwenLM/qwen-code,
// packages/core/src/config/models.ts, and its earlier defaults
// coder-model and qwen3-coder-plus).
var qwenModels = []string{"coder-model", "vision-model", "qwen3-coder-plus", "qwen3-coder-flash", "qwen3-coder-next", "qwen3-vl-plus"}
