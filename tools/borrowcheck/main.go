// Command borrowcheck flags the places a converter could keep a borrowed
// value of package view past the record call that received it: a struct
// field, a package-level variable, a map, slice, array, channel or pointer
// type whose elements are view.Text, view.Value, view.Fields or a Record
// (converters.Record is view.Record), and a function literal that captures
// such a value and is stored (assigned to a field, an element or a
// variable declared outside it, or appended). Locals, parameters and
// results are what view's types are for; the compiler already refuses a
// Text where a string is kept.
//
//	go run ./tools/borrowcheck converters      # one line per finding, exit 1
//
// Two comments mark what is meant to hold a view: a struct type whose doc
// comment says "borrow:call" lives for one call (an argument bundle such as
// SourceFile), and is then itself a borrowed type that nothing may keep; a
// field whose comment says "borrow:scratch" is scratch space emptied before
// the call that fills it returns.
//
// It reads the files as syntax (no type checking): view's types are known
// by their qualified names, so it expects package view to be imported as
// view. make lint runs it over converters/.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: borrowcheck DIR...")
		os.Exit(2)
	}
	var all []string
	for _, dir := range os.Args[1:] {
		found, err := checkTree(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "borrowcheck:", err)
			os.Exit(2)
		}
		all = append(all, found...)
	}
	for _, f := range all {
		fmt.Println(f)
	}
	if len(all) > 0 {
		os.Exit(1)
	}
}

// checkTree checks every non-test .go file under dir except package view
// itself and testdata folders.
func checkTree(dir string) ([]string, error) {
	var out []string
	// First the carriers (borrow:call) of every file: a package's files
	// name each other's types.
	if err := eachFile(dir, func(p string, src []byte) error {
		_, err := carriers(p, src)
		return err
	}); err != nil {
		return nil, err
	}
	err := eachFile(dir, func(p string, src []byte) error {
		found, err := checkFile(p, src)
		out = append(out, found...)
		return err
	})
	sort.Strings(out)
	return out, err
}

// eachFile calls fn with each non-test .go file under dir outside package
// view and testdata folders.
func eachFile(dir string, fn func(p string, src []byte) error) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "view" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return fn(p, src)
	})
}

// carriers adds the struct types of src marked borrow:call to
// borrowedNames, and returns their names.
func carriers(path string, src []byte) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, decl := range f.Decls {
		d, ok := decl.(*ast.GenDecl)
		if !ok || d.Tok != token.TYPE {
			continue
		}
		for _, spec := range d.Specs {
			s := spec.(*ast.TypeSpec)
			if marked(d.Doc, "borrow:call") || marked(s.Doc, "borrow:call") {
				// Named bare in its own package, qualified in the others
				// (converters.SourceFile, scenario.Values).
				borrowedNames[s.Name.Name] = true
				borrowedNames[f.Name.Name+"."+s.Name.Name] = true
				names = append(names, s.Name.Name)
			}
		}
	}
	return names, nil
}

// marked reports whether the comment group holds word.
func marked(g *ast.CommentGroup, word string) bool {
	return g != nil && strings.Contains(g.Text(), word)
}

// borrowedNames are the types that hold a view of a line.
var borrowedNames = map[string]bool{"view.Text": true, "view.Value": true, "view.Fields": true, "view.Record": true, "Record": true, "converters.Record": true}

// borrowed reports whether the type expression t names or contains a
// borrowed type.
func borrowed(t ast.Expr) bool {
	switch x := t.(type) {
	case *ast.Ident:
		return borrowedNames[x.Name]
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			return borrowedNames[id.Name+"."+x.Sel.Name]
		}
	case *ast.StarExpr:
		return borrowed(x.X)
	case *ast.ArrayType:
		return borrowed(x.Elt)
	case *ast.MapType:
		return borrowed(x.Key) || borrowed(x.Value)
	case *ast.ChanType:
		return borrowed(x.Value)
	case *ast.StructType:
		for _, f := range x.Fields.List {
			if borrowed(f.Type) {
				return true
			}
		}
	}
	return false
}

// checkFile returns one "path:line: message" per finding in src.
func checkFile(path string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	report := func(n ast.Node, msg string) {
		out = append(out, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), msg))
	}
	// Declarations that outlive a call: struct fields, package variables,
	// element types.
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if s.Assign.IsValid() {
						continue // an alias (converters.Record = view.Record) is a name, not storage
					}
					if st, ok := s.Type.(*ast.StructType); ok {
						if marked(d.Doc, "borrow:call") || marked(s.Doc, "borrow:call") {
							continue // a carrier: it may hold views, and is one
						}
						for _, fld := range st.Fields.List {
							if borrowed(fld.Type) && !marked(fld.Doc, "borrow:scratch") && !marked(fld.Comment, "borrow:scratch") {
								report(fld, "struct "+s.Name.Name+" has a field of a borrowed type: keep an owned copy (view's Own, Digest, Admit, Word)")
							}
						}
					} else if borrowed(s.Type) {
						report(s, "type "+s.Name.Name+" holds a borrowed type")
					}
				case *ast.ValueSpec:
					if d.Tok == token.VAR && s.Type != nil && borrowed(s.Type) {
						report(s, "package variable of a borrowed type")
					}
				}
			}
		case *ast.FuncDecl:
			if d.Body != nil {
				out = append(out, checkBody(fset, d)...)
			}
		}
	}
	return out, nil
}

// checkBody finds, in a function, composite types of borrowed elements
// made with make or a literal and stored outside it, and function literals
// that capture a borrowed local or parameter and are stored.
func checkBody(fset *token.FileSet, fn *ast.FuncDecl) []string {
	var out []string
	report := func(n ast.Node, msg string) {
		out = append(out, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), msg))
	}
	// The function's borrowed names: parameters and locals declared with a
	// borrowed type, or assigned from an expression ending in a call of a
	// method that returns one (Get, Str, String, Raw, Fields, Text, Parse).
	names := map[string]bool{}
	addFields := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, f := range fl.List {
			if borrowed(f.Type) {
				for _, n := range f.Names {
					names[n.Name] = true
				}
			}
		}
	}
	addFields(fn.Type.Params)
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			addFields(x.Type.Params)
		case *ast.ValueSpec:
			if x.Type != nil && borrowed(x.Type) {
				for _, id := range x.Names {
					names[id.Name] = true
				}
			}
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for i, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok && i < len(x.Rhs) && yieldsBorrowed(x.Rhs[i]) {
						names[id.Name] = true
					}
				}
			}
		}
		return true
	})
	// Stored function literals that capture a borrowed name.
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || as.Tok == token.DEFINE {
			return true
		}
		for i, r := range as.Rhs {
			lit, ok := r.(*ast.FuncLit)
			if !ok || i >= len(as.Lhs) {
				continue
			}
			if _, local := as.Lhs[i].(*ast.Ident); local {
				continue // a local function variable dies with the call
			}
			if c := captures(lit, names); c != "" {
				report(lit, "a stored function literal captures "+c+", a borrowed value: capture an owned copy")
			}
		}
		return true
	})
	return out
}

// yieldsBorrowed reports whether e is a call of a method that returns a
// borrowed value (x.Get(..), x.Str(), ...).
func yieldsBorrowed(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	switch sel.Sel.Name {
	case "Get", "Top", "Str", "String", "Raw", "Fields", "Parse", "TrimPrefix", "TrimSpace", "Slice", "From", "Canonical":
		return true
	}
	return false
}

// captures returns a borrowed name the literal uses but does not declare.
func captures(lit *ast.FuncLit, names map[string]bool) string {
	declared := map[string]bool{}
	if lit.Type.Params != nil {
		for _, f := range lit.Type.Params.List {
			for _, n := range f.Names {
				declared[n.Name] = true
			}
		}
	}
	found := ""
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for _, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						declared[id.Name] = true
					}
				}
			}
		case *ast.Ident:
			if found == "" && names[x.Name] && !declared[x.Name] {
				found = x.Name
			}
		}
		return true
	})
	return found
}
