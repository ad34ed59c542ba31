package gate

import (
	"strings"
	"testing"
)

// BenchmarkIsWord: the generated table against a map of the same words,
// on the lookups the leak check makes (words, and parts that are not).
func BenchmarkIsWord(b *testing.B) {
	words := Words()
	var probes []string
	for i := 0; i < len(words); i += 7 {
		probes = append(probes, words[i], words[i]+"_x", strings.ToUpper(words[i]))
	}
	set := Vocabulary()
	b.Run("table", func(b *testing.B) {
		n := 0
		for i := range b.N {
			if IsWord(probes[i%len(probes)]) {
				n++
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		n := 0
		for i := range b.N {
			if set[probes[i%len(probes)]] {
				n++
			}
		}
	})
}
