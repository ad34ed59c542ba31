//go:build linux

package main

// Issue #49, item 6 at the command line: every command that takes an
// output FILE (report --out, prepare --otel and --recall-effort) writes a
// character device in place and leaves it a character device. Run as
// root, the rename of old turned /dev/null into a regular file for the
// whole machine.

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nullDevice makes a character device with /dev/null's numbers (major 1,
// minor 3) in a temporary folder. mknod needs root (CAP_MKNOD): CI runs as
// root; elsewhere the test says why it cannot run.
func nullDevice(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("cannot make a character device with mknod (uid %d: %v): this check needs root, as in CI", os.Getuid(), err)
	}
	return p
}

func TestOutFileKeepsADevice(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	golden := filepath.Join(repo, "golden", "claude_code")
	db, _ := prepStore(t)
	base := []string{"prepare", "--store", db, "--scope", "project:payments", "--query", prepQuery, "--include-receipt", "--recall-gate"}
	tests := []struct {
		name   string
		args   func(dev string) []string
		stderr string
	}{
		{"report --out", func(dev string) []string { return []string{"report", "--out", dev, golden} }, "report of 10 sessions written to"},
		{"prepare --otel", func(dev string) []string { return append(base, "--otel", dev) }, ""},
		{"prepare --recall-effort", func(dev string) []string { return append(base, "--recall-effort", dev) }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dev := nullDevice(t)
			code, _, se := prep(t, tt.args(dev)...)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, se)
			}
			if tt.stderr != "" && !strings.Contains(se, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, se)
			}
			if strings.Contains(se, "not written") {
				t.Errorf("a sink was not written:\n%s", se)
			}
			st, err := os.Lstat(dev)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Type() != fs.ModeDevice|fs.ModeCharDevice {
				t.Fatalf("the device is now %v (%v), want a character device", st.Mode().Type(), st.Mode())
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(dev), ".*")); len(left) > 0 {
				t.Errorf("left beside it: %v", left)
			}
		})
	}
}

// TestOutFileRefusesADirectory: report --out DIR is refused, saying so,
// and the folder is left as it was.
func TestOutFileRefusesADirectory(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	dir := t.TempDir()
	code, _, se := runCLI(t, "", "report", "--out", dir, filepath.Join(repo, "golden", "claude_code"))
	if code != exitFailed || !strings.Contains(se, dir+": cannot write the report: is a directory") {
		t.Fatalf("exit %d, stderr:\n%s", code, se)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("the folder changed: %v", err)
	}
}
