// Package leak decides whether any output string carries raw input content.
//
// The model (docs/design.md, "Provenance and the leak check") is
// provenance. Every output string is one of:
//
//   - vocabulary: a constant the program writes (schema keys, enum values,
//     event and span names, schema URLs, scope names);
//   - a digest (sha256:… or hmac-sha256:…);
//   - a number the program computed;
//   - a pass-through value: exactly a value the input holds in a declared
//     pass-through field, inside that field's Shape, and not secret-looking;
//     in an id field, also one of the ids of the agent whose reader reads
//     it (Knowledge.IDs), as that reader writes ids in clear (ClearFor);
//   - a composite of those parts ("execute_tool Bash", "user=12"; a
//     pass-through value may span the separators it holds, "chat llama3:8b");
//   - or none of these: then it is checked whole, as an untyped string.
//
// Provenance is proven, not claimed: a string counts as a pass-through value
// only when the input's declared fields actually hold it, and as vocabulary
// only when the generated vocabulary holds it. Only untyped strings are
// indexed and probed against the raw input, so a constant is never a false
// positive whatever the session's own text says.
//
// Raw is every input string, object key and number that is not an admitted
// pass-through value. An untyped output string leaks when it equals a raw
// string (any length, ASCII case folded), contains a raw string of 8 or
// more bytes, or a run of 16 or more consecutive bytes of one, or a
// secret-shaped token. In a composite the match must touch an open part,
// one that is not vocabulary, a digest or a pass-through value (numbers
// are open): our own word equal to a raw word carries nothing (openParts).
// An output number leaks when it equals a raw input number of 6 or more
// digits. Pass-through and composite strings are also screened for secret
// shapes.
//
// The check is linear in input size: the input is walked once before the
// outputs exist (collecting the admitted pass-through values and the raw
// numbers), and, only when some output string is untyped, once more to probe
// raw strings at stride 8 against an index of the untyped strings.
package leak

import (
	"hash/maphash"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/contextreceipts/convert/internal/receipt"
)

// Finding is one leak, described without the leaked content.
type Finding struct {
	Where string // output location, e.g. "receipt line 3" or "stderr message 1"
	Line  int    // input line of the raw string; 0 for a secret shape
	What  string // "raw input run of N bytes" or "secret-shaped token (jwt)"
}

// Outputs collects every output string and number before the check. Add
// strings in output order; Where labels say where each one came from.
type Outputs struct {
	seen  map[string]bool
	strs  []string
	where []string
	msg   []bool // a message (stderr): its words may be any of Words
	vocab func(string) bool
	// Words returns the single words of the vocabulary's phrases: a message
	// the program composes ("record rejected: tool is listed twice") is
	// typed when every word is one of them. It must be asked only when a
	// message needs it, never once per run: building the set is a large
	// cost next to a short run's.
	Words func() map[string]bool
	nums  map[string]string // literal of 6+ digits -> where
	numOr []string
}

func (o *Outputs) word(p string) bool { return o.Words != nil && o.Words()[p] }

// NewOutputs returns an empty collection. vocab holds the program's own
// strings (schema keys, event names, enum values, schema URLs): exempt when
// whole, and as parts of composites.
func NewOutputs(vocab map[string]bool) *Outputs {
	return NewOutputsOver(func(s string) bool { return vocab[s] })
}

// NewOutputsOver is NewOutputs with the vocabulary as a lookup (the gate's
// is a generated table, not a map).
func NewOutputsOver(isWord func(string) bool) *Outputs {
	return &Outputs{seen: map[string]bool{}, vocab: isWord, nums: map[string]string{}}
}

// Add records one output string found at where.
func (o *Outputs) Add(s, where string) {
	if o.seen[s] {
		return
	}
	o.seen[s] = true
	o.strs = append(o.strs, s)
	o.where = append(o.where, where)
	o.msg = append(o.msg, false)
}

// AddMessage records a message the program composed (a warning or an
// error for stderr) found at where.
func (o *Outputs) AddMessage(s, where string) {
	if o.seen[s] {
		return
	}
	o.Add(s, where)
	o.msg[len(o.msg)-1] = true
}

// AddNumber records an output number (its decimal literal) found at where.
// Numbers shorter than 6 digits are counts, not identifiers: they are not kept.
func (o *Outputs) AddNumber(lit, where string) {
	lit = strings.TrimPrefix(lit, "-")
	if len(lit) < 6 || !digits(lit) {
		return
	}
	if _, ok := o.nums[lit]; !ok {
		o.nums[lit] = where
		o.numOr = append(o.numOr, lit)
	}
}

// Input is what the check learns from the input before the outputs exist:
// the admitted pass-through values and the raw numbers (as 64-bit keyed
// hashes, so memory stays small on GB inputs), and how much raw content it
// saw. Feed it every input line the converter saw, with Line.
type Input struct {
	seed     maphash.Seed
	pass     []uint64
	nums     []uint64
	sorted   int // pass[:sorted] and nums are compacted when they grow
	RawCount int64
	RawBytes int64 // raw strings' bytes as encoded in the input
	// RevealNames says the outputs were written under --reveal names: a
	// model name no catalog knows is then in clear where the screens pass
	// it, so the check admits it too (Shape.admitFor). Set it before the
	// first Line.
	RevealNames bool
	pathBuf     []byte
	esc         []byte
	tails       tails
	// admitted remembers the (shape, value hash) pairs admitted lately:
	// the same session id, version, cwd and model sit on every line of a
	// session, and must not be judged again (Shape.Admit's secret patterns)
	// nor added again on each line (TestAdmitRemembersShapeAndValue).
	admitted [512]uint64
	// pending is set while a Visitor reads a line not yet committed: its
	// values are not compacted in, and the admitted slots it sets are
	// remembered in undos so that Discard can take them back.
	pending bool
	undos   []undo
	visitor *Visitor
}

// NewInput returns an empty Input.
func NewInput() *Input { return &Input{seed: maphash.MakeSeed()} }

func (in *Input) hash(s string) uint64 { return maphash.String(in.seed, s) }

// Pass admits v as a pass-through value: the user's own words (the input's
// file name, a path given on the command line).
func (in *Input) Pass(v string) { in.addPass(v) }

func (in *Input) addPass(v string) { in.addHash(in.hash(v)) }

func (in *Input) addHash(h uint64) {
	in.pass = append(in.pass, h)
	if !in.pending {
		in.compact()
	}
}

// admit is sh.admitFor(v, know, in.RevealNames), adding v to the
// pass-through values when it is admitted. The reader's id grammar is
// asked first, every time (a few compares); past it, Admit depends on the
// shape and the value only, and so does a model name's admission by the
// catalog, so a pair seen admitted so before is admitted again without a
// look (a 64-bit hash stands for the value, as it does in pass),
// whichever reader's line it sat on. A model name admitted by its
// reader's knowledge (its agent's own, or --reveal names, which a writer
// of no agent never applies) is asked again on every line, never
// remembered: another reader's line may not admit it.
func (in *Input) admit(sh Shape, v string, know *Knowledge) bool {
	if !know.ownID(sh, v) {
		return false
	}
	h := in.hash(v)
	k := h ^ uint64(sh+1)*0x9e3779b97f4a7c15
	slot := &in.admitted[k%uint64(len(in.admitted))]
	if *slot == k && k != 0 {
		return true
	}
	if !sh.Admit(v) {
		return false
	}
	remember := sh != Model || KnownModel(v) // admitted by the value alone
	if !remember && !know.ownModel(sh, v, in.RevealNames) {
		return false
	}
	if remember {
		if in.pending {
			in.undos = append(in.undos, undo{slot: int(k % uint64(len(in.admitted))), old: *slot})
		}
		*slot = k
	}
	in.addHash(h)
	for _, p := range sh.Parts(v) {
		in.addPass(p) // a part of an admitted value has its provenance
	}
	return true
}

func (in *Input) compact() {
	if len(in.pass) < 1024 || len(in.pass) < 2*in.sorted {
		return
	}
	slices.Sort(in.pass)
	in.pass = slices.Compact(in.pass)
	in.sorted = len(in.pass)
	if len(in.nums) > 1024 {
		slices.Sort(in.nums)
		in.nums = slices.Compact(in.nums)
	}
}

func (in *Input) freeze() {
	slices.Sort(in.pass)
	in.pass = slices.Compact(in.pass)
	in.sorted = len(in.pass)
	slices.Sort(in.nums)
	in.nums = slices.Compact(in.nums)
}

func (in *Input) has(s string) bool {
	_, ok := slices.BinarySearch(in.pass, in.hash(s))
	return ok
}

func (in *Input) hasNum(lit string) bool {
	_, ok := slices.BinarySearch(in.nums, in.hash(lit))
	return ok
}

type window struct {
	key uint64
	pos int32 // position in buf
	str int32 // index of the indexed string holding it
}

// Checker holds the index of the untyped output strings and the findings.
type Checker struct {
	o     *Outputs
	in    *Input
	extra map[string]bool // pass-through values given after NewChecker
	built bool

	buf     []byte   // indexed untyped strings, ASCII-folded, concatenated
	starts  []int32  // start of each indexed string in buf
	labels  []string // where each indexed string came from
	wins    []window // sorted by key
	bloom   []uint64
	bloomSh uint
	short   map[string][]int32 // folded untyped strings and parts of 1-7 bytes -> every indexed string holding one
	shortW  []string           // where of each short entry's string
	cands   map[[2]int32]int   // leaking span -> first input line
	flagged []bool             // indexed strings that already have a finding
	numeric []bool             // indexed strings shaped like a number (of 6+ digits)
	// open lists, per indexed string, the buf ranges a finding must
	// touch: its parts that are not ours (see index); openAt[i] is where
	// string i's ranges start in open.
	open    [][2]int32
	openAt  []int32
	rawNum  bool // the raw value being probed is a number literal (RawNumber)
	found   []Finding
	scratch []byte
	pathBuf []byte // reused by Line
	esc     []byte
	tails   tails

	RawCount int64 // raw strings probed in Line and Raw
	RawBytes int64
}

// NewChecker returns a checker with no input knowledge: pass-through values
// come through Pass (as `convert leakcheck` on files from elsewhere does).
func (o *Outputs) NewChecker() *Checker { return o.Check(nil) }

// Check returns the checker of these outputs against in (may be nil).
func (o *Outputs) Check(in *Input) *Checker {
	if in != nil {
		in.freeze()
	}
	return &Checker{o: o, in: in, extra: map[string]bool{}, cands: map[[2]int32]int{}}
}

// Pass admits v as a pass-through value. It must be called before the first
// Raw, Line, NeedsProbe or Findings.
func (c *Checker) Pass(v string) { c.extra[v] = true }

// reveal reports whether the outputs were written under --reveal names
// (Input.RevealNames; a checker of no input knows of none).
func (c *Checker) reveal() bool { return c != nil && c.in != nil && c.in.RevealNames }

func (c *Checker) isPass(s string) bool {
	return c.extra[s] || (c.in != nil && c.in.has(s))
}

// typedPart reports whether one part of a composite has a provenance:
// whole, or as dotted segments ("mcp.tool_call.count").
func (c *Checker) typedPart(p string) bool { return wholeOrSegments(p, c.typedWhole) }

// ownPart reports a part that is ours (vocabulary, digest, number), whole or
// as dotted segments: no input, so no secret, can be in it.
func (c *Checker) ownPart(p string) bool {
	return wholeOrSegments(p, func(w string) bool { return w == "" || c.o.vocab(w) || receipt.IsDigest(w) || countLike(w) })
}

// wholeOrSegments reports whether ok holds for p, or for every dotted
// segment of p.
func wholeOrSegments(p string, ok func(string) bool) bool {
	if ok(p) {
		return true
	}
	if !strings.Contains(p, ".") {
		return false
	}
	for _, seg := range strings.Split(p, ".") {
		if !ok(seg) {
			return false
		}
	}
	return true
}

func (c *Checker) typedWhole(p string) bool {
	return p == "" || c.o.vocab(p) || receipt.IsDigest(p) || countLike(p) || c.isPass(p)
}

// build classifies every output string and indexes the untyped ones.
func (c *Checker) build() {
	if c.built {
		return
	}
	c.built = true
	for i, s := range c.o.strs {
		if c.o.vocab(s) || receipt.IsDigest(s) {
			continue // the program's own strings, and digests: neither can carry content
		}
		if countLike(s) {
			continue
		}
		parts := splitParts(s)
		// Counts joined by separators ("555 123 4567") are a number too:
		// with 6 digits or more in all they are probed like one.
		digitRun := isDigitRun(s, parts)
		if !digitRun && all(parts, c.ownPart) {
			continue // made of our own words, digests and numbers only
		}
		// No secret has the shape of a UUID or a time: spare the patterns.
		if !isUUID(s) && !isTime(s) {
			if k := SecretKind(s); k != "" {
				c.found = append(c.found, Finding{Where: c.o.where[i], What: "secret-shaped token (" + k + ")"})
			}
		}
		if c.isPass(s) {
			continue
		}
		if !digitRun && c.typedComposite(s, parts) {
			continue
		}
		if c.o.msg[i] && all(parts, func(p string) bool { return c.typedPart(p) || c.o.word(p) }) {
			continue
		}
		c.index(s, c.o.where[i], parts, digitRun, c.o.msg[i])
	}
	if c.in != nil {
		for _, lit := range c.o.numOr {
			if c.in.hasNum(lit) && !c.in.has(lit) {
				c.found = append(c.found, Finding{Where: c.o.nums[lit], What: "raw input number of " + strconv.Itoa(len(lit)) + " digits"})
			}
		}
	}
	c.flagged = make([]bool, len(c.starts))
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
}

// typedComposite reports whether every part of s has a provenance, where
// a run of parts may also be typed together: a pass-through value that
// holds a separator is split with s, and its pieces alone are nothing.
// A run is tried only as the exact bytes of s it spans, separators
// included, so it is typed only when it equals an admitted value.
//
//	"chat gpt-5.3-cod:x"    typed when the model "gpt-5.3-cod:x" is admitted
//	"chat llama3:8b notes"  not typed: "notes" is nothing of ours
func (c *Checker) typedComposite(s string, parts []string) bool {
	if len(parts) == 0 {
		return false
	}
	if all(parts, c.typedPart) {
		return true
	}
	// Where each part sits in s, then which prefixes of the parts are
	// typed: ok[j] when parts[:j] are.
	at := make([][2]int, len(parts))
	if !placeParts(s, parts, func(i, from, to int) { at[i] = [2]int{from, to} }) {
		return false
	}
	ok := make([]bool, len(parts)+1)
	ok[0] = true
	for i := range parts {
		if !ok[i] {
			continue
		}
		if c.typedPart(parts[i]) {
			ok[i+1] = true
		}
		for j := i + 2; j <= min(len(parts), i+maxRun); j++ {
			if c.isPass(s[at[i][0]:at[j-1][1]]) {
				ok[j] = true
			}
		}
	}
	return ok[len(parts)]
}

// maxRun is the most parts one pass-through value is tried across.
const maxRun = 8

func all(parts []string, ok func(string) bool) bool {
	for _, p := range parts {
		if !ok(p) {
			return false
		}
	}
	return true
}

// index adds one untyped string: its 8-byte windows for long raw strings,
// and the whole string and its untyped parts for short ones.
//
// In a message, the words of the program's own messages are closed parts
// too: a raw match must touch something else of it. "in/notes.jsonl:
// input matches no known kind", checked against an input with a "matches"
// key, is the program's sentence about another input, not that key.
func (c *Checker) index(s, where string, parts []string, digitRun, msg bool) {
	own := c.maskedPart
	if msg {
		own = func(p string) bool { return c.maskedPart(p) || c.o.word(p) }
	}
	idx := int32(len(c.starts))
	start := int32(len(c.buf))
	c.buf = appendFolded(c.buf, s)
	c.starts = append(c.starts, start)
	c.labels = append(c.labels, where)
	c.numeric = append(c.numeric, isNumber(s))
	c.openAt = append(c.openAt, int32(len(c.open)))
	c.open = openParts(c.open, s, start, parts, digitRun, own)
	for p := 0; p+8 <= len(s); p++ {
		c.wins = append(c.wins, window{load64(c.buf[start+int32(p):]), start + int32(p), idx})
	}
	if c.short == nil {
		c.short = map[string][]int32{}
	}
	if len(s) < 8 {
		c.addShort(string(appendFolded(nil, s)), idx)
	}
	for _, p := range parts {
		if len(p) < 8 && !c.typedPart(p) && !(msg && c.o.word(p)) {
			c.addShort(string(appendFolded(nil, p)), idx)
		}
	}
}

// openParts appends the ranges (in buf, s starting at start) of the parts
// of s a raw match must touch to be a leak: every part but our own words,
// digests and pass-through values. In "assistant=124749" (a record type
// and its count) that is the count: the raw word "assistant" in a session
// matches only our own word, which carries nothing of the input. Numbers
// stay open, so digits joined by separators are still found; a string
// probed as a digit run, or one whose parts cannot be placed, is open
// whole.
//
//	"assistant=124749"           open: "124749"
//	"execute_tool Bash CANARY"   open: "CANARY"
//	"555 123 4567" (digit run)   open: all of it
func openParts(dst [][2]int32, s string, start int32, parts []string, digitRun bool, own func(string) bool) [][2]int32 {
	whole := [2]int32{start, start + int32(len(s))}
	if digitRun || len(parts) < 2 {
		return append(dst, whole)
	}
	n := len(dst)
	placed := placeParts(s, parts, func(i, from, to int) {
		if !own(parts[i]) {
			dst = append(dst, [2]int32{start + int32(from), start + int32(to)})
		}
	})
	if !placed || len(dst) == n {
		return append(dst[:n], whole)
	}
	return dst
}

// placeParts calls fn with each part's index and its bytes [from, to) in
// s, each placed after the one before (splitParts cut them from s in
// order), and reports whether every part was placed.
func placeParts(s string, parts []string, fn func(i, from, to int)) bool {
	cur := 0
	for i, p := range parts {
		j := strings.Index(s[cur:], p)
		if j < 0 {
			return false
		}
		fn(i, cur+j, cur+j+len(p))
		cur += j + len(p)
	}
	return true
}

// OnlyOwn reports whether bytes [from, to) of the output string s lie in
// its own parts and separators only, where no raw match counts (tests that
// plant raw text in an output ask it of the piece they planted).
func (c *Checker) OnlyOwn(s string, from, to int) bool {
	parts := splitParts(s)
	for _, r := range openParts(nil, s, 0, parts, isDigitRun(s, parts), c.maskedPart) {
		if int32(from) < r[1] && int32(to) > r[0] {
			return false
		}
	}
	return true
}

// maskedPart reports a part that is ours or admitted, whole or as dotted
// segments, not counting numbers: a match inside such parts only is no leak.
func (c *Checker) maskedPart(p string) bool {
	return wholeOrSegments(p, func(w string) bool { return w == "" || c.o.vocab(w) || receipt.IsDigest(w) || c.isPass(w) })
}

// touchesOpen reports whether the match [a, b) of indexed string str
// touches one of its open parts.
func (c *Checker) touchesOpen(str, a, b int32) bool {
	end := int32(len(c.open))
	if int(str)+1 < len(c.openAt) {
		end = c.openAt[str+1]
	}
	for _, r := range c.open[c.openAt[str]:end] {
		if a < r[1] && b > r[0] {
			return true
		}
	}
	return false
}

// addShort records that indexed string idx holds the short key k. Every
// string holding it must be refused: a warning (withheld) and a receipt
// string that share a short raw part must not leave only the warning's
// finding.
func (c *Checker) addShort(k string, idx int32) {
	if l := c.short[k]; len(l) == 0 || l[len(l)-1] != idx {
		c.short[k] = append(l, idx)
	}
}

// splitParts splits a string at the separators composites are made with
// (space = , ; ( ) [ ] and ':' outside digests; typedPart also tries a
// part's dotted segments), keeping a digest's
// "sha256:" with its hex.
func splitParts(s string) []string {
	f := strings.FieldsFunc(s, func(r rune) bool {
		switch r {
		case ' ', '=', ',', ';', '(', ')', '[', ']', '\n', '\t', '"':
			return true
		}
		return false
	})
	var out []string
	for _, p := range f {
		p = strings.TrimRight(p, ":")
		if !strings.Contains(p, ":") || receipt.IsDigest(p) {
			out = append(out, p)
			continue
		}
		sub := strings.Split(p, ":")
		for i := 0; i < len(sub); i++ {
			if i+1 < len(sub) && (sub[i] == "sha256" || sub[i] == "hmac-sha256") && receipt.IsDigest(sub[i]+":"+sub[i+1]) {
				out = append(out, sub[i]+":"+sub[i+1])
				i++
				continue
			}
			out = append(out, sub[i])
		}
	}
	return out
}

// countLike reports a number-shaped string of fewer than 6 digits: a count,
// a size, a ratio the program computed, which cannot identify anything (as
// AddNumber keeps no output number that short). A longer one is probed
// like any string: a raw digit string copied into an output (a card,
// phone or account number from a tool argument) is a leak.
//
//	"42", "0.25", "12345"   count-like: never probed
//	"4111111111111111"      probed; found when the raw input holds it
func countLike(s string) bool { return isNumber(s) && digitCount(s) < 6 }

// isDigitRun reports counts joined by separators ("555 123 4567") with 6
// digits or more in all: a number too, probed like one.
func isDigitRun(s string, parts []string) bool { return digitCount(s) >= 6 && all(parts, countParts) }

// countParts reports a part made of counts only, whole or as dotted
// segments ("555.123.4567" is three).
func countParts(p string) bool {
	return wholeOrSegments(p, func(w string) bool { return w == "" || countLike(w) })
}

func digitCount(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if '0' <= s[i] && s[i] <= '9' {
			n++
		}
	}
	return n
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	// The bytes first: most strings asked about are words, and ParseFloat
	// allocates an error for each of them.
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E') {
			return false // no Inf, NaN or hex
		}
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// NeedsProbe reports whether any output string is untyped: only then can a
// raw string leak, so only then must the input be read again.
func (c *Checker) NeedsProbe() bool {
	c.build()
	return len(c.starts) > 0
}

func (c *Checker) slot(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> c.bloomSh }

// lookup returns the buf positions whose folded 8-byte window equals k.
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

// Raw probes one raw input string (or key, or number literal) from input line.
func (c *Checker) Raw(v string, line int) {
	c.build()
	c.RawCount++
	c.RawBytes += int64(len(v))
	if len(c.starts) == 0 || len(v) == 0 {
		return
	}
	if len(v) < 8 {
		c.scratch = appendFolded(c.scratch[:0], v)
		for _, idx := range c.short[string(c.scratch)] {
			c.found = append(c.found, Finding{Where: c.labels[idx], Line: line, What: "raw input value of " + strconv.Itoa(len(v)) + " bytes"})
		}
		return
	}
	if len(v) < 16 {
		c.scratch = appendFolded(c.scratch[:0], v)
		for _, w := range c.lookup(load64(c.scratch)) {
			lo, hi := c.starts[w.str], c.end(w.str)
			end := w.pos + int32(len(v))
			if end <= hi && w.pos >= lo && string(c.buf[w.pos:end]) == string(c.scratch) && c.numberMatch(w.str, w.pos, end, len(v)) && c.touchesOpen(w.str, w.pos, end) {
				c.candidate(w.pos, end, line)
			}
		}
		return
	}
	// done holds a few keys whose windows all sit in strings that already
	// have a finding: repetitive text probes the same keys again and again.
	var done [32]uint64
	nd := 0
	for k := 0; k+8 <= len(v); k += 8 {
		key := fold64(loadStr64(v, k))
		if slices.Contains(done[:min(nd, len(done))], key) {
			continue
		}
		ws := c.lookup(key)
		for _, w := range ws {
			if c.flagged[w.str] {
				continue // one finding per output string: repetitive text stays linear
			}
			lo, hi := c.starts[w.str], c.end(w.str)
			a, b := w.pos, w.pos+8
			for i := k - 1; i >= 0 && a > lo && c.buf[a-1] == fold(v[i]); i-- {
				a--
			}
			for i := k + 8; i < len(v) && b < hi && c.buf[b] == fold(v[i]); i++ {
				b++
			}
			if b-a >= 16 && c.numberMatch(w.str, a, b, len(v)) && c.touchesOpen(w.str, a, b) {
				c.candidate(a, b, line)
			}
		}
		if len(ws) > 0 && allIn(c.flagged, ws) {
			done[nd%len(done)] = key
			nd++
		}
	}
}

// RawNumber probes a raw number literal: as Raw, except that an output
// string shaped like a number holds it only whole (numbers are compared as
// numbers, so a trace's unix nanoseconds "1773479523100000000" do not hold
// the raw epoch seconds 177347952 of an input).
func (c *Checker) RawNumber(v string, line int) {
	c.rawNum = true
	c.Raw(v, line)
	c.rawNum = false
}

// numberMatch reports whether the match [a, b) of a raw value of n bytes
// in indexed string str counts: always, unless a raw number matched a
// number-shaped output string; then only when the one is the other, whole.
// A number-shaped piece of a longer raw number ("2345678901234567890" of
// 123456789012345678901234567890) is another number, as the raw epoch
// seconds are not the trace's nanoseconds.
func (c *Checker) numberMatch(str, a, b int32, n int) bool {
	return !c.rawNum || !c.numeric[str] || a == c.starts[str] && b == c.end(str) && int(b-a) == n
}

func allIn(flagged []bool, ws []window) bool {
	for _, w := range ws {
		if !flagged[w.str] {
			return false
		}
	}
	return true
}

func (c *Checker) candidate(a, b int32, line int) {
	if b-a >= 16 {
		_, _, idx := c.bounds(a)
		c.flagged[idx] = true
	}
	key := [2]int32{a, b}
	if _, ok := c.cands[key]; !ok {
		c.cands[key] = line
	}
}

// Findings returns every leak, secrets and numbers first, then raw runs in
// output order, at most one per output string.
func (c *Checker) Findings() []Finding {
	c.build()
	out := append([]Finding(nil), c.found...)
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
		_, _, idx := c.bounds(k[0])
		if reported[idx] {
			continue
		}
		reported[idx] = true
		out = append(out, Finding{Where: c.labels[idx], Line: c.cands[k], What: "raw input run of " + strconv.Itoa(int(k[1]-k[0])) + " bytes"})
	}
	return out
}

// fold lower-cases one ASCII letter: a case-changed copy is still a copy.
func fold(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b | 0x20
	}
	return b
}

func appendFolded(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		dst = append(dst, fold(s[i]))
	}
	return dst
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// fold64 lower-cases the ASCII letters of 8 bytes at once.
func fold64(k uint64) uint64 {
	low7 := k &^ highs
	geA := low7 + (0x80-'A')*ones   // high bit set where byte >= 'A'
	gtZ := low7 + (0x80-'Z'-1)*ones // high bit set where byte > 'Z'
	upper := geA &^ gtZ &^ k & highs
	return k | upper>>2
}

func load64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

func loadStr64(s string, off int) uint64 {
	_ = s[off+7]
	return uint64(s[off]) | uint64(s[off+1])<<8 | uint64(s[off+2])<<16 | uint64(s[off+3])<<24 |
		uint64(s[off+4])<<32 | uint64(s[off+5])<<40 | uint64(s[off+6])<<48 | uint64(s[off+7])<<56
}

// Untyped returns the output strings that have no provenance, in output
// order: the strings the check probes whole. Our own outputs should have
// none (the fuzz targets assert it); a file from elsewhere may have many.
func (c *Checker) Untyped() []string {
	c.build()
	out := make([]string, len(c.starts))
	for i := range c.starts {
		out[i] = string(c.buf[c.starts[i]:c.end(int32(i))])
	}
	return out
}
