package receipt

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// SchemaID names the receipt line format; it is written on every line.
const SchemaID = "convert.receipt.v1"

// Line is one receipt line as written.
type Line struct {
	TraceID, SpanID string
	Event           Event
	Converter       string
}

// AppendJSON appends the line as one JSON object (no newline), keys in the
// fixed order trace_id, span_id, name, time, attributes, schema, converter,
// source_line, and attributes in the order they were set.
func (l Line) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"trace_id":`...)
	b = appendString(b, l.TraceID)
	b = append(b, `,"span_id":`...)
	b = appendString(b, l.SpanID)
	b = append(b, `,"name":`...)
	b = appendString(b, l.Event.Name)
	if l.Event.Time != "" {
		b = append(b, `,"time":`...)
		b = appendString(b, l.Event.Time)
	}
	b = append(b, `,"attributes":{`...)
	for i, a := range l.Event.Attrs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, a.Key)
		b = append(b, ':')
		var err error
		if b, err = appendValue(b, a.Value); err != nil {
			return nil, fmt.Errorf("attribute %q: %w", a.Key, err)
		}
	}
	b = append(b, `},"schema":"`+SchemaID+`","converter":`...)
	b = appendString(b, l.Converter)
	b = append(b, `,"source_line":`...)
	b = strconv.AppendInt(b, int64(l.Event.Line), 10)
	return append(b, '}'), nil
}

func appendValue(b []byte, v Value) ([]byte, error) {
	switch v.Kind {
	case String:
		return appendString(b, v.Str), nil
	case Bool:
		return strconv.AppendBool(b, v.Bool), nil
	case Int:
		return strconv.AppendInt(b, v.Int, 10), nil
	case Float:
		if math.IsNaN(v.Float()) || math.IsInf(v.Float(), 0) {
			return nil, fmt.Errorf("not a finite number")
		}
		return strconv.AppendFloat(b, v.Float(), 'g', -1, 64), nil
	case Strings:
		b = append(b, '[')
		for i, s := range v.List() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		return append(b, ']'), nil
	}
	return nil, fmt.Errorf("value has no kind")
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string. Invalid UTF-8 becomes U+FFFD so a
// line is always valid JSON; control characters are escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20 || c == 0x7f:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}
