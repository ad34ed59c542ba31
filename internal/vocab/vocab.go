// Package vocab finds the program's own words: every string literal of the
// packages that build outputs. The leak check treats them as vocabulary (a
// constant is never a leak); internal/gate/vocabgen folds them into the
// gate's generated table, the one committed copy of the vocabulary.
package vocab

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Sources are the packages whose literals are vocabulary, relative to the
// module root; "converters/..." is converters and every package under it
// (a new reader's words join without a line here), commands (package main),
// testdata and the record view (it writes nothing) aside.
var Sources = []string{"converters/...", "internal/pipeline", "internal/gate", "internal/prepare", "internal/otlp", "internal/receipt"}

// testOnly are the packages under Sources that only tests import (the
// import policy, internal/deps, keeps them out of the binary): their
// literals are a test's words, not an output's. The reader authors' kit
// names the canary ("CANARY") the samples carry: were it a word, the leak
// check would let a canary through.
var testOnly = map[string]bool{"converters/convtest": true}

// Literals parses Sources under root (the module root) and returns the
// sorted, distinct string literals of their non-test files: the words, and
// apart the formats (literals with a % verb: message templates).
func Literals(root string) (words, formats []string, err error) {
	set, fmts := map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	files, err := sourceFiles(root)
	if err != nil {
		return nil, nil, err
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == filepath.Join(root, "internal/gate/vocab_gen.go") {
			continue // the gate's table is generated from these words
		}
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		file, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, err
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if _, ok := n.(*ast.ImportSpec); ok {
				return false // an import path is not a word of the output
			}
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || s == "" || len(s) > 200 || strings.Contains(s, "\n") {
				return true
			}
			if strings.Contains(s, "%") {
				fmts[s] = true
			} else {
				set[s] = true
			}
			return true
		})
	}
	return sortedSet(set), sortedSet(fmts), nil
}

func sortedSet(set map[string]bool) []string {
	list := make([]string, 0, len(set))
	for s := range set {
		list = append(list, s)
	}
	sort.Strings(list)
	return list
}

// sourceFiles lists the non-test Go files of Sources under root.
func sourceFiles(root string) ([]string, error) {
	var dirs []string
	for _, dir := range Sources {
		base, tree := strings.CutSuffix(dir, "/...")
		if !tree {
			dirs = append(dirs, filepath.Join(root, dir))
			continue
		}
		err := filepath.WalkDir(filepath.Join(root, base), func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if d.Name() == "testdata" || testOnly[filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))] ||
				p == filepath.Join(root, "converters", "view") {
				return filepath.SkipDir
			}
			dirs = append(dirs, p)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	var out []string
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if !strings.HasSuffix(f, "_test.go") && !isCommand(f) {
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// isCommand reports a file of a package main (a generator, say).
func isCommand(f string) bool {
	file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly)
	return err == nil && file.Name.Name == "main"
}
