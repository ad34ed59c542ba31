package deps

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared"
)

// maxLines is the most lines a function of the program may span.
const maxLines = 90

// longer are the functions over maxLines there still are, each at its
// length today: one may shrink (then lower or drop its entry), never grow,
// and no other may join them. The scenario tables (converters/scenarios,
// func <name>Table) are declarations, a table literal each, and are
// exempt.
var longer = map[string]int{
	"internal/testshared/ocdb/ocdb.go:Write": 94,
}

// TestFunctionLength: no non-test function outside generated code and the
// vendored schema library (internal/jsonschema) spans more than maxLines
// lines, but those of longer, which may not grow.
func TestFunctionLength(t *testing.T) {
	root := testshared.Repo(t)
	fset := token.NewFileSet()
	seen := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if _, err := os.Stat(filepath.Join(p, "go.mod")); (err == nil && p != root) || rel == "internal/jsonschema" ||
				d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			seen++
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			key := rel + ":" + fn.Name.Name
			table := strings.HasPrefix(rel, "converters/scenarios/") && strings.HasSuffix(fn.Name.Name, "Table")
			switch was, listed := longer[key]; {
			case n > maxLines && !listed && !table:
				t.Errorf("%s:%d: %s spans %d lines, over %d: split it", rel, fset.Position(fn.Pos()).Line, fn.Name.Name, n, maxLines)
			case listed && n > was:
				t.Errorf("%s: %s grew to %d lines (listed at %d): split it", rel, fn.Name.Name, n, was)
			case listed && n < was:
				t.Errorf("%s: %s is down to %d lines: lower its entry in longer (or drop it under %d)", rel, fn.Name.Name, n, maxLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 1000 {
		t.Fatalf("found %d functions: the tree was not found", seen)
	}
}
