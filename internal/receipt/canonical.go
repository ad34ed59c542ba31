package receipt

import (
	"bytes"
	"slices"
	"unicode/utf8"
	"unsafe"

	"github.com/contextreceipts/convert/internal/jsonscan"
)

// canonical appends doc's RFC 8785 (JCS) canonical bytes to dst, for the
// documents most tool arguments are: objects and arrays of strings with no
// \u escape, literals and integers of at most 15 digits, keys without
// escapes or characters beyond the BMP. Anything else reports false, and
// Hasher.JSON hands the document to gowebpki/jcs, whose bytes these are
// (TestCanonicalMatchesJCS, FuzzCanonical). A long session digests many
// thousands of tool inputs, and these documents must not go through a
// general JSON parser.
//
// On these documents JCS only removes whitespace, sorts object members by
// key (UTF-16 code units, which for keys in the BMP is byte order),
// writes "\/" as "/" and keeps every other escape as JSON writes it.
// doc must be valid JSON (Hasher.JSON checks it first).
func canonical(dst, doc []byte) ([]byte, bool) {
	if !utf8.Valid(doc) {
		return dst, false
	}
	doc = bytes.Trim(doc, " \t\r\n")
	return canonicalValue(dst, doc, 0)
}

const canonicalDepth = 64 // deeper documents go to jcs

func canonicalValue(dst, v []byte, depth int) ([]byte, bool) {
	if len(v) == 0 {
		return dst, false
	}
	switch c := v[0]; {
	case c == '"':
		return canonicalString(dst, v)
	case c == '{' || c == '[':
		if depth >= canonicalDepth {
			return dst, false
		}
		return canonicalComposite(dst, v, depth+1)
	case c == 't' || c == 'f' || c == 'n':
		return append(dst, v...), true
	default:
		return canonicalInteger(dst, v)
	}
}

// canonicalString copies a string without \u escapes, "\/" as "/".
func canonicalString(dst, s []byte) ([]byte, bool) {
	if bytes.IndexByte(s, '\\') < 0 {
		return append(dst, s...), true
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			dst = append(dst, s[i])
			continue
		}
		i++
		switch s[i] {
		case 'u':
			return dst, false
		case '/':
			dst = append(dst, '/')
		default:
			dst = append(dst, '\\', s[i])
		}
	}
	return dst, true
}

// canonicalInteger copies an integer of at most 15 digits (exactly a
// float64, written by ES6 as it is); "-0" is written "0" by JCS: refused.
func canonicalInteger(dst, n []byte) ([]byte, bool) {
	d := n
	if d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 15 || d[0] == '0' && (len(d) > 1 || len(n) > 1) {
		return dst, false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return dst, false
		}
	}
	return append(dst, n...), true
}

type canonicalMember struct{ key, val []byte }

func canonicalComposite(dst, v []byte, depth int) ([]byte, bool) {
	doc := unsafe.String(unsafe.SliceData(v), len(v))
	ok := true
	if v[0] == '[' {
		dst = append(dst, '[')
		n := 0
		jsonscan.Children(doc, func(m jsonscan.Member) bool {
			if n > 0 {
				dst = append(dst, ',')
			}
			n++
			dst, ok = canonicalValue(dst, v[m.ValStart:m.ValEnd], depth)
			return ok
		})
		return append(dst, ']'), ok
	}
	var members []canonicalMember
	jsonscan.Children(doc, func(m jsonscan.Member) bool {
		key := v[m.KeyStart:m.KeyEnd]
		if m.KeyEscaped || !bmpOnly(key) {
			ok = false
			return false
		}
		members = append(members, canonicalMember{key, v[m.ValStart:m.ValEnd]})
		return true
	})
	if !ok {
		return dst, false
	}
	slices.SortFunc(members, func(a, b canonicalMember) int { return bytes.Compare(a.key, b.key) })
	dst = append(dst, '{')
	for i, m := range members {
		if i > 0 {
			if bytes.Equal(m.key, members[i-1].key) {
				return dst, false // a duplicate key: jcs refuses the document
			}
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, m.key...)
		dst = append(dst, '"', ':')
		if dst, ok = canonicalValue(dst, m.val, depth); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// bmpOnly reports whether s (valid UTF-8) has no character beyond the BMP:
// none takes four bytes.
func bmpOnly(s []byte) bool {
	for _, c := range s {
		if c >= 0xF0 {
			return false
		}
	}
	return true
}
