// Command gendefs writes schemas/defs.schema.json from the converters'
// value types and ladders, and schemas/events/*.schema.json from the
// converters' declarations (see converters/events/eventschema.go): go generate
// ./converters/... It removes an event schema nothing generates unless
// events.NotGenerated names it.
package main

import (
	_ "github.com/contextreceipts/convert/converters/all"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"
)

func main() {
	if len(os.Args) != 3 {
		log.Fatal("usage: gendefs DEFS-OUT EVENTS-DIR")
	}
	if err := os.WriteFile(os.Args[1], events.DefsSchema(), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := writeEvents(os.Args[2]); err != nil {
		log.Fatal(err)
	}
}

func writeEvents(dir string) error {
	schemas, genErr := scenario.EventSchemas()
	old, err := filepath.Glob(filepath.Join(dir, "*.schema.json"))
	if err != nil {
		return err
	}
	for _, f := range old {
		name := strings.TrimSuffix(filepath.Base(f), ".schema.json")
		if _, ok := schemas[name]; !ok && genErr == nil && events.NotGenerated[name] == "" {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	for name, b := range schemas {
		if err := os.WriteFile(filepath.Join(dir, name+".schema.json"), b, 0o644); err != nil {
			return err
		}
	}
	return genErr
}
