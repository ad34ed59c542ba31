package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/receipt"
)

// TestTypedNamesBelongToTheirRun: the folder names a user typed (several
// folder arguments, each kept under its name) name that run's outputs
// only. A later run over the folder above them finds the same names below
// its argument, and writes them as digests: what one expansion was given
// never changes how another names its outputs (it did, through a
// process-wide set, so a test's expectation hung on which ran first).
func TestTypedNamesBelongToTheirRun(t *testing.T) {
	root := t.TempDir()
	const file = "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl"
	for _, d := range []string{"alice-payroll", "bob-payroll"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, d, file), []byte(`{"type":"user"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names := func(args ...string) []string {
		ins, err := Expand(args)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, in := range ins {
			out = append(out, in.OutputName(receipt.Hasher{}, ""))
		}
		return out
	}
	for round := range 2 { // either order, the same names
		typed := names(filepath.Join(root, "alice-payroll"), filepath.Join(root, "bob-payroll"))
		found := names(root)
		if round == 1 {
			found = names(root)
			typed = names(filepath.Join(root, "alice-payroll"), filepath.Join(root, "bob-payroll"))
		}
		if len(typed) != 2 || !strings.HasPrefix(typed[0], "alice-payroll/") || !strings.HasPrefix(typed[1], "bob-payroll/") {
			t.Errorf("round %d: typed folders named %q, want their names kept", round, typed)
		}
		for _, o := range found {
			if strings.Contains(o, "payroll") || !strings.HasPrefix(o, folderPrefix) {
				t.Errorf("round %d: a folder found below the argument named %q, want a digest", round, o)
			}
		}
	}
}
