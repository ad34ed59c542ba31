// Package usage is the one token model `convert run` and `convert report`
// count with: input excludes cache reads and cache writes for every agent,
// and a response seen in several sessions (a resumed or forked session
// repeats its history with the same message ids) counts once, as ccusage
// counts it.
package usage

import (
	"bytes"
	"crypto/sha256"
	"strings"
	"time"
	"unsafe"

	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
)

// Tokens are the token counts of the one model. Input excludes cache read
// and cache write; Reasoning is what the agent reports apart as reasoning
// or thinking tokens, shown on its own and never added to a total (OpenAI
// counts it inside output already).
type Tokens struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cache_read"`
	CacheWrite int64 `json:"cache_write"`
	Reasoning  int64 `json:"reasoning"`
}

// Add adds u to t.
func (t *Tokens) Add(u Tokens) {
	t.Input += u.Input
	t.Output += u.Output
	t.CacheRead += u.CacheRead
	t.CacheWrite += u.CacheWrite
	t.Reasoning += u.Reasoning
}

// Sub takes u out of t.
func (t *Tokens) Sub(u Tokens) {
	t.Input -= u.Input
	t.Output -= u.Output
	t.CacheRead -= u.CacheRead
	t.CacheWrite -= u.CacheWrite
	t.Reasoning -= u.Reasoning
}

// Total is input, output, cache read and cache write.
func (t Tokens) Total() int64 { return t.Input + t.Output + t.CacheRead + t.CacheWrite }

// inputHoldsCache names the gen_ai.usage.dedupe values of the receipts
// whose input counts the cached tokens inside it, as OpenAI and Gemini
// count them: Codex's cumulative totals, Gemini CLI's messages and Copilot
// CLI's session.shutdown modelMetrics (inputTokens holds cacheReadTokens
// and cacheWriteTokens; ccusage 20.0.24 takes them out too). Claude Code
// and Cursor write input without them.
var inputHoldsCache = map[string]bool{
	"cumulative_total_deltas": true,
	"message_id_last_record":  true,
	"shutdown_model_metrics":  true,
}

// Summary reads the attributes of a gen_ai.token_usage.summarized receipt
// event (get returns one attribute) into the one model.
func Summary(get func(key string) gjson.Result) (model string, t Tokens) {
	t = Tokens{
		Input:      get("gen_ai.usage.input_tokens").Int(),
		Output:     get("gen_ai.usage.output_tokens").Int(),
		CacheRead:  get("gen_ai.usage.cache_read.input_tokens").Int(),
		CacheWrite: get("gen_ai.usage.cache_creation.input_tokens").Int(),
		Reasoning:  get("gen_ai.usage.reasoning.output_tokens").Int(),
	}
	if inputHoldsCache[get("gen_ai.usage.dedupe").Str] {
		t.Input = max(0, t.Input-t.CacheRead-t.CacheWrite)
	}
	return get("gen_ai.request.model").Str, t
}

// Response is one model response as a trace's chat span records it.
type Response struct {
	ID      string // gen_ai.response.id (the message id)
	Request string // anthropic.request.id (the API request id), where the agent logs one
	Model   string
	Tokens  Tokens
	// At is when the response was made: its chat span's end, the time of
	// the last row the agent logged it with, as ccusage dates a usage row
	// (a response prompted before midnight and answered after it is the
	// next day's).
	At time.Time
}

// Responses returns the chat spans of a trace (OTLP/JSON, one document or
// one per line) that carry token usage, with their response id where the
// agent logs one (Claude Code). A chat span counts as the GenAI
// conventions do, input holding the cached tokens: they are taken out.
func Responses(trace []byte) []Response {
	var out []Response
	doc := func(v gjson.Result) {
		v.Get("resourceSpans").ForEach(func(_, rs gjson.Result) bool {
			rs.Get("scopeSpans").ForEach(func(_, ss gjson.Result) bool {
				ss.Get("spans").ForEach(func(_, sp gjson.Result) bool {
					if r, ok := response(sp); ok {
						out = append(out, r)
					}
					return true
				})
				return true
			})
			return true
		})
	}
	if t := bytes.TrimSpace(trace); len(t) > 0 && t[0] == '{' && jsonscan.Valid(t) {
		doc(gjson.Parse(view(t)))
		return out
	}
	for _, line := range bytes.Split(trace, []byte("\n")) {
		if len(bytes.TrimSpace(line)) > 0 && jsonscan.Valid(line) {
			doc(gjson.Parse(view(line)))
		}
	}
	return out
}

// view reads b as a string without copying it: a long session's trace is
// a hundred MB, and gjson.ParseBytes would hold a second copy while it is
// read. Nothing read from it outlives Responses but the strings response
// clones.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func response(sp gjson.Result) (Response, bool) {
	attrs := func(yield func(key, str string, n int64)) {
		sp.Get("attributes").ForEach(func(_, a gjson.Result) bool {
			v := a.Get("value")
			yield(a.Get("key").Str, v.Get("stringValue").Str, v.Get("intValue").Int())
			return true
		})
	}
	return spanResponse(attrs, sp.Get("endTimeUnixNano").Int())
}

// FromSpan is the response a chat span carries, read from the attributes
// the pipeline writes (before it encodes them): Responses of the trace
// written, without reading the trace back.
func FromSpan(a receipt.Attrs, endNs int64) (Response, bool) {
	attrs := func(yield func(key, str string, n int64)) {
		for _, at := range a {
			yield(at.Key, at.Value.Str, at.Value.Int)
		}
	}
	return spanResponse(attrs, endNs)
}

// spanResponse reads a chat span's usage from its attributes (each key
// with its string or integer value); ok is false for any other span.
func spanResponse(attrs func(yield func(key, str string, n int64)), endNs int64) (r Response, ok bool) {
	var in int64
	cw := int64(-1)
	chat, counted := false, false
	attrs(func(k, str string, n int64) {
		if strings.HasPrefix(k, "gen_ai.usage.") {
			counted = true
		}
		switch k {
		case "gen_ai.operation.name":
			chat = str == "chat"
		case "gen_ai.response.id":
			r.ID = strings.Clone(str)
		case "anthropic.request.id":
			r.Request = strings.Clone(str)
		case "gen_ai.request.model":
			r.Model = strings.Clone(str)
		case "gen_ai.usage.input_tokens":
			in = n
		case "gen_ai.usage.output_tokens":
			r.Tokens.Output = n
		case "gen_ai.usage.cache_read.input_tokens":
			r.Tokens.CacheRead = n
		case "gen_ai.usage.cache_write.input_tokens":
			cw = n
		case "gen_ai.usage.cache_creation.input_tokens": // the old name, written too with --legacy-genai-names
			if cw < 0 {
				r.Tokens.CacheWrite = n
			}
		case "gen_ai.usage.reasoning.output_tokens":
			r.Tokens.Reasoning = n
		}
	})
	if !chat || !counted {
		return r, false
	}
	if cw >= 0 {
		r.Tokens.CacheWrite = cw
	}
	r.Tokens.Input = max(0, in-r.Tokens.CacheRead-r.Tokens.CacheWrite)
	if endNs > 0 {
		r.At = time.Unix(0, endNs).UTC()
	}
	return r, true
}

// Fold counts each response once across sessions, as ccusage 20 counts a
// Claude Code usage row once across files: keyed on the pair of message id
// and request id, and only when the response has both (one without a
// request id is never folded with another session's, whatever its message
// id; two with the same message id and different request ids are two).
// Sessions are added with an owner number; the copy kept of a response seen more than once is the
// one with the largest counts (a streamed response is logged growing), the
// lowest owner on a tie, so the totals do not depend on the order sessions
// are added in. It holds a digest and the counts of each response, so a
// history of a million responses takes some tens of megabytes.
type Fold struct {
	best   map[[16]byte]kept
	extra  []held // the copies not kept
	models map[string]string
}

type kept struct {
	owner int
	model string
	t     Tokens
}

type held struct {
	owner int
	r     Response
}

// Add records the responses of one session; one without a message id or a
// request id is left alone, as ccusage leaves it.
func (f *Fold) Add(owner int, rs []Response) {
	if f.best == nil {
		f.best, f.models = map[[16]byte]kept{}, map[string]string{}
	}
	for _, r := range rs {
		if r.ID == "" || r.Request == "" {
			continue
		}
		sum := sha256.Sum256([]byte(r.ID + "\x00" + r.Request))
		k := [16]byte(sum[:16])
		m, ok := f.models[r.Model]
		if !ok {
			m = strings.Clone(r.Model)
			f.models[m] = m
		}
		now := kept{owner, m, r.Tokens}
		was, seen := f.best[k]
		if !seen {
			f.best[k] = now
			continue
		}
		loser := now
		if better(now, was) {
			f.best[k], loser = now, was
		}
		f.extra = append(f.extra, held{loser.owner, Response{ID: r.ID, Request: r.Request, Model: loser.model, Tokens: loser.t}})
	}
}

func better(a, b kept) bool {
	x, y := a.t, b.t
	for _, d := range [][2]int64{{x.Output, y.Output}, {x.Input, y.Input}, {x.CacheRead, y.CacheRead}, {x.CacheWrite, y.CacheWrite}} {
		if d[0] != d[1] {
			return d[0] > d[1]
		}
	}
	return a.owner < b.owner
}

// Duplicates is how many copies of responses were folded.
func (f *Fold) Duplicates() int { return len(f.extra) }

// Folded returns, per owner, the responses of its session not kept: the
// copies its totals must lose.
func (f *Fold) Folded() map[int][]Response {
	out := map[int][]Response{}
	for _, h := range f.extra {
		out[h.owner] = append(out[h.owner], h.r)
	}
	return out
}
