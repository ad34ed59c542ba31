// Command gendefs writes schemas/defs.schema.json from the converters'
// value types and ladders: go generate ./converters.
package main

import (
	"log"
	"os"

	"github.com/contextreceipts/convert/converters"
)

func main() {
	if len(os.Args) != 2 {
		log.Fatal("usage: gendefs OUT")
	}
	if err := os.WriteFile(os.Args[1], converters.DefsSchema(), 0o644); err != nil {
		log.Fatal(err)
	}
}
