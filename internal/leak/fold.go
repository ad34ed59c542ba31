package leak

import "github.com/contextreceipts/convert/internal/jsonscan"

// Visitor is the first pass over one input line (Input.Line) folded into
// the scan that validates it: jsonscan.ScanVisit tells it each token, and
// it does what the walker does with them, through the walker's own leaf,
// number and raw. The line is not known to be converted until after its
// scan (a record of unknown type is skipped), so what it learns is kept
// aside until Commit and dropped by Discard: a skipped line must admit no
// pass-through value, as it did when pass one walked converted lines only.
//
// TestVisitorIsLine holds it to Input.Line on every sample line, crafted
// lines and the fuzz corpus; FuzzVisitorIsLine goes on from there.
type Visitor struct {
	w      walker
	frames []frame
	mark   lineMark
}

// frame is one open object or array: where its path starts, and for an
// array whether its elements' key ("#") passed the tails filter.
type frame struct {
	base  int
	array bool
	tail  bool
}

// lineMark is what Discard restores.
type lineMark struct {
	pass, nums         int
	rawCount, rawBytes int64
}

// undo is an admitted-cache slot set during the line, and its old value.
type undo struct {
	slot int
	old  uint64
}

// Visitor returns the input's visitor, begun on a new line that pass's
// fields govern, read by the reader that knows know (Input.Line). Its
// calls must come from one ScanVisit, then Commit or Discard.
func (in *Input) Visitor(pass Paths, know *Knowledge) *Visitor {
	v := in.visitor
	if v == nil {
		v = &Visitor{}
		in.visitor = v
	}
	v.w = walker{in: in, pass: pass, know: know, tails: in.tails.forPaths(pass), tail: true, path: v.w.path[:0], esc: v.w.esc[:0], wild: v.w.wild}
	v.frames = v.frames[:0]
	v.mark = lineMark{pass: len(in.pass), nums: len(in.nums), rawCount: in.RawCount, rawBytes: in.RawBytes}
	in.pending, in.undos = true, in.undos[:0]
	return v
}

// Commit keeps what the line taught.
func (v *Visitor) Commit() {
	in := v.w.in
	in.pending = false
	in.compact()
}

// Discard forgets what the line taught: the line was skipped, or its scan
// failed part of the way.
func (v *Visitor) Discard() {
	in := v.w.in
	in.pass, in.nums = in.pass[:v.mark.pass], in.nums[:v.mark.nums]
	in.RawCount, in.RawBytes = v.mark.rawCount, v.mark.rawBytes
	for i := len(in.undos) - 1; i >= 0; i-- {
		in.admitted[in.undos[i].slot] = in.undos[i].old
	}
	in.pending, in.undos = false, in.undos[:0]
}

var _ jsonscan.Visitor = (*Visitor)(nil)

// Open is walker.object's or walker.array's start.
func (v *Visitor) Open(array bool) {
	w := &v.w
	f := frame{base: len(w.path), array: array}
	if array {
		if f.base > 0 {
			w.path = append(w.path, '.')
		}
		w.path = append(w.path, '#')
		f.tail = w.tails.has(w.path[len(w.path)-1:])
	}
	v.frames = append(v.frames, f)
}

// Close is their end: the path is the container's own again.
func (v *Visitor) Close(bool) {
	f := v.frames[len(v.frames)-1]
	v.frames = v.frames[:len(v.frames)-1]
	v.w.path = v.w.path[:f.base]
}

// Key is walker.object's step for one member's key.
func (v *Visitor) Key(body []byte, escaped bool) {
	w := &v.w
	key := v.decode(body, escaped)
	w.key(key)
	base := v.frames[len(v.frames)-1].base
	w.path = w.path[:base]
	if base > 0 {
		w.path = append(w.path, '.')
	}
	w.path = append(w.path, key...)
	w.tail = w.tails.has(key)
}

// String is walker.value's step for a string.
func (v *Visitor) String(body []byte, escaped bool) {
	w := &v.w
	v.element()
	if w.shape() == None {
		w.in.RawCount++
		w.in.RawBytes += int64(len(body))
		return
	}
	w.leaf(v.decode(body, escaped))
}

// Number is walker.value's step for a number.
func (v *Visitor) Number(lit []byte) {
	v.element()
	v.w.number(lit)
}

// element gives an array's element the array's tail, as walker.array does
// before each value (a member's value has its key's, set by Key).
func (v *Visitor) element() {
	if n := len(v.frames); n > 0 && v.frames[n-1].array {
		v.w.tail = v.frames[n-1].tail
	}
}

// decode is a string's body decoded: itself when it has no escape.
func (v *Visitor) decode(body []byte, escaped bool) []byte {
	if !escaped {
		return body
	}
	v.w.esc = jsonscan.AppendUnescaped(v.w.esc[:0], view(body))
	return v.w.esc
}
