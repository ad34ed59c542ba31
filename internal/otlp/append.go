package otlp

import (
	"encoding/hex"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/contextreceipts/convert/internal/receipt"
)

// appendSpan appends s as encoding/json encodes its jsonSpan (HTML escaping
// off): the same bytes (TestAppendSpanMatchesEncodingJSON), without the
// reflection and the per-span structs: a long session writes a hundred
// thousand spans, and writing one must not allocate a struct or reflect.
func appendSpan(b []byte, s Span, legacy bool) ([]byte, error) {
	b = append(b, `{"traceId":`...)
	b = appendID(b, s.TraceID[:])
	b = append(b, `,"spanId":`...)
	b = appendID(b, s.SpanID[:])
	if !s.Parent.IsZero() {
		b = append(b, `,"parentSpanId":`...)
		b = appendID(b, s.Parent[:])
	}
	b = append(b, `,"name":`...)
	b = appendJSONString(b, s.Name)
	b = append(b, `,"kind":`...)
	b = strconv.AppendInt(b, int64(s.Kind), 10)
	b = append(b, `,"startTimeUnixNano":"`...)
	b = strconv.AppendInt(b, s.Start, 10)
	b = append(b, `","endTimeUnixNano":"`...)
	b = strconv.AppendInt(b, s.End, 10)
	b = append(b, '"')
	var err error
	if len(s.Attrs) > 0 || len(s.Lists) > 0 {
		b = append(b, `,"attributes":[`...)
		if b, err = appendSpanAttrs(b, s, legacy); err != nil {
			return nil, err
		}
		b = append(b, ']')
	}
	if len(s.Events) > 0 {
		b = append(b, `,"events":[`...)
		for i, e := range s.Events {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"timeUnixNano":"`...)
			b = strconv.AppendInt(b, e.Time, 10)
			b = append(b, `","name":`...)
			b = appendJSONString(b, e.Name)
			if b, err = appendAttributes(b, e.Attrs); err != nil {
				return nil, err
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(s.Links) > 0 {
		b = append(b, `,"links":[`...)
		for i, l := range s.Links {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"traceId":`...)
			b = appendID(b, l.TraceID[:])
			b = append(b, `,"spanId":`...)
			b = appendID(b, l.SpanID[:])
			if b, err = appendAttributes(b, l.Attrs); err != nil {
				return nil, err
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if s.Error {
		b = append(b, `,"status":{"code":2}`...)
	}
	return append(b, '}'), nil
}

// appendSpanAttrs writes a span's attributes, its structured ones after
// them, and with legacy set the old name of each renamed GenAI attribute
// right after its current one (unless the span also has the old one).
func appendSpanAttrs(b []byte, s Span, legacy bool) ([]byte, error) {
	n := 0
	var err error
	for _, at := range s.Attrs {
		if b, err = appendKeyValue(b, n, at.Key, at.Value); err != nil {
			return nil, err
		}
		n++
		if !legacy {
			continue
		}
		if old, ok := LegacyNames[at.Key]; ok {
			if _, dup := s.Attrs.Get(old); !dup {
				if b, err = appendKeyValue(b, n, old, at.Value); err != nil {
					return nil, err
				}
				n++
			}
		}
	}
	for _, l := range s.Lists {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, `{"key":`...)
		b = appendJSONString(b, l.Key)
		b = append(b, `,"value":{"arrayValue":{"values":[`...)
		for i, e := range l.Entries {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"kvlistValue":{"values":[`...)
			if b, err = appendKeyValues(b, e); err != nil {
				return nil, err
			}
			b = append(b, `]}}`...)
		}
		b = append(b, `]}}}`...)
	}
	return b, nil
}

// appendAttributes writes an event's or a link's ,"attributes":[…] (none
// when a is empty, as omitempty leaves it out).
func appendAttributes(b []byte, a receipt.Attrs) ([]byte, error) {
	if len(a) == 0 {
		return b, nil
	}
	b = append(b, `,"attributes":[`...)
	b, err := appendKeyValues(b, a)
	if err != nil {
		return nil, err
	}
	return append(b, ']'), nil
}

func appendKeyValues(b []byte, a receipt.Attrs) ([]byte, error) {
	var err error
	for i, at := range a {
		if b, err = appendKeyValue(b, i, at.Key, at.Value); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// appendKeyValue writes one {"key":…,"value":{…}}, after a comma unless it
// is the list's first (i == 0).
func appendKeyValue(b []byte, i int, key string, v receipt.Value) ([]byte, error) {
	if i > 0 {
		b = append(b, ',')
	}
	b = append(b, `{"key":`...)
	b = appendJSONString(b, key)
	b = append(b, `,"value":{`...)
	switch v.Kind {
	case receipt.Bool:
		b = append(b, `"boolValue":`...)
		b = strconv.AppendBool(b, v.Bool)
	case receipt.Int:
		b = append(b, `"intValue":"`...)
		b = strconv.AppendInt(b, v.Int, 10)
		b = append(b, '"')
	case receipt.Float:
		b = append(b, `"doubleValue":`...)
		var err error
		if b, err = appendFloat(b, v.Float()); err != nil {
			return nil, err
		}
	case receipt.Strings:
		b = append(b, `"arrayValue":{"values":[`...)
		for j, s := range v.List() {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"stringValue":`...)
			b = appendJSONString(b, s)
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	default:
		b = append(b, `"stringValue":`...)
		b = appendJSONString(b, v.Str)
	}
	return append(b, "}}"...), nil
}

func appendID(b, id []byte) []byte {
	b = append(b, '"')
	b = hex.AppendEncode(b, id)
	return append(b, '"')
}

var errNotFinite = errors.New("json: unsupported value: a float that is not finite")

// appendFloat writes f as encoding/json does: the shortest form that reads
// back, in exponent form below 1e-6 and from 1e21, with a one-digit
// negative exponent written without its leading zero (1e-7, not 1e-07).
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errNotFinite
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// appendJSONString writes s as encoding/json does with HTML escaping off:
// `"` and `\` escaped, control characters as \b \f \n \r \t or \u00XX,
// invalid UTF-8 as \ufffd, and U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigit[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigit = "0123456789abcdef"
