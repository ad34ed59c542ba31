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

// TestSessionFileID: the written-out rule is the file-name pattern it
// documents, on edge cases and random names.
func TestSessionFileID(t *testing.T) {
	re := regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.jsonl$`)
	const id = "411f79bb-fe57-449b-a943-8186b9ca9055"
	cases := []string{id + ".jsonl", strings.ToUpper(id) + ".jsonl", "dir/" + id + ".jsonl", id, id + ".json", id + ".jsonl.zst",
		"x" + id + ".jsonl", id[1:] + ".jsonl", strings.Replace(id, "-", "_", 1) + ".jsonl", strings.Replace(id, "f", "g", 1) + ".jsonl", ".jsonl", ""}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		b := []byte(id + ".jsonl")
		for range 1 + rng.IntN(2) {
			b[rng.IntN(len(b))] = "0aF-g.x"[rng.IntN(7)]
		}
		cases = append(cases, string(b))
	}
	valid := 0
	for _, c := range cases {
		base := c[strings.LastIndex(c, "/")+1:]
		want := re.MatchString(base)
		got, ok := sessionFileID(c)
		if ok != want || ok && got != strings.TrimSuffix(base, ".jsonl") {
			t.Errorf("sessionFileID(%q) = %q, %v; the pattern says %v", c, got, ok, want)
		}
		if want {
			valid++
		}
	}
	if valid < 50 {
		t.Errorf("only %d valid names among the cases", valid)
	}
}
