// Package jsonscan validates one JSON text and indexes its top-level
// members in a single pass over the bytes.
//
// A line is read once before a converter sees it: Scan both validates it
// (as gjson.ValidBytes would, byte by byte) and indexes its top-level
// members (as gjson's ForEach would), and pass one reuses what detection
// scanned of a file's first lines (the pipeline's scanCache). Strings are
// most of a transcript's bytes (tool results, code, thinking), so Scan
// skips them eight bytes at a time, dropping to byte steps only in a word
// that holds a quote, a backslash or a control character.
//
// Valid accepts exactly what gjson.ValidBytes accepts (the differential
// test and fuzz target hold it to that): RFC 8259 syntax, no UTF-8 check
// (the pipeline checks UTF-8 separately), whitespace around the value.
package jsonscan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// MaxDepth is the deepest nesting Scan accepts. Deeper documents are
// refused with ErrDepth: a recursive reader (gjson's, the leak walker's)
// would exhaust the goroutine stack on them, and a fatal stack overflow
// would end a whole batch over one hostile line. encoding/json uses the
// same bound.
const MaxDepth = 10000

var (
	// ErrSyntax is a document that is not one valid JSON text.
	ErrSyntax = errors.New("invalid JSON")
	// ErrDepth is a valid-looking document nested deeper than MaxDepth.
	ErrDepth = errors.New("JSON nested too deeply")
)

// Member is one top-level member of an object: the key's raw bytes
// (between the quotes, escapes not decoded) and the value's raw bytes, as
// offsets into the document.
type Member struct {
	KeyStart, KeyEnd int
	ValStart, ValEnd int
	KeyEscaped       bool // the key holds a backslash escape
	ValEscaped       bool // the value is a string that holds one
}

// Valid reports whether doc is one valid JSON text no deeper than MaxDepth.
func Valid(doc []byte) bool {
	_, err := Scan(doc, nil)
	return err == nil
}

// ValidString is Valid of a string, read in place.
func ValidString(doc string) bool { return Valid(unsafe.Slice(unsafe.StringData(doc), len(doc))) }

// Scan validates doc and, when top is not nil and doc is an object, appends
// its top-level members to *top. It reports whether doc is an object, and
// ErrSyntax or ErrDepth when doc is not valid; then *top holds what was
// read before the fault and must be discarded.
func Scan(doc []byte, top *[]Member) (object bool, err error) {
	return ScanVisit(doc, top, nil)
}

// Visitor is told of each token of a document in order as ScanVisit
// validates it, so that a second reader of every value (the leak check's
// first pass) rides on the one scan instead of walking the line again.
// The byte slices are views of the document; a string's and a key's are
// its body between the quotes, escapes not decoded. Calls made before a
// fault are not taken back: a caller that gets an error discards what it
// was told.
type Visitor interface {
	Open(array bool)
	Close(array bool)
	Key(body []byte, escaped bool) // an object member's key, before its value
	String(body []byte, escaped bool)
	Number(lit []byte) // true, false and null are not told
}

// ScanVisit is Scan telling v of every token (v may be nil).
func ScanVisit(doc []byte, top *[]Member, v Visitor) (object bool, err error) {
	s := scanner{doc: doc, v: v}
	i := s.ws(0)
	if i >= len(doc) {
		return false, ErrSyntax
	}
	object = doc[i] == '{'
	var ok bool
	if object {
		s.depth = 1
		if v != nil {
			v.Open(false)
		}
		i, ok = s.object(i+1, top)
		if v != nil && ok {
			v.Close(false)
		}
	} else {
		i, ok = s.value(i)
	}
	switch {
	case s.deep:
		return object, ErrDepth
	case !ok || s.ws(i) != len(doc):
		return object, ErrSyntax
	}
	return object, nil
}

type scanner struct {
	doc     []byte
	depth   int
	deep    bool // refused for depth, not syntax
	trusted bool // doc is known valid (Children): strings are skipped, not checked
	// each, when set, is given each member of the outermost object as it
	// is read (Children); false stops the scan.
	each func(Member) bool
	v    Visitor // ScanVisit's, or nil
}

// enter counts one more level of nesting, refusing past MaxDepth.
func (s *scanner) enter() bool {
	s.depth++
	if s.depth > MaxDepth {
		s.deep = true
		return false
	}
	return true
}

func (s *scanner) ws(i int) int { return Space(s.doc, i) }

// Space returns the index of the first byte at or after i that is not JSON
// whitespace. After a newline it passes spaces eight at a time: an
// indented trace is a third indentation, and the writer's own checks (the
// trace's validation, the leak check's walk) step through all of it.
func Space[T string | []byte](doc T, i int) int {
	for i < len(doc) {
		switch doc[i] {
		case '\n':
			i++
			for i+8 <= len(doc) && string(doc[i:i+8]) == "        " {
				i += 8
			}
		case ' ', '\t', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// value validates the value at i (no leading whitespace) and returns the
// index after it.
func (s *scanner) value(i int) (int, bool) {
	if i >= len(s.doc) {
		return i, false
	}
	switch c := s.doc[i]; c {
	case '{':
		if !s.enter() {
			return i, false
		}
		if s.v != nil {
			s.v.Open(false)
		}
		j, ok := s.object(i+1, nil)
		s.depth--
		if s.v != nil && ok {
			s.v.Close(false)
		}
		return j, ok
	case '[':
		if !s.enter() {
			return i, false
		}
		if s.v != nil {
			s.v.Open(true)
		}
		j, ok := s.array(i + 1)
		s.depth--
		if s.v != nil && ok {
			s.v.Close(true)
		}
		return j, ok
	case '"':
		j, esc, ok := s.str(i + 1)
		if s.v != nil && ok {
			s.v.String(s.doc[i+1:j-1], esc)
		}
		return j, ok
	case 't':
		return s.lit(i+1, "rue")
	case 'f':
		return s.lit(i+1, "alse")
	case 'n':
		return s.lit(i+1, "ull")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			j, ok := s.number(i)
			if s.v != nil && ok {
				s.v.Number(s.doc[i:j])
			}
			return j, ok
		}
		return i, false
	}
}

func (s *scanner) lit(i int, rest string) (int, bool) {
	if len(s.doc)-i < len(rest) || string(s.doc[i:i+len(rest)]) != rest {
		return i, false
	}
	return i + len(rest), true
}

// object validates the members after an opening brace; with top set it
// records them.
func (s *scanner) object(i int, top *[]Member) (int, bool) {
	i = s.ws(i)
	if i < len(s.doc) && s.doc[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(s.doc) || s.doc[i] != '"' {
			return i, false
		}
		ks := i + 1
		ke, esc, ok := s.str(ks)
		if !ok {
			return ke, false
		}
		i = s.ws(ke)
		if i >= len(s.doc) || s.doc[i] != ':' {
			return i, false
		}
		if s.v != nil {
			s.v.Key(s.doc[ks:ke-1], esc)
		}
		vs := s.ws(i + 1)
		ve, vesc, ok := s.member(vs)
		if !ok {
			return ve, false
		}
		if top != nil {
			*top = append(*top, Member{KeyStart: ks, KeyEnd: ke - 1, ValStart: vs, ValEnd: ve, KeyEscaped: esc, ValEscaped: vesc})
		} else if s.each != nil && s.depth == 1 && !s.each(Member{KeyStart: ks, KeyEnd: ke - 1, ValStart: vs, ValEnd: ve, KeyEscaped: esc, ValEscaped: vesc}) {
			return ve, true // Children's fn is done: the rest is not read
		}
		i = s.ws(ve)
		if i >= len(s.doc) {
			return i, false
		}
		switch s.doc[i] {
		case '}':
			return i + 1, true
		case ',':
			i = s.ws(i + 1)
		default:
			return i, false
		}
	}
}

// member validates a member's value, telling a string with escapes.
func (s *scanner) member(i int) (int, bool, bool) {
	if i < len(s.doc) && s.doc[i] == '"' {
		j, esc, ok := s.str(i + 1)
		if s.v != nil && ok {
			s.v.String(s.doc[i+1:j-1], esc)
		}
		return j, esc, ok
	}
	j, ok := s.value(i)
	return j, false, ok
}

// Children calls fn with each member of the object doc holds (a gjson
// value's Raw, say), or each element of the array (key offsets zero), in
// order, until fn returns false. doc must be a value of a line Scan
// accepted: Children checks the structure as it goes and stops at the
// first fault, but finds the end of each string without checking what is
// inside it (skipStr), and it does not descend into nested values.
func Children(doc string, fn func(Member) bool) { children(doc, true, fn) }

// children is Children, checking strings too when trusted is false (the
// tests hold the two to the same members on valid documents).
func children(doc string, trusted bool, fn func(Member) bool) {
	raw := unsafe.Slice(unsafe.StringData(doc), len(doc)) // read only
	s := scanner{doc: raw, trusted: trusted}
	i := s.ws(0)
	if i >= len(raw) {
		return
	}
	switch raw[i] {
	case '{':
		// Each member goes to fn as soon as its value is passed over, so a
		// lookup of one field stops there instead of reading the rest.
		s.depth, s.each = 1, fn
		s.object(i+1, nil)
	case '[':
		s.depth = 1
		i = s.ws(i + 1)
		for i < len(raw) && raw[i] != ']' {
			j, esc, ok := s.member(i)
			if !ok || !fn(Member{ValStart: i, ValEnd: j, ValEscaped: esc}) {
				return
			}
			i = s.ws(j)
			if i >= len(raw) || raw[i] != ',' {
				return
			}
			i = s.ws(i + 1)
		}
	}
}

func (s *scanner) array(i int) (int, bool) {
	i = s.ws(i)
	if i < len(s.doc) && s.doc[i] == ']' {
		return i + 1, true
	}
	for {
		j, ok := s.value(i)
		if !ok {
			return j, false
		}
		i = s.ws(j)
		if i >= len(s.doc) {
			return i, false
		}
		switch s.doc[i] {
		case ']':
			return i + 1, true
		case ',':
			i = s.ws(i + 1)
		default:
			return i, false
		}
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special marks the bytes of the word x (little-endian) that are a quote,
// a backslash or below 0x20 with their high bit. The lowest mark is exact
// (a borrow only runs upwards from a marked byte), so its trailing zeros
// over eight are the index of the first such byte; zero: none.
func special(x uint64) uint64 {
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	return ((x-ones*0x20)&^x | (q-ones)&^q | (b-ones)&^b) & highs
}

// str validates the string whose body starts at i and returns the index
// after its closing quote, and whether it holds an escape.
func (s *scanner) str(i int) (int, bool, bool) {
	if s.trusted {
		return s.skipStr(i)
	}
	doc, esc := s.doc, false
	for {
		for i+8 <= len(doc) {
			m := special(binary.LittleEndian.Uint64(doc[i:]))
			if m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(doc) {
			return i, esc, false
		}
		switch c := doc[i]; {
		case c == '"':
			return i + 1, esc, true
		case c < 0x20:
			return i, esc, false
		case c == '\\':
			esc = true
			i++
			if i >= len(doc) {
				return i, esc, false
			}
			switch doc[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				for k := 0; k < 4; k++ {
					i++
					if i >= len(doc) || !isHex(doc[i]) {
						return i, esc, false
					}
				}
				i++
			default:
				return i, esc, false
			}
		default:
			i++ // the tail: fewer than eight bytes left
		}
	}
}

// skipStr finds the end of the string whose content starts at i in a
// document known to be valid: the first quote not escaped, looked for at
// memchr speed (a quote is escaped when an odd run of backslashes comes
// before it), and whether the string holds a backslash at all. A tool
// result of megabytes is passed over this way several times a line (each
// reader's Children and fields); checking it byte by byte is Scan's job,
// done once. On a document that is not valid it still never reads past it.
func (s *scanner) skipStr(i int) (int, bool, bool) {
	doc, start, esc := s.doc, i, false
	for {
		q := bytes.IndexByte(doc[i:], '"')
		if q < 0 {
			return len(doc), esc, false
		}
		j := i + q
		k := j
		for k > start && doc[k-1] == '\\' {
			k--
		}
		if (j-k)%2 == 0 {
			if !esc {
				esc = bytes.IndexByte(doc[start:j], '\\') >= 0
			}
			return j + 1, esc, true
		}
		esc, i = true, j+1
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// number validates an RFC 8259 number at i.
func (s *scanner) number(i int) (int, bool) {
	doc := s.doc
	if doc[i] == '-' {
		i++
	}
	switch {
	case i < len(doc) && doc[i] == '0':
		i++
	case i < len(doc) && doc[i] >= '1' && doc[i] <= '9':
		i = digits(doc, i+1)
	default:
		return i, false
	}
	if i < len(doc) && doc[i] == '.' {
		if i+1 >= len(doc) || doc[i+1] < '0' || doc[i+1] > '9' {
			return i + 1, false
		}
		i = digits(doc, i+2)
	}
	if i < len(doc) && (doc[i] == 'e' || doc[i] == 'E') {
		i++
		if i < len(doc) && (doc[i] == '+' || doc[i] == '-') {
			i++
		}
		if i >= len(doc) || doc[i] < '0' || doc[i] > '9' {
			return i, false
		}
		i = digits(doc, i+1)
	}
	return i, true
}

func digits(doc []byte, i int) int {
	for i < len(doc) && doc[i] >= '0' && doc[i] <= '9' {
		i++
	}
	return i
}

// StringEnd returns the index after the closing quote of the string whose
// body starts at i in doc, valid or not, without decoding it (len(doc) when
// it does not end): the skip the leak walker and the trace indenter share.
func StringEnd(doc []byte, i int) int {
	for {
		q := bytes.IndexByte(doc[i:], '"')
		if q < 0 {
			return len(doc)
		}
		j := i + q
		bs := 0
		for k := j - 1; k >= i && doc[k] == '\\'; k-- {
			bs++
		}
		if bs%2 == 0 {
			return j + 1
		}
		i = j + 1
	}
}

// AppendUnescaped appends to dst the decoded body of a valid JSON string
// (the bytes between its quotes), as gjson decodes it (a lone surrogate
// becomes U+FFFD), copying the runs between escapes whole: tool results
// and file contents are megabytes of code with an escape every line. The
// readers' values (converters) and the leak check's walk decode with it.
func AppendUnescaped(dst []byte, s string) []byte {
	for i := strings.IndexByte(s, '\\'); i >= 0; i = strings.IndexByte(s, '\\') {
		dst = append(dst, s[:i]...)
		s = s[i:]
		if len(s) < 2 {
			return dst
		}
		switch c := s[1]; c {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			if len(s) < 6 {
				return dst
			}
			r := hex4(s[2:6])
			s = s[4:] // past the four digits, less the two bytes below
			if utf16.IsSurrogate(r) && r < 0xdc00 && len(s) >= 8 && s[2] == '\\' && s[3] == 'u' {
				if r2 := hex4(s[4:8]); r2 >= 0xdc00 && r2 < 0xe000 {
					r = utf16.DecodeRune(r, r2)
					s = s[6:]
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // \" \\ \/
			dst = append(dst, c)
		}
		s = s[2:]
	}
	return append(dst, s...)
}

// hex4 is the value of four hex digits (0 when they are not, as gjson).
func hex4(s string) rune {
	var r rune
	for i := 0; i < 4; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0
		}
		r = r<<4 | rune(c)
	}
	return r
}
