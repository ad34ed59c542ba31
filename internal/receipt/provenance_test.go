package receipt_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/internal/testshared"
)

// readsInput are the calls that read a number from the input as it
// stands (view's and gjson's Int, a reader's Count or u64, scenario
// WholeCount...): such a value is a copy, written by receipt.Copied.
var readsInput = map[string]bool{
	"Int": true, "Uint": true, "Float": true, "Count": true, "Get": true, "u64": true, "nanoAiu": true,
	"WholeCount": true, "WholeNumber": true, "ParseInt": true, "ParseUint": true, "Atoi": true,
}

// TestNumberProvenance: every whole number written anywhere is built by
// receipt.Computed or receipt.Copied (no receipt.Value literal outside
// package receipt can build one with neither), and no Computed's argument
// reads an input number directly, outside a len(): a reader cannot copy a
// raw number through the computed path by accident.
//
//	receipt.Computed(int64(len(at.Get("pendingMcpServers").Array())))  ok: a count of items
//	receipt.Computed(e.Get("rank").Int())                              refused: a copy
func TestNumberProvenance(t *testing.T) {
	root := testshared.Repo(t)
	fset := token.NewFileSet()
	sites := map[string]int{}
	for _, dir := range []string{"converters", "internal", "cmd"} {
		filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, p, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			inReceipt := filepath.Dir(p) == filepath.Join(root, "internal", "receipt")
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CompositeLit:
					if sel, ok := n.Type.(*ast.SelectorExpr); ok && !inReceipt && sel.Sel.Name == "Value" && isIdent(sel.X, "receipt") {
						t.Errorf("%s: a receipt.Value literal: build values with receipt's constructors", fset.Position(n.Pos()))
					}
				case *ast.CallExpr:
					sel, ok := n.Fun.(*ast.SelectorExpr)
					if !ok || !isIdent(sel.X, "receipt") || sel.Sel.Name != "Computed" && sel.Sel.Name != "Copied" {
						return true
					}
					sites[sel.Sel.Name]++
					if sel.Sel.Name == "Computed" && len(n.Args) == 1 {
						if read := inputRead(n.Args[0]); read != "" {
							t.Errorf("%s: receipt.Computed of %s(...), a number read from the input: write it with receipt.Copied", fset.Position(n.Pos()), read)
						}
					}
				}
				return true
			})
			return nil
		})
	}
	if sites["Computed"] < 100 || sites["Copied"] < 20 {
		t.Fatalf("found %d Computed and %d Copied sites: the walk missed the writers", sites["Computed"], sites["Copied"])
	}
	t.Logf("%d computed, %d copied number sites", sites["Computed"], sites["Copied"])
}

// inputRead returns the name of a call in e that reads an input number,
// outside a len(), or "".
func inputRead(e ast.Expr) string {
	found := ""
	ast.Inspect(e, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found != "" {
			return found == ""
		}
		switch fn := call.Fun.(type) {
		case *ast.Ident:
			if fn.Name == "len" {
				return false // a count of items, whatever they are
			}
		case *ast.SelectorExpr:
			if readsInput[fn.Sel.Name] {
				found = fn.Sel.Name
			}
		}
		return true
	})
	return found
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// TestInputReadIsFound: the lint above is not vacuous.
func TestInputReadIsFound(t *testing.T) {
	for src, want := range map[string]string{
		`e.Get("rank").Int()`:                      "Int",
		`int64(c.Count(n))`:                        "Count",
		`prev + c.Count(n)`:                        "Count",
		`int64(len(at.Get("removed").Array()))`:    "",
		`st.jobs["a"] + st.jobs["b"]`:              "",
		`int64(len(st.returned) - len(st.loaded))`: "",
	} {
		e, err := parser.ParseExpr(src)
		if err != nil {
			t.Fatal(err)
		}
		if got := inputRead(e); got != want {
			t.Errorf("%s: %q, want %q", src, got, want)
		}
	}
	if !receipt.Computed(1).IsComputed() || receipt.Copied(1).IsComputed() || receipt.S("1").IsComputed() {
		t.Fatal("the constructors lost their mark")
	}
}
