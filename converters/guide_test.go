package converters_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared"
)

// TestGuideNamesExist holds docs/adding-a-format.md to the code it
// describes: every file it names exists, every pkg.Name or Type.Member it
// names is declared in that package, and every camelCase helper it names
// as an example is declared under converters/. A rename that leaves the
// guide behind fails here.
func TestGuideNamesExist(t *testing.T) {
	guide, err := os.ReadFile(testshared.Repo(t, "docs", "adding-a-format.md"))
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]string{ // package name as the guide writes it -> folder
		"converters": "converters", "leak": "internal/leak", "view": "converters/view",
	}
	entries, err := os.ReadDir(testshared.Repo(t, "converters"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && e.Name() != "testdata" {
			pkgs[e.Name()] = "converters/" + e.Name()
		}
	}
	decls := map[string]map[string]bool{}
	declared := func(dir string) map[string]bool {
		if decls[dir] == nil {
			decls[dir] = declarations(t, testshared.Repo(t, dir))
		}
		return decls[dir]
	}
	anywhere := map[string]bool{}
	for _, dir := range pkgs {
		if strings.HasPrefix(dir, "converters") {
			for n := range declared(dir) {
				anywhere[n] = true
			}
		}
	}
	qualified := regexp.MustCompile(`^([a-z]+)\.([A-Z]\w*(?:\.\w+)?)$`)
	member := regexp.MustCompile(`^([A-Z]\w*)\.([A-Z]\w*)$`)
	helper := regexp.MustCompile(`^[a-z]+[A-Z]\w*$`)
	checked := 0
	for _, m := range regexp.MustCompile("`([^`\n]+)`").FindAllStringSubmatch(string(guide), -1) {
		tok := m[1]
		switch {
		case strings.Contains(tok, "<") || strings.Contains(tok, " ") || strings.Contains(tok, "*"):
			continue // a pattern or a command, not a name
		case strings.HasSuffix(tok, ".go") && !strings.Contains(tok, "/"):
			// a file every reader has: one of them at least
			found := false
			for _, dir := range pkgs {
				if _, err := os.Stat(testshared.Repo(t, dir, tok)); err == nil {
					found = true
				}
			}
			if !found {
				t.Errorf("the guide names %s, which no package under converters/ has", tok)
			}
		case strings.HasSuffix(tok, ".go") || strings.HasSuffix(tok, "/") && strings.Count(tok, "/") > 1:
			if _, err := os.Stat(testshared.Repo(t, tok)); err != nil {
				t.Errorf("the guide names %s, which does not exist", tok)
			}
		case qualified.MatchString(tok):
			p := qualified.FindStringSubmatch(tok)
			dir, ok := pkgs[p[1]]
			if !ok {
				continue // another library's name (the guide says which)
			}
			if !declared(dir)[p[2]] {
				t.Errorf("the guide names %s, which %s does not declare", tok, dir)
			}
		case member.MatchString(tok):
			if !declared("converters")[tok] {
				t.Errorf("the guide names %s, which converters does not declare", tok)
			}
		case helper.MatchString(tok):
			if !anywhere[tok] {
				t.Errorf("the guide names %s, which no package under converters/ declares", tok)
			}
		default:
			continue
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d names checked: the guide's names were not found", checked)
	}
}

// declarations lists what the non-test files of dir declare at top level:
// Name for types, functions, variables and constants, Type.Name for
// methods and struct fields.
func declarations(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					out[d.Name.Name] = true
					continue
				}
				typ := d.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					out[id.Name+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						out[s.Name.Name] = true
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, f := range st.Fields.List {
								for _, n := range f.Names {
									out[s.Name.Name+"."+n.Name] = true
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							out[n.Name] = true
						}
					}
				}
			}
		}
	}
	return out
}
