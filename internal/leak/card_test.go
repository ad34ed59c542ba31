package leak

import (
	"fmt"
	"strings"
	"testing"
)

// TestCardNumbers: a payment card number is refused, alone or in a value,
// grouped or not, when its prefix and length are a network's (cardIINs)
// and it passes the Luhn check; a digit run of no network's prefix and
// length is not a card, Luhn-valid or not. The values with old set were
// taken for cards by the screen that checked only 13 to 19 digits and
// Luhn (they are not: Gemini CLI's call ids, an epoch-millisecond time
// with a suffix), or missed by it (a 12-digit Maestro number).
func TestCardNumbers(t *testing.T) {
	for _, tc := range []struct {
		v    string
		card bool
		old  bool // what the 13-19-digit Luhn screen said, where it differs
	}{
		// The networks' published test numbers (and Luhn-valid numbers of
		// the prefixes and lengths of those that publish none).
		{"4111111111111111", true, true},    // Visa 16
		{"4222222222222", true, true},       // Visa 13
		{"4111111111111111110", true, true}, // Visa 19
		{"5555555555554444", true, true},    // Mastercard 51-55
		{"2223003122003222", true, true},    // Mastercard 2221-2720
		{"378282246310005", true, true},     // American Express
		{"6011111111111117", true, true},    // Discover 6011
		{"6011000990139424", true, true},    // Discover
		{"3530111333300000", true, true},    // JCB
		{"30569309025904", true, true},      // Diners Club 300-305, 14 digits
		{"36227206271667", true, true},      // Diners Club 36
		{"38520000023237", true, true},      // Diners Club 38
		{"6200000000000005", true, true},    // UnionPay
		{"6759649826438453", true, true},    // Maestro
		{"135410014004955", true, true},     // UATP
		{"2201382000000013", true, true},    // Mir
		{"6082000000000008", true, true},    // RuPay 60
		{"9792000000000003", true, true},    // Troy
		{"501800000009", true, false},       // Maestro, 12 digits
		// In a value, grouped as printed or written.
		{"ref-4111-1111-1111-1111", true, true},
		{"card 4111 1111 1111 1111 exp", true, true},
		{"amex:3782-822463-10005", true, true},
		{"pan=5555555555554444;", true, true},
		// A group joined on before or after the card: the whole run is no
		// card (17 or 20 digits), its groups before the last or after the
		// first are (the screen that judged only the whole run missed it).
		{"4111111111111111-2", true, false},
		{"7-4111111111111111", true, false},
		{"card 4111 1111 1111 1111 2031", true, false},
		{"order 12-5555555555554444-7", true, false},
		// Not cards: Luhn-valid digit runs of no network's prefix and
		// length. Gemini CLI's call ids: the time in milliseconds (13
		// digits from 17) alone or with its counted or hex suffix.
		{"read_file-1756822000100-9", false, true},
		{"glob-1774000032000-4", false, true},
		{"run_shell_command-1755788415000-4", false, true},
		{"replace-1795255200000-5a3f9c2e1b4d", false, true},
		{"web_fetch-1756822000101", false, true},
		{"1756822000101", false, true},
		{"41111111111114", false, true},   // 4 but 14 digits: no Visa length
		{"7000000000000005", false, true}, // 7 (petroleum): no network's here
		// Not Luhn-valid, or too short: never a card.
		{"4111111111111112", false, false},
		{"read_file-1756822000100-1", false, false},
		{"411111111116", false, false}, // 12 digits of Visa
	} {
		if !luhnRuns(tc.v) && tc.card {
			t.Fatalf("%q: the example is not Luhn-valid", tc.v)
		}
		if got := hasCard(tc.v); got != tc.card {
			t.Errorf("hasCard(%q) = %v, want %v", tc.v, got, tc.card)
		}
		if got := oldCard(tc.v); got != tc.old {
			t.Errorf("%q: the 13-19-digit screen says %v, the table %v", tc.v, got, tc.old)
		}
		if tc.card && !allDigits(tc.v) {
			for _, sh := range []Shape{ID, Version, Model, Label, Name} {
				if sh.Admit(tc.v) {
					t.Errorf("%s admits the card in %q", sh, tc.v)
				}
			}
		}
	}
}

// luhnRuns reports a run of whole digit groups of v (groups joined by one
// space or dash, as hasCard reads them) that passes the Luhn check.
func luhnRuns(v string) bool {
	sep := func(i int) bool {
		return (v[i] == ' ' || v[i] == '-') && i > 0 && i+1 < len(v) && isDigit(v[i-1]) && isDigit(v[i+1])
	}
	var runs [][]string
	for i := 0; i < len(v); i++ {
		switch {
		case isDigit(v[i]) && (i == 0 || !isDigit(v[i-1]) && !sep(i-1)):
			runs = append(runs, []string{v[i : i+1]})
		case isDigit(v[i]) && sep(i-1):
			runs[len(runs)-1] = append(runs[len(runs)-1], v[i:i+1])
		case isDigit(v[i]):
			g := runs[len(runs)-1]
			g[len(g)-1] += v[i : i+1]
		}
	}
	for _, groups := range runs {
		for a := range groups {
			for b := a + 1; b <= len(groups); b++ {
				if luhn([]byte(strings.Join(groups[a:b], ""))) {
					return true
				}
			}
		}
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// oldCard is the screen cardIINs replaced: 13 to 19 digits and Luhn.
func oldCard(v string) bool {
	found := false
	digitRuns(v, func(ds []byte) { found = found || len(ds) >= 13 && len(ds) <= 19 && luhn(ds) })
	return found
}

// digitRuns calls f with each run of digits of v, groups joined by one
// space or dash, as hasCard reads them.
func digitRuns(v string, f func([]byte)) {
	var ds []byte
	for i := 0; i <= len(v); i++ {
		if i < len(v) && '0' <= v[i] && v[i] <= '9' {
			ds = append(ds, v[i])
			continue
		}
		if i < len(v) && (v[i] == ' ' || v[i] == '-') && len(ds) > 0 && i+1 < len(v) && '0' <= v[i+1] && v[i+1] <= '9' {
			continue
		}
		if len(ds) > 0 {
			f(ds)
		}
		ds = nil
	}
}

// FuzzCards: a Luhn-valid number of any network's prefix and length
// (cardIINs) is a card, alone, grouped by fours with a dash or a space
// inside a value, and no shape of a free syntax admits it grouped; an
// epoch-millisecond time before 2033 (13 digits from 1) with no suffix or
// a one-digit one, as Gemini CLI's call ids end, is never one.
func FuzzCards(f *testing.F) {
	f.Add(uint8(12), uint64(111111111111111), uint8(1), true)
	f.Add(uint8(0), uint64(35410014004955), uint8(0), false)
	f.Fuzz(func(t *testing.T, rule uint8, body uint64, length uint8, space bool) {
		r := cardIINs[int(rule)%len(cardIINs)]
		n := r.lengths[int(length)%len(r.lengths)]
		ds := []byte(r.lo)
		for x := body; len(ds) < n-1; x /= 10 {
			ds = append(ds, byte('0'+x%10))
		}
		for c := byte('0'); c <= '9'; c++ {
			if luhn(append(ds[:n-1:n-1], c)) {
				ds = append(ds[:n-1:n-1], c)
				break
			}
		}
		if !hasCard(string(ds)) {
			t.Fatalf("%s (%s..%s, %d digits): not a card", ds, r.lo, r.hi, n)
		}
		sep := "-"
		if space {
			sep = " "
		}
		var g strings.Builder
		g.WriteString("ref-")
		for i := 0; i < len(ds); i += 4 {
			if i > 0 {
				g.WriteString(sep)
			}
			g.Write(ds[i:min(i+4, len(ds))])
		}
		if v := g.String(); personal(v) != "card_number" {
			t.Fatalf("%q: %q, not a card", v, personal(v))
		} else if Label.Admit(v) || ID.Admit(v) || Name.Admit(v) || Version.Admit(v) {
			t.Fatalf("%q admitted", v)
		}
		ms := 1_000_000_000_000 + body%1_000_000_000_000
		for _, v := range []string{fmt.Sprintf("read_file-%d", ms), fmt.Sprintf("glob-%d-%d", ms, length%10)} {
			if hasCard(v) {
				t.Fatalf("%q: a call id taken for a card", v)
			}
		}
	})
}
