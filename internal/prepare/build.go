package prepare

import (
	"fmt"
	"strings"

	"github.com/contextreceipts/convert/internal/receipt"
)

// Section is one participating family and its item limit.
type Section struct {
	Family string // receipt family name
	Limit  int
}

// maxSectionLimit is the explicit assembly maximum per family.
var maxSectionLimit = map[string]int{
	FamilyMemory: MemoryEntryLimit, FamilyTopic: TopicEntryLimit, FamilyExperience: ExperienceEntryLimit,
	FamilyProfile: ProfileLimit, FamilyCode: CodeLimit,
}

// defaultSections is the family selection when the request names none: all
// five, the historical ones sharing DefaultEntryLimit.
func defaultSections() []Section {
	return []Section{{FamilyMemory, MemoryEntryLimit}, {FamilyTopic, TopicEntryLimit},
		{FamilyExperience, ExperienceEntryLimit}, {FamilyProfile, ProfileLimit}, {FamilyCode, CodeLimit}}
}

// item is one selected, rendered item.
type item struct {
	cand      Candidate
	fragment  string
	truncated bool
}

// build is the Builder's result: the rendered items and, kept separately as
// the Builder's own record, their origins.
type build struct {
	items       []item
	origins     []selectedKey // historical, injection order
	codeOrigins []CodeRef
	content     string
	truncated   int
	belowMin    int
	noFit       int
	capTrunc    int            // truncated to MaxEntryContentBytes and not cut again by the budget
	capDrop     int            // dropped at the per-entry cap (a code body with no whole line under it)
	budgetTrunc int            // cut to the bytes left
	budgetDrop  int            // no room left
	dropBelow   map[string]int // belowMin by family
	dropNoFit   map[string]int // noFit by family
	entryLimit  map[string]int
	maxBytes    int
}

type selectedKey struct {
	Addr           Address
	EntryID        string
	EntryVersionID string
}

func (b build) unused() int { return b.maxBytes - len(b.content) }

// header is an item's citation line.
func header(c Candidate) string {
	if c.Code != nil {
		return fmt.Sprintf("[code %s %s %s:%d-%d]\n", c.Code.ScopeID, c.Code.Fingerprint, c.Code.Path, c.Code.StartLine, c.Code.EndLine)
	}
	h := fmt.Sprintf("[%s %s/%s@%d", c.Addr.Family, c.Addr.ScopeID, c.Addr.ArtifactID, c.Addr.Revision)
	if c.Addr.Family == FamilyMemory {
		h += "#" + c.EntryID
	}
	return h + "]\n"
}

const sep = "\n\n"

// cut shortens a candidate's body to at most n bytes: at a rune boundary,
// or for code at a line boundary with the final range and snippet hash (made
// by h). A code body whose first line alone is longer than n cannot be cut
// honestly: ok is false.
func cut(c Candidate, n int, h receipt.Hasher) (_ Candidate, ok bool) {
	if len(c.Body) <= n {
		return c, true
	}
	if c.Code == nil {
		c.Body = truncateUTF8(c.Body, n)
		return c, true
	}
	var b strings.Builder
	kept := 0
	for _, l := range strings.SplitAfter(c.Body, "\n") {
		if b.Len()+len(l) > n {
			break
		}
		b.WriteString(l)
		kept++
	}
	if kept == 0 {
		return c, false
	}
	ref := *c.Code
	c.Body = b.String()
	ref.EndLine = ref.StartLine + kept - 1
	ref.SnippetSHA256 = h.Text(c.Body)
	c.Code = &ref
	return c, true
}

// fit selects, truncates and renders candidates under maxBytes. Each
// historical section's candidates are interleaved round-robin, then code
// follows. combined > 0 caps the historical items together (the default
// builder). Candidates are fitted round by round: every round-0 candidate,
// historical and code, is offered (in today's order, so a run that did not
// expand is unchanged) before any candidate a later round added, which can
// therefore only use the slots and bytes round 0 left: expansion only adds,
// it never displaces a round-0 item. The content is rendered in injection
// order whatever the fitting order: historical items, then code.
func fit(sections []Section, cands map[string][]Candidate, maxBytes, combined int, h receipt.Hasher) build {
	f := &fitter{b: build{maxBytes: maxBytes, entryLimit: map[string]int{}, dropBelow: map[string]int{}, dropNoFit: map[string]int{}}, h: h}
	var hist []Section
	var code *Section
	last := 0
	for i := range sections {
		if sections[i].Family == FamilyCode {
			code = &sections[i]
		} else {
			hist = append(hist, sections[i])
		}
		for _, c := range cands[sections[i].Family] {
			last = max(last, c.round)
		}
	}
	taken := make([]int, len(hist))
	total, codeTaken := 0, 0
	for round := 0; round <= last; round++ {
		f.historical(hist, cands, round, taken, &total, combined)
		if code != nil {
			f.code(*code, cands[FamilyCode], round, &codeTaken)
		}
	}
	var frags []string
	for _, it := range f.hist {
		frags = append(frags, it.fragment)
	}
	for _, it := range f.codeItems {
		frags = append(frags, it.fragment)
	}
	f.b.items = append(f.hist, f.codeItems...)
	f.b.content = strings.Join(frags, sep)
	return f.b
}

// fitter is fit's state: the build so far and its selected items, kept
// apart by kind (the injection order) while they are fitted by round.
type fitter struct {
	b         build
	h         receipt.Hasher
	hist      []item
	codeItems []item
	used      int
}

// historical offers the historical sections' candidates of one round,
// round-robin across the sections, within each section's limit and the
// combined cap (taken and total carry across rounds).
func (f *fitter) historical(hist []Section, cands map[string][]Candidate, round int, taken []int, total *int, combined int) {
	lists := make([][]Candidate, len(hist))
	for i, s := range hist {
		for _, c := range cands[s.Family] {
			if c.round == round {
				lists[i] = append(lists[i], c)
			}
		}
	}
	next := make([]int, len(hist))
	for progress := true; progress; {
		progress = false
		for i, s := range hist {
			list := lists[i]
			for next[i] < len(list) && taken[i] < s.Limit && (combined == 0 || *total < combined) {
				c := list[next[i]]
				next[i]++
				progress = true
				if f.take(c) {
					taken[i]++
					*total++
					break
				}
			}
		}
	}
	for i, s := range hist {
		f.b.entryLimit[s.Family] += len(lists[i]) - next[i]
	}
}

// code offers one round's code candidates, after that round's historical
// ones, up to the section's limit (n carries across rounds).
func (f *fitter) code(sec Section, cands []Candidate, round int, n *int) {
	for _, c := range cands {
		if c.round != round {
			continue
		}
		if *n == sec.Limit {
			f.b.entryLimit[FamilyCode]++
			continue
		}
		if f.take(c) {
			*n++
		}
	}
}

// take fits one candidate: cut to the per-entry cap, then to the bytes left
// (never under MinTruncatedBytes), or dropped and counted.
func (f *fitter) take(c Candidate) bool {
	b := &f.b
	s := 0
	if len(f.hist)+len(f.codeItems) > 0 {
		s = len(sep)
	}
	truncated := false
	capped := false
	if len(c.Body) > MaxEntryContentBytes {
		c2, ok := cut(c, MaxEntryContentBytes, f.h)
		if !ok || len(c2.Body) < MinTruncatedBytes {
			b.noFit++
			b.capDrop++
			b.dropNoFit[c.family()]++
			return false
		}
		c, truncated, capped = c2, true, true
	}
	frag := header(c) + c.Body
	if f.used+s+len(frag) > b.maxBytes {
		if len(c.Body) < MinTruncatedBytes {
			b.belowMin++
			b.budgetDrop++
			b.dropBelow[c.family()]++
			return false
		}
		avail := b.maxBytes - f.used - s - len(header(c))
		c2, ok := c, false
		if avail >= MinTruncatedBytes {
			c2, ok = cut(c, avail, f.h)
		}
		if !ok || len(c2.Body) < MinTruncatedBytes {
			b.noFit++
			b.budgetDrop++
			b.dropNoFit[c.family()]++
			return false
		}
		c, truncated, capped, frag = c2, true, false, header(c2)+c2.Body
		b.budgetTrunc++
	}
	if capped {
		b.capTrunc++
	}
	f.used += s + len(frag)
	it := item{cand: c, fragment: frag, truncated: truncated}
	if truncated {
		b.truncated++
	}
	if c.Code != nil {
		f.codeItems = append(f.codeItems, it)
		b.codeOrigins = append(b.codeOrigins, *c.Code)
	} else {
		f.hist = append(f.hist, it)
		b.origins = append(b.origins, selectedKey{c.Addr, c.EntryID, c.EntryVersionID})
	}
	return true
}
