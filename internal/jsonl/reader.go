// Package jsonl reads JSON Lines input as a stream: one line at a time, with
// 1-based line numbers, no line length limit beyond a cap that keeps memory
// bounded, and a running sha256 of every byte read.
package jsonl

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"hash"
	"io"
)

// DefaultMaxLine is the longest line kept in memory for conversion. Longer
// lines are streamed past (still hashed) and reported as too long. Real agent
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
	sum   hash.Hash
	max   int
	buf   []byte
	n     int
	bytes int64
	Blank int
}

type counter struct {
	r io.Reader
	n *int64
	h hash.Hash
}

func (c counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	c.h.Write(p[:n])
	return n, err
}

// NewReader reads r, keeping lines up to maxLine bytes (DefaultMaxLine if <= 0).
func NewReader(r io.Reader, maxLine int) *Reader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	rd := &Reader{sum: sha256.New(), max: maxLine}
	rd.br = bufio.NewReaderSize(counter{r: r, n: &rd.bytes, h: rd.sum}, 64<<10)
	return rd
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
	r.buf = r.buf[:0]
	var size int64
	var last, beforeLast byte // the final two bytes read for this line
	tooLong := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		size += int64(len(chunk))
		switch len(chunk) {
		case 0:
		case 1:
			beforeLast, last = last, chunk[0]
		default:
			beforeLast, last = chunk[len(chunk)-2], chunk[len(chunk)-1]
		}
		if !tooLong {
			if len(r.buf)+len(chunk) > r.max+2 { // +2: room for "\r\n"
				tooLong = true
				r.buf = r.buf[:0]
			} else {
				r.buf = append(r.buf, chunk...)
			}
		}
		switch {
		case err == nil:
			r.n++
			return r.finish(size, tooLong, false, beforeLast == '\r'), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if size == 0 {
				return Line{}, io.EOF
			}
			r.n++
			return r.finish(size, tooLong, true, last == '\r'), nil
		default:
			return Line{}, err
		}
	}
}

// finish strips the line terminator ("\n", "\r\n", or a final "\r" on an
// unended line) and applies the cap.
func (r *Reader) finish(size int64, tooLong, unended, cr bool) Line {
	if !unended {
		size--
	}
	if cr {
		size--
	}
	if tooLong || size > int64(r.max) {
		return Line{N: r.n, Size: size, TooLong: true, Unended: unended}
	}
	return Line{N: r.n, Bytes: r.buf[:size], Size: size, Unended: unended}
}

// Sum returns the sha256 of every byte read so far; after io.EOF, of the input.
func (r *Reader) Sum() []byte { return r.sum.Sum(nil) }

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
