package native

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

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
		got, ok := SessionFileID(c)
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
