// Command gen writes internal/vocab/words_gen.go: every string literal in
// the packages that build outputs (converters, pipeline, gate, prepare, otlp, receipt).
// Each is a constant the program writes or composes outputs from, so none
// can be input content: the leak check treats them as vocabulary.
//
// Run it with `go generate ./internal/vocab`; TestWordsUpToDate fails when
// the file is stale.
package main

import (
	"fmt"
	"os"

	"github.com/contextreceipts/convert/internal/vocab"
)

func main() {
	out := "words_gen.go"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	src, err := vocab.Generate("../..")
	if err != nil {
		fmt.Fprintln(os.Stderr, "vocab gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "vocab gen:", err)
		os.Exit(1)
	}
}
