// Command gen writes internal/gate/vocab_gen.go: the program's vocabulary
// (internal/gate/vocabgen.Build) as a sorted list and a lookup table, so that no
// process builds the set at start-up.
//
// Run it with `go generate ./internal/gate` (make generate runs it);
// TestVocabularyUpToDate fails when the file is stale.
package main

import (
	"fmt"
	"os"

	"github.com/contextreceipts/convert/internal/gate/vocabgen"
)

func main() {
	out := "vocab_gen.go"
	if len(os.Args) > 1 {
		out = os.Args[1]
	}
	src, err := vocabgen.Generate("../..") // run from internal/gate
	if err != nil {
		fmt.Fprintln(os.Stderr, "gate gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gate gen:", err)
		os.Exit(1)
	}
}
