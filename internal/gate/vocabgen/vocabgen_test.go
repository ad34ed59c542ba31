package vocabgen

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/gate"
)

// TestVocabularyUpToDate fails when the vocabulary's sources (schemas,
// converters, literals, OTLP names, ladders) changed without regenerating
// the gate's table.
func TestVocabularyUpToDate(t *testing.T) {
	want, err := Generate("../../..")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../vocab_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("internal/gate/vocab_gen.go is stale: run make generate")
	}
}

// TestIsWordIsTheVocabulary: the table answers as the computed set does,
// for every word and for near misses (a byte more, a byte less, another
// case, another byte), random strings and strings past the longest word.
func TestIsWordIsTheVocabulary(t *testing.T) {
	set, err := Build("../../..")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 8))
	var probes []string
	longest := 0
	for w := range set {
		longest = max(longest, len(w))
		probes = append(probes, w, w+"x", "x"+w, strings.ToUpper(w), w+w)
		if w != "" {
			i := rng.IntN(len(w))
			probes = append(probes, w[:len(w)-1], w[1:], w[:i]+string(rune('a'+rng.IntN(26)))+w[i+1:])
		}
	}
	for range 2000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		probes = append(probes, string(b))
	}
	probes = append(probes, strings.Repeat("a", longest+1), "")
	hits := 0
	for _, p := range probes {
		if set[p] {
			hits++
		}
		if got := gate.IsWord(p); got != set[p] {
			t.Errorf("IsWord(%q) = %v, the vocabulary says %v", p, got, set[p])
		}
	}
	if hits < len(set) || hits == len(probes) {
		t.Errorf("%d of %d probes are words: the probes miss one side", hits, len(probes))
	}
	if len(gate.Words()) != len(set) {
		t.Errorf("gate.Words has %d words, the vocabulary %d", len(gate.Words()), len(set))
	}
}

// TestNoCanaryIsAWord: the canary every sample carries is never a word of
// the program, whatever package names it; a word passes the leak check,
// so a canary among them would reach outputs unseen. The test kit's
// literals (converters/convtest) once joined the vocabulary this way.
func TestNoCanaryIsAWord(t *testing.T) {
	set, err := Build("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for w := range set {
		if strings.Contains(strings.ToLower(w), "canary") {
			t.Errorf("%q is a word of the vocabulary", w)
		}
	}
}
