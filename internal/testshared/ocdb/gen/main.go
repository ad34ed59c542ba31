// Command gen writes the test OpenCode database (package ocdb) at the path
// it is given, from the sample storage/ tree, for tools that read it
// outside Go's tests (tools/ccusage-figures.sh):
//
//	go run ./internal/testshared/ocdb/gen out/opencode.db
package main

import (
	"fmt"
	"os"

	"github.com/contextreceipts/convert/internal/testshared/ocdb"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen DATABASE (run from the repository root)")
		os.Exit(2)
	}
	if err := ocdb.Write(os.Args[1], ocdb.Storage, nil); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
