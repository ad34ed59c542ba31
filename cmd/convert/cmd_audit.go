package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/contextreceipts/convert/internal/audit"
	"github.com/urfave/cli/v2"
)

// exitFindings is audit's exit code when a rule is broken (exitFailed: the
// receipts were read, one or more failed).
const exitFindings = exitFailed

func auditCommand() *cli.Command {
	var rules strings.Builder
	for _, r := range audit.Rules {
		fmt.Fprintf(&rules, "   %-26s %s\n", r[0], r[1])
	}
	return &cli.Command{
		Name:      "audit",
		Usage:     "check receipts for the failure modes a receipt alone reveals",
		UsageText: "convert audit [--format text|json] [--as-of TIME] [--context FILE] FILE|DIR...   (a DIR is walked for *.receipt.ndjson)",
		Description: "FILE is a convert receipt (X.receipt.ndjson) or a state-assembly receipt (JSON or JSON Lines,\n" +
			"seed 003 shape). Findings are printed as path:line: rule: message. Exit 0: no finding,\n" +
			"1: findings (or an unreadable file), 2: usage (or a missing FILE).\n\nRULES:\n" + rules.String(),
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
			&cli.StringFlag{Name: "as-of", Usage: "the as_of `TIME` the assembly call asked for (RFC 3339)"},
			&cli.StringFlag{Name: "context", Usage: "`FILE` with the bytes delivered to the agent, checked against output.context_hash"},
		},
		Action: func(c *cli.Context) error {
			cons := con(c)
			if c.NArg() == 0 {
				return usageError("audit needs at least one FILE or DIR")
			}
			files, err := expandFiles(c.Args().Slice(), receiptSuffixes)
			if err != nil {
				return err
			}
			format := c.String("format")
			if format != "text" && format != "json" {
				return usageError("--format takes text or json")
			}
			opt := audit.Options{AsOf: c.String("as-of")}
			if f := c.String("context"); f != "" {
				b, err := os.ReadFile(f)
				if err != nil {
					return usageError("cannot read the --context file %s", f)
				}
				opt.Context = b
			}
			all := []audit.Finding{}
			failed := false
			for _, p := range files {
				fs, err := audit.File(p, opt)
				if err != nil {
					cons.Error("convert: audit: %s", strings.Replace(err.Error(), p, displayPath(p), 1))
					failed = true
					continue
				}
				for i := range fs {
					fs[i].Path = displayPath(fs[i].Path) // no folder that encodes a working folder or names the user
				}
				all = append(all, fs...)
			}
			if format == "json" {
				doc, err := json.MarshalIndent(struct {
					Files    int             `json:"files"`
					Findings []audit.Finding `json:"findings"`
				}{len(files), all}, "", "  ")
				if err != nil {
					return err
				}
				cons.Data("%s", doc)
			} else {
				for _, f := range all {
					cons.Data("%v", f)
				}
				if len(all) == 0 && !failed {
					cons.Result("%d files audited, no finding", len(files))
				}
			}
			if len(all) > 0 || failed {
				return exitError{exitFindings}
			}
			return nil
		},
	}
}
