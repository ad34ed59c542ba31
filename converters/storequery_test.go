package converters

import (
	"context"
	"database/sql"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStoreSelect: the columns a table has of those wanted, each row as a
// map of its non-NULL values; a claim wants every named column; and past
// the row bound a select is a StoreBoundError like every store query.
func TestStoreSelect(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE m (id INTEGER, s TEXT, body BLOB); INSERT INTO m VALUES (1, 'a', NULL), (1, 'b', x'6869'), (2, 'c', NULL)`); err != nil {
		t.Fatal(err)
	}
	ctx := WithStoreBounds(context.Background(), StoreBounds{Query: time.Minute, Rows: 10})
	if !StoreHas(ctx, db, map[string][]string{"m": {"id", "s"}}) || StoreHas(ctx, db, map[string][]string{"m": {"id", "gone"}}) {
		t.Error("StoreHas does not answer by the columns")
	}
	var got []string
	err = StoreSelect(ctx, db, "m", []string{"s", "gone", "body"}, "id = ?", " ORDER BY s", 1, func(r map[string]any) error {
		got = append(got, r["s"].(string)+"/"+func() string { b, _ := r["body"].(string); return b }())
		if _, ok := r["gone"]; ok {
			t.Error("a column the table lacks was read")
		}
		return nil
	})
	if err != nil || strings.Join(got, ",") != "a/,b/hi" {
		t.Errorf("rows %q, %v", got, err)
	}
	ctx = WithStoreBounds(context.Background(), StoreBounds{Query: time.Minute, Rows: 1})
	err = StoreSelect(ctx, db, "m", []string{"s"}, "id = ?", "", 1, func(map[string]any) error { return nil })
	var be *StoreBoundError
	if !errors.As(err, &be) || be.Rows != 1 {
		t.Errorf("past the row bound: %v, want a StoreBoundError", err)
	}
}

// TestReadersQueryStoresBounded: no reader queries a store but through
// QueryStore (and the helpers built on it): a store query of its own
// would escape the deadline and row bound that keep a hostile database
// from hanging a run.
func TestReadersQueryStoresBounded(t *testing.T) {
	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "testdata" || d.Name() == "convtest" { // the test kit builds its test databases
			continue
		}
		files, _ := filepath.Glob(filepath.Join(d.Name(), "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					switch sel.Sel.Name {
					case "Query", "QueryContext", "QueryRow", "QueryRowContext", "Exec", "ExecContext":
						if id, ok := sel.X.(*ast.Ident); ok && id.Name == "db" {
							t.Errorf("%s: db.%s: query a store through converters.QueryStore", fset.Position(sel.Pos()), sel.Sel.Name)
						}
					}
				}
				return true
			})
		}
	}
}
