package claudecode_test

import (
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
)

// TestGolden holds every sample of samples/claude_code to its goldens: receipts,
// traces and messages, with no canary in any (make golden rewrites them).
func TestGolden(t *testing.T) { convtest.Golden(t, "claude_code") }

// TestCcusage holds the token totals of the samples to the figures
// ccusage printed for them (converters/testdata/ccusage.json).
func TestCcusage(t *testing.T) { convtest.Ccusage(t, "claude_code", false) }
