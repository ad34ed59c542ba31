package leak

import (
	"bytes"
	"unsafe"

	"github.com/contextreceipts/convert/internal/jsonscan"
)

// Line probes every raw string, object key and number of one input JSON
// line against the untyped outputs. A value at a pass-through path that
// fits the path's shape is a pass-through value and is not probed; every
// other string is raw, however short or harmless it looks. An id is
// judged as the line's reader writes it: know is what that reader knows
// (its id grammar; nil for a writer of no agent, whose ids go by their
// shape), and must be what the first pass (Input.Line) was given. The
// line must be valid JSON (the pipeline only probes lines it converted).
//
// This is the hot loop of the second pass, so it is a single scan over the
// bytes: no tree, no copy of strings without escapes.
func (c *Checker) Line(doc []byte, n int, pass Paths, know *Knowledge) {
	c.build()
	w := walker{c: c, doc: doc, line: n, pass: pass, know: know, tails: c.tails.forPaths(pass), tail: true, path: c.pathBuf[:0], esc: c.esc[:0]}
	w.value(w.ws(0))
	c.pathBuf, c.esc = w.path[:0], w.esc[:0]
}

// Line is the first pass over one input line: it records the pass-through
// values that fit their field's shape (an id only when it is one of the
// ids of the reader that knows know: Shape.admitFor), and the raw
// numbers, and counts the raw strings.
func (in *Input) Line(doc []byte, pass Paths, know *Knowledge) {
	w := walker{in: in, doc: doc, pass: pass, know: know, tails: in.tails.forPaths(pass), tail: true, path: in.pathBuf[:0], esc: in.esc[:0]}
	w.value(w.ws(0))
	in.pathBuf, in.esc = w.path[:0], w.esc[:0]
}

type walker struct {
	c    *Checker // second pass: probe raw strings
	in   *Input   // first pass: collect pass-through values and raw numbers
	doc  []byte
	line int
	pass Paths
	know *Knowledge // the reader's: ids are admitted by its grammar (admitFor)
	// tails filters pass's last keys; tail is whether the key of the
	// value being read passed it (its parent sets it just before).
	tails *tails
	tail  bool
	path  []byte
	esc   []byte // scratch for strings with escapes
	wild  []byte // scratch for "*.<last key>" look-ups
	// visit, when set (tests), receives each string instead of the probe.
	visit func(path, v string)
}

func (w *walker) ws(i int) int { return jsonscan.Space(w.doc, i) }

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
		if w.in != nil && w.visit == nil && w.shape() == None {
			// Pass one only counts a raw string: find its end, decode nothing.
			j := jsonscan.StringEnd(w.doc, i+1)
			w.in.RawCount++
			w.in.RawBytes += int64(j - i - 2)
			return j
		}
		s, j := w.str(i + 1)
		w.leaf(s)
		return j
	}
	j := i
	for j < len(w.doc) { // number, true, false, null
		switch w.doc[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			w.number(w.doc[i:j])
			return j
		}
		j++
	}
	w.number(w.doc[i:j])
	return j
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
		w.key(key)
		w.path = w.path[:base]
		if base > 0 {
			w.path = append(w.path, '.')
		}
		w.path = append(w.path, key...)
		i = w.ws(j)
		if i < len(w.doc) && w.doc[i] == ':' {
			i++
		}
		w.tail = w.tails.has(key)
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
	tail := w.tails.has(w.path[len(w.path)-1:])
	for {
		i = w.ws(i)
		if i >= len(w.doc) || w.doc[i] == ']' {
			return i + 1
		}
		if w.doc[i] == ',' {
			i++
			continue
		}
		w.tail = tail
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

// unescape decodes the string whose body starts at start, which holds an
// escape, into the walker's scratch.
func (w *walker) unescape(start int) ([]byte, int) {
	end := jsonscan.StringEnd(w.doc, start)
	body := w.doc[start:end]
	if len(body) > 0 && body[len(body)-1] == '"' { // not so only at the end of a line cut short
		body = body[:len(body)-1]
	}
	w.esc = jsonscan.AppendUnescaped(w.esc[:0], view(body))
	return w.esc, end
}

func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) } // read-only, no copy

func (w *walker) leaf(s []byte) {
	v := view(s)
	if w.visit != nil {
		w.visit(string(w.path), string(s))
		return
	}
	sh := w.shape()
	if sh == None || sh == Count {
		w.raw(v)
		return
	}
	if w.in != nil {
		if !w.in.admit(sh, v, w.know) {
			w.raw(v)
		}
		return
	}
	if !w.admits(sh, v) { // Admit: a secret-looking value is raw wherever it sits
		w.raw(v)
	}
}

// shape is the pass-through shape of the value being read: None at once
// when its key ends no pass-through path (tails), else its path's.
func (w *walker) shape() Shape {
	if !w.tail {
		return None
	}
	return w.pass[string(w.path)]
}

// admits is sh.admitFor(v) for the line's reader, in the run the input
// was read for (Input.RevealNames).
func (w *walker) admits(sh Shape, v string) bool {
	if w.in != nil {
		return sh.admitFor(v, w.know, w.in.RevealNames)
	}
	return sh.admitFor(v, w.know, w.c.reveal())
}

func (w *walker) raw(v string) {
	if w.in != nil {
		w.in.RawCount++
		w.in.RawBytes += int64(len(v))
		return
	}
	if w.c != nil {
		w.c.Raw(v, w.line)
	}
}

// key probes an object key: keys are input like values (a tool result's
// keys are the tool's data).
func (w *walker) key(k []byte) {
	if w.visit == nil {
		w.raw(view(k))
	}
}

// number handles a number leaf (true, false and null too). A number in a
// Count or EpochMs field is pass-through; any other of 6 or more digits is
// remembered as raw, so an output number that copies it is a leak.
func (w *walker) number(lit []byte) {
	if w.visit != nil || len(lit) == 0 || lit[0] == 't' || lit[0] == 'f' || lit[0] == 'n' {
		return
	}
	v := view(lit)
	sh := w.shape()
	if sh == None && w.tail {
		// "*.input_tokens": a count field wherever it sits.
		last := w.path[bytes.LastIndexByte(w.path, '.')+1:]
		w.wild = append(append(w.wild[:0], "*."...), last...)
		sh = w.pass[string(w.wild)]
	}
	if (sh == Count || sh == EpochMs) && sh.fits(v) || sh != None && sh != Count && sh != EpochMs && w.admits(sh, v) {
		// A number in a label or id field is that field's value: a
		// converter that writes it (as a string) passes it through.
		if w.in != nil {
			w.in.addPass(v)
		}
		return
	}
	if w.in != nil {
		if d := intDigits(v); len(d) >= 6 {
			w.in.nums = append(w.in.nums, w.in.hash(d))
		}
	}
	if w.in == nil && w.c != nil {
		w.c.RawNumber(v, w.line)
		return
	}
	w.raw(v)
}

// intDigits returns the digits of an integer literal ("-123" -> "123"), or
// "" when lit is not a plain integer.
func intDigits(lit string) string {
	if len(lit) > 0 && lit[0] == '-' {
		lit = lit[1:]
	}
	if !digits(lit) {
		return ""
	}
	return lit
}
