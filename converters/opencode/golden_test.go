package opencode_test

import (
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
)

// TestGolden holds every sample of samples/opencode to its goldens: receipts,
// traces and messages, with no canary in any (make golden rewrites them).
func TestGolden(t *testing.T) { convtest.Golden(t, "opencode") }

// TestCcusage holds the token totals of the samples to the figures
// ccusage printed for them (converters/testdata/ccusage.json).
func TestCcusage(t *testing.T) { convtest.Ccusage(t, "opencode", false) }
