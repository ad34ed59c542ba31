package converters

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestValidName: register's name rule, written out, is the pattern it
// documents, on edge cases and random strings.
func TestValidName(t *testing.T) {
	re := regexp.MustCompile(`^[a-z][a-z0-9_]{0,62}$`)
	cases := []string{"", "a", "claude_code", "a1_", "A", "1a", "_a", "a-b", "a.b", "aé", "a\n", strings.Repeat("a", 63), strings.Repeat("a", 64), "z" + strings.Repeat("9", 62)}
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "az09_AZ-.é"
	for range 2000 {
		b := make([]byte, rng.IntN(70))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		cases = append(cases, string(b))
	}
	valid := 0
	for _, s := range cases {
		if got, want := validName(s), re.MatchString(s); got != want {
			t.Errorf("validName(%q) = %v, the pattern says %v", s, got, want)
		}
		if re.MatchString(s) {
			valid++
		}
	}
	if valid < 5 {
		t.Errorf("only %d valid names among the cases", valid)
	}
}
