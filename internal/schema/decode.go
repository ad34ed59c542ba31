package schema

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// decodeDoc decodes a JSON document as encoding/json does with UseNumber
// (objects map[string]any, arrays []any, numbers json.Number, strings,
// booleans, nil), without reflection. It takes the plain parts itself
// (fastDecode) and leaves to encoding/json a document it does not read
// as strict JSON to its end (decoded whole, so an error reads as before).
// The schemas a run validates against are decoded with it, and every
// receipt line it writes (ValidateLine): encoding/json's decoding into
// any was most of validating a line, and half of validation on a history
// of small sessions.
func decodeDoc(b []byte) (any, error) {
	if v, ok := fastDecode(b); ok {
		return v, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // numbers keep their exact value, as jsonschema reads them
	var out any
	err := dec.Decode(&out)
	return out, err
}

// fastDecode is decodeDoc's own part: the value, when b is one strict JSON
// value it reads to its end (strings with an escape, a control byte or
// invalid UTF-8 are decoded by encoding/json, alone); false otherwise.
func fastDecode(b []byte) (any, bool) {
	d := docDecoder{b: b}
	d.ws()
	v, ok := d.value(0)
	if d.ws(); ok && d.i == len(b) {
		return v, true
	}
	return nil, false
}

type docDecoder struct {
	b []byte
	i int
}

func (d *docDecoder) ws() {
	for d.i < len(d.b) && (d.b[d.i] == ' ' || d.b[d.i] == '\t' || d.b[d.i] == '\n' || d.b[d.i] == '\r') {
		d.i++
	}
}

// value reads one value at d.i; false when it is not strict JSON (or
// nests deeper than a schema does).
func (d *docDecoder) value(depth int) (any, bool) {
	if d.i >= len(d.b) || depth > 64 {
		return nil, false
	}
	switch c := d.b[d.i]; {
	case c == '{':
		d.i++
		m := map[string]any{}
		if d.ws(); d.i < len(d.b) && d.b[d.i] == '}' {
			d.i++
			return m, true
		}
		for {
			d.ws()
			k, ok := d.str()
			if !ok {
				return nil, false
			}
			if d.ws(); d.i >= len(d.b) || d.b[d.i] != ':' {
				return nil, false
			}
			d.i++
			d.ws()
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[k] = v
			if d.ws(); d.i >= len(d.b) {
				return nil, false
			}
			if d.b[d.i] == '}' {
				d.i++
				return m, true
			}
			if d.b[d.i] != ',' {
				return nil, false
			}
			d.i++
		}
	case c == '[':
		d.i++
		l := []any{}
		if d.ws(); d.i < len(d.b) && d.b[d.i] == ']' {
			d.i++
			return l, true
		}
		for {
			d.ws()
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			l = append(l, v)
			if d.ws(); d.i >= len(d.b) {
				return nil, false
			}
			if d.b[d.i] == ']' {
				d.i++
				return l, true
			}
			if d.b[d.i] != ',' {
				return nil, false
			}
			d.i++
		}
	case c == '"':
		return d.str()
	case c == 't':
		return true, d.word("true")
	case c == 'f':
		return false, d.word("false")
	case c == 'n':
		return nil, d.word("null")
	case c == '-' || '0' <= c && c <= '9':
		return d.number()
	}
	return nil, false
}

func (d *docDecoder) word(w string) bool {
	if !bytes.HasPrefix(d.b[d.i:], []byte(w)) {
		return false
	}
	d.i += len(w)
	return true
}

// str reads a string; one with an escape, a control byte or invalid UTF-8
// is decoded by encoding/json (its escapes, its errors and its invalid-UTF-8
// rule).
func (d *docDecoder) str() (string, bool) {
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return "", false
	}
	start := d.i
	plain, ascii := true, true
	for j := start + 1; j < len(d.b); j++ {
		switch c := d.b[j]; {
		case c == '"':
			d.i = j + 1
			if plain && (ascii || utf8.Valid(d.b[start+1:j])) {
				return string(d.b[start+1 : j]), true
			}
			var s string
			if json.Unmarshal(d.b[start:j+1], &s) != nil {
				return "", false
			}
			return s, true
		case c == '\\':
			plain = false
			j++ // the escaped byte cannot end the string
		case c < 0x20:
			plain = false
		case c >= 0x80:
			ascii = false
		}
	}
	return "", false
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? as its literal.
func (d *docDecoder) number() (any, bool) {
	b, i := d.b, d.i
	digits := func() bool {
		s := i
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		return i > s
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false
		}
	}
	n := json.Number(b[d.i:i])
	d.i = i
	return n, true
}
