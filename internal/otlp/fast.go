package otlp

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/contextreceipts/convert/internal/jsonscan"
)

// fastValid reports whether doc is a valid TracesData document in the form
// Write produces, in one scan over its bytes with no allocation. It accepts
// a subset of what the encoding/json validator (validate) accepts: object
// keys spelled exactly as written, each at most once, without escapes; no
// nulls; ids, times and integers without escapes; kind and status codes as
// one digit. Anything outside the subset, valid or not, returns false and
// validate decides, so what Validate reports never changes.
// TestFastDifferential proves fast acceptance implies validate's.
func fastValid(doc []byte) bool {
	s := scanner{doc: doc}
	s.ws()
	ok := s.object(func(key []byte) bool {
		if string(key) == "resourceSpans" {
			return s.array(s.resourceSpans)
		}
		return false
	})
	s.ws()
	return ok && s.i == len(doc) && s.spans > 0
}

// scanner walks one document; every method returns false as soon as the
// document leaves the subset.
type scanner struct {
	doc   []byte
	i     int
	spans int
	keys  [][]byte // attribute keys of the list being read, for duplicates
}

func (s *scanner) ws() { s.i = jsonscan.Space(s.doc, s.i) }

func (s *scanner) peek(c byte) bool {
	s.ws()
	return s.i < len(s.doc) && s.doc[s.i] == c
}

// object reads an object whose keys are plain (no escape) and distinct,
// calling field on each key with the scanner at its value.
func (s *scanner) object(field func(key []byte) bool) bool {
	if !s.peek('{') {
		return false
	}
	s.i++
	var seen [12][]byte // our objects have at most 11 known keys
	n := 0
	if s.peek('}') {
		s.i++
		return true
	}
	for {
		key, ok := s.plain()
		if !ok || n == len(seen) {
			return false
		}
		for _, k := range seen[:n] {
			if bytes.Equal(k, key) {
				return false
			}
		}
		seen[n] = key
		n++
		if !s.peek(':') {
			return false
		}
		s.i++
		s.ws()
		if !field(key) {
			return false
		}
		more, ok := s.sep('}')
		if !ok || !more {
			return ok
		}
	}
}

// sep reads what follows a member or element: a comma (more follow) or
// close (the end); anything else is not OTLP/JSON in Write's form.
func (s *scanner) sep(close byte) (more, ok bool) {
	s.ws()
	if s.i >= len(s.doc) {
		return false, false
	}
	switch s.doc[s.i] {
	case ',':
		s.i++
		return true, true
	case close:
		s.i++
		return false, true
	}
	return false, false
}

// array reads an array, calling elem with the scanner at each element.
func (s *scanner) array(elem func() bool) bool {
	if !s.peek('[') {
		return false
	}
	s.i++
	if s.peek(']') {
		s.i++
		return true
	}
	for {
		s.ws()
		if !elem() {
			return false
		}
		more, ok := s.sep(']')
		if !ok || !more {
			return ok
		}
	}
}

// plain reads a string without escapes or control characters, in valid
// UTF-8 (which encoding/json would not rewrite), and returns its body.
func (s *scanner) plain() ([]byte, bool) {
	if !s.peek('"') {
		return nil, false
	}
	start := s.i + 1
	q := bytes.IndexByte(s.doc[start:], '"')
	if q < 0 {
		return nil, false
	}
	body := s.doc[start : start+q]
	ascii := true
	for _, c := range body {
		if c < 0x20 || c == '\\' {
			return nil, false
		}
		ascii = ascii && c < utf8.RuneSelf
	}
	if !ascii && !utf8.Valid(body) {
		return nil, false
	}
	s.i = start + q + 1
	return body, true
}

// str reads any valid JSON string and reports whether its value is empty.
// Invalid UTF-8 is accepted, as encoding/json accepts it.
func (s *scanner) str() (empty, ok bool) {
	if !s.peek('"') {
		return false, false
	}
	i := s.i + 1
	start := i
	for {
		j := bytes.IndexAny(s.doc[i:], "\"\\")
		if j < 0 {
			return false, false
		}
		for _, c := range s.doc[i : i+j] {
			if c < 0x20 {
				return false, false
			}
		}
		i += j
		if s.doc[i] == '"' {
			s.i = i + 1
			return i == start, true
		}
		if i+1 >= len(s.doc) {
			return false, false
		}
		switch s.doc[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > len(s.doc) {
				return false, false
			}
			for _, c := range s.doc[i+2 : i+6] {
				if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
					return false, false
				}
			}
			i += 6
		default:
			return false, false
		}
	}
}

func (s *scanner) nonEmpty() bool {
	empty, ok := s.str()
	return ok && !empty
}

// hexID reads an id: n lowercase hex digits, not all zero.
func (s *scanner) hexID(n int) bool {
	b, ok := s.plain()
	if !ok || len(b) != n {
		return false
	}
	zero := true
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
		zero = zero && c == '0'
	}
	return !zero
}

// nanos reads unsigned 64-bit nanoseconds as a decimal string, as validate
// checks them.
func (s *scanner) nanos() (uint64, bool) {
	b, ok := s.plain()
	if !ok || (len(b) > 1 && b[0] == '0') {
		return 0, false
	}
	return parseUint(b)
}

// parseUint is strconv.ParseUint(b, 10, 64) without the string.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// parseInt is strconv.ParseInt(b, 10, 64) without the string: an optional
// sign, then digits.
func parseInt(b []byte) bool {
	neg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg, b = b[0] == '-', b[1:]
	}
	n, ok := parseUint(b)
	if !ok {
		return false
	}
	if neg {
		return n <= 1<<63
	}
	return n <= math.MaxInt64
}

// digit reads a number literal of one digit up to max.
func (s *scanner) digit(max byte) bool {
	if s.i >= len(s.doc) || s.doc[s.i] < '0' || s.doc[s.i] > max {
		return false
	}
	s.i++
	return s.i >= len(s.doc) || !isNumberByte(s.doc[s.i])
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// number reads a JSON number literal that parses as a float64.
func (s *scanner) number() bool {
	start, i := s.i, s.i
	if i < len(s.doc) && s.doc[i] == '-' {
		i++
	}
	switch {
	case i < len(s.doc) && s.doc[i] == '0':
		i++
	case i < len(s.doc) && '1' <= s.doc[i] && s.doc[i] <= '9':
		for i < len(s.doc) && '0' <= s.doc[i] && s.doc[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(s.doc) && s.doc[i] == '.' {
		i++
		d := i
		for i < len(s.doc) && '0' <= s.doc[i] && s.doc[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(s.doc) && (s.doc[i] == 'e' || s.doc[i] == 'E') {
		i++
		if i < len(s.doc) && (s.doc[i] == '+' || s.doc[i] == '-') {
			i++
		}
		d := i
		for i < len(s.doc) && '0' <= s.doc[i] && s.doc[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if _, err := strconv.ParseFloat(string(s.doc[start:i]), 64); err != nil {
		return false
	}
	s.i = i
	return true
}

func (s *scanner) boolean() bool {
	rest := s.doc[s.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		s.i += 4
	case len(rest) >= 5 && string(rest[:5]) == "false":
		s.i += 5
	default:
		return false
	}
	return true
}

func (s *scanner) resourceSpans() bool {
	var hasURL bool
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "resource":
			return s.object(func(key []byte) bool { return string(key) == "attributes" && s.attrs() })
		case "scopeSpans":
			return s.array(s.scopeSpans)
		case "schemaUrl":
			hasURL = s.nonEmpty()
			return hasURL
		}
		return false
	}) && hasURL
}

func (s *scanner) scopeSpans() bool {
	var hasURL, hasName bool
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "scope":
			return s.object(func(key []byte) bool {
				switch string(key) {
				case "name":
					hasName = s.nonEmpty()
					return hasName
				case "version":
					_, ok := s.str()
					return ok
				case "attributes":
					return s.attrs()
				}
				return false
			})
		case "spans":
			return s.array(s.span)
		case "schemaUrl":
			hasURL = s.nonEmpty()
			return hasURL
		}
		return false
	}) && hasURL && hasName
}

func (s *scanner) span() bool {
	s.spans++
	var trace, id, name, hasStart, hasEnd bool
	var start, end uint64
	ok := s.object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "traceId":
			trace = s.hexID(32)
			return trace
		case "spanId":
			id = s.hexID(16)
			return id
		case "parentSpanId":
			return s.hexID(16)
		case "name":
			name = s.nonEmpty()
			return name
		case "kind":
			return s.digit('5')
		case "startTimeUnixNano":
			start, ok = s.nanos()
			hasStart = ok
			return ok
		case "endTimeUnixNano":
			end, ok = s.nanos()
			hasEnd = ok
			return ok
		case "attributes":
			return s.attrs()
		case "events":
			return s.array(s.event)
		case "links":
			return s.array(s.link)
		case "status":
			return s.object(func(key []byte) bool { return string(key) == "code" && s.digit('2') })
		}
		return false
	})
	return ok && trace && id && name && hasStart && hasEnd && end >= start
}

func (s *scanner) event() bool {
	var time, name bool
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "timeUnixNano":
			_, time = s.nanos()
			return time
		case "name":
			name = s.nonEmpty()
			return name
		case "attributes":
			return s.attrs()
		}
		return false
	}) && time && name
}

func (s *scanner) link() bool {
	var trace, id bool
	return s.object(func(key []byte) bool {
		switch string(key) {
		case "traceId":
			trace = s.hexID(32)
			return trace
		case "spanId":
			id = s.hexID(16)
			return id
		case "attributes":
			return s.attrs()
		}
		return false
	}) && trace && id
}

// attrs reads a list of key-value pairs: non-empty, distinct plain keys,
// each with one value.
func (s *scanner) attrs() bool { return s.attrsAt(0) }

// attrsAt is attrs nested depth values deep (a kvlistValue's list).
func (s *scanner) attrsAt(depth int) bool {
	base := len(s.keys)
	defer func() { s.keys = s.keys[:base] }()
	return s.array(func() bool {
		var key []byte
		var hasValue bool
		return s.object(func(k []byte) bool {
			switch string(k) {
			case "key":
				b, ok := s.plain()
				if !ok || len(b) == 0 {
					return false
				}
				for _, prev := range s.keys[base:] {
					if bytes.Equal(prev, b) {
						return false
					}
				}
				key = b
				s.keys = append(s.keys, b)
				return true
			case "value":
				hasValue = s.value(depth)
				return hasValue
			}
			return false
		}) && key != nil && hasValue
	})
}

// value reads an AnyValue holding exactly one value.
func (s *scanner) value(depth int) bool {
	if depth > 32 {
		return false
	}
	n := 0
	return s.object(func(key []byte) bool {
		n++
		switch string(key) {
		case "stringValue":
			_, ok := s.str()
			return ok
		case "boolValue":
			return s.boolean()
		case "intValue":
			b, ok := s.plain()
			return ok && parseInt(b)
		case "doubleValue":
			return s.number()
		case "arrayValue":
			return s.object(func(key []byte) bool {
				return string(key) == "values" && s.array(func() bool { return s.value(depth + 1) })
			})
		case "kvlistValue":
			return s.object(func(key []byte) bool { return string(key) == "values" && s.attrsAt(depth+1) })
		}
		return false
	}) && n == 1
}
