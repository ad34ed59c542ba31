package fuzzgen

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMakefileListsEveryFuzzTarget: make fuzz (and CI's fuzz step) runs the
// targets FUZZ_TARGETS names, so a fuzz target missing there would never
// be fuzzed; this test finds every func FuzzX in the tree instead of
// trusting the list.
func TestMakefileListsEveryFuzzTarget(t *testing.T) {
	root := filepath.Join("..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)FUZZ_TARGETS = (.*?)\n\.PHONY`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("Makefile: no FUZZ_TARGETS")
	}
	listed := map[string]bool{}
	for _, f := range strings.Fields(strings.ReplaceAll(string(m[1]), "\\", " ")) {
		listed[f] = true
	}
	fuzzFunc := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	found := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && p != root && (d.Name() == "tools" || d.Name() == "bench" || strings.HasPrefix(d.Name(), ".")):
			return filepath.SkipDir // other modules, the bench corpus, git
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		for _, fm := range fuzzFunc.FindAllSubmatch(src, -1) {
			found++
			if target := "./" + filepath.ToSlash(rel) + ":" + string(fm[1]); !listed[target] {
				t.Errorf("%s: %s is not in the Makefile's FUZZ_TARGETS", p, target)
			}
		}
		return nil
	})
	if found != len(listed) {
		t.Errorf("%d fuzz targets in the tree, %d in FUZZ_TARGETS", found, len(listed))
	}
}
