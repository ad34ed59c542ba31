package deps

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared"
)

const module = "github.com/contextreceipts/convert/"

// Groups of packages the policy names more than once.
var (
	// contract is what every converter builds on: the registry and Format,
	// and the borrowed view of a record.
	contract = []string{"converters", "converters/view", "internal/leak", "internal/receipt", "internal/jsonscan"}
	// reader is what an agent's log reader may import: the contract, the
	// event vocabulary and the readers' shared kit, never another reader,
	// the scenario engine or the pipeline.
	reader = append([]string{"converters/events", "converters/native"}, contract...)
	// leaves read and write receipts, traces and schemas and know no
	// converter: the gate and everything under it.
	leaves = []string{"internal/gate", "internal/jsonl", "internal/jsonscan", "internal/jsonschema", "internal/leak",
		"internal/otlp", "internal/receipt", "internal/schema", "internal/keycheck", "schemas"}
)

// policy is the import policy: each package of the module (as a path
// below the module; READER stands for every converters/<agent> package
// the table does not name otherwise) and the packages of the module its
// non-test files may import. A package missing from the table fails the
// test: add it, saying what it may build on. Test-only packages
// (converters/convtest, internal/testshared/..., internal/testlines,
// internal/fuzzgen) are in no list but each other's, so that nothing the
// binary links imports them; tests (_test.go files) may import anything.
var policy = map[string][]string{
	// The leaves.
	"internal/jsonscan":              {},
	"internal/jsonl":                 {},
	"internal/jsonschema":            {},
	"internal/jsonschema/httploader": {"internal/jsonschema"},
	"internal/keycheck":              {},
	"internal/vocab":                 {},
	"internal/receipt":               {"internal/jsonscan", "internal/keycheck"},
	"internal/leak":                  {"internal/jsonscan", "internal/models", "internal/receipt"},
	"internal/otlp":                  {"internal/jsonscan", "internal/receipt"},
	"internal/usage":                 {"internal/jsonscan", "internal/receipt"},
	"schemas":                        {},
	"internal/schema":                {"internal/jsonschema", "schemas"},
	"internal/gate":                  leaves,
	"internal/export":                {},
	"internal/models":                {}, // the model catalog and its prices
	"internal/outfile":               {}, // writing the file --out names
	"internal/sign":                  {"internal/keycheck"},
	"internal/hook":                  {"internal/receipt"},
	"internal/prepare":               {"internal/gate", "internal/leak", "internal/otlp", "internal/receipt"},

	// The converters, one way: contract < events < native < readers; the
	// scenario engine < its tables; only converters/all lists them all.
	"converters/view":               {"internal/jsonscan", "internal/leak", "internal/receipt"},
	"converters":                    {"converters/view", "internal/gate", "internal/jsonscan", "internal/leak", "internal/receipt"},
	"converters/events":             {"converters/view", "internal/leak", "internal/receipt"},
	"converters/native":             append([]string{"converters/events"}, contract...),
	"READER":                        reader,
	"converters/scenario":           append([]string{"converters/events"}, contract...),
	"converters/scenarios":          append([]string{"converters/events", "converters/scenario"}, contract...),
	"converters/scenarios/genindex": {"converters/scenario", "converters/scenarios", "internal/leak"},
	"converters/all":                {"READER", "converters/scenarios"},
	"converters/gendefs":            {"converters/all", "converters/events", "converters/scenario"},

	// Naming outputs: shared by the pipeline, which writes them, and
	// untrusted, which reads them back, without a reader.
	"internal/outname": {"converters", "internal/receipt"},
	// The pipeline runs converters through the contract only: it names no
	// reader and not their shared kit (converters/native).
	"internal/pipeline": {"converters", "converters/view", "internal/gate", "internal/jsonl", "internal/jsonscan", "internal/leak",
		"internal/otlp", "internal/outname", "internal/receipt", "internal/usage"},
	// Reading receipts back (diff, audit, report) links no reader: untrusted
	// knows the gate and output names, never the pipeline.
	"internal/untrusted": {"internal/gate", "internal/leak", "internal/outname", "internal/receipt", "schemas"},
	"internal/diff":      {"internal/leak", "internal/receipt", "internal/untrusted"},
	"internal/audit":     {"internal/prepare", "internal/untrusted"},
	// The report also converts logs given instead of receipts.
	"internal/report": {"internal/gate", "internal/jsonscan", "internal/jsonschema", "internal/leak", "internal/models", "internal/pipeline",
		"internal/receipt", "internal/untrusted", "internal/usage", "schemas"},

	// Commands and generators.
	"cmd/convert": {"converters", "converters/all", "converters/scenario", "internal/audit", "internal/diff", "internal/export",
		"internal/gate", "internal/hook", "internal/leak", "internal/outfile", "internal/pipeline", "internal/prepare", "internal/receipt",
		"internal/report", "internal/sign", "internal/untrusted"},
	"internal/gate/vocabgen":          {"converters", "converters/all", "internal/gate", "internal/otlp", "internal/receipt", "internal/schema", "internal/vocab"},
	"internal/gate/gen":               {"internal/gate/vocabgen"},
	"internal/bench":                  {"internal/jsonl", "internal/jsonscan", "internal/leak"},
	"internal/bench/cmd/bench":        {"converters", "converters/all", "internal/bench", "internal/leak"},
	"internal/bench/cmd/gofloor":      {},
	"internal/report/cmd/reportbench": {"converters/all", "internal/pipeline"},
	"internal/prepare/cmd/benchprep":  {"internal/prepare"},
	"tools/borrowcheck":               {},
	"internal/deps":                   {}, // this test

	// Test-only packages.
	"converters/convtest": {"converters", "converters/all", "internal/fuzzgen", "internal/leak", "internal/otlp", "internal/pipeline",
		"internal/receipt", "internal/schema", "internal/testshared", "internal/usage"},
	"internal/testshared":          {},
	"internal/testshared/gotest":   {},
	"internal/testshared/ocdb":     {"internal/testshared"},
	"internal/testshared/ocdb/gen": {"internal/testshared/ocdb"},
	"internal/testlines":           {},
	"internal/fuzzgen":             {"internal/leak"},
}

// TestImportPolicy holds every package of the module to the policy.
func TestImportPolicy(t *testing.T) {
	pkgs := packages(t, testshared.Repo(t))
	if len(pkgs) < 40 {
		t.Fatalf("found %d packages: the tree was not found", len(pkgs))
	}
	for _, pkg := range sortedKeys(pkgs) {
		for _, v := range check(pkg, pkgs[pkg]) {
			t.Error(v)
		}
	}
	for pkg := range policy {
		if _, ok := pkgs[pkg]; !ok && pkg != "READER" {
			t.Errorf("the policy names %s, which is no package: remove it", pkg)
		}
	}
}

// TestImportPolicyCatches: the check refuses the imports the policy was
// written to keep out, and takes what it allows.
func TestImportPolicyCatches(t *testing.T) {
	for _, tc := range []struct {
		pkg, imp string
		ok       bool
	}{
		{"internal/pipeline", "converters/native", false},
		{"internal/untrusted", "internal/pipeline", false},
		{"internal/diff", "converters/all", false},
		{"converters/codex", "converters/claudecode", false},
		{"converters/codex", "converters/scenario", false},
		{"converters/codex", "converters/convtest", false},
		{"converters/native", "internal/testshared", false},
		{"internal/gate", "converters", false},
		{"internal/newthing", "internal/leak", false}, // not in the table
		{"converters/codex", "converters/native", true},
		{"converters/all", "converters/codex", true},
		{"internal/pipeline", "converters", true},
	} {
		got := check(tc.pkg, []string{tc.imp})
		if (len(got) == 0) != tc.ok {
			t.Errorf("%s importing %s: %q, want allowed %v", tc.pkg, tc.imp, got, tc.ok)
		}
	}
}

// check is what is wrong with pkg importing imps (module packages, as
// paths below the module).
func check(pkg string, imps []string) []string {
	may, ok := policy[pkg]
	if !ok && isReader(pkg) {
		may, ok = policy["READER"], true
	}
	if !ok {
		return []string{pkg + " is not in the import policy (internal/deps/deps_test.go): add it with what it may import"}
	}
	var out []string
	for _, imp := range imps {
		if slices.Contains(may, imp) || slices.Contains(may, "READER") && isReader(imp) {
			continue
		}
		out = append(out, pkg+" imports "+imp+": the policy (internal/deps/deps_test.go) allows only "+strings.Join(may, ", "))
	}
	return out
}

// isReader reports a converters/<agent> package: one folder below
// converters/ that the table does not name.
func isReader(pkg string) bool {
	rest, ok := strings.CutPrefix(pkg, "converters/")
	_, named := policy[pkg]
	return ok && !strings.Contains(rest, "/") && !named
}

// packages maps every package of the module under root (its own go.mod,
// not the tools' modules) to the module packages its non-test files
// import, whatever their build tags.
func packages(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && p != root {
				return filepath.SkipDir // a module of its own
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		pkg := filepath.ToSlash(rel)
		if _, ok := out[pkg]; !ok {
			out[pkg] = []string{}
		}
		for _, s := range f.Imports {
			imp, _ := strconv.Unquote(s.Path.Value)
			if in, ok := strings.CutPrefix(imp, module); ok && !slices.Contains(out[pkg], in) {
				out[pkg] = append(out[pkg], in)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
