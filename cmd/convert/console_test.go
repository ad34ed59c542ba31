package main

import (
	"io/fs"
	"os"
	"runtime"
	"testing"
)

// requireDevNull fails, saying why, when /dev/null is not the character
// device the test relies on: something replaced it with a regular file
// (a rename over it run as root, as convert report --out /dev/null did
// before issue #49), and the machine needs it restored
// (rm /dev/null && mknod -m 666 /dev/null c 1 3), not this test changed.
func requireDevNull(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		return
	}
	st, err := os.Lstat(os.DevNull)
	if err != nil {
		t.Fatalf("this test needs /dev/null to be a character device, and on this machine it cannot be read: %v", err)
	}
	if st.Mode().Type() != fs.ModeDevice|fs.ModeCharDevice {
		t.Fatalf("this test needs /dev/null to be a character device, and on this machine it is not (mode %v): it was replaced, perhaps by a rename over it run as root; restore it with: rm /dev/null && mknod -m 666 /dev/null c 1 3", st.Mode())
	}
}

// TestDevNullIsNoTerminal: /dev/null is a character device but no
// terminal. A run with 2>/dev/null (cron) shows no status line, so it
// does not stat every input for the line's total.
func TestDevNullIsNoTerminal(t *testing.T) {
	requireDevNull(t)
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("/dev/null read as a terminal")
	}
	if c := newConsole(f, f); c.progressLine() != nil {
		t.Error("a status line on /dev/null")
	}
}
