package gate_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayersPointOneWay: the gate (schema validation and the leak check)
// and the OTLP exporter are leaves that know no converter and no pipeline,
// and the prepare runtime links no converter: each builds on its own.
func TestLayersPointOneWay(t *testing.T) {
	const mod = "github.com/contextreceipts/convert/"
	for pkg, banned := range map[string][]string{
		"internal/gate":    {"converters", "internal/pipeline"},
		"internal/export":  {"converters", "internal/pipeline"},
		"internal/prepare": {"converters", "internal/pipeline"},
	} {
		out, err := goList(pkg)
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for dep := range strings.FieldsSeq(string(out)) {
			for _, b := range banned {
				if dep == mod+b || strings.HasPrefix(dep, mod+b+"/") {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}

// goList lists the packages pkg (a folder of the module) depends on.
func goList(pkg string) ([]byte, error) {
	cmd := exec.Command("go", "list", "-deps", "./"+pkg)
	cmd.Dir = "../.."
	return cmd.Output()
}
