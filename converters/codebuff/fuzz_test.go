package codebuff_test

import (
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
)

// TestMain bounds fuzz minimization (convtest.Main).
func TestMain(m *testing.M) { convtest.Main(m) }

// FuzzSamples mutates the samples of samples/codebuff byte by byte through
// the whole pipeline (convtest.FuzzSamples); testdata/fuzz/FuzzSamples
// keeps what it found worth keeping.
func FuzzSamples(f *testing.F) { convtest.FuzzSamples(f, "codebuff") }
