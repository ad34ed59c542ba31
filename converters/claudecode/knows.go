package claudecode

import "github.com/contextreceipts/convert/internal/leak"

// claudeIDs are the ids a Claude Code transcript carries (Format.IDs):
// session ids, lower-case UUIDs (crypto.randomUUID; all 13 sessions of
// corpus-seed/claude-code); the Messages API's message, tool use and
// request ids (leak.AnthropicIDs); and subagent (agent-<id>.jsonl) and
// task ids of lower-case hex digits: 7 or 8 ("a1b2c3d", "3430b97e": 2.0
// and earlier versions), or "a" and 16 ("a52886dc180afb356": 2.1); and the
// tool use ids of its progress records (type "progress", toolUseID):
// "bash-progress-" and a counter while a shell command runs (859 of
// corpus-seed/claude-code, up to bash-progress-116), and "agent_" before
// the Messages API id of the subagent's message while a Task runs
// (agent_msg_011jzyuMTascoz1U9cDkC3xS; 204 of them).
var claudeIDs = leak.IDs{
	leak.UUIDs,
	leak.AnthropicIDs,
	{Alphabet: leak.LowerHex, Min: 7, Max: 8, Examples: []string{"a1b2c3d", "3430b97e"}},
	{Prefixes: []string{"a"}, Alphabet: leak.LowerHex, Min: 16, Max: 16, Examples: []string{"a52886dc180afb356"}},
	{Prefixes: []string{"bash-progress-"}, Alphabet: leak.Digits, Min: 1, Max: 6, Examples: []string{"bash-progress-0", "bash-progress-116"}},
	{Prefixes: []string{"agent_msg_01"}, Alphabet: leak.Base58, Min: 22, Max: 22, Examples: []string{"agent_msg_011jzyuMTascoz1U9cDkC3xS"}},
}

// claudeModels are the model names Claude Code writes of its own
// (Format.Models): <synthetic>, on a message it made itself, and the
// aliases a subagent's definition names its model by (sonnet, opus,
// haiku, inherit; default when it names none).
var claudeModels = []string{"<synthetic>", "sonnet", "opus", "haiku", "inherit", "default"}
