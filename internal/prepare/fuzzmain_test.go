package prepare

import (
	"os"
	"testing"

	"github.com/contextreceipts/convert/internal/fuzzgen"
)

// TestMain bounds the minimisation of each new fuzz input to 100
// executions unless -fuzzminimizetime is given: FuzzPrepare builds a store
// per input, and the engine's 60 s default stalled it (6 executions
// counted in 20 s).
func TestMain(m *testing.M) {
	fuzzgen.BoundMinimization("100x")
	os.Exit(m.Run())
}
