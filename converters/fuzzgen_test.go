package converters_test

import (
	"math/rand"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/convtest"
)

// TestGeneratorsReachConverters keeps the generators honest: from random
// choice streams, most native logs and some log of every scenario
// converter must convert (a generator whose logs all fail explores
// nothing), and every one holds the fuzz properties.
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
	for i := 0; i < 60; i++ {
		b := stream()
		b[0] = byte(i % 3) // each format in turn
		run(nativeCase(b), b)
	}
	for i := 0; i < 10*len(grammars); i++ {
		b := stream()
		b[0] = byte(i % len(grammars))
		run(scenarioCase(grammars, b), b)
	}
	for name, n := range total {
		min := 1
		if c, _ := converters.Lookup(name); c.Native != nil {
			min = n / 2
		}
		if ok[name] < min {
			t.Errorf("%s: %d of %d generated logs convert, want at least %d", name, ok[name], n, min)
		}
	}
	if len(total) != len(grammars)+3 {
		t.Errorf("generated logs for %d converters, want %d", len(total), len(grammars)+3)
	}
}
