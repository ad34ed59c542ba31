package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

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
		Usage:     "structural difference of two receipts, or of two runs' output folders (golden receipts of your own agent runs in CI)",
		UsageText: "convert diff [--format text|json] [--ignore KEY]... [--no-ignore] A B   (two receipts, or two --out folders)",
		Description: "Events are matched by name and identity (the attributes naming what they are about: path,\n" +
			"uri, name and id digests); prints events added, removed and changed, buckets that moved,\n" +
			"events that entered or left the selected and omitted sets, and summary changes. Values a\n" +
			"receipt holds in clear (counts, buckets, ids, models of a known family) are printed as they\n" +
			"are; any other value as a short digest.\n" +
			"Two folders (a run's --out against its golden run): receipts are paired by their name relative\n" +
			"to the folder; each is said missing (in A only), added (in B only) or changed, with its\n" +
			"difference, then a count. Traces are the receipts' events in another form and are not\n" +
			"compared; the run's .convert-manifest.json is not an output.\n" +
			"Attributes that differ between any two runs of an agent (times; session, conversation,\n" +
			"response and tool-call ids; the input's path, digests and size; the leak check's raw counts)\n" +
			"are ignored unless --no-ignore; --ignore KEY ignores more.\n" +
			"Exit 0: equivalent, 1: they differ (or a receipt is missing or added), 5: a file is not a\n" +
			"receipt, 2: usage or a file that cannot be read (the reason is printed).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
			&cli.StringSliceFlag{Name: "ignore", Usage: "an attribute `KEY` not to compare (repeatable), besides the default set"},
			&cli.BoolFlag{Name: "no-ignore", Usage: "compare every attribute, the default set too"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return usageError("diff needs two receipts (or two output folders), A and B")
			}
			if f := c.String("format"); f != "text" && f != "json" {
				return usageError("--format takes text or json")
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
			a, b := c.Args().Get(0), c.Args().Get(1)
			sa, errA := os.Stat(a)
			sb, errB := os.Stat(b)
			if errA == nil && errB == nil && (sa.IsDir() || sb.IsDir()) {
				if !sa.IsDir() || !sb.IsDir() {
					return usageError("diff takes two receipts or two folders, not one of each")
				}
				return diffFolders(c, a, b, ignore)
			}
			r, err := diffFiles(a, b, ignore)
			if err != nil {
				return diffError(c, err)
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

// diffFiles compares the receipts at a and b (not yet screened).
func diffFiles(a, b string, ignore map[string]bool) (*diff.Result, error) {
	da, err := os.ReadFile(a)
	if err != nil {
		return nil, usageError("diff: cannot read %s: %s", displayPath(a), reason(err))
	}
	db, err := os.ReadFile(b)
	if err != nil {
		return nil, usageError("diff: cannot read %s: %s", displayPath(b), reason(err))
	}
	return diff.ReceiptsIgnoring(displayPath(a), da, displayPath(b), db, ignore)
}

// diffError is how diff ends on err: a file that is not a receipt has its
// own exit code.
func diffError(c *cli.Context, err error) error {
	if errors.Is(err, diff.ErrNotReceipt) {
		con(c).Error("convert: diff: %v", err)
		return exitError{exitNotReceipt}
	}
	return err
}

// folderDiff is one receipt of two folders compared.
type folderDiff struct {
	Name   string       `json:"name"`
	Status string       `json:"status"` // missing (in A only), added (in B only), changed, equivalent
	Diff   *diff.Result `json:"diff,omitempty"`
}

// diffFolders compares the receipts of two output folders, paired by
// their names relative to each folder.
func diffFolders(c *cli.Context, a, b string, ignore map[string]bool) error {
	ra, err := receiptNames(a)
	if err != nil {
		return err
	}
	rb, err := receiptNames(b)
	if err != nil {
		return err
	}
	names := map[string]bool{}
	for n := range ra {
		names[n] = true
	}
	for n := range rb {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	var out []folderDiff
	count := map[string]int{}
	for _, n := range sorted {
		d := folderDiff{Name: displayPath(n)}
		switch {
		case !rb[n]:
			d.Status = "missing"
		case !ra[n]:
			d.Status = "added"
		default:
			r, err := diffFiles(filepath.Join(a, filepath.FromSlash(n)), filepath.Join(b, filepath.FromSlash(n)), ignore)
			if err != nil {
				return diffError(c, err)
			}
			d.Status = "changed"
			if r.Equivalent {
				d.Status = "equivalent"
			}
			d.Diff = r.Screened()
		}
		count[d.Status]++
		out = append(out, d)
	}
	equivalent := count["equivalent"] == len(out)
	if c.String("format") == "json" {
		doc, err := json.MarshalIndent(struct {
			Receipts   []folderDiff `json:"receipts"`
			Equivalent bool         `json:"equivalent"`
		}{append([]folderDiff{}, out...), equivalent}, "", "  ")
		if err != nil {
			return err
		}
		con(c).Data("%s", doc)
	} else {
		w := con(c).Stdout()
		for _, d := range out {
			switch d.Status {
			case "missing":
				fmt.Fprintf(w, "missing %s (in %s only)\n", d.Name, displayPath(a))
			case "added":
				fmt.Fprintf(w, "added %s (in %s only)\n", d.Name, displayPath(b))
			case "changed":
				fmt.Fprintf(w, "changed %s\n", d.Name)
				d.Diff.WriteText(w, displayPath(filepath.Join(a, d.Name)), displayPath(filepath.Join(b, d.Name)))
			}
		}
		fmt.Fprintf(w, "%d receipts: %d equivalent, %d changed, %d missing, %d added\n",
			len(out), count["equivalent"], count["changed"], count["missing"], count["added"])
	}
	if !equivalent {
		return exitError{exitDiffer}
	}
	return nil
}

// receiptNames is the receipts under dir, by their slash-separated names
// relative to it.
func receiptNames(dir string) (map[string]bool, error) {
	names := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".receipt.ndjson") {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			names[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	if err != nil {
		return nil, usageError("diff: cannot read %s: %s", displayPath(dir), reason(err))
	}
	if len(names) == 0 {
		return nil, usageError("diff: %s holds no receipt (*.receipt.ndjson)", displayPath(dir))
	}
	return names, nil
}
