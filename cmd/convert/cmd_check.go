package main

import (
	"fmt"
	"strings"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/urfave/cli/v2"
)

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check receipts against the schemas and traces against the OTLP/JSON rules",
		UsageText: "convert validate FILE...   (*.receipt.ndjson and *.otel.json)",
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageError("validate needs at least one FILE")
			}
			bad := 0
			for _, f := range c.Args().Slice() {
				probs, err := pipeline.ValidateFile(f)
				if err != nil {
					fmt.Fprintln(c.App.ErrWriter, err)
					return exitError{exitFailed}
				}
				for _, p := range probs {
					fmt.Fprintln(c.App.ErrWriter, p)
				}
				bad += len(probs)
			}
			if bad > 0 {
				return exitError{exitSchema}
			}
			fmt.Fprintf(c.App.Writer, "%d files valid\n", c.NArg())
			return nil
		},
	}
}

func leakcheckCommand() *cli.Command {
	return &cli.Command{
		Name:      "leakcheck",
		Usage:     "check that no output (receipt, trace, saved stderr) carries raw content of an input log",
		UsageText: "convert leakcheck --input LOG [--input LOG...] [--converter NAME] FILE...",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "input", Aliases: []string{"i"}, Required: true, Usage: "a source `LOG` the outputs were made from; repeat it for a session's companion files (subagent transcripts, .meta.json sidecars)"},
			&cli.StringFlag{Name: "converter", Aliases: []string{"c"}, Value: "auto", Usage: "converter whose pass-through fields apply (auto: detect from LOG)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageError("leakcheck needs at least one FILE to check")
			}
			inputs := c.StringSlice("input")
			findings, err := pipeline.LeakCheckFiles(inputs, c.String("converter"), c.Args().Slice())
			if err != nil {
				fmt.Fprintln(c.App.ErrWriter, err)
				return exitError{exitFailed}
			}
			for _, f := range findings {
				msg := fmt.Sprintf("leak: %s in %s", f.What, f.Where)
				if f.Line > 0 {
					msg += fmt.Sprintf(" (from input line %d)", f.Line)
				}
				fmt.Fprintln(c.App.ErrWriter, msg)
			}
			if len(findings) > 0 {
				return exitError{exitLeak}
			}
			fmt.Fprintf(c.App.Writer, "no leak: %d files checked against %s\n", c.NArg(), strings.Join(inputs, ", "))
			return nil
		},
	}
}
