package leak

import (
	"slices"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/internal/models"
)

// Knowledge is what one agent's reader knows of the values it writes, as
// its converters.Format declares them: the grammar of the ids its logs
// carry, and the model names the agent writes of its own that no catalog
// lists. A reader writes an id in clear only when it is one of its agent's
// (Shape.ClearFor), and a model name only when the catalog or its agent
// knows it.
type Knowledge struct {
	IDs    IDs
	Models []string
}

// IDs is an agent's id grammar: the families of ids its logs carry, its
// own (session UUIDs, OpenCode's ses_ ids) and those of the model
// providers it calls (Anthropic's toolu_, OpenAI's call_), each a rule.
// An id no rule matches is written as its digest, never refused: a digest
// keys the same joins, it only hides the text.
type IDs []IDRule

// An IDRule is one family of ids: one of Prefixes (none: no prefix), then
// a body of Min to Max characters of Alphabet, the first HeadLen of them
// of Head (OpenCode's 12 hex digits of time), and with TailMax set, an
// optional "-" and 1 to TailMax characters of Tail (Gemini CLI's
// <ms>-<suffix>); or, with UUID set, one of Prefixes and a UUID
// (8-4-4-4-12 hex digits, of Alphabet's case when it is set).
// Examples are ids of the family as the agent writes them (its logs, its
// sources): TestIDGrammars holds the rule to them, and every id a rule
// admits to the secret and personal-data screens.
type IDRule struct {
	Prefixes []string
	Alphabet string
	Min, Max int
	Head     string
	HeadLen  int
	Tail     string
	TailMax  int
	UUID     bool
	Examples []string
}

// The alphabets of id bodies.
const (
	Digits   = "0123456789"
	LowerHex = Digits + "abcdef"
	Base62   = Digits + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	// Base58 is Bitcoin's alphabet (no 0, O, I, l): Anthropic's id bodies.
	Base58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
)

// Match reports whether v is an id of the grammar (its syntax only: the
// screens are Shape.Admit's).
func (g IDs) Match(v string) bool {
	for _, r := range g {
		if r.Match(v) {
			return true
		}
	}
	return false
}

// Match reports whether v is an id of r's family.
func (r IDRule) Match(v string) bool {
	body, ok := v, len(r.Prefixes) == 0
	for _, p := range r.Prefixes {
		if b, found := strings.CutPrefix(v, p); found {
			body, ok = b, true
			break
		}
	}
	if r.UUID {
		return ok && isUUID(body) && (r.Alphabet == "" || strings.Trim(body, r.Alphabet+"-") == "")
	}
	if i := strings.IndexByte(body, '-'); r.TailMax > 0 && i >= 0 {
		tail := body[i+1:]
		if tail == "" || len(tail) > r.TailMax || strings.Trim(tail, r.Tail) != "" {
			return false
		}
		body = body[:i]
	}
	if !ok || len(body) < r.Min || len(body) > r.Max || len(body) < r.HeadLen {
		return false
	}
	return strings.Trim(body[:r.HeadLen], r.Head) == "" && strings.Trim(body[r.HeadLen:], r.Alphabet) == ""
}

// The id families of the model providers agents call, shared by the
// readers of agents that write them.
var (
	// AnthropicIDs are the Messages API's ids: a message, a tool use, a
	// server tool use and a request, "01" and 22 characters of Base58:
	// all 4,098 such ids of the seed transcripts (corpus-seed/claude-code:
	// msg_0113ezJR3hNQJo51NLnS26HK, toolu_0114R4tT6VPiDksvXghJqa5C,
	// req_011CWpS5NgpKRVokUuHVdg1m). Through Bedrock and Vertex AI the
	// message and tool use ids carry bdrk_ or vrtx_ after the family
	// (toolu_bdrk_01HxgY2TLULtpq5LJCaYj212, toolu_vrtx_01SSt2KZd8fXU4dL7usyGrzJ,
	// as public Copilot Chat and Cursor logs write them).
	AnthropicIDs = IDRule{Prefixes: []string{"msg_01", "toolu_01", "srvtoolu_01", "req_01", "msg_bdrk_01", "toolu_bdrk_01",
		"msg_vrtx_01", "toolu_vrtx_01"}, Alphabet: Base58, Min: 22, Max: 22,
		Examples: []string{"msg_0113ezJR3hNQJo51NLnS26HK", "toolu_0114R4tT6VPiDksvXghJqa5C", "req_011CWpS5NgpKRVokUuHVdg1m",
			"toolu_bdrk_01HxgY2TLULtpq5LJCaYj212", "toolu_vrtx_01SSt2KZd8fXU4dL7usyGrzJ"}}
	// OpenAICallIDs are OpenAI's function call ids: "call_" and 24
	// characters of Base62 (all 1,038 call ids of the seed rollouts,
	// corpus-seed codex: call_01iQZvHRP9UGrkhoUlvcOLXU).
	OpenAICallIDs = IDRule{Prefixes: []string{"call_"}, Alphabet: Base62, Min: 24, Max: 24,
		Examples: []string{"call_01iQZvHRP9UGrkhoUlvcOLXU", "call_AIvJYOrRJKjPQBEkCquqzSIB"}}
	// UUIDs are lower-case UUIDs, as crypto.randomUUID (v4) and Rust's
	// uuid crate (v7, Codex) write them.
	UUIDs = IDRule{UUID: true, Alphabet: LowerHex,
		Examples: []string{"0822e04b-5551-4de8-a98a-5660c689e49b", "019ed917-1cf7-72a3-92f5-c0aa98fb134e"}}
)

// ClearFor reports whether a value v of shape s, read by the reader of an
// agent that knows k, is written in clear: Clear, and an id only when it
// is one of the agent's ids (k.IDs; a reader that declares none writes
// every id as its digest), a model name when the catalog or the agent
// knows it (or names are revealed).
func (s Shape) ClearFor(v string, reveal bool, k Knowledge) bool {
	return s.admitFor(v, &k, reveal)
}

// admitFor is Admit as the leak check applies it to the input of a reader
// that knows k, in a run that reveals names or not: a value is a
// pass-through value only when its reader writes it in clear (ClearFor).
// An id (ID, IDOrUUID) must be one of the agent's ids, and a model name
// one the catalog knows (KnownModel), one of the agent's own (k.Models),
// or any the screens pass under --reveal names. Any other value of the
// shape is written as its digest, so the check holds it raw: its copy in
// an untyped output is a leak, its repeats elsewhere in the input are not
// spared. A reader whose grammar has no rule (ZCode's) admits no id.
// With k nil (a writer that knows no agent: a scenario's, which writes
// by Clear with names never revealed), an id is admitted by its shape
// alone and a model name by the catalog alone. Knowledge goes first for
// ids (a few byte compares, cheaper than Admit's screens), after Admit
// for model names (the catalog's look-up is the dearer).
//
//	ID "toolu_0114R4tT6VPiDksvXghJqa5C", Claude Code's grammar   admitted
//	ID "msg_01alicekowalczykpayrollQ3", Claude Code's grammar    raw (l is no Base58 letter)
//	ID "0123456789abcdef01234567", ZCode's (none)               raw
//	ID "0123456789abcdef01234567", k nil                         admitted (24 hex digits)
//	Model "claude-opus-4-5-20251101", any reader                 admitted (the catalog)
//	Model "<synthetic>", Claude Code's                           admitted (its own)
//	Model "alice-kowalczyk-finetune", not revealed               raw
//	Model "alice-kowalczyk-finetune", --reveal names             admitted
//	Model "alice-kowalczyk-finetune", k nil, revealed or not     raw (a scenario never reveals)
//	Model "home/alice/q3-salaries.gguf", --reveal names          raw (a path: Admit)
func (s Shape) admitFor(v string, k *Knowledge, reveal bool) bool {
	return k.ownID(s, v) && s.Admit(v) && k.ownModel(s, v, reveal)
}

// ownID reports whether v, in a field of shape s, may be one of the ids
// of the agent that knows k: any value of another shape, or with k nil.
func (k *Knowledge) ownID(s Shape, v string) bool {
	return k == nil || s != ID && s != IDOrUUID || k.IDs.Match(v)
}

// ownModel reports whether v, in a field of shape s, is a model name the
// reader that knows k writes in clear (any value of another shape): with
// names revealed (never with k nil), or when it knows the name.
func (k *Knowledge) ownModel(s Shape, v string, reveal bool) bool {
	return s != Model || reveal && k != nil || k.knowsModel(v)
}

// knowsModel reports whether the catalog or the agent that knows k (may
// be nil) knows the model name v.
func (k *Knowledge) knowsModel(v string) bool {
	return KnownModel(v) || k != nil && slices.Contains(k.Models, v)
}

// KnownModel reports a model name the catalog knows (models.Known: its ids
// behind a provider prefix, with a release suffix). The names an agent
// writes of its own (Claude Code's <synthetic>, Cursor's Auto) are its
// reader's (Knowledge.Models). The check asks it of every model value it
// probes, and the catalog's look-up allocates (its suffix patterns), so
// the answers for the first maxKnownMemo names are remembered: a session
// names a handful.
func KnownModel(v string) bool {
	knownMemo.RLock()
	known, ok := knownMemo.m[v]
	knownMemo.RUnlock()
	if ok {
		return known
	}
	known = models.Known(v)
	knownMemo.Lock()
	if len(knownMemo.m) < maxKnownMemo {
		knownMemo.m[strings.Clone(v)] = known // v may be a view of a read buffer
	}
	knownMemo.Unlock()
	return known
}

const maxKnownMemo = 4096

var knownMemo = struct {
	sync.RWMutex
	m map[string]bool
}{m: map[string]bool{}}
