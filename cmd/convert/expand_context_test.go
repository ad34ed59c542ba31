package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// TestCommandsExpandUnderTheirContext: a command lists its inputs under its
// own context (ExpandContext), so that Ctrl-C, or a hook job's deadline,
// stops a store's session listing; pipeline.Expand (context.Background)
// is for tests and tools only. The commands' and the report's sources are
// read for calls to it.
func TestCommandsExpandUnderTheirContext(t *testing.T) {
	var files []string
	for _, g := range []string{"*.go", "../../internal/report/*.go"} {
		m, _ := filepath.Glob(g)
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("found %d source files: run from cmd/convert", len(files))
	}
	fset := token.NewFileSet()
	for _, p := range files {
		if filepath.Ext(p) != ".go" || len(p) > 8 && p[len(p)-8:] == "_test.go" {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Expand" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "pipeline" {
					t.Errorf("%s: pipeline.Expand: list inputs with pipeline.ExpandContext and the command's context", fset.Position(sel.Pos()))
				}
			}
			return true
		})
	}
}
