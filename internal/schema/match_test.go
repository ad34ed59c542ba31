package schema

import (
	"regexp"
	"strings"
	"testing"
)

// alphabet holds a character from every class the patterns tell apart,
// and their edges.
var alphabet = []string{"a", "f", "g", "z", "A", "F", "Z", "T", "0", "9", "_", ".", ":", "+", "-", "=", "/", " ", "\n", "é", "\xff", "\x00"}

// examples are valid (and nearly valid) values of each hand-written pattern.
var examples = []string{
	"sha256:" + strings.Repeat("0a", 32), "hmac-sha256:" + strings.Repeat("f9", 32), "sha256:" + strings.Repeat("a", 63),
	"claude_code", "a", strings.Repeat("a", 128), strings.Repeat("b", 129), "x:y+z-1.2", "A0",
	strings.Repeat("0123456789abcdef", 2), strings.Repeat("0123456789abcdef", 1), "0123456789abcdeF",
	"context.input.loaded", "a.b_c.d9", "a..b", "a.", ".a", "_a", "a_" + strings.Repeat("z", 61), "a" + strings.Repeat("z", 62),
	"2026-05-01T10:00:00Z", "2026-05-01T10:00:00.1Z", "2026-05-01T10:00:00.123456789Z", "2026-05-01T10:00:00.1234567890Z",
	"2026-05-01T10:00:00.Z", "2026-05-01 10:00:00Z", "2026-05-01T10:00:00",
	"0.1.0", "10.200.3000", "1.2.3-rc.1", "1.2.3-a-b.C9", "1.2.3-", "1.2", "1..3", ".1.2.3", "1.2.3.4", "01.2.3-x",
	"x", "basic.jsonl", "a/b", "/", "a/", "convert.input.skipped.blank=12", "a=0", "a:b+c=10", "=1", "a=", "a=b", "a==1", "_a=1",
	strings.Repeat("k", 128) + "=7", strings.Repeat("k", 129) + "=7",
}

// variants derives strings around s: every position replaced by every
// alphabet string, deleted, or with one inserted, and every prefix.
func variants(s string) []string {
	out := []string{s}
	for i := 0; i <= len(s); i++ {
		out = append(out, s[:i])
		for _, a := range alphabet {
			out = append(out, s[:i]+a+s[i:])
			if i < len(s) {
				out = append(out, s[:i]+a+s[i+1:])
			}
		}
		if i < len(s) {
			out = append(out, s[:i]+s[i+1:])
		}
	}
	return out
}

// short is every string of up to three alphabet strings.
func short() []string {
	out := []string{""}
	prev := []string{""}
	for range 3 {
		var next []string
		for _, p := range prev {
			for _, a := range alphabet {
				next = append(next, p+a)
			}
		}
		out = append(out, next...)
		prev = next
	}
	return out
}

func TestMatchers(t *testing.T) {
	cands := short()
	for _, e := range examples {
		cands = append(cands, variants(e)...)
	}
	for p, m := range handMatchers {
		re := regexp.MustCompile(p)
		accepted := 0
		for _, s := range cands {
			if got, want := m(s), re.MatchString(s); got != want {
				t.Errorf("%s on %q: hand-written %v, regexp %v", p, s, got, want)
			} else if got {
				accepted++
			}
		}
		if accepted == 0 {
			t.Errorf("%s: no candidate accepted: the test proves nothing", p)
		}
	}
}

func FuzzMatchers(f *testing.F) {
	for _, e := range examples {
		f.Add(e)
	}
	res := map[string]*regexp.Regexp{}
	for p := range handMatchers {
		res[p] = regexp.MustCompile(p)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for p, m := range handMatchers {
			if got, want := m(s), res[p].MatchString(s); got != want {
				t.Fatalf("%s on %q: hand-written %v, regexp %v", p, s, got, want)
			}
		}
	})
}
