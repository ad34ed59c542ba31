package geminicli

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"testing"

	"github.com/contextreceipts/convert/internal/leak"
)

// TestCallIDsWrittenInClear: Gemini CLI's call ids, <tool>-<ms>[-<suffix>]
// (knows.go), drawn at random (a time from mid-2025 to early 2027; no
// suffix, a counted one, or a random hex one as Math.random().toString(16)
// writes it), are written in clear: the personal-data screen's card rule
// (a card number is a network's prefix and a length it issues, leak's
// cardIINs) takes no epoch-millisecond time with a digit joined to it for
// a card, where the 13-19-digit Luhn screen before it took 1 in 10. A run
// of exactly 15 digits is a UATP card's length (prefix 1), so a suffix
// that adds two digits still fails the screen when Luhn-valid: a hex one
// that opens with two decimal digits and a letter (about 1 in 7), 1 in 10
// of those; a counted suffix from 10 to 99 would be 9 in 100.
func TestCallIDsWrittenInClear(t *testing.T) {
	know := leak.Knowledge{IDs: geminiIDs}
	var tools []string
	for n := range geminiBuiltinTools {
		tools = append(tools, n)
	}
	sort.Strings(tools)
	rng := rand.New(rand.NewPCG(49, 2))
	const n = 20000
	for _, tc := range []struct {
		suffix string
		draw   func() string
		most   float64 // the largest fraction written as digests
	}{
		{"none", func() string { return "" }, 0},
		{"counted", func() string { return "-" + strconv.Itoa(rng.IntN(10)) }, 0},
		{"random hex", func() string {
			h := strconv.FormatUint(rng.Uint64()>>12, 16) // 13 hex digits, as Math.random().toString(16).slice(2) starts
			return "-" + h
		}, 0.02},
	} {
		digests := 0
		for range n {
			ms := 1750000000000 + rng.Int64N(60000000000) // 2025-06-15 .. 2027-04-07
			id := fmt.Sprintf("%s-%d%s", tools[rng.IntN(len(tools))], ms, tc.draw())
			if !geminiIDs.Match(id) {
				t.Fatalf("%q: not an id of the grammar", id)
			}
			if !leak.ID.ClearFor(id, false, know) {
				digests++
			}
		}
		f := float64(digests) / n
		t.Logf("suffix %s: %d of %d (%.2f%%) written as digests", tc.suffix, digests, n, 100*f)
		if f > tc.most {
			t.Errorf("suffix %s: %.2f%% of honest call ids written as digests, want at most %.2f%%", tc.suffix, 100*f, 100*tc.most)
		}
	}
}
