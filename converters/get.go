package converters

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/tidwall/gjson"
)

// get is v.Get(path) for the paths readers use most, plain dotted keys and
// array indexes ("message.usage.input_tokens", "content.0.text"): each
// step finds its member with jsonscan.Children, which passes over long
// strings at memchr speed and stops at the member, where gjson steps
// through every byte before it. Any other path (wildcards, queries,
// modifiers, escapes) is gjson's. v must be a value of a line the pipeline
// scanned (Records are); TestGetMatchesGjson and FuzzGet hold the two to
// the same Type, Raw, Str and Num.
func get(v gjson.Result, path string) gjson.Result {
	if !plainPath(path) {
		return v.Get(path)
	}
	raw := v.Raw
	for rest := path; ; {
		var key string
		key, rest, _ = strings.Cut(rest, ".")
		val, esc, ok := child(raw, key)
		if !ok {
			return gjson.Result{}
		}
		if rest == "" {
			return scannedValue(val, esc)
		}
		raw = val
	}
}

// child is the raw value of key in the object raw holds, or of element
// key (decimal) of the array, and whether that value is a string with
// escapes.
func child(raw, key string) (val string, escaped, ok bool) {
	raw = strings.TrimLeft(raw, " \t\r\n")
	if raw == "" {
		return "", false, false
	}
	switch raw[0] {
	case '{':
		jsonscan.Children(raw, func(m jsonscan.Member) bool {
			k := raw[m.KeyStart:m.KeyEnd]
			if m.KeyEscaped {
				k = unescape(k)
			}
			if k != key {
				return true
			}
			val, escaped, ok = raw[m.ValStart:m.ValEnd], m.ValEscaped, true
			return false
		})
	case '[':
		n := 0
		for _, c := range []byte(key) {
			if c < '0' || c > '9' {
				return "", false, false // gjson finds nothing either
			}
			n = n*10 + int(c-'0')
		}
		jsonscan.Children(raw, func(m jsonscan.Member) bool {
			if n > 0 {
				n--
				return true
			}
			val, escaped, ok = raw[m.ValStart:m.ValEnd], m.ValEscaped, true
			return false
		})
	}
	return val, escaped, ok
}

// plainPath reports whether path is dotted keys of letters, digits, '_'
// and '-' only, with no empty key and no number gjson would read in
// another way (a leading zero, more digits than an int holds).
func plainPath(path string) bool {
	if path == "" {
		return false
	}
	for key := range strings.SplitSeq(path, ".") {
		if key == "" {
			return false
		}
		digits := true
		for i := 0; i < len(key); i++ {
			c := key[i]
			switch {
			case c >= '0' && c <= '9':
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_', c == '-':
				digits = false
			default:
				return false
			}
		}
		if digits && (len(key) > 1 && key[0] == '0' || len(key) > 9) {
			return false
		}
	}
	return true
}

// unescape decodes the body of a valid JSON string (between its quotes)
// as gjson does (a lone surrogate becomes U+FFFD), copying the runs
// between escapes whole: gjson appends byte by byte, and tool results
// and file contents are megabytes of code with an escape every line.
func unescape(s string) string {
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i >= 0 {
		b = append(b, s[:i]...)
		s = s[i:]
		if len(s) < 2 {
			return bytesString(b)
		}
		switch c := s[1]; c {
		case '\\', '/', '"':
			b = append(b, c)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			if len(s) < 6 {
				return bytesString(b)
			}
			r := hex4(s[2:6])
			s = s[4:] // past the four digits, less the two bytes below
			if utf16.IsSurrogate(r) && r < 0xdc00 && len(s) >= 8 && s[2] == '\\' && s[3] == 'u' {
				if r2 := hex4(s[4:8]); r2 >= 0xdc00 && r2 < 0xe000 {
					r = utf16.DecodeRune(r, r2)
					s = s[6:]
				}
			}
			b = utf8.AppendRune(b, r)
		default:
			return bytesString(b)
		}
		s = s[2:]
		i = strings.IndexByte(s, '\\')
	}
	return bytesString(append(b, s...))
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

// stringBytes is s as bytes without a copy, for reading only.
func stringBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// bytesString is b as a string without a copy: b is not used again.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
