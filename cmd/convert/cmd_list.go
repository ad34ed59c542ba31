package main

import (
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
			width := 0
			for _, cv := range converters.All() {
				width = max(width, len(cv.Name))
			}
			for _, cv := range converters.All() {
				con(c).Data("%-*s  %s", width, cv.Name, cv.Doc)
			}
			return nil
		},
	}
}
