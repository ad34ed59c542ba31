package antigravity_test

import (
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
)

// TestMain bounds fuzz minimization (convtest.Main).
func TestMain(m *testing.M) { convtest.Main(m) }

// FuzzSamples mutates the samples of samples/antigravity byte by byte
// through the whole pipeline (convtest.FuzzSamples); testdata/fuzz/FuzzSamples
// keeps what it found worth keeping.
func FuzzSamples(f *testing.F) { convtest.FuzzSamples(f, "antigravity") }

// TestMutations hunts the samples as FuzzSamples does, with a seeded
// random source instead of the engine (convtest.Mutations): 20 inputs in
// make test, CONVERT_HUNT in make fuzz-hunt.
func TestMutations(t *testing.T) { convtest.Mutations(t, "antigravity") }

// FuzzLogs builds the lines the store writes of a conversation database
// from their grammar (grammar_test.go) and perturbs them, a canary in
// every raw slot (convtest.FuzzLogs).
func FuzzLogs(f *testing.F) { convtest.FuzzLogs(f, grammar) }

// TestGrammar: the grammar is deterministic, its plainest log parses, and
// most of its logs convert (convtest.Grammar).
func TestGrammar(t *testing.T) { convtest.Grammar(t, "antigravity", grammar) }
