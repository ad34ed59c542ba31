package main

import (
	"os"
	"testing"
)

// TestMain lets the test binary stand in for convert when a hook starts its
// background worker (os.Executable is the test binary then): run with
// CONVERT_TEST_AS_CLI=1 and a convert hook or run command line, it is the
// CLI (interrupt_test.go signals a run in its own process).
func TestMain(m *testing.M) {
	if os.Getenv("CONVERT_TEST_AS_CLI") == "1" && len(os.Args) > 1 && (os.Args[1] == "hook" || os.Args[1] == "run") {
		os.Exit(run(append([]string{"convert"}, os.Args[1:]...), os.Stdout, os.Stderr))
	}
	os.Setenv("CONVERT_TEST_AS_CLI", "1")
	os.Exit(m.Run())
}
