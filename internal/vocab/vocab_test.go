package vocab

import (
	"slices"
	"strings"
	"testing"
)

// TestLiterals: the literals of the output-building packages are found
// (in the readers and tables under converters/ too), formats apart, and
// neither import paths, test files' literals nor the record view's count.
func TestLiterals(t *testing.T) {
	words, formats, err := Literals("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"context.input.loaded",   // events/builders.go
		"gen_ai.conversation.id", // scenario/moves.go
		"convert.summary",        // the pipeline's event
	} {
		if !slices.Contains(words, w) {
			t.Errorf("words lack %q", w)
		}
	}
	for _, w := range []string{
		"strings", "github.com/contextreceipts/convert/converters/view", // import paths
		"<view.Text>", // package view writes nothing
	} {
		if slices.Contains(words, w) {
			t.Errorf("words hold %q", w)
		}
	}
	for _, f := range formats {
		if !strings.Contains(f, "%") {
			t.Errorf("format %q has no verb", f)
		}
	}
	for _, w := range words {
		if strings.Contains(w, "%") {
			t.Errorf("word %q is a format", w)
		}
	}
	if !slices.IsSorted(words) || !slices.IsSorted(formats) || len(words) < 1000 || len(formats) < 10 {
		t.Errorf("%d words, %d formats, sorted: %v %v", len(words), len(formats), slices.IsSorted(words), slices.IsSorted(formats))
	}
}
