package leak

import (
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Personal data and key shapes a pass-through value may fit by syntax but
// must never carry, whatever its field: a card number fits a version's
// dashes, an IP address a version's dots, a phone number a label's, an
// e-mail address a name's. Admit refuses a value holding one (it is then
// written as its digest), in every shape but those whose whole syntax rules
// them out (UUID, Time, EpochMs, Count: see Shape.Admit).
//
//	4111-1111-1111-1111, 4111111111111111   card_number (a network's prefix and length, Luhn-valid)
//	078-05-1120                             ssn
//	192.168.1.20, fe80::1, 2001:db8::8a2e   ip_address
//	alice@example.com                       email
//	+15551234567, 555-123-4567, (555) 123-4567, +44 20 7946 0958   phone
//	5551234567                              digits (9 or more digits alone: a phone, account or SSN number)
//	key-<32 hex>, <32 hex>                  hex_key (Mailgun; Datadog-style API keys)
//	<8-4-4-4-12 hex>                        uuid_key (a UUID where the field's form is not a UUID: Heroku keys)
func personal(v string) string {
	var nDigits, nDots, nColons int
	at := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case '0' <= c && c <= '9':
			nDigits++
		case c == '.':
			nDots++
		case c == ':':
			nColons++
		case c == '@':
			at = true
		}
	}
	if at && personalRE().email.MatchString(v) {
		return "email"
	}
	if nDigits >= 4 && nDots >= 3 && hasIPv4(v) {
		return "ip_address"
	}
	if nColons >= 2 && hasIPv6(v) {
		return "ip_address"
	}
	if len(v) >= 32 {
		if k := hexOrUUIDRun(v); k != "" {
			return k
		}
	}
	if nDigits >= 9 {
		if allDigits(strings.TrimPrefix(v, "+")) {
			return "digits"
		}
		// An SSN and a phone number hold a group of 2+ digits and a
		// separator before more digits, or a "+": most ids and model
		// names hold neither, and skip the expressions.
		grouped := groupedDigits(v)
		if grouped && personalRE().ssn.MatchString(v) {
			return "ssn"
		}
		if hasCard(v) {
			return "card_number"
		}
		if (grouped || strings.IndexByte(v, '+') >= 0) && personalRE().phone.MatchString(v) {
			return "phone"
		}
	}
	return ""
}

// Personal reports what personal datum or key shape v holds ("" for none):
// the screen Admit applies to every pass-through value of a free syntax.
func Personal(v string) string { return personal(v) }

var personalRE = sync.OnceValue(func() struct{ email, ssn, phone *regexp.Regexp } {
	return struct{ email, ssn, phone *regexp.Regexp }{
		email: regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`),
		ssn:   regexp.MustCompile(`(?:^|[^0-9-])[0-9]{3}-[0-9]{2}-[0-9]{4}(?:$|[^0-9-])`),
		phone: regexp.MustCompile(`(?:^|[^0-9A-Za-z])\+[1-9][0-9]{7,14}(?:$|[^0-9])|` +
			`(?:^|[^0-9])(?:\+?[0-9]{1,3}[ .-])?\(?[0-9]{3}\)?[ .-][0-9]{3}[ .-][0-9]{4}(?:$|[^0-9])|` +
			`(?:^|[^0-9A-Za-z])\+[1-9][0-9]{0,2}(?:[ .-][0-9]{2,5}){2,5}(?:$|[^0-9])`),
	}
})

func allDigits(v string) bool { return digits(v) }

// groupedDigits reports a run of 2 or more digits followed by one of
// " .-)" and, within two bytes, another digit: "555-123", "(555) 123".
func groupedDigits(v string) bool {
	run := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		if '0' <= c && c <= '9' {
			run++
			continue
		}
		if run >= 2 && (c == ' ' || c == '.' || c == '-' || c == ')') {
			for j := i + 1; j < len(v) && j <= i+2; j++ {
				if '0' <= v[j] && v[j] <= '9' {
					return true
				}
			}
		}
		run = 0
	}
	return false
}

// hasIPv4 reports four dot-separated numbers of 0 to 255 standing alone
// (not inside a longer dotted number).
func hasIPv4(v string) bool {
	for i := 0; i < len(v); {
		if !isDigitOrDot(v[i]) {
			i++
			continue
		}
		j := i
		for j < len(v) && isDigitOrDot(v[j]) {
			j++
		}
		if a, err := netip.ParseAddr(strings.Trim(v[i:j], ".")); err == nil && a.Is4() {
			return true
		}
		i = j
	}
	return false
}

func isDigitOrDot(c byte) bool { return '0' <= c && c <= '9' || c == '.' }

// hasIPv6 reports a run of hex digits and colons (and dots, for the IPv4
// tail of a mapped address) standing alone that parses as an IPv6 address:
// "line:0:2:1" and "SessionStart:startup" do not.
func hasIPv6(v string) bool {
	for i := 0; i < len(v); {
		if !isHexColon(v[i]) || i > 0 && isAlnum(v[i-1]) {
			i++
			continue
		}
		j := i
		for j < len(v) && isHexColon(v[j]) {
			j++
		}
		if j == len(v) || !isAlnum(v[j]) {
			if strings.Count(v[i:j], ":") >= 2 {
				if a, err := netip.ParseAddr(strings.TrimRight(v[i:j], ".")); err == nil && a.Is6() {
					return true
				}
			}
		}
		i = j
	}
	return false
}

func isHexColon(c byte) bool { return isHex(c) || c == ':' || c == '.' }

// hasCard reports a payment card number: a run of digits, alone or in
// groups joined by one space or dash, that is a card by its issuer's
// prefix and length (isCard) and passes the Luhn check; or such a run of
// whole groups inside a longer one, so that a group joined on does not
// hide the card before it. A card has at most 19 digits, so from each
// group's start only the groups within 19 digits are tried, in a buffer
// of that size: the screen allocates nothing.
//
//	4111-1111-1111-1111, 4111111111111111   card (the run)
//	4111111111111111-2, 7-4111111111111111  card (its first, its last group)
//	read_file-1756822000100-9               no card (no run of groups is one)
func hasCard(v string) bool {
	var buf [19]byte
	for i := 0; i < len(v); i++ {
		if !isDigitByte(v[i]) || i > 0 && isDigitByte(v[i-1]) {
			continue // not the start of a group
		}
		n := 0
		for j := i; ; j++ {
			if j < len(v) && isDigitByte(v[j]) {
				if n == len(buf) {
					break // more than 19 digits from i
				}
				buf[n] = v[j]
				n++
				continue
			}
			if isCard(buf[:n]) && luhn(buf[:n]) {
				return true // the groups from i to j
			}
			if j+1 >= len(v) || v[j] != ' ' && v[j] != '-' || !isDigitByte(v[j+1]) {
				break // the run ends at j
			}
		}
	}
	return false
}

func isDigitByte(c byte) bool { return '0' <= c && c <= '9' }

// isCard reports digits whose prefix and length are those of the cards a
// network issues (cardIINs): a digit run of no network's prefix and
// length is not a card, Luhn-valid or not (1 in 10 of any digits are).
func isCard(ds []byte) bool {
	for _, r := range cardIINs {
		if n := len(r.lo); len(ds) >= n && string(ds[:n]) >= r.lo && string(ds[:n]) <= r.hi && slices.Contains(r.lengths, len(ds)) {
			return true
		}
	}
	return false
}

// cardIINs are the issuer identification number (IIN) ranges allocated to
// card networks under ISO/IEC 7812, with the lengths of the numbers each
// issues: a prefix from lo to hi (of one length), and the lengths.
// Source: the table "IIN ranges allocated to issuing networks" of
// Wikipedia's Payment card number (en.wikipedia.org/wiki/Payment_card_number,
// read 2026-12; iinbase.com's table agrees), cross-checked against
// braintree/credit-card-type (src/lib/card-types.ts). Networks whose
// ranges lie inside another's here (Visa Electron in Visa; Dankort, Verve,
// Elo, InstaPayment, InterPayment, Hipercard and Troy's 65 in Maestro's
// 50 and 56-69; LankaPay in JCB) need no rule of their own. Examples
// (test numbers the networks publish): Visa 4111111111111111,
// 4222222222222; Mastercard 5555555555554444, 2223003122003222; Amex
// 378282246310005; Discover 6011111111111117; Diners 30569309025904,
// 36227206271667, 38520000023237; JCB 3530111333300000; UnionPay 6200000000000005;
// Maestro 6759649826438453. An epoch-millisecond time alone or with a
// digit joined to it (Gemini CLI's call ids, read_file-1756822000100-9:
// 14 digits from 1, Luhn-valid) fits no range.
var cardIINs = []struct {
	lo, hi  string
	lengths []int
}{
	{"1", "1", []int{15}},               // UATP
	{"1946", "1946", []int{16, 18, 19}}, // GPN (Indonesia)
	{"2200", "2204", lengths(16, 19)},   // Mir
	{"2205", "2205", []int{16}},         // BORICA
	{"2221", "2720", []int{16}},         // Mastercard
	{"300", "305", lengths(14, 19)},     // Diners Club (Carte Blanche)
	{"3095", "3095", lengths(14, 19)},   // Diners Club International
	{"34", "34", []int{15}},             // American Express
	{"36", "36", lengths(14, 19)},       // Diners Club International
	{"37", "37", []int{15}},             // American Express
	{"38", "39", lengths(14, 19)},       // Diners Club International
	{"3528", "3589", lengths(16, 19)},   // JCB
	{"4", "4", []int{13, 16, 19}},       // Visa
	{"50", "50", lengths(12, 19)},       // Maestro (5018, 5020, 5038), Dankort 5019, Verve, RuPay 508
	{"51", "55", []int{16}},             // Mastercard
	{"56", "69", lengths(12, 19)},       // Maestro; Discover 6011, 644-649, 65; UnionPay 62; RuPay 60, 65
	{"81", "82", lengths(16, 19)},       // UnionPay 81, RuPay 81-82
	{"8600", "8600", []int{16}},         // UzCard
	{"9792", "9792", []int{16}},         // Troy
	{"9860", "9860", []int{16}},         // Humo
}

// lengths are the lengths from min to max.
func lengths(min, max int) []int {
	var out []int
	for n := min; n <= max; n++ {
		out = append(out, n)
	}
	return out
}

func luhn(ds []byte) bool {
	sum := 0
	for k := 0; k < len(ds); k++ {
		d := int(ds[len(ds)-1-k] - '0')
		if k%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// hexOrUUIDRun reports a run of letters and digits that is exactly 32 hex
// digits (a Datadog-style API key, a Mailgun key's body), or a UUID standing
// in a value (a Heroku API key has a UUID's form): "hex_key", "uuid_key".
func hexOrUUIDRun(v string) string {
	start := 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && isAlnum(v[i]) {
			continue
		}
		if i-start == 32 && allHex(v[start:i]) {
			return "hex_key"
		}
		if i-start == 8 && i+28 <= len(v) && isUUID(v[start:i+28]) && (i+28 == len(v) || !isAlnum(v[i+28])) {
			return "uuid_key"
		}
		start = i + 1
	}
	return ""
}
