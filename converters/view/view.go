// Package view is how converters read an input line: every string they get
// from it is borrowed.
//
// The pipeline hands a converter each record as a view of its read buffer,
// not as a copy: the buffer holds the next line as soon as the record
// handler returns. A Text (a string of the line) and a Value (a JSON value
// of the line) are therefore valid for one call only. Neither can be
// compared, used as a map key or assigned to a string: to keep anything of
// a line, a converter goes through one of the exits, each of which returns a
// string the converter owns:
//
//   - Own: a copy;
//   - Digest: a digest of the text (receipt.Hasher);
//   - Admit: a copy when a pass-through shape admits the text;
//   - Word: the vocabulary list's own string when the text is one of its words.
//
// The rule, and the checks that hold converters to it (the borrow analyzer,
// the pipeline's alias check before every write, the convertpoison build),
// are in docs/design.md, "Borrowed input".
package view

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
)

// Text is a string of the line being read: borrowed, valid until the record
// handler returns.
type Text struct {
	_ [0]func() // not comparable: never a map key, never ==
	s string
}

// Borrow makes a Text of s and puts it under a Text's rules: valid for the
// call, kept past it only through an exit (Own, Digest, Word...). s is a
// view of the line being read, or, as at most call sites, a string the
// caller owns (a constant, a decoded or computed copy) handed to code that
// takes a Text: borrowing an owned string is always safe, the rules only
// cost it a copy where it is kept.
func Borrow(s string) Text { return Text{s: s} }

// Own returns a copy of t that the caller owns.
func (t Text) Own() string { return strings.Clone(t.s) }

// Digest returns the digest of t under h (keyed in keyed mode).
func (t Text) Digest(h receipt.Hasher) string { return h.Text(t.s) }

// Admit returns a copy of t when the pass-through shape admits it, and
// false otherwise (a shape never admits free text, a path or a secret).
func (t Text) Admit(shape leak.Shape) (string, bool) {
	if shape.Admit(t.s) {
		return strings.Clone(t.s), true
	}
	return "", false
}

// Clear is Admit for a value written in clear: the shape admits it and,
// for a model name, the program knows it or names are revealed
// (leak.Shape.Clear).
func (t Text) Clear(shape leak.Shape, reveal bool) (string, bool) {
	if shape.Clear(t.s, reveal) {
		return strings.Clone(t.s), true
	}
	return "", false
}

// ClearFor is Clear for the reader of an agent that knows k: an id in
// clear only when it is one of the agent's (leak.Shape.ClearFor).
func (t Text) ClearFor(shape leak.Shape, reveal bool, k leak.Knowledge) (string, bool) {
	if shape.ClearFor(t.s, reveal, k) {
		return strings.Clone(t.s), true
	}
	return "", false
}

// Fits reports whether the shape admits t, without keeping it.
func (t Text) Fits(shape leak.Shape) bool { return shape.Admit(t.s) }

// Word returns the string of words that t equals, and whether there was one:
// the list's own string, which outlives the line.
func (t Text) Word(words ...string) (string, bool) {
	for _, w := range words {
		if w == t.s {
			return w, true
		}
	}
	return "", false
}

// Is reports whether t equals s.
func (t Text) Is(s string) bool { return t.s == s }

// Equal reports whether t and u hold the same bytes.
func (t Text) Equal(u Text) bool { return t.s == u.s }

// Len is t's length in bytes.
func (t Text) Len() int { return len(t.s) }

// Empty reports whether t is "".
func (t Text) Empty() bool { return t.s == "" }

// IsToken reports whether t is a token (receipt.IsToken).
func (t Text) IsToken() bool { return receipt.IsToken(t.s) }

// HasPrefix, HasSuffix, Contains, Index, IndexByte and LastIndex are the
// strings package's, on t.
func (t Text) HasPrefix(p string) bool { return strings.HasPrefix(t.s, p) }
func (t Text) HasSuffix(p string) bool { return strings.HasSuffix(t.s, p) }
func (t Text) Contains(p string) bool  { return strings.Contains(t.s, p) }
func (t Text) Index(p string) int      { return strings.Index(t.s, p) }
func (t Text) IndexByte(c byte) int    { return strings.IndexByte(t.s, c) }
func (t Text) LastIndex(p string) int  { return strings.LastIndex(t.s, p) }
func (t Text) Byte(i int) byte         { return t.s[i] }

// Slice is t[i:j].
func (t Text) Slice(i, j int) Text { return Text{s: t.s[i:j]} }

// From is t[i:].
func (t Text) From(i int) Text { return Text{s: t.s[i:]} }

// TrimPrefix, TrimSuffix, TrimSpace, TrimLeft, TrimRight and CutPrefix are
// the strings package's, on t.
func (t Text) TrimPrefix(p string) Text  { return Text{s: strings.TrimPrefix(t.s, p)} }
func (t Text) TrimSuffix(p string) Text  { return Text{s: strings.TrimSuffix(t.s, p)} }
func (t Text) TrimSpace() Text           { return Text{s: strings.TrimSpace(t.s)} }
func (t Text) TrimLeft(cut string) Text  { return Text{s: strings.TrimLeft(t.s, cut)} }
func (t Text) TrimRight(cut string) Text { return Text{s: strings.TrimRight(t.s, cut)} }
func (t Text) CutPrefix(p string) (Text, bool) {
	s, ok := strings.CutPrefix(t.s, p)
	return Text{s: s}, ok
}

// Cut is strings.Cut on t.
func (t Text) Cut(sep string) (before, after Text, found bool) {
	b, a, ok := strings.Cut(t.s, sep)
	return Text{s: b}, Text{s: a}, ok
}

// Fields calls fn with each field of t as strings.FieldsSeq splits it, until
// fn returns false.
func (t Text) Fields(fn func(Text) bool) {
	for f := range strings.FieldsSeq(t.s) {
		if !fn(Text{s: f}) {
			return
		}
	}
}

// Lines calls fn with each line of t (strings.Lines, newline kept).
func (t Text) Lines(fn func(Text) bool) {
	for l := range strings.Lines(t.s) {
		if !fn(Text{s: l}) {
			return
		}
	}
}

// Submatch is re's first match in t with its groups (nil when none).
func (t Text) Submatch(re *regexp.Regexp) []Text {
	m := re.FindStringSubmatchIndex(t.s)
	if m == nil {
		return nil
	}
	out := make([]Text, len(m)/2)
	for i := range out {
		if m[2*i] >= 0 {
			out[i] = Text{s: t.s[m[2*i]:m[2*i+1]]}
		}
	}
	return out
}

// Matches reports whether re matches t.
func (t Text) Matches(re *regexp.Regexp) bool { return re.MatchString(t.s) }

// Int parses t as a base-10 integer.
func (t Text) Int() (int64, error) { return strconv.ParseInt(t.s, 10, 64) }

// Float parses t as a float.
func (t Text) Float() (float64, error) { return strconv.ParseFloat(t.s, 64) }

// Check calls fn with t's string and returns its answer: for a predicate
// of another package (a time parser, a shape test) that keeps nothing of
// its argument. fn must not keep s.
func (t Text) Check(fn func(s string) bool) bool { return fn(t.s) }

// Parse parses t as a JSON document into a Value of the same lifetime.
func (t Text) Parse() Value { return Value{r: gjson.Parse(t.s)} }

// Value is a JSON value of the line being read (gjson's Result behind a
// borrowed door): valid until the record handler returns.
type Value struct {
	_ [0]func()
	r gjson.Result
}

// Of makes a Value of r, which must be a value of the line being read (or
// of a document the caller owns).
func Of(r gjson.Result) Value { return Value{r: r} }

// Parse parses doc (a line being read) as a Value.
func Parse(doc string) Value { return Value{r: gjson.Parse(doc)} }

// Kind is the JSON type of a value.
type Kind = gjson.Type

// The kinds, gjson's.
const (
	Null   = gjson.Null
	False  = gjson.False
	Number = gjson.Number
	String = gjson.String
	True   = gjson.True
	JSON   = gjson.JSON
)

// Type is v's JSON type (Null when it does not exist).
func (v Value) Type() Kind { return v.r.Type }

// Exists reports whether v exists.
func (v Value) Exists() bool { return v.r.Exists() }

// IsString, IsObject, IsArray, IsBool and IsNumber test v's type.
func (v Value) IsString() bool { return v.r.Type == gjson.String }
func (v Value) IsObject() bool { return v.r.IsObject() }
func (v Value) IsArray() bool  { return v.r.IsArray() }
func (v Value) IsBool() bool   { return v.r.IsBool() }
func (v Value) IsNumber() bool { return v.r.Type == gjson.Number }

// Str is v's string when v is a string, else the empty Text.
func (v Value) Str() Text { return Text{s: v.r.Str} }

// String is v as text the way gjson's String renders any type.
func (v Value) String() Text { return Text{s: v.r.String()} }

// Raw is v's JSON text as it stands in the line.
func (v Value) Raw() Text { return Text{s: v.r.Raw} }

// RawLen is the length of v's JSON text.
func (v Value) RawLen() int { return len(v.r.Raw) }

// Index is the position of v's JSON text in the line (0 when unknown).
func (v Value) Index() int { return v.r.Index }

// Int, Float, Num and Bool are gjson's conversions.
func (v Value) Int() int64     { return v.r.Int() }
func (v Value) Uint() uint64   { return v.r.Uint() }
func (v Value) Float() float64 { return v.r.Float() }
func (v Value) Num() float64   { return v.r.Num }
func (v Value) Bool() bool     { return v.r.Bool() }

// Digest returns the digest of v: text as text, anything else as canonical
// JSON (its raw text when it is not canonicalizable).
func (v Value) Digest(h receipt.Hasher) string {
	if v.r.Type == gjson.String {
		return h.Text(v.r.Str)
	}
	if d, err := h.JSON([]byte(v.r.Raw)); err == nil {
		return d
	}
	return h.Text(v.r.Raw)
}

// Own returns a copy of v that outlives the line: a document of its own.
func (v Value) Own() Owned {
	if !v.r.Exists() {
		return Owned{}
	}
	return Owned{raw: strings.Clone(v.r.Raw)}
}

// Owned is a JSON value copied out of a line: it may be kept, and read
// again as a Value at any time.
type Owned struct{ raw string }

// Value is the owned document as a Value.
func (o Owned) Value() Value {
	if o.raw == "" {
		return Value{}
	}
	return Value{r: gjson.Parse(o.raw)}
}

// Exists reports whether o holds a value.
func (o Owned) Exists() bool { return o.raw != "" }

// Get is v's value at a gjson path. Plain dotted keys and array indexes
// ("message.usage.input_tokens", "content.0.text") are found with
// jsonscan.Children, which passes over long strings at memchr speed and
// stops at the member, where gjson steps through every byte before it; any
// other path (wildcards, queries, modifiers, escapes) is gjson's.
// TestGetMatchesGjson and FuzzGet hold the two to the same Type, Raw, Str
// and Num.
func (v Value) Get(path string) Value {
	if v.r.Type != gjson.JSON {
		return Value{r: v.r.Get(path)}
	}
	return Value{r: get(v.r, path)}
}

// ForEach calls fn with each key (an object's) or index (an array's, as a
// Number) and value of v, in order, until fn returns false; a value that is
// neither is passed once with no key. Like gjson's ForEach, over
// jsonscan.Children: converters iterate content blocks with it, and their
// text and tool results are most of a transcript's bytes.
func (v Value) ForEach(fn func(k, v Value) bool) {
	forEach(v.r, func(k, x gjson.Result) bool { return fn(Value{r: k}, Value{r: x}) })
}

// Each calls fn with each element of an array (or each member value of an
// object) until fn returns false.
func (v Value) Each(fn func(v Value) bool) {
	forEach(v.r, func(_, x gjson.Result) bool { return fn(Value{r: x}) })
}

// Len is how many elements (or members) v has; 0 for a scalar.
func (v Value) Len() int {
	if v.r.Type != gjson.JSON {
		return 0
	}
	n := 0
	jsonscan.Children(v.r.Raw, func(jsonscan.Member) bool { n++; return true })
	return n
}

// Fields holds what Value.Fields found, in the order of its keys.
type Fields [6]Value

// Fields reads several keys of an object in one scan: a content block holds
// megabytes of text, and each Get would scan past it again. The values come
// back in an array, not a new slice: Fields runs on most records' content
// blocks, and must not allocate per call.
func (v Value) Fields(keys ...string) (out Fields) {
	if len(keys) > len(out) {
		panic("view: Fields: more keys than Fields holds")
	}
	if !v.r.IsObject() {
		return out
	}
	raw := v.r.Raw
	jsonscan.Children(raw, func(m jsonscan.Member) bool {
		key := memberKey(raw, m)
		for i, k := range keys {
			if k == key && !out[i].r.Exists() {
				out[i] = Value{r: scannedValue(raw[m.ValStart:m.ValEnd], m.ValEscaped)} // only the values asked for are parsed
			}
		}
		return true
	})
	return out
}

// Array is gjson's Array: an array's elements, none for null or a value
// that does not exist, and any other value alone; each borrowed like v.
func (v Value) Array() []Value {
	switch {
	case v.r.Type == gjson.Null:
		return nil
	case !v.r.IsArray():
		return []Value{v}
	}
	var out []Value
	v.Each(func(x Value) bool { out = append(out, x); return true })
	return out
}

// CanonicalDigest returns the digest of t in the canonical text form
// (receipt.Hasher.CanonicalText).
func (t Text) CanonicalDigest(h receipt.Hasher) string { return h.CanonicalText(t.s) }

// Canonical is t in the canonical text form (receipt.CanonicalizeText),
// borrowed like t.
func (t Text) Canonical() Text { return Text{s: receipt.CanonicalizeText(t.s)} }

// HasPrefixText reports whether u begins t.
func (t Text) HasPrefixText(u Text) bool { return strings.HasPrefix(t.s, u.s) }

// RuneCount is how many runes t holds (utf8.RuneCountInString).
func (t Text) RuneCount() int { return utf8.RuneCountInString(t.s) }

// Lookup is m[t]: a lookup keeps nothing of t.
func Lookup[V any](m map[string]V, t Text) (V, bool) {
	v, ok := m[t.s]
	return v, ok
}

// Key is Lookup that also returns the map's own key equal to t: a word of
// a vocabulary kept as a map, which outlives the line.
func Key[V any](m map[string]V, t Text) (key string, val V, ok bool) {
	if val, ok = m[t.s]; !ok {
		return "", val, false
	}
	for k := range m {
		if k == t.s {
			return k, val, true
		}
	}
	return "", val, false // not reached
}

// SortedWord is Word over a sorted list, by binary search: the word of
// words equal to t.
func (t Text) SortedWord(words []string) (string, bool) {
	i := sort.SearchStrings(words, t.s)
	if i < len(words) && words[i] == t.s {
		return words[i], true
	}
	return "", false
}

// Format prints a placeholder, never the text: a Text formatted into a
// message (an error, a warning) would copy raw input to stderr.
func (t Text) Format(f fmt.State, _ rune) { io.WriteString(f, "<view.Text>") }

// Format prints a placeholder, never the value (Text.Format).
func (v Value) Format(f fmt.State, _ rune) { io.WriteString(f, "<view.Value>") }

// Join is parts joined by sep, borrowed like the parts: the part itself
// when there is one (no copy), else a text of its own. A message's content
// blocks are joined so (an AGENTS.md message is tens of KB, and owning each
// block first would copy it twice).
func Join(parts []Text, sep string) Text {
	switch len(parts) {
	case 0:
		return Text{}
	case 1:
		return parts[0]
	}
	n := len(sep) * (len(parts) - 1)
	for _, p := range parts {
		n += len(p.s)
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range parts {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(p.s)
	}
	return Text{s: b.String()}
}

// Deep is v's value at a gjson path, walked by gjson itself rather than by
// the line scanner Get uses: for a document only gjson reads (a tool output
// that is JSON nested deeper than jsonscan.MaxDepth, where the scanner
// stops and Get would find nothing).
func (v Value) Deep(path string) Value { return Value{r: v.r.Get(path)} }
