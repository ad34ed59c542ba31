package main

import (
	"os"
	"strings"
	"testing"
)

// TestFindsEveryKind: each way to keep a borrowed value in testdata/bad.go
// is found, and nothing else is.
func TestFindsEveryKind(t *testing.T) {
	src, err := os.ReadFile("testdata/bad.go")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := carriers("testdata/bad.go", src); err != nil {
		t.Fatal(err)
	}
	// SourceFile is marked in the contract's package (converters), which
	// the readers name qualified.
	if _, err := carriers("testdata/contract.go", []byte("package converters\n\n// borrow:call\ntype SourceFile struct{}\n")); err != nil {
		t.Fatal(err)
	}
	got, err := checkFile("testdata/bad.go", src)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{":9:", ":10:", ":11:", ":15:", ":23:", ":32:", ":38:", ":39:"}
	if len(got) != len(want) {
		t.Fatalf("findings:\n%s", strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("finding %d = %s, want line %s", i, got[i], w)
		}
	}
}

// TestConvertersKeepNoView: the converters themselves pass.
func TestConvertersKeepNoView(t *testing.T) {
	got, err := checkTree("../../converters")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 0 {
		t.Fatalf("borrowed values kept:\n%s", strings.Join(got, "\n"))
	}
}
