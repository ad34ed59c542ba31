package main

import (
	"os"
	"testing"
)

// TestDevNullIsNoTerminal: /dev/null is a character device but no
// terminal. A run with 2>/dev/null (cron) shows no status line, so it
// does not stat every input for the line's total.
func TestDevNullIsNoTerminal(t *testing.T) {
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
