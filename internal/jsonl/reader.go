// Package jsonl reads JSON Lines input as a stream: one line at a time, with
// 1-based line numbers and no line length limit beyond a cap that keeps
// memory bounded. (Digests of the input are the caller's: the pipeline
// hashes the file as it is on disk, before any decompression.)
package jsonl

import (
	"bufio"
	"errors"
	"io"
	"slices"
	"sync"
	"unsafe"
)

// DefaultMaxLine is the longest line kept in memory for conversion. Longer
// lines are streamed past (never held whole; their bytes still count in
// BytesRead) and reported as too long. Real agent
// lines carrying base64 images reach several MiB; 64 MiB leaves room.
const DefaultMaxLine = 64 << 20

// Line is one input line. Bytes is valid only until the next call to Next.
type Line struct {
	N       int    // 1-based line number
	Bytes   []byte // content without the line terminator; nil when TooLong
	Size    int64  // length of the line in bytes, terminator excluded
	TooLong bool   // longer than the reader's cap; Bytes is nil
	Unended bool   // last line of the input, with no final newline
}

// Reader yields lines. Blank lines are skipped but counted in Blank.
type Reader struct {
	br    *bufio.Reader
	own   bool // br is the caller's: bytes counts what lines consumed
	max   int
	buf   []byte
	spare *[]byte // where buf came from in linePool, until Release
	n     int
	bytes int64
	Blank int
	// Skip, when set, names lines the caller does not need: they are read
	// past without being kept (Bytes nil, TooLong true), whatever their size.
	// It is consulted only for a line longer than the read buffer (64 KiB):
	// a shorter one is returned in place at no cost.
	Skip func(lineNo int) bool
	// spans are the buffers lines were handed out of that are written
	// again (the read buffer, the long-line buffer): Spans.
	spans [][]byte
}

type counter struct {
	r io.Reader
	n *int64
}

func (c counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

// NewReader reads r, keeping lines up to maxLine bytes (DefaultMaxLine if <= 0).
// A *bufio.Reader is read as it is, not through a second buffer of 64 KiB:
// a history is thousands of small sessions, and none may pay for zeroing a
// buffer of its own or for copying every byte from one buffer to another.
func NewReader(r io.Reader, maxLine int) *Reader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	rd := &Reader{max: maxLine}
	if br, ok := r.(*bufio.Reader); ok {
		rd.br, rd.own = br, true
		return rd
	}
	rd.br = bufio.NewReaderSize(counter{r: r, n: &rd.bytes}, 64<<10)
	return rd
}

// readSlice is the buffer's ReadSlice, counting what it consumes when the
// buffer is the caller's.
func (r *Reader) readSlice() ([]byte, error) {
	chunk, err := r.br.ReadSlice('\n')
	if r.own {
		r.bytes += int64(len(chunk))
	}
	return chunk, err
}

// Next returns the next non-blank line, or io.EOF after the last one.
func (r *Reader) Next() (Line, error) {
	for {
		l, err := r.next()
		if err != nil {
			return l, err
		}
		if !l.TooLong && isBlank(l.Bytes) {
			r.Blank++
			continue
		}
		return l, nil
	}
}

func (r *Reader) next() (Line, error) {
	chunk, err := r.readSlice()
	if err == nil {
		// The line fits in the read buffer: return it in place, no copy
		// (valid until the next call, as Line documents).
		r.n++
		size := int64(len(chunk))
		return r.finish(chunk, size, false, false), nil
	}
	if errors.Is(err, io.EOF) && len(chunk) == 0 {
		return Line{}, io.EOF
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Line{}, err
	}
	// A long line, or the last one without a newline: gather its chunks,
	// keeping at most the cap (plus room for "\r\n") in memory, and
	// nothing at all of a line the caller skips.
	if r.spare == nil {
		r.spare = linePool.Get().(*[]byte)
		r.buf = *r.spare
	}
	r.buf = append(r.buf[:0], chunk...)
	size := int64(len(chunk))
	tooLong := len(r.buf) > r.max+2 || (r.Skip != nil && r.Skip(r.n+1))
	for !errors.Is(err, io.EOF) {
		chunk, err = r.readSlice()
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
			return Line{}, err
		}
		size += int64(len(chunk))
		if !tooLong && len(r.buf)+len(chunk) > r.max+2 {
			tooLong, r.buf = true, r.buf[:0]
		}
		if tooLong {
			// Keep only the last two bytes: the terminator is decided from them.
			if len(chunk) >= 2 {
				r.buf = append(r.buf[:0], chunk[len(chunk)-2:]...)
			} else if r.buf = append(r.buf, chunk...); len(r.buf) > 2 {
				r.buf = append(r.buf[:0], r.buf[len(r.buf)-2:]...)
			}
		} else {
			r.buf = r.grow(chunk)
		}
		if err == nil {
			break
		}
	}
	r.n++
	l := r.finish(r.buf, size, tooLong, errors.Is(err, io.EOF))
	if cap(r.buf) > 8<<20 {
		// Let a huge line's buffer go; keep ordinary ones for reuse. Never
		// written again, it is no span: a view of it keeps its line.
		r.forget(r.buf)
		r.buf = nil
	}
	return l, nil
}

// linePool keeps the buffers long lines were gathered in for the next
// file's reader, so that each of a history's thousands of files does not
// grow one from nothing (TestReleaseReuse: a reused buffer never mixes two
// readers' lines).
var linePool = sync.Pool{New: func() any { return new([]byte) }}

// Release gives the reader's line buffer back for another reader to use:
// the last Line's Bytes are not valid after it. The reader can still be
// read (it takes a buffer again).
func (r *Reader) Release() {
	if Poison {
		for _, s := range r.spans {
			scribble(s[:cap(s)])
		}
	}
	if r.spare != nil && cap(r.buf) <= 8<<20 {
		*r.spare = r.buf[:0]
		linePool.Put(r.spare)
	}
	r.buf, r.spare = nil, nil
}

// grow appends chunk to the line buffer, doubling its capacity but never
// past the cap: a line near the cap leaves little garbage behind, where
// append's gentler growth for large slices would copy it many times.
func (r *Reader) grow(chunk []byte) []byte {
	need := len(r.buf) + len(chunk)
	if need > cap(r.buf) {
		nb := make([]byte, len(r.buf), min(max(2*cap(r.buf), need), r.max+2))
		copy(nb, r.buf)
		r.buf = nb
	}
	return append(r.buf, chunk...)
}

// finish strips the line terminator ("\n", "\r\n", or a final "\r" on
// an unended line) from b, the line's bytes (only its last bytes when it is
// too long), and applies the cap. size counts every byte read for the line.
func (r *Reader) finish(b []byte, size int64, tooLong, unended bool) Line {
	if !unended && len(b) > 0 && b[len(b)-1] == '\n' {
		b, size = b[:len(b)-1], size-1
	}
	if len(b) > 0 && b[len(b)-1] == '\r' {
		b, size = b[:len(b)-1], size-1
	}
	if tooLong || size > int64(r.max) {
		return Line{N: r.n, Size: size, TooLong: true, Unended: unended}
	}
	r.note(b)
	return Line{N: r.n, Bytes: b, Size: size, Unended: unended}
}

// note adds the buffer b is a slice of to the spans, or lowers the start
// of the span of that buffer (spans of one buffer end together: a slice
// reaches to its buffer's end through its capacity).
func (r *Reader) note(b []byte) {
	if cap(b) == 0 {
		return
	}
	start, end := bounds(b)
	for i, s := range r.spans {
		if ss, se := bounds(s); se == end {
			if start < ss {
				r.spans[i] = b[:0]
			}
			return
		}
	}
	r.spans = append(r.spans, b[:0])
}

// forget drops the span of buffer b.
func (r *Reader) forget(b []byte) {
	if cap(b) == 0 {
		return
	}
	_, end := bounds(b)
	r.spans = slices.DeleteFunc(r.spans, func(s []byte) bool { _, se := bounds(s); return se == end })
}

// Spans are the buffers the reader has handed lines out of and writes
// again with other lines (the read buffer, the long-line buffer, which a
// pool hands on to other readers): a string pointing into one of them is
// a view of some line, valid only until the next. Each is a slice of
// length 0 whose capacity covers the part lines came from; holding it
// keeps the buffer from being freed, so a pointer into it cannot be
// mistaken for a later allocation.
func (r *Reader) Spans() [][]byte { return r.spans }

// bounds are the addresses of the first byte of b and one past its
// capacity.
func bounds(b []byte) (start, end uintptr) {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return p, p + uintptr(cap(b))
}

// Aliases reports whether s points into one of spans (Spans of the
// readers an input was read with): the check before an output is written
// that no string of it is a view of a read buffer.
func Aliases(spans [][]byte, s string) bool {
	if len(s) == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	for _, b := range spans {
		if start, end := bounds(b); p >= start && p < end {
			return true
		}
	}
	return false
}

// scribble overwrites b (Poison builds).
func scribble(b []byte) {
	for i := range b {
		b[i] = '#'
	}
}

// Scribble overwrites the bytes of a line once it has been converted, in
// Poison builds (and does nothing otherwise): a view kept past its line
// then shows, as changed outputs.
func Scribble(b []byte) {
	if Poison {
		scribble(b)
	}
}

// BytesRead is the number of input bytes read so far.
func (r *Reader) BytesRead() int64 { return r.bytes }

// Lines is the number of lines read so far, blank ones included.
func (r *Reader) Lines() int { return r.n }

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
