// Package testlines reads the repository's own test inputs (samples,
// goldens, fuzz seeds) for differential tests: each holds a fast reader to
// an old one on every real line there is.
package testlines

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Doc is one file under a root: its path and bytes.
type Doc struct {
	Path string
	Data []byte
}

// Files returns every file under roots, in walk order.
func Files(t testing.TB, roots ...string) []Doc {
	t.Helper()
	var out []Doc
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err == nil {
				out = append(out, Doc{p, b})
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// Lines returns every line of every file under roots (lines of up to
// 64 MiB; a file's last line need not end in a newline).
func Lines(t testing.TB, roots ...string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, d := range Files(t, roots...) {
		sc := bufio.NewScanner(bytes.NewReader(d.Data))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			out = append(out, bytes.Clone(sc.Bytes()))
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("%s: %v", d.Path, err)
		}
	}
	return out
}

// Distinct returns lines without repeats, in first-seen order: a check
// that depends on the line alone learns nothing from a second copy (the
// goldens' indented traces repeat most of their lines).
func Distinct(lines [][]byte) [][]byte {
	seen := make(map[string]bool, len(lines))
	var out [][]byte
	for _, l := range lines {
		if !seen[string(l)] {
			seen[string(l)] = true
			out = append(out, l)
		}
	}
	return out
}
