package view

import (
	"strings"
	"unsafe"

	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/tidwall/gjson"
)

// Record is one input line, parsed and checked by the pipeline: a view of
// the line, valid for the one call that receives it. Its Type and Time are
// the converter's to keep (Type is the converter's own word for a known
// type; Time is formatted by the pipeline).
type Record struct {
	Line int
	File int    // index of the file in its input group (0: the main file)
	Type string // the record type: a word of the converter's Types, "" when unknown (TypeText)
	// TypeText is the record's type as the line spells it, for an open
	// converter's unknown types (count them by digest).
	TypeText Text
	Time     string // RFC 3339 UTC (normalized), "" when the record has none
	NS       int64  // Time as unix nanoseconds, 0 when the record has none
	Seq      int64  // position of the line in its input group: lines of earlier files plus Line (RecordClock)
	JSON     Value
	top      []topField // the top-level fields, indexed once by the pipeline (ScannedRecord)
}

// topField is one top-level field: its value is parsed when it is read
// (most are never read, and an escaped string would be decoded for
// nothing).
type topField struct {
	key     string
	raw     string
	escaped bool
}

func (f topField) val() gjson.Result { return scannedValue(f.raw, f.escaped) }

// ScannedRecord is the record of the JSON object line whose top-level
// members jsonscan.Scan found, indexed without reading the line again: the
// values are slices of line, parsed by gjson only as far as each one goes.
func ScannedRecord(line string, members []jsonscan.Member) Record {
	return new(RecordIndex).Scanned(line, members)
}

// RecordIndex makes records as ScannedRecord does, each index in the
// same memory: a record is handed to a converter for one call and never
// kept, so reading a line must not allocate an index of its own. A record
// it made is valid until its next Scanned.
type RecordIndex struct{ top []topField }

// Scanned is ScannedRecord, in x's memory.
func (x *RecordIndex) Scanned(line string, members []jsonscan.Member) Record {
	if cap(x.top) < len(members) || x.top == nil {
		x.top = make([]topField, len(members), max(len(members), 16))
	}
	r := Record{JSON: Value{r: gjson.Parse(line)}, top: x.top[:len(members)]}
	for i, m := range members {
		r.top[i] = topField{memberKey(line, m), line[m.ValStart:m.ValEnd], m.ValEscaped}
	}
	return r
}

// Top is the top-level field key of r (a key, not a path), from the index
// when one was built.
func (r Record) Top(key string) Value {
	if r.top == nil {
		return Value{r: r.JSON.r.Get(gjson.Escape(key))}
	}
	for _, f := range r.top {
		if f.key == key {
			return Value{r: f.val()}
		}
	}
	return Value{}
}

// TopKeys calls fn with each top-level key of r, in order (none unless
// ScannedRecord made r).
func (r Record) TopKeys(fn func(key Text)) {
	for _, f := range r.top {
		fn(Text{s: f.key})
	}
}

// Get is r.JSON.Get, answered from the top-level index when one was built.
func (r Record) Get(path string) Value {
	if r.top == nil {
		return r.JSON.Get(path)
	}
	head, rest, nested := strings.Cut(path, ".")
	if strings.ContainsAny(head, "*?#|@\\") {
		return Value{r: r.JSON.r.Get(path)}
	}
	for _, f := range r.top {
		if f.key == head {
			if !nested {
				return Value{r: f.val()}
			}
			return Value{r: get(f.val(), rest)}
		}
	}
	return Value{}
}

// scannedValue is the gjson value of raw, a slice of a scanned document:
// a string is cut out and decoded here (gjson.Parse would look for its end
// again, byte by byte, and tool results are megabytes); anything else is
// parsed, which for an object or array costs nothing until it is read.
func scannedValue(raw string, escaped bool) gjson.Result {
	if len(raw) >= 2 && raw[0] == '"' {
		str := raw[1 : len(raw)-1]
		if escaped {
			str = unescape(str)
		}
		return gjson.Result{Type: gjson.String, Raw: raw, Str: str}
	}
	return gjson.Parse(raw)
}

// memberKey is the decoded key of member m of the document raw (a record
// line, or an object's Raw that jsonscan.Children walked): a view of raw
// unless it has escapes.
func memberKey(raw string, m jsonscan.Member) string {
	if m.KeyEscaped {
		return unescape(raw[m.KeyStart:m.KeyEnd])
	}
	return raw[m.KeyStart:m.KeyEnd]
}

// forEach is v.ForEach (the same keys and values, in order) over
// jsonscan.Children, which skips nested values and long strings a word at a
// time where gjson steps byte by byte.
func forEach(v gjson.Result, fn func(k, v gjson.Result) bool) {
	if !v.Exists() {
		return
	}
	if v.Type != gjson.JSON {
		fn(gjson.Result{}, v)
		return
	}
	raw := v.Raw
	object := strings.HasPrefix(strings.TrimLeft(raw, " \t\r\n"), "{")
	k := gjson.Result{Type: gjson.Number, Num: -1}
	if object {
		k = gjson.Result{Type: gjson.String}
	}
	jsonscan.Children(raw, func(m jsonscan.Member) bool {
		if object {
			k.Raw, k.Str = raw[m.KeyStart-1:m.KeyEnd+1], memberKey(raw, m)
		} else {
			k.Num++
		}
		val := scannedValue(raw[m.ValStart:m.ValEnd], m.ValEscaped)
		val.Index = v.Index + m.ValStart
		return fn(k, val)
	})
}

// get is v.Get(path) for plain dotted keys and array indexes (Value.Get).
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
// as gjson does (jsonscan.AppendUnescaped). The result is a string of its
// own when s has escapes, and s itself (a view) when it has none: the
// caller's Text decides what is kept.
func unescape(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	b := jsonscan.AppendUnescaped(make([]byte, 0, len(s)), s)
	return unsafe.String(unsafe.SliceData(b), len(b)) // b is new and never written again
}
