package converters

import (
	"strings"
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
			if memberKey(raw, m) != key {
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
// as gjson does (jsonscan.AppendUnescaped), into a string of its own.
func unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	return bytesString(jsonscan.AppendUnescaped(make([]byte, 0, len(s)), s))
}

// bytesString is b as a string without a copy: b is not used again.
func bytesString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
