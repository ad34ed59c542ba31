package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMain lets the test binary stand in for the command: with
// GOTEST_AS_MAIN set it runs main with the remaining arguments.
func TestMain(m *testing.M) {
	if os.Getenv("GOTEST_AS_MAIN") != "" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// module writes a throwaway module: package a passes and skips (a test
// and a subtest, each with its reason), b fails one test with two lines,
// c does not build, d has no tests.
func module(t *testing.T, withFailures bool) string {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":      "module x\n\ngo 1.26\n",
		"a/a_test.go": "package a\nimport \"testing\"\nfunc TestOK(t *testing.T) { t.Log(\"noise from a passing test\") }\nfunc TestSkip(t *testing.T) { t.Skip(\"needs ../shared/corpus-seed\") }\nfunc TestSub(t *testing.T) { t.Run(\"s\", func(t *testing.T) { t.Skip(\"no chromium\") }) }\n",
		"d/d.go":      "package d\n",
	}
	if withFailures {
		files["b/b_test.go"] = "package b\nimport \"testing\"\nfunc TestBad(t *testing.T) { t.Log(\"said before\"); t.Error(\"boom\\nsecond line\") }\nfunc TestOK(t *testing.T) { t.Log(\"quiet\") }\n"
		files["c/c_test.go"] = "package c\nimport \"testing\"\nfunc TestX(t *testing.T) { undefinedThing() }\n"
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// run runs this command (the test binary as main) in dir over ./...
func run(t *testing.T, dir string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-count=1", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTEST_AS_MAIN=1", "GOFLAGS=", "GOWORK=off")
	out, _ := cmd.CombinedOutput()
	return string(out), cmd.ProcessState.ExitCode()
}

func TestPassingRunListsSkips(t *testing.T) {
	out, code := run(t, module(t, false))
	if code != 0 {
		t.Fatalf("exit %d, want 0:\n%s", code, out)
	}
	for _, want := range []string{"ok  \tx/a\t", "?   \tx/d\t[no test files]", "\n2 skipped:\n",
		"SKIP x/a TestSkip: a_test.go:4: needs ../shared/corpus-seed\n", "SKIP x/a TestSub/s: a_test.go:5: no chromium\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); !regexp.MustCompile(`^tests: [1-9][0-9]* passed, 0 failed, 2 skipped$`).MatchString(lines[len(lines)-1]) {
		t.Errorf("the last line is not the counts line:\n%s", out)
	}
	for _, noise := range []string{"noise from a passing test", "=== RUN", "--- PASS", "{\"Action\""} {
		if strings.Contains(out, noise) {
			t.Errorf("output carries %q:\n%s", noise, out)
		}
	}
}

func TestFailingRunFailsAndSaysWhy(t *testing.T) {
	out, code := run(t, module(t, true))
	if code == 0 {
		t.Fatalf("exit 0 on a failing run:\n%s", out)
	}
	for _, want := range []string{"said before", "boom", "second line", "--- FAIL: TestBad", "FAIL\tx/b\t",
		"undefined: undefinedThing", "FAIL\tx/c [build failed]", "ok  \tx/a\t", "SKIP x/a TestSkip: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`\ntests: [0-9]+ passed, [1-9][0-9]* failed, [0-9]+ skipped\n$`).MatchString(out) {
		t.Errorf("the run does not end with a counts line naming its failures:\n%s", out)
	}
	if strings.Contains(out, "quiet") || strings.Contains(out, "=== RUN") {
		t.Errorf("output carries a passing test's words or progress lines:\n%s", out)
	}
}
