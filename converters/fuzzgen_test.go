package converters_test

import (
	"math/rand"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
)

// TestGeneratorsReachConverters keeps the scenario generator honest: from
// random choice streams, some log of every scenario converter must convert
// (a generator whose logs all fail explores nothing), and every one holds
// the fuzz properties. The native readers' grammars are checked beside
// them (convtest.Grammar).
func TestGeneratorsReachConverters(t *testing.T) {
	grammars := scenarioGrammars(t)
	rng := rand.New(rand.NewSource(22))
	stream := func() []byte {
		b := make([]byte, 8+rng.Intn(56))
		rng.Read(b)
		return b
	}
	ok, total := map[string]int{}, map[string]int{}
	run := func(c convtest.FuzzCase, choices []byte) {
		total[c.Conv.Name]++
		if c.Convert(false).Err == nil {
			ok[c.Conv.Name]++
		}
		convtest.Check(t, c, choices)
	}
	for i := 0; i < 10*len(grammars); i++ {
		b := stream()
		b[0] = byte(i % len(grammars))
		run(scenarioCase(grammars, b), b)
	}
	for name, n := range total {
		if ok[name] < 1 {
			t.Errorf("%s: none of %d generated logs converts", name, n)
		}
	}
	if len(total) != len(grammars) {
		t.Errorf("generated logs for %d converters, want %d", len(total), len(grammars))
	}
}
