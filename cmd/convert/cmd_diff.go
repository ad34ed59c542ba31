package main

import (
	"encoding/json"
	"errors"
	"os"

	"github.com/contextreceipts/convert/internal/diff"
	"github.com/urfave/cli/v2"
)

// exitDiffer is diff's exit code when the receipts differ; exitNotReceipt
// when a file is not a receipt at all (nothing was compared).
const (
	exitDiffer     = 1
	exitNotReceipt = 5
)

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "structural difference of two receipts (for golden receipts of your own agent runs in CI)",
		UsageText: "convert diff [--format text|json] [--ignore KEY]... [--no-ignore] A B",
		Description: "Events are matched by name and identity (the attributes naming what they are about: path,\n" +
			"uri, name and id digests); prints events added, removed and changed, buckets that moved,\n" +
			"events that entered or left the selected and omitted sets, and summary changes.\n" +
			"Attributes that differ between any two runs of an agent (times; session, conversation,\n" +
			"response and tool-call ids; the input's path, digests and size; the leak check's raw counts)\n" +
			"are ignored unless --no-ignore; --ignore KEY ignores more.\n" +
			"Exit 0: equivalent, 1: they differ, 5: a file is not a receipt, 2: usage or a file that\n" +
			"cannot be read (the reason is printed).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
			&cli.StringSliceFlag{Name: "ignore", Usage: "an attribute `KEY` not to compare (repeatable), besides the default set"},
			&cli.BoolFlag{Name: "no-ignore", Usage: "compare every attribute, the default set too"},
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
				return usageError("diff: cannot read %s: %s", displayPath(a), reason(err))
			}
			db, err := os.ReadFile(b)
			if err != nil {
				return usageError("diff: cannot read %s: %s", displayPath(b), reason(err))
			}
			ignore := map[string]bool{}
			if !c.Bool("no-ignore") {
				for _, k := range diff.RunKeys {
					ignore[k] = true
				}
			}
			for _, k := range c.StringSlice("ignore") {
				ignore[k] = true
			}
			r, err := diff.ReceiptsIgnoring(displayPath(a), da, displayPath(b), db, ignore)
			if errors.Is(err, diff.ErrNotReceipt) {
				con(c).Error("convert: diff: %v", err)
				return exitError{exitNotReceipt}
			}
			if err != nil {
				return err
			}
			equivalent := r.Equivalent
			r = r.Screened() // a receipt from anywhere: print only typed values
			if c.String("format") == "json" {
				doc, err := json.MarshalIndent(r, "", "  ")
				if err != nil {
					return err
				}
				con(c).Data("%s", doc)
			} else {
				r.WriteText(con(c).Stdout(), displayPath(a), displayPath(b))
			}
			if !equivalent {
				return exitError{exitDiffer}
			}
			return nil
		},
	}
}
