// Package untrusted screens values read from files that come from anywhere
// (receipts, envelopes) before a command prints them. It sits outside the
// packages whose words are the program's vocabulary, so its own literals
// type nothing in an output.
package untrusted

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/internal/gate"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/outname"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/schemas"
)

// Receipts read by diff, audit, validate, verify and report come from
// anywhere: a value read from one is printed only when it passes the rules
// a receipt convert writes must pass without its input at hand (the
// program's own words, digests, small counts, and composites of those; a
// time; a short version number), and no secret shape is in it. Anything
// else is printed as its digest with a note: a hostile receipt cannot make
// a command print a prompt, a path, a user name or a key.

// Printable reports whether v, read from a receipt, may be printed as it is.
// The kinds are internal/leak's (Shape.Admit), the rules a written
// receipt's values pass: a time, a version, a model the catalog knows, and
// the program's own words and composites of them.
func Printable(v string) bool {
	if v == "" {
		return true
	}
	if len(v) > 512 {
		return false
	}
	if leak.Time.Admit(v) || leak.Version.Admit(v) || bucketLabel[v] || knownModel(v) {
		return true
	}
	if leak.Personal(v) != "" || dottedNumbers(v) {
		return false // an address or a number in our words' syntax is not ours
	}
	o := gate.NewOutputs()
	o.Add(v, gate.Where{Kind: gate.Document, File: "receipt"})
	chk := o.Check(nil)
	return len(chk.Untyped()) == 0 && len(chk.Findings()) == 0
}

// Withheld is how a value that is not Printable is printed: its digest
// (the first 16 hex digits of its sha256) and a note.
func Withheld(v string) string {
	sum := sha256.Sum256([]byte(v))
	return "sha256:" + hex.EncodeToString(sum[:8]) + withheldNote
}

const withheldNote = "… (withheld: not a value a receipt may hold)"

// IsWithheld reports whether s is what Withheld prints: a digest and the
// note, nothing of the value (a leak check counts it as derived).
func IsWithheld(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || !strings.HasSuffix(h, withheldNote) {
		return false
	}
	h = strings.TrimSuffix(h, withheldNote)
	return len(h) == 16 && strings.Trim(h, "0123456789abcdef") == ""
}

// Show is v when it is Printable, else Withheld(v).
func Show(v string) string {
	if Printable(v) {
		return v
	}
	return Withheld(v)
}

// ShowJSON is Show for a compact JSON value: a string is judged unquoted
// and printed quoted; an array element by element; a number or literal as
// it is when Printable.
func ShowJSON(v string) string {
	switch {
	case len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && !strings.Contains(v[1:len(v)-1], `"`):
		if s := v[1 : len(v)-1]; Printable(s) {
			return v
		}
	case len(v) >= 2 && v[0] == '[' && v[len(v)-1] == ']':
		inner := v[1 : len(v)-1]
		if inner == "" {
			return v
		}
		var out []string
		for _, e := range strings.Split(inner, ",") {
			if strings.ContainsAny(e, `[]{}\`) {
				return Withheld(v)
			}
			out = append(out, ShowJSON(e))
		}
		return "[" + strings.Join(out, ",") + "]"
	default:
		if Printable(v) {
			return v
		}
	}
	return Withheld(v)
}

// bucketLabel holds the labels of the receipt's bucket ladders.
var bucketLabel = func() map[string]bool {
	m := map[string]bool{"0": true, "invalid": true}
	for _, l := range receipt.Ladders() {
		for _, s := range l.Labels {
			m[s] = true
		}
	}
	return m
}()

// knownModel is a model name the model catalog knows (leak.KnownModel,
// the maintained price and model database) and the model kind admits, as
// a receipt convert writes holds it in clear without --reveal names. Any
// other model name, one of a known family's shape included
// ("claude-alice-kowalczyk"), a receipt holds only as its digest, or in
// clear under --reveal names (a local model's name the user chose to
// show, which read-back does not take on trust).
func knownModel(v string) bool { return leak.Model.Clear(v, false) }

// dottedNumbers reports four or more dot-joined numbers of at most 3
// digits in v (1.2.3.4.5): the gate types a composite of counts, but no
// value of ours joins four, and an address hides in them.
func dottedNumbers(v string) bool {
	digits, dots := 0, 0
	for i := 0; i <= len(v); i++ {
		c := byte(0)
		if i < len(v) {
			c = v[i]
		}
		switch {
		case '0' <= c && c <= '9':
			digits++
			if digits > 3 {
				dots = 0
			}
			continue
		case c == '.' && digits > 0 && digits <= 3:
			dots++
		default:
			if digits > 0 && digits <= 3 && dots >= 3 {
				return true
			}
			dots = 0
		}
		digits = 0
	}
	return false
}

// validatorWords are the words of the schema validator's and the receipt
// schema set's own messages (internal/jsonschema, internal/schema).
var validatorWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`< <= > >= additionalProperties against allowed and anyOf are at be but const
		does encoded equal expected failed found got if-else if-then index indexes is items json length match maximum
		mediatype minimum missing multipleOf must not of oneOf only pattern patternProperty properties regex required
		schemas valid value event has no schema line too long or one with exactly property exists doesn't validate
		string number integer boolean array object null minLength maxLength minItems maxItems minProperties
		maxProperties exclusiveMinimum exclusiveMaximum format enum type date-time date time duration uri uuid regex`) {
		validatorWords[w] = true
	}
}

// schemaText is every embedded schema's text, made on first use: only a
// command that screens a schema message reads it, and every process would
// otherwise pay for it at start.
var schemaText = sync.OnceValue(func() string {
	var b strings.Builder
	fs.WalkDir(schemas.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, err := schemas.FS.ReadFile(p); err == nil {
				b.Write(data)
			}
		}
		return nil
	})
	return b.String()
})

// Message screens a message composed about a file from anywhere (a schema
// problem, say): every word that is not the validator's own, not in the
// schemas' own text and not Printable is replaced by its digest, and so is
// every segment of a JSON pointer (/attributes/<key>).
func Message(msg string) string {
	var out []string
	for _, tok := range strings.Split(msg, " ") {
		out = append(out, screenToken(tok))
	}
	return strings.Join(out, " ")
}

func screenToken(tok string) string {
	inner := strings.TrimRight(strings.TrimLeft(tok, `'"(`), `'",;:)`)
	if inner == "" {
		return tok
	}
	lead := tok[:strings.Index(tok, inner)]
	trail := tok[len(lead)+len(inner):]
	if strings.HasPrefix(inner, "/") {
		segs := strings.Split(inner, "/")
		for i, s := range segs {
			if s != "" && !wordOK(unescapePointer(s)) {
				segs[i] = short(s)
			}
		}
		return lead + strings.Join(segs, "/") + trail
	}
	if wordOK(inner) {
		return tok
	}
	return lead + short(inner) + trail
}

func wordOK(w string) bool {
	return validatorWords[w] || Printable(w) || (len(w) >= 2 && strings.Contains(schemaText(), w))
}

// short is a withheld word: the first 12 hex digits of its sha256.
func short(w string) string {
	sum := sha256.Sum256([]byte(w))
	return "sha256:" + hex.EncodeToString(sum[:6]) + "…(withheld)"
}

func unescapePointer(s string) string {
	s = strings.NewReplacer("%20", " ", "~1", "/", "~0", "~").Replace(s)
	return s
}

// Field is v, the value of the attribute key in a receipt from anywhere,
// as it may be printed, the receipt's agent unknown: FieldFor(nil, key, v).
func Field(key, v string) string { return FieldFor(nil, key, v) }

// FieldFor is v, the value of the attribute key in a receipt of the agent
// whose reader knows k (converters.Converter.Knowledge; nil when the
// agent is unknown), as it may be printed: Printable values as they are;
// in the fields that carry a declared kind of value, a value the writer
// writes in clear there (FieldKind): a model name the catalog knows
// (Printable already), or the agent writes of its own; an id of the
// agent's id grammar, or a UUID, and with no agent known any value the id
// kind admits (leak.Shape.Admit); a name the name kind admits (written in
// clear with --reveal names); and an input's file name as the run writes
// it (outname.InputFileName); anything else Withheld.
//
//	gen_ai.request.model  claude-opus-4-5-20251101       shown (the catalog's)
//	gen_ai.request.model  alice-kowalczyk-finetune       withheld (no catalog's)
//	gen_ai.request.model  <synthetic>, Claude Code's      shown (the agent's own)
//	gen_ai.tool.call.id   toolu_0114R4tT6VPiDksvXghJqa5C shown (Claude Code's grammar)
//	gen_ai.tool.call.id   msg_01alicekowalczykpayrollQ3  withheld for Claude Code, shown with no agent known
func FieldFor(k *leak.Knowledge, key, v string) string {
	if Printable(v) {
		return v
	}
	ok := false
	switch sh := FieldKind(key); {
	case key == "convert.input.path":
		ok = fileName(v)
	case sh == leak.Model:
		ok = k != nil && sh.ClearFor(v, false, *k)
	case sh == leak.IDOrUUID && k != nil:
		ok = sh.ClearFor(v, false, *k) || leak.UUID.Admit(v)
	case sh != leak.None:
		ok = sh.Admit(v)
	}
	if ok {
		return v
	}
	return Withheld(v)
}

// FieldKind is the kind of value the attribute key carries when readers
// pass a value of the input through to it: an id (session, conversation
// and other ids), a model, a name (written in clear with --reveal names),
// and leak.None for every other key.
func FieldKind(key string) leak.Shape {
	switch {
	case key == "session.id" || key == "gen_ai.conversation.id" || strings.HasSuffix(key, ".id"):
		return leak.IDOrUUID
	case strings.HasSuffix(key, ".model"):
		return leak.Model
	case strings.HasSuffix(key, ".name") || key == "subagent.type":
		return leak.Name
	}
	return leak.None
}

// fileName is an input's file name as a run records it: the run writes a
// name as it is only when its stem is id-shaped (outname.InputFileName),
// and the digest name otherwise; one path element.
func fileName(v string) bool {
	return !strings.ContainsAny(v, "/\\ ") && outname.InputFileName(receipt.Hasher{}, v) == v
}
