package converters_test

import (
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/gate"
)

// TestShippedConverterWordsAreInTheTable: only Register's converters need
// run-time words; every converter the package registers itself has its
// words, segments included, in the generated table.
func TestShippedConverterWordsAreInTheTable(t *testing.T) {
	ext := map[string]bool{}
	for _, c := range converters.External() {
		ext[c.Name] = true
	}
	for _, c := range converters.All() {
		if ext[c.Name] {
			continue
		}
		for _, w := range c.Words() {
			for _, x := range append([]string{w}, gate.Segments(w)...) {
				if !gate.IsWord(x) {
					t.Errorf("%s: %q is not in the generated table", c.Name, x)
				}
			}
		}
	}
}
