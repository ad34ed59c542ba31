package pipeline

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
)

// spool holds a trace while it is written: in pieces in memory, and past
// spillAt in a temporary file. A long session's trace (about 95 MB for a
// 1 GB Claude Code session) must not grow in one buffer by doubling: each
// growth is a copy, with for a moment the old and the new buffer both live
// next to the spans still being written. Its bytes are read back once,
// into a slice of exactly their size, after the spans are gone.
//
// The file is unchecked output: it is created private (0600) in the
// system's temporary directory and unlinked at once, so it has no name
// while it is written and nothing of it outlives the process (where a file
// cannot be unlinked while open, Windows, it is removed on close).
type spool struct {
	p    pieces
	fh   *os.File
	w    *bufio.Writer
	name string // set while the file still has a name
	n    int
	mem  bool // no file could be made: the trace stays in pieces
	err  error
}

// spillAt is the size past which a trace goes to a file: the indented
// traces of ordinary sessions (IndentLimit, 1 MB) and tests never do.
const spillAt = 8 << 20

func (s *spool) Write(b []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	s.n += len(b)
	if s.fh == nil && !s.mem && s.n > spillAt {
		s.spill()
	}
	if s.fh == nil {
		return s.p.Write(b)
	}
	if _, err := s.w.Write(b); err != nil {
		s.fail(err)
		return 0, s.err
	}
	return len(b), nil
}

// Own is Write of a slice the spool may keep (otlp.Owner): an ordinary
// session's indented trace, written whole, is kept as it is, not copied.
func (s *spool) Own(b []byte) {
	if s.err != nil || s.n > 0 || len(b) > spillAt {
		s.Write(b)
		return
	}
	s.n, s.p = len(b), pieces{cur: b, n: len(b)}
}

// spill moves what is written so far to a new temporary file; when none
// can be made the trace stays in memory.
func (s *spool) spill() {
	fh, err := os.CreateTemp("", ".convert-trace-*")
	if err != nil {
		s.mem = true
		return
	}
	s.fh, s.w = fh, bufio.NewWriterSize(fh, 1<<20)
	if os.Remove(fh.Name()) != nil {
		s.name = fh.Name()
	}
	for _, b := range append(s.p.full, s.p.cur) {
		if _, err := s.w.Write(b); err != nil {
			s.fail(err)
			return
		}
	}
	s.p = pieces{}
}

func (s *spool) fail(err error) {
	s.err = fmt.Errorf("trace: temporary file: %w", err)
	s.close()
}

// bytes returns everything written, as one slice of its length (a slice
// given to Own as it is), and releases the pieces or the file.
func (s *spool) bytes() ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.fh == nil {
		return s.p.bytes(), nil
	}
	defer s.close()
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("trace: temporary file: %w", err)
	}
	// The spans just written are garbage now, and the collector has not
	// seen most of it (on a 1 GB session, tens of MB): collected first, it
	// makes room for the trace's bytes instead of adding to them, which
	// sets a long session's peak heap.
	runtime.GC()
	out := make([]byte, s.n)
	if _, err := s.fh.ReadAt(out, 0); err != nil && err != io.EOF {
		return nil, fmt.Errorf("trace: temporary file: %w", err)
	}
	return out, nil
}

// close releases the file, if any (a finish that fails calls it too).
func (s *spool) close() {
	if s.fh != nil {
		s.fh.Close()
		if s.name != "" {
			os.Remove(s.name)
		}
		s.fh, s.w, s.name = nil, nil, ""
	}
	s.p = pieces{}
}

// pieces is an io.Writer that keeps what is written in pieces of a fixed
// size: it never copies what it holds, as a doubling buffer does.
type pieces struct {
	full [][]byte
	cur  []byte
	n    int
}

const (
	firstPiece = 16 << 10
	pieceSize  = 1 << 20
)

func (p *pieces) Write(b []byte) (int, error) {
	n := len(b)
	p.n += n
	for len(b) > 0 {
		if len(p.cur) == cap(p.cur) {
			if p.cur != nil {
				p.full = append(p.full, p.cur)
			}
			// The first pieces are small: most sessions' traces are a
			// few KB, and a history of small sessions must not zero a
			// 1 MiB piece for each.
			size := min(pieceSize, max(firstPiece, 2*cap(p.cur)))
			p.cur = make([]byte, 0, max(size, min(len(b), 16*pieceSize)))
		}
		k := min(len(b), cap(p.cur)-len(p.cur))
		p.cur = append(p.cur, b[:k]...)
		b = b[k:]
	}
	return n, nil
}

// bytes returns everything written as one slice (exactly its size; a
// single piece as it is) and empties p, dropping each piece once copied.
func (p *pieces) bytes() []byte {
	if len(p.full) == 0 {
		out := p.cur
		*p = pieces{}
		return out
	}
	out := make([]byte, 0, p.n)
	for i, b := range p.full {
		out = append(out, b...)
		p.full[i] = nil
	}
	out = append(out, p.cur...)
	*p = pieces{}
	return out
}
