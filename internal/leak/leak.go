// Package leak decides whether any output string carries raw input content.
//
// The rule (DESIGN 2.4): an output string leaks when it contains a raw input
// string of 8 or more bytes, or a run of 16 or more consecutive bytes of one,
// or a secret-shaped token. Raw strings are the input's JSON string values
// that the converter does not declare as pass-through. Output substrings that
// are a pass-through value seen in the input are not leaks, and neither are
// strings of the program's own vocabulary (schema keys, names, enum values).
//
// The check is linear in input size and bounded by output size: the outputs
// are indexed once (every 8-byte window), then each raw string is probed only
// at offsets 0, 8, 16, ... because any 16-byte run contains one such aligned
// 8-byte block.
package leak

import (
	"sort"
	"strconv"

	"github.com/contextreceipts/convert/internal/receipt"
)

// Finding is one leak, described without the leaked content.
type Finding struct {
	Where string // output location, e.g. "receipt line 3" or "stderr message 1"
	Line  int    // input line of the raw string; 0 for a secret shape
	What  string // "raw input run of N bytes" or "secret-shaped token (jwt)"
}

// Outputs collects every output string before the check. Add strings in
// output order; Where labels say where each one came from.
type Outputs struct {
	seen  map[string]bool
	strs  []string
	where []string
	vocab map[string]bool
}

// NewOutputs returns an empty collection. vocab holds the program's own
// strings (schema keys, event names, enum values): exempt when whole.
func NewOutputs(vocab map[string]bool) *Outputs {
	return &Outputs{seen: map[string]bool{}, vocab: vocab}
}

// Add records one output string found at where.
func (o *Outputs) Add(s, where string) {
	if o.seen[s] {
		return
	}
	o.seen[s] = true
	o.strs = append(o.strs, s)
	o.where = append(o.where, where)
}

type window struct {
	key uint64
	pos int32 // position in buf
	str int32 // index of the indexed string holding it
}

// Checker holds the output index and the findings so far.
type Checker struct {
	buf      []byte   // indexed output strings, concatenated
	starts   []int32  // start of each indexed string in buf
	labels   []string // where each indexed string came from
	wins     []window // sorted by key
	bloom    []uint64
	bloomSh  uint
	covered  map[int32]int32  // buf start -> end of the longest pass-through span there
	cands    map[[2]int32]int // leaking span -> first input line
	minRaw   map[int32]int    // idx of string with a short raw string -> line
	secrets  []Finding
	pathBuf  []byte // reused by Line
	RawCount int64  // raw strings probed
	RawBytes int64
}

// NewChecker indexes the outputs. Strings shorter than 8 bytes cannot hold a
// leak; digests carry no content; vocabulary strings are the program's own.
func (o *Outputs) NewChecker() *Checker {
	c := &Checker{covered: map[int32]int32{}, cands: map[[2]int32]int{}}
	for i, s := range o.strs {
		if o.vocab[s] || receipt.IsDigest(s) {
			continue // the program's own strings, and digests: neither can carry content
		}
		if k := SecretKind(s); k != "" {
			c.secrets = append(c.secrets, Finding{Where: o.where[i], What: "secret-shaped token (" + k + ")"})
		}
		if len(s) < 8 {
			continue
		}
		start := int32(len(c.buf))
		c.buf = append(c.buf, s...)
		c.starts = append(c.starts, start)
		c.labels = append(c.labels, o.where[i])
		for p := 0; p+8 <= len(s); p++ {
			c.wins = append(c.wins, window{key8(s, p), start + int32(p), int32(len(c.starts) - 1)})
		}
	}
	sort.Slice(c.wins, func(i, j int) bool {
		if c.wins[i].key != c.wins[j].key {
			return c.wins[i].key < c.wins[j].key
		}
		return c.wins[i].pos < c.wins[j].pos
	})
	bits := uint(10)
	for (1<<bits) < 16*len(c.wins) && bits < 30 {
		bits++
	}
	c.bloom = make([]uint64, (1<<bits)/64)
	c.bloomSh = 64 - bits
	for _, w := range c.wins {
		h := c.slot(w.key)
		c.bloom[h/64] |= 1 << (h % 64)
	}
	return c
}

func (c *Checker) slot(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> c.bloomSh }

// lookup returns the buf positions whose 8-byte window equals k.
func (c *Checker) lookup(k uint64) []window {
	if len(c.wins) == 0 {
		return nil
	}
	h := c.slot(k)
	if c.bloom[h/64]&(1<<(h%64)) == 0 {
		return nil
	}
	i := sort.Search(len(c.wins), func(i int) bool { return c.wins[i].key >= k })
	j := i
	for j < len(c.wins) && c.wins[j].key == k {
		j++
	}
	return c.wins[i:j]
}

// bounds returns the [start, end) of the indexed string holding buf[pos].
func (c *Checker) bounds(pos int32) (int32, int32, int) {
	i := sort.Search(len(c.starts), func(i int) bool { return c.starts[i] > pos }) - 1
	return c.starts[i], c.end(int32(i)), i
}

// end returns where indexed string i ends in buf.
func (c *Checker) end(i int32) int32 {
	if int(i)+1 < len(c.starts) {
		return c.starts[i+1]
	}
	return int32(len(c.buf))
}

// key8 reads the 8-byte window of s at off.
func key8(s string, off int) uint64 {
	_ = s[off+7]
	return uint64(s[off]) | uint64(s[off+1])<<8 | uint64(s[off+2])<<16 | uint64(s[off+3])<<24 |
		uint64(s[off+4])<<32 | uint64(s[off+5])<<40 | uint64(s[off+6])<<48 | uint64(s[off+7])<<56
}

// Pass records a pass-through value: where it occurs whole in an output, those
// bytes are not a leak even if a raw string also contains them. Pass values
// come with every line (ids, times), so the probe uses the value's rarest
// window, and stops at the first window no output has.
func (c *Checker) Pass(v string) {
	if len(v) < 8 {
		return
	}
	var best []window
	bestOff := 0
	for off := 0; off+8 <= len(v); off++ {
		ws := c.lookup(key8(v, off))
		if len(ws) == 0 {
			return // some 8 bytes of v are in no output: v is in none
		}
		if best == nil || len(ws) < len(best) {
			best, bestOff = ws, off
			if len(best) == 1 {
				break
			}
		}
	}
	for _, w := range best {
		start, end := w.pos-int32(bestOff), w.pos-int32(bestOff)+int32(len(v))
		if start >= c.starts[w.str] && end <= c.end(w.str) && string(c.buf[start:end]) == v {
			// The same id recurs on every line: keep one span per start.
			c.covered[start] = max(c.covered[start], end)
		}
	}
}

// Raw probes one raw input string from input line.
func (c *Checker) Raw(v string, line int) {
	if len(v) < 8 {
		return
	}
	c.RawCount++
	c.RawBytes += int64(len(v))
	if len(v) < 16 {
		for _, w := range c.lookup(key8(v, 0)) {
			lo, hi := c.starts[w.str], c.end(w.str)
			end := w.pos + int32(len(v))
			if end <= hi && w.pos >= lo && string(c.buf[w.pos:end]) == v {
				c.candidate(w.pos, end, line)
			}
		}
		return
	}
	for k := 0; k+8 <= len(v); k += 8 {
		for _, w := range c.lookup(key8(v, k)) {
			lo, hi := c.starts[w.str], c.end(w.str)
			a, b := w.pos, w.pos+8
			for i := k - 1; i >= 0 && a > lo && c.buf[a-1] == v[i]; i-- {
				a--
			}
			for i := k + 8; i < len(v) && b < hi && c.buf[b] == v[i]; i++ {
				b++
			}
			if b-a >= 16 {
				c.candidate(a, b, line)
			}
		}
	}
}

func (c *Checker) candidate(a, b int32, line int) {
	key := [2]int32{a, b}
	if _, ok := c.cands[key]; !ok {
		c.cands[key] = line
	}
}

// Findings resolves the candidates against the pass-through spans and returns
// every leak, in output order. A candidate survives when an uncovered stretch
// of it is 16 bytes or longer, or when a short raw string matched with none
// of its bytes covered.
func (c *Checker) Findings() []Finding {
	out := append([]Finding(nil), c.secrets...)
	keys := make([][2]int32, 0, len(c.cands))
	for k := range c.cands {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	reported := map[int]bool{}
	for _, k := range keys {
		a, b := k[0], k[1]
		gap := c.longestUncovered(a, b)
		if gap >= 16 || (b-a < 16 && gap == b-a) {
			_, _, idx := c.bounds(a)
			if reported[idx] {
				continue
			}
			reported[idx] = true
			out = append(out, Finding{Where: c.labels[idx], Line: c.cands[k], What: "raw input run of " + strconv.Itoa(int(b-a)) + " bytes"})
		}
	}
	return out
}

// longestUncovered returns the longest stretch of [a, b) that no pass-through
// span covers.
func (c *Checker) longestUncovered(a, b int32) int32 {
	lo, _, _ := c.bounds(a)
	cov := make([]bool, b-a)
	for s := lo; s < b; s++ {
		if e, ok := c.covered[s]; ok {
			for p := max(s, a); p < min(e, b); p++ {
				cov[p-a] = true
			}
		}
	}
	var best, run int32
	for _, x := range cov {
		if x {
			run = 0
			continue
		}
		run++
		best = max(best, run)
	}
	return best
}
