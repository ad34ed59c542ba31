package schema

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
)

// matcher is a compiled "pattern": hand-written for the patterns every
// receipt line checks many times (digests, labels, ids, hex ids, event
// names), regexp for the rest. TestMatchers and FuzzMatchers hold each
// hand-written one to its regexp on every string they try.
type matcher func(string) bool

var handMatchers = map[string]matcher{
	`^(sha256|hmac-sha256):[0-9a-f]{64}$`:  digest,
	`^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,127}$`: label,
	`^[0-9a-f]{32}$`:                       func(s string) bool { return len(s) == 32 && allHex(s) },
	`^[0-9a-f]{16}$`:                       func(s string) bool { return len(s) == 16 && allHex(s) },
	`^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$`:     dotted,
	`^[a-z][a-z0-9_]{0,62}$`:               converterName,
	`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?Z$`: timestamp,
	// The patterns of convert.summary, on every run's last line.
	`^sha256:[0-9a-f]{64}$`: func(s string) bool { return len(s) == 7+64 && s[:7] == "sha256:" && allHex(s[7:]) },
	`^[^/]+$`:               func(s string) bool { return s != "" && !strings.Contains(s, "/") },
	`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`:  semver,
	`^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,127}=[0-9]+$`: labelCount,
}

func compilePattern(p string) (matcher, error) {
	if m, ok := handMatchers[p]; ok {
		return m, nil
	}
	// The syntax is checked now (a pattern Go cannot parse keeps the
	// schema from the fast validator); the regexp is compiled when a value
	// is first matched against it, never when its schema loads: most runs
	// validate a few events and match few of the patterns they load.
	if _, err := syntax.Parse(p, syntax.Perl); err != nil {
		return nil, err
	}
	re := sync.OnceValues(func() (*regexp.Regexp, error) { return regexp.Compile(p) })
	return func(s string) bool {
		r, err := re()
		return err == nil && r.MatchString(s) // an error rejects: jsonschema then words it
	}, nil
}

func isLowerHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' }
func isDigit(c byte) bool    { return '0' <= c && c <= '9' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// semver is ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$: three dot-separated
// runs of digits, then optionally "-" and at least one of [0-9A-Za-z.-].
func semver(s string) bool {
	for part := 0; part < 3; part++ {
		i := 0
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == 0 {
			return false
		}
		s = s[i:]
		if part < 2 {
			if s == "" || s[0] != '.' {
				return false
			}
			s = s[1:]
		}
	}
	if s == "" {
		return true
	}
	if s[0] != '-' || len(s) == 1 {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// labelCount is a label, "=" and a run of digits (a label has no "=").
func labelCount(s string) bool {
	i := strings.IndexByte(s, '=')
	return i > 0 && label(s[:i]) && i+1 < len(s) && allDigits(s[i+1:])
}
func isLowerAlnum_(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_'
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLowerHex(s[i]) {
			return false
		}
	}
	return true
}

func digest(s string) bool {
	switch {
	case len(s) == 7+64 && s[:7] == "sha256:":
		return allHex(s[7:])
	case len(s) == 12+64 && s[:12] == "hmac-sha256:":
		return allHex(s[12:])
	}
	return false
}

func label(s string) bool {
	if len(s) < 1 || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
		if i > 0 {
			ok = ok || c == '_' || c == '.' || c == ':' || c == '+' || c == '-'
		}
		if !ok {
			return false
		}
	}
	return true
}

// dotted is ^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$: dot-separated non-empty
// parts of [a-z0-9_], the first starting with a letter.
func dotted(s string) bool {
	if len(s) == 0 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] == '.' {
			if i+1 == len(s) || s[i+1] == '.' {
				return false
			}
		} else if !isLowerAlnum_(s[i]) {
			return false
		}
	}
	return true
}

func converterName(s string) bool {
	if len(s) < 1 || len(s) > 63 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isLowerAlnum_(s[i]) {
			return false
		}
	}
	return true
}

// timestamp is YYYY-MM-DDTHH:MM:SS, an optional fraction of 1-9 digits, Z.
func timestamp(s string) bool {
	const form = "dddd-dd-ddTdd:dd:dd"
	if len(s) < len(form)+1 || s[len(s)-1] != 'Z' {
		return false
	}
	for i := 0; i < len(form); i++ {
		if form[i] == 'd' && !isDigit(s[i]) || form[i] != 'd' && s[i] != form[i] {
			return false
		}
	}
	frac := s[len(form) : len(s)-1]
	if frac == "" {
		return true
	}
	if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
		return false
	}
	for i := 1; i < len(frac); i++ {
		if !isDigit(frac[i]) {
			return false
		}
	}
	return true
}
