// Package testshared is how tests reach what a plain clone may not have: the
// shared reference data beside the checkout (../shared: the reference
// scenario suite in reference/pluribus, real transcripts in corpus-seed,
// fuzz seeds in seeds) and outside tools such as a browser.
//
// The contract: on a clone without them a test skips, saying in one line
// what it lacked; in CI (the environment variable CI set, as .ci/run does)
// the same absence fails the test, so CI can never pass by skipping.
package testshared

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CI reports whether the tests run in CI: CI is set to anything but "",
// "0" or "false".
func CI() bool {
	ci := os.Getenv("CI")
	return ci != "" && ci != "0" && ci != "false"
}

// Unavailable ends t for want of something outside the repository: in CI
// it fails t with reason, elsewhere it skips t with reason. reason is one
// line naming what is missing and how to get it.
func Unavailable(t testing.TB, reason string) {
	t.Helper()
	reason = strings.ReplaceAll(reason, "\n", " ")
	if CI() {
		t.Fatal(reason + " (CI is set, so this fails instead of skipping)")
	}
	t.Skip(reason + " (skipped because CI is not set)")
}

// Dir returns the absolute path of ../shared/<parts...>, ../shared being
// the folder beside the module root (for a checkout at projects/convert,
// projects/shared). When it does not exist, Dir ends t through Unavailable:
// a skip on a plain clone, a failure in CI.
func Dir(t testing.TB, parts ...string) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return dirIn(t, filepath.Join(filepath.Dir(root), "shared"), parts...)
}

// dirIn is Dir with the shared folder given.
func dirIn(t testing.TB, shared string, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{shared}, parts...)...)
	st, err := os.Stat(p)
	if err == nil && st.IsDir() {
		return p
	}
	rel := filepath.ToSlash(filepath.Join(append([]string{"..", "shared"}, parts...)...))
	what := "is absent"
	if err == nil {
		what = "is not a directory"
	}
	Unavailable(t, "needs the shared reference data "+rel+", which "+what+" ("+p+"): put the shared folder beside the checkout")
	return ""
}

// moduleRoot is the nearest directory at or above the working directory
// holding a go.mod: the repository root, from any package's tests.
func moduleRoot() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no go.mod at or above %s: the tests must run inside the module", wd)
		}
		dir = up
	}
}

// Repo is the path of parts under the repository root (the module's
// go.mod folder), from any package's tests: samples/, golden/ and
// schemas/ stay at the top level, where the README names them.
func Repo(t testing.TB, parts ...string) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(append([]string{root}, parts...)...)
}

// InRepo makes the repository root the test's working directory (restored
// when it ends), for tests that name inputs and outputs as the README
// does ("samples/codex/basic"), whatever package they are in.
func InRepo(t *testing.T) {
	t.Helper()
	t.Chdir(Repo(t))
}
