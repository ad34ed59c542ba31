package testlines

import (
	"bytes"
	"testing"
)

func TestDistinct(t *testing.T) {
	in := [][]byte{[]byte("b"), []byte("a"), []byte("b"), []byte(""), []byte("a"), []byte("")}
	got := Distinct(in)
	if want := [][]byte{[]byte("b"), []byte("a"), []byte("")}; len(got) != len(want) {
		t.Fatalf("Distinct = %q, want %q", got, want)
	} else {
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("Distinct = %q, want %q", got, want)
			}
		}
	}
}
