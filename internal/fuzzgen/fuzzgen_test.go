package fuzzgen

import "testing"

// The grammars themselves are checked beside their readers
// (convtest.Grammar in converters/<reader>/grammar_test.go).

func TestChoices(t *testing.T) {
	c := NewChoices([]byte{5, 0xff, 0x01})
	if got := c.Intn(3); got != 2 {
		t.Errorf("Intn(3) of 5 = %d, want 2", got)
	}
	if got := c.Intn(1000); got != (0xff<<8|0x01)%1000 {
		t.Errorf("Intn(1000) reads two bytes: got %d", got)
	}
	if c.Left() || c.Byte() != 0 || c.OneIn(2) {
		t.Error("an exhausted stream must choose 0 and never the rare option")
	}
}
