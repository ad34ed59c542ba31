package codebuff_test

import (
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
)

// TestGolden holds every sample of samples/codebuff to its goldens:
// receipts, traces and messages, with no canary in any (make golden
// rewrites them).
func TestGolden(t *testing.T) { convtest.Golden(t, "codebuff") }
