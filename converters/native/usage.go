package native

import (
	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/internal/receipt"
)

// Usage is a reader's token counts for one model call, or their sum over a
// model or a session: the four every agent reports (Tokens), Input as the
// agent counts it (with the cached tokens inside for Codex, Gemini CLI and
// Copilot CLI, without them for Claude Code, OpenCode, pi and Droid), and
// the ones some agents count apart. A reader with counts of its own
// (Claude Code's cache lifetimes, Gemini CLI's tool prompt) keeps them
// beside a Usage.
type Usage struct {
	Input, Output, CacheRead, CacheWrite int64
	Reasoning                            int64 // reasoning or thinking tokens, reported apart from output
	Total                                int64 // the agent's own total, for the formats that write one
	Responses                            int64 // model responses (or requests) added in
}

// Add adds v to u, field by field.
func (u *Usage) Add(v Usage) {
	u.Input += v.Input
	u.Output += v.Output
	u.CacheRead += v.CacheRead
	u.CacheWrite += v.CacheWrite
	u.Reasoning += v.Reasoning
	u.Total += v.Total
	u.Responses += v.Responses
}

// Tokens are u's four common counts, as a usage summary writes them
// (events.UsageSummary).
func (u Usage) Tokens() events.Tokens {
	return events.Tokens{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}
}

// CacheIn is u with the cache reads and writes inside Input, as the GenAI
// conventions count a span's input: for an agent that counts them apart.
func (u Usage) CacheIn() Usage {
	u.Input += u.CacheRead + u.CacheWrite
	return u
}

// Chat is a chat span's usage attributes (ChatUsage); u's Input holds
// every input token (CacheIn).
func (u Usage) Chat() receipt.Attrs { return ChatUsage(u.Input, u.Output, u.CacheRead, u.CacheWrite) }

// Root writes u as the session's totals on the root span (RootTokens); u's
// Input holds every input token (CacheIn).
func (u Usage) Root(out *converters.Output) { RootTokens(out, u.Input, u.Output) }
