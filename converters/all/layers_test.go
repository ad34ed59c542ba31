package all

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared"
)

// TestPackagesPointOneWay: inside converters/ the packages build on each
// other in one direction, so each can be read (and a reader added) on its
// own: the contract and the record view know no converter; the event
// vocabulary knows only the view; the readers share native (which writes
// the events every reader writes alike, so it knows the vocabulary) and
// never import each other or the scenario engine; the tables build on the
// engine; only this package lists them all.
func TestPackagesPointOneWay(t *testing.T) {
	const mod = "github.com/contextreceipts/convert/"
	contract := []string{"converters", "converters/view"}
	allowed := map[string][]string{ // package -> the converters packages it may import
		"converters":           {"converters/view"},
		"converters/view":      {},
		"converters/events":    {"converters/view"},
		"converters/native":    append([]string{"converters/events"}, contract...),
		"converters/scenario":  append([]string{"converters/events"}, contract...),
		"converters/scenarios": append([]string{"converters/events", "converters/scenario"}, contract...),
		"converters/gendefs":   {"converters/all", "converters/events", "converters/scenario"},
	}
	reader := append([]string{"converters/events", "converters/native"}, contract...)
	dirs, err := os.ReadDir(testshared.Repo(t, "converters"))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, d := range append(dirs, nil) {
		pkg := "converters"
		if d != nil {
			if !d.IsDir() || d.Name() == "testdata" || d.Name() == "all" {
				continue
			}
			pkg += "/" + d.Name()
		}
		ok, known := allowed[pkg]
		if !known {
			ok = reader // any other package is an agent's reader
		}
		for _, imp := range imports(t, testshared.Repo(t, pkg)) {
			rel, in := strings.CutPrefix(imp, mod)
			if in && strings.HasPrefix(rel, "converters") && !slices.Contains(ok, rel) {
				t.Errorf("%s imports %s; it may import only %v", pkg, rel, ok)
			}
		}
		seen++
	}
	if seen < 10 {
		t.Fatalf("checked %d packages: the layout was not found", seen)
	}
}

// imports lists what the non-test files of dir import.
func imports(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range file.Imports {
			p, _ := strconv.Unquote(s.Path.Value)
			out = append(out, p)
		}
	}
	return out
}
