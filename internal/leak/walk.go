package leak

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/contextreceipts/convert/internal/receipt"
)

// Paths is a set of pass-through field paths: object keys joined by ".",
// with "#" for any array element ("tool_names.#", "message.content.#.type").
type Paths map[string]bool

// Line probes every string value of one input JSON line. A value at a
// pass-through path that is a token (receipt.IsToken) is a pass-through value;
// every other string is raw, however short or harmless it looks. The line
// must be valid JSON (the pipeline only probes lines it converted).
//
// This is the hot loop of the second pass, so it is a single scan over the
// bytes: no tree, no copy of strings without escapes.
func (c *Checker) Line(doc []byte, n int, pass Paths) {
	w := walker{c: c, doc: doc, line: n, pass: pass, path: c.pathBuf[:0]}
	w.value(w.ws(0))
	c.pathBuf = w.path[:0]
}

type walker struct {
	c    *Checker
	doc  []byte
	line int
	pass Paths
	path []byte
	esc  []byte // scratch for strings with escapes
	// visit, when set (tests), receives each string instead of the probe.
	visit func(path, v string)
}

func (w *walker) ws(i int) int {
	for i < len(w.doc) {
		switch w.doc[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// value reads the value at i and returns the index after it.
func (w *walker) value(i int) int {
	if i >= len(w.doc) {
		return i
	}
	switch w.doc[i] {
	case '{':
		return w.object(i + 1)
	case '[':
		return w.array(i + 1)
	case '"':
		s, j := w.str(i + 1)
		w.leaf(s)
		return j
	}
	for i < len(w.doc) { // number, true, false, null
		switch w.doc[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

func (w *walker) object(i int) int {
	base := len(w.path)
	for {
		i = w.ws(i)
		if i >= len(w.doc) || w.doc[i] == '}' {
			return i + 1
		}
		if w.doc[i] == ',' {
			i++
			continue
		}
		key, j := w.str(i + 1)
		w.path = w.path[:base]
		if base > 0 {
			w.path = append(w.path, '.')
		}
		w.path = append(w.path, key...)
		i = w.ws(j)
		if i < len(w.doc) && w.doc[i] == ':' {
			i++
		}
		i = w.value(w.ws(i))
		w.path = w.path[:base]
	}
}

func (w *walker) array(i int) int {
	base := len(w.path)
	if base > 0 {
		w.path = append(w.path, '.')
	}
	w.path = append(w.path, '#')
	defer func() { w.path = w.path[:base] }()
	for {
		i = w.ws(i)
		if i >= len(w.doc) || w.doc[i] == ']' {
			return i + 1
		}
		if w.doc[i] == ',' {
			i++
			continue
		}
		i = w.value(i)
	}
}

// str decodes the string whose body starts at i; it returns the decoded
// bytes (a slice of the document when there is no escape) and the index
// after the closing quote.
func (w *walker) str(i int) ([]byte, int) {
	q := bytes.IndexByte(w.doc[i:], '"')
	if q < 0 {
		return w.doc[i:], len(w.doc)
	}
	if bytes.IndexByte(w.doc[i:i+q], '\\') < 0 {
		return w.doc[i : i+q], i + q + 1 // no escape: the common case, found with SIMD
	}
	return w.unescape(i)
}

func (w *walker) unescape(start int) ([]byte, int) {
	b := w.esc[:0]
	i := start
	for i < len(w.doc) {
		// Copy the run up to the next quote or backslash in one go.
		k := bytes.IndexAny(w.doc[i:], "\"\\")
		if k < 0 {
			k = len(w.doc) - i
		}
		b = append(b, w.doc[i:i+k]...)
		i += k
		if i >= len(w.doc) {
			break
		}
		if w.doc[i] == '"' {
			w.esc = b
			return b, i + 1
		}
		if i+1 >= len(w.doc) {
			b = append(b, '\\')
			i++
			break
		}
		i++
		switch w.doc[i] {
		case 'n':
			b = append(b, '\n')
		case 't':
			b = append(b, '\t')
		case 'r':
			b = append(b, '\r')
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'u':
			r, n := w.hex4(i + 1)
			i += n
			if utf16.IsSurrogate(r) {
				r2, n2 := rune(-1), 0
				if i+2 < len(w.doc) && w.doc[i+1] == '\\' && w.doc[i+2] == 'u' {
					r2, n2 = w.hex4(i + 3)
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r, i = d, i+2+n2
				} else {
					r = utf8.RuneError // a lone surrogate, as encoding/json decodes it
				}
			}
			b = utf8.AppendRune(b, r)
		default: // \" \\ \/
			b = append(b, w.doc[i])
		}
		i++
	}
	w.esc = b
	return b, i
}

// hex4 reads the four hex digits of a \u escape at i.
func (w *walker) hex4(i int) (rune, int) {
	if i+4 > len(w.doc) {
		return utf8.RuneError, 0
	}
	var r rune
	for _, c := range w.doc[i : i+4] {
		r <<= 4
		switch {
		case '0' <= c && c <= '9':
			r |= rune(c - '0')
		case 'a' <= c && c <= 'f':
			r |= rune(c-'a') + 10
		case 'A' <= c && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return utf8.RuneError, 0
		}
	}
	return r, 4
}

func (w *walker) leaf(s []byte) {
	v := unsafe.String(unsafe.SliceData(s), len(s)) // read-only view, no copy
	if w.visit != nil {
		w.visit(string(w.path), string(s))
		return
	}
	if w.pass[string(w.path)] && receipt.IsToken(v) {
		w.c.Pass(v)
	} else {
		w.c.Raw(v, w.line)
	}
}
