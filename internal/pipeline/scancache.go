package pipeline

import (
	"hash/maphash"

	"github.com/contextreceipts/convert/internal/jsonl"
	"github.com/contextreceipts/convert/internal/jsonscan"
)

// scanCache keeps what detection's jsonscan.Scan found on the main file's
// first lines, so that pass one does not scan them again: on a history of
// small sessions those lines are most of the bytes, and each was scanned
// twice. Pass one takes a line's verdict and members from it only when the
// line has the same number, length and 64-bit hash of its bytes (maphash,
// some ten times faster than the scan), so a line that changed in between
// is scanned again; a hash standing for a line is the same bargain the
// leak check's pass-through set makes.
type scanCache struct {
	seed    maphash.Seed
	lines   []scannedLine
	members []jsonscan.Member
	next    int // lines are looked up in order: where the next one may be
	// read is the bytes detection read of the file (from disk): an input
	// detection refuses was read that far, and the run's "bytes read"
	// counts it.
	read int64
}

type scannedLine struct {
	n, size  int
	sum      uint64
	object   bool
	err      error
	from, to int // its members, in members
}

// lineSeed keys the hashes of every scanCache of the process.
var lineSeed = maphash.MakeSeed()

// maxCachedMembers bounds what a cache holds (2.5 MB of members): a line
// may have hundreds of thousands of top-level members, and 64 such lines
// are scanned again by pass one rather than kept.
const maxCachedMembers = 64 << 10

// add keeps the outcome of scanning line l (c may be nil: nothing is kept).
func (c *scanCache) add(l jsonl.Line, object bool, err error, members []jsonscan.Member) {
	if c == nil || len(c.members)+len(members) > maxCachedMembers {
		return
	}
	from := len(c.members)
	if err == nil {
		c.members = append(c.members, members...) // a failed scan's members are discarded
	}
	c.lines = append(c.lines, scannedLine{n: l.N, size: len(l.Bytes), sum: maphash.Bytes(c.seed, l.Bytes),
		object: object, err: err, from: from, to: len(c.members)})
}

// lookup returns Scan's outcome for line l of file i of the group, its
// members appended to *members, when the cache holds it (ok).
func (c *scanCache) lookup(i int, l jsonl.Line, members *[]jsonscan.Member) (object bool, err error, ok bool) {
	if c == nil || i != 0 {
		return false, nil, false
	}
	for c.next < len(c.lines) && c.lines[c.next].n < l.N {
		c.next++
	}
	if c.next == len(c.lines) {
		return false, nil, false
	}
	s := c.lines[c.next]
	if s.n != l.N || s.size != len(l.Bytes) || s.sum != maphash.Bytes(c.seed, l.Bytes) {
		return false, nil, false
	}
	*members = append(*members, c.members[s.from:s.to]...)
	return s.object, s.err, true
}

// objects is how many of the lines scanned were whole JSON objects.
func (c *scanCache) objects() int {
	n := 0
	for _, l := range c.lines {
		if l.object && l.err == nil {
			n++
		}
	}
	return n
}
