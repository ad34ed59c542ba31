package main

import (
	"fmt"

	"github.com/contextreceipts/convert/converters"
	"github.com/urfave/cli/v2"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "list the converters: name, then what it reads",
		UsageText: "convert list",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("list takes no arguments")
			}
			for _, cv := range converters.All() {
				fmt.Fprintf(c.App.Writer, "%-24s %s\n", cv.Name, cv.Doc)
			}
			return nil
		},
	}
}
