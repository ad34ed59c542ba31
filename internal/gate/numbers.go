package gate

import (
	"strconv"
	"strings"

	"github.com/contextreceipts/convert/internal/receipt"
)

// Numbers is the provenance of one input's output numbers, by value: each
// whole number a writer built says whether the program computed it
// (receipt.Computed: a count, a sum, a delta, a rank, a depth, a bucket's
// bound) or copied it from the input (receipt.Copied). The pipeline notes
// every attribute of the outputs here before it writes them (events,
// spans, links, the summary), and the check, reading the output bytes,
// skips a number at key K with digits D only when some value noted at K
// with digits D was computed and none was copied:
//
//	"gen_ai.usage.responses": 123456   computed: not probed
//	"code_search.result.rank": 123456  copied: probed, a leak when a raw 123456 is not a declared count
//
// The mark cannot be lost on the way without being seen: a number the
// notes do not hold (a value noted nowhere, an output the pipeline did not
// note) is probed as a copy, so a lost mark refuses an honest session (a
// test fails), never admits a copy; and a copy shares a computed number's
// place only if both are noted, which makes the place probed. Numbers of
// fewer than 6 digits are not noted: the check keeps none (leak.AddNumber).
type Numbers struct {
	computed, copied map[numberAt]bool
}

type numberAt struct{ key, digits string }

// Note notes every whole number of a.
func (n *Numbers) Note(a receipt.Attrs) {
	for _, x := range a {
		if x.Value.Kind != receipt.Int || x.Value.Int > -100000 && x.Value.Int < 100000 {
			continue
		}
		at := numberAt{x.Key, strings.TrimPrefix(strconv.FormatInt(x.Value.Int, 10), "-")}
		m := &n.copied
		if x.Value.IsComputed() {
			m = &n.computed
		}
		if *m == nil {
			*m = map[numberAt]bool{}
		}
		(*m)[at] = true
	}
}

// Join adds o's notes to n's: a number is computed at a key only when no
// conversion noted a copy of it there.
func (n *Numbers) Join(o *Numbers) {
	for _, m := range []struct{ to, from *map[numberAt]bool }{{&n.computed, &o.computed}, {&n.copied, &o.copied}} {
		for at := range *m.from {
			if *m.to == nil {
				*m.to = map[numberAt]bool{}
			}
			(*m.to)[at] = true
		}
	}
}

// computedAt reports a number at key, of literal lit (as written: "-" and
// all), that only computed values hold.
func (n *Numbers) computedAt(key, lit string) bool {
	if n == nil || n.computed == nil {
		return false
	}
	at := numberAt{key, strings.TrimPrefix(lit, "-")}
	return n.computed[at] && !n.copied[at]
}
