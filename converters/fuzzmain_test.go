package converters_test

import (
	"os"
	"testing"

	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// TestMain bounds the minimisation of each new fuzz input to 100
// executions unless -fuzzminimizetime is given: every input here is two
// whole-pipeline conversions (see fuzzgen.BoundMinimization).
func TestMain(m *testing.M) {
	fuzzgen.BoundMinimization("100x")
	os.Exit(m.Run())
}
