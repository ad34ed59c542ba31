package example_test

import (
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
)

// TestMain bounds fuzz minimization (convtest.Main).
func TestMain(m *testing.M) { convtest.Main(m) }

// TestGolden holds every sample of samples/example_agent to its goldens
// (make golden writes them).
func TestGolden(t *testing.T) { convtest.Golden(t, "example_agent") }

// FuzzSamples mutates the samples byte by byte through the whole pipeline.
func FuzzSamples(f *testing.F) { convtest.FuzzSamples(f, "example_agent") }
