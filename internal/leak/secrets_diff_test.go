package leak

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// allPatternsKind is SecretKind without any prefilter: every pattern runs,
// in table order, and the first that matches names the shape. The
// prefilter may only save time: SecretKind must agree with it everywhere.
func allPatternsKind(res []*regexp.Regexp, s string) string {
	for i, re := range res {
		if re.MatchString(s) {
			return secretPatterns[i].name
		}
	}
	return ""
}

func compileAll(t testing.TB) []*regexp.Regexp {
	res := make([]*regexp.Regexp, len(secretPatterns))
	for i, p := range secretPatterns {
		res[i] = regexp.MustCompile(p.expr)
	}
	return res
}

// TestSecretKindDifferential: SecretKind names the same shape as running
// every pattern, on the examples in every place, on random matches of each
// pattern, on those mutated (case, the non-ASCII folds of k and s, edits,
// truncation, gluing, padding past the long-string threshold) and on
// random text.
func TestSecretKindDifferential(t *testing.T) {
	res := compileAll(t)
	rng := rand.New(rand.NewPCG(16, 1))
	var inputs []string
	places := []string{"%s", "x_%s", "9%s", `"%s"`, "?token=%s&x=1", "%s trailing words", "{\"v\":\"%s\"}"}
	for _, ex := range secretExamples {
		for _, pl := range places {
			inputs = append(inputs, strings.Replace(pl, "%s", ex, 1))
		}
	}
	for i := range secretPatterns {
		for range 40 {
			if g, ok := genMatch(t, rng, res[i]); ok {
				inputs = append(inputs, g)
			}
		}
	}
	seeds := append([]string(nil), inputs...)
	for range 6000 {
		inputs = append(inputs, mutate(rng, seeds[rng.IntN(len(seeds))], seeds))
	}
	for range 5000 {
		inputs = append(inputs, randomText(rng, 5+rng.IntN(60)))
	}
	matched := 0
	for _, s := range inputs {
		want := allPatternsKind(res, s)
		if want != "" {
			matched++
		}
		if got := SecretKind(s); got != want {
			t.Errorf("SecretKind(%q) = %q; every pattern run in order says %q", s, got, want)
		}
	}
	t.Logf("%d of %d inputs hold a secret", matched, len(inputs))
	// The inputs must exercise both sides, or the comparison proves little.
	if matched < len(inputs)/10 || matched > len(inputs)*9/10 {
		t.Errorf("%d of %d inputs hold a secret: the mutations are too mild or too harsh", matched, len(inputs))
	}
}

// TestSecretCandidatesAdmitEveryMatch: for each pattern, strings built at
// random from its own syntax tree (every alternative, repeat count and
// case variant (?i) allows) are matches, and the prefilter names the
// pattern a candidate for each.
func TestSecretCandidatesAdmitEveryMatch(t *testing.T) {
	res := compileAll(t)
	rng := rand.New(rand.NewPCG(17, 2))
	for i, p := range secretPatterns {
		made := 0
		for range 400 {
			g, ok := genMatch(t, rng, res[i])
			if !ok {
				continue
			}
			made++
			if secretCandidates(g)&(1<<i) == 0 {
				t.Errorf("%s matches %q, but the prefilter does not name it", p.name, g)
			}
			if !ownFilterAdmits(p, g) {
				t.Errorf("%s matches %q, which holds none of its trigrams %q", p.name, g, p.trigrams)
			}
		}
		if made < 300 {
			t.Errorf("%s: only %d of 400 generated strings match it: the generator misses its syntax", p.name, made)
		}
	}
}

// genMatch builds a random string from re's syntax tree and reports
// whether re matches it (a negated class may pick a rune the pattern
// cannot match once encoded, such as a surrogate).
func genMatch(t testing.TB, rng *rand.Rand, re *regexp.Regexp) (string, bool) {
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	gen(rng, tree, &b)
	s := b.String()
	return s, re.MatchString(s)
}

func gen(rng *rand.Rand, r *syntax.Regexp, b *strings.Builder) {
	rep := func(min, max int) {
		if max < 0 {
			max = min + 6
		}
		for range min + rng.IntN(max-min+1) {
			gen(rng, r.Sub[0], b)
		}
	}
	switch r.Op {
	case syntax.OpLiteral:
		for _, c := range r.Rune {
			if r.Flags&syntax.FoldCase != 0 {
				c = randomFold(rng, c)
			}
			b.WriteRune(c)
		}
	case syntax.OpCharClass:
		k := rng.IntN(len(r.Rune) / 2)
		lo, hi := r.Rune[2*k], r.Rune[2*k+1]
		if hi-lo > 200 {
			hi = lo + 200 // a negated class spans most of Unicode: stay near its start
		}
		b.WriteRune(lo + rune(rng.IntN(int(hi-lo+1))))
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		b.WriteByte(byte('!' + rng.IntN(90)))
	case syntax.OpCapture:
		gen(rng, r.Sub[0], b)
	case syntax.OpConcat:
		for _, s := range r.Sub {
			gen(rng, s, b)
		}
	case syntax.OpAlternate:
		gen(rng, r.Sub[rng.IntN(len(r.Sub))], b)
	case syntax.OpStar:
		rep(0, -1)
	case syntax.OpPlus:
		rep(1, -1)
	case syntax.OpQuest:
		rep(0, 1)
	case syntax.OpRepeat:
		rep(r.Min, r.Max)
	}
	// The empty-width ops (^, $, \b) and the empty match write nothing.
}

// randomFold is c or another rune of its case-folding orbit (for k and s
// that includes KELVIN SIGN and LONG S).
func randomFold(rng *rand.Rand, c rune) rune {
	orbit := []rune{c}
	for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
		orbit = append(orbit, f)
	}
	return orbit[rng.IntN(len(orbit))]
}

// mutate edits s one way at random.
func mutate(rng *rand.Rand, s string, seeds []string) string {
	if s == "" {
		return s
	}
	i := rng.IntN(len(s))
	switch rng.IntN(9) {
	case 0: // flip the case of every letter
		return strings.Map(func(r rune) rune {
			if unicode.IsUpper(r) {
				return unicode.ToLower(r)
			}
			return unicode.ToUpper(r)
		}, s)
	case 1: // k and s as their non-ASCII folds
		return strings.NewReplacer("k", "\u212a", "K", "\u212a", "s", "\u017f", "S", "\u017f").Replace(s)
	case 2: // one byte replaced
		return s[:i] + string(rune(randomText(rng, 1)[0])) + s[i+1:]
	case 3: // one byte deleted
		return s[:i] + s[i+1:]
	case 4: // truncated
		return s[:i]
	case 5: // a suffix only
		return s[i:]
	case 6: // glued to another
		return s + seeds[rng.IntN(len(seeds))]
	case 7: // padded past the long-string threshold, before or after
		pad := randomText(rng, 1100+rng.IntN(200))
		if rng.IntN(2) == 0 {
			return pad + " " + s
		}
		return s + " " + pad
	default: // one letter's case changed, or one rune folded
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError {
			return s
		}
		return s[:i] + string(randomFold(rng, r)) + s[i+n:]
	}
}

// randomText draws from the bytes secrets are made of, and a few that end
// them.
func randomText(rng *rand.Rand, n int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:/=@~ \"'"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// FuzzSecretKind: whatever the string, SecretKind names what running every
// pattern in order names.
func FuzzSecretKind(f *testing.F) {
	for _, ex := range secretExamples {
		f.Add(ex)
	}
	f.Add("GITHUB_TO\u212aEN=abcd1234efgh")
	f.Add("pa\u017fsword=hunter22")
	res := compileAll(f)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := SecretKind(s), allPatternsKind(res, s); got != want {
			t.Fatalf("SecretKind(%q) = %q; every pattern run in order says %q", s, got, want)
		}
	})
}

// BenchmarkSecretKind: ids and labels (no candidate, or one), a run
// summary, and long prose with two candidates.
func BenchmarkSecretKind(b *testing.B) {
	prose := strings.Repeat("The session read the config file and found the token count was high; see https://example.com/docs for more. ", 200)
	for _, bc := range []struct{ name, s string }{
		{"uuid", "9ac0b8e2-1d3f-4c5a-8e7b-6f1a2b3c4d5e"},
		{"label", "security.secret_scanning.secret_type"},
		{"summary", "convert: 1 of 1 inputs converted in 2 ms; outputs in out\n  converters     claude_code 1\n  bytes read     527 B (0.25 MiB/s)\n  events         2\n  lines skipped  0\n"},
		{"prose16k", prose[:16<<10]},
	} {
		SecretKind(bc.s) // compile its candidates outside the timing
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.s)))
			for range b.N {
				SecretKind(bc.s)
			}
		})
	}
}
