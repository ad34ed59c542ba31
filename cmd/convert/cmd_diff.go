package main

import (
	"encoding/json"
	"os"

	"github.com/contextreceipts/convert/internal/diff"
	"github.com/urfave/cli/v2"
)

// exitDiffer is diff's exit code when the receipts differ.
const exitDiffer = 1

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "structural difference of two receipts (for golden receipts of your own agent runs in CI)",
		UsageText: "convert diff [--format text|json] A B",
		Description: "Events are matched by name and identity (the attributes naming what they are about: path,\n" +
			"uri, name and id digests); prints events added, removed and changed, buckets that moved,\n" +
			"events that entered or left the selected and omitted sets, and summary changes.\n" +
			"Exit 0: equivalent, 1: they differ (or a file is not a receipt), 2: usage or a file that\n" +
			"cannot be read (the reason is printed).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return usageError("diff needs two receipts, A and B")
			}
			if f := c.String("format"); f != "text" && f != "json" {
				return usageError("--format takes text or json")
			}
			a, b := c.Args().Get(0), c.Args().Get(1)
			da, err := os.ReadFile(a)
			if err != nil {
				return usageError("diff: cannot read %s: %s", a, reason(err))
			}
			db, err := os.ReadFile(b)
			if err != nil {
				return usageError("diff: cannot read %s: %s", b, reason(err))
			}
			r, err := diff.Receipts(a, da, b, db)
			if err != nil {
				return err
			}
			if c.String("format") == "json" {
				doc, err := json.MarshalIndent(r, "", "  ")
				if err != nil {
					return err
				}
				con(c).Data("%s", doc)
			} else {
				r.WriteText(con(c).Stdout(), a, b)
			}
			if !r.Equivalent {
				return exitError{exitDiffer}
			}
			return nil
		},
	}
}
