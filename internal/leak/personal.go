package leak

import (
	"net/netip"
	"regexp"
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
//	4111-1111-1111-1111, 4111111111111111   card_number (13-19 digits, Luhn-valid)
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

// hasCard reports 13 to 19 digits, alone or in groups joined by one space
// or dash, that pass the Luhn check.
func hasCard(v string) bool {
	for i := 0; i < len(v); {
		if v[i] < '0' || v[i] > '9' {
			i++
			continue
		}
		var ds []byte
		j := i
		for j < len(v) {
			c := v[j]
			if '0' <= c && c <= '9' {
				ds = append(ds, c)
				j++
				continue
			}
			if (c == ' ' || c == '-') && j+1 < len(v) && '0' <= v[j+1] && v[j+1] <= '9' {
				j++
				continue
			}
			break
		}
		if len(ds) >= 13 && len(ds) <= 19 && luhn(ds) {
			return true
		}
		i = j
	}
	return false
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
