package main

import (
	"encoding/json"

	"github.com/urfave/cli/v2"
)

// jsonFlag is --json of the commands that report: their answer as one JSON
// object on stdout instead of lines of text (messages still go to stderr).
var jsonFlag = &cli.BoolFlag{Name: "json", Usage: "print the answer as one JSON object on stdout"}

// printJSON writes v as one line of JSON on stdout.
func printJSON(c *cli.Context, v any) error {
	doc, err := json.Marshal(v)
	if err != nil {
		return err
	}
	con(c).Data("%s", doc)
	return nil
}
