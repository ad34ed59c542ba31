package vocab

import (
	"os"
	"testing"
)

// TestWordsUpToDate fails when a literal was added to or removed from the
// output-building packages without `go generate ./internal/vocab`.
func TestWordsUpToDate(t *testing.T) {
	want, err := Generate("../..")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("words_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("internal/vocab/words_gen.go is stale: run go generate ./internal/vocab")
	}
}
