package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/urfave/cli/v2"
)

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check receipts against the schemas and traces against the OTLP/JSON rules",
		UsageText: "convert validate FILE|DIR...   (*.receipt.ndjson, *.otel.json, *.otel.jsonl; a DIR is walked for them)",
		Action: func(c *cli.Context) error {
			cons := con(c)
			if c.NArg() == 0 {
				return usageError("validate needs at least one FILE or DIR")
			}
			files, err := expandFiles(c.Args().Slice(), outputSuffixes)
			if err != nil {
				return err
			}
			bad := 0
			for _, f := range files {
				probs, err := pipeline.ValidateFile(f)
				if err != nil {
					cons.Error("%v", err)
					return exitError{exitFailed}
				}
				for _, p := range probs {
					cons.Error("%v", p)
				}
				bad += len(probs)
			}
			if bad > 0 {
				return exitError{exitSchema}
			}
			cons.Result("%d files valid", len(files))
			return nil
		},
	}
}

func leakcheckCommand() *cli.Command {
	return &cli.Command{
		Name:      "leakcheck",
		Usage:     "check that no output (receipt, trace, saved stderr) carries raw content of an input log",
		UsageText: "convert leakcheck --input LOG [--input LOG...] [--converter NAME] FILE|DIR...   (a DIR is walked for receipts and traces)",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "input", Aliases: []string{"i"}, Required: true, Usage: "a source `LOG` the outputs were made from; repeat it for a session's companion files (subagent transcripts, .meta.json sidecars)"},
			&cli.StringFlag{Name: "converter", Aliases: []string{"c"}, Value: "auto", Usage: "converter whose pass-through fields apply (auto: detect from LOG)"},
		},
		Action: func(c *cli.Context) error {
			cons := con(c)
			if c.NArg() == 0 {
				return usageError("leakcheck needs at least one FILE to check")
			}
			inputs := c.StringSlice("input")
			for _, in := range inputs {
				if st, err := os.Stat(in); err != nil {
					return usageError("--input %s: %s", in, reason(err))
				} else if st.IsDir() {
					return usageError("--input %s is a directory; give the log file (repeat --input for its companions)", in)
				}
			}
			files, err := expandFiles(c.Args().Slice(), outputSuffixes)
			if err != nil {
				return err
			}
			findings, err := pipeline.LeakCheckFiles(inputs, c.String("converter"), files)
			if err != nil {
				cons.Error("%v", err)
				return exitError{exitFailed}
			}
			for _, f := range findings {
				msg := fmt.Sprintf("leak: %s in %s", f.What, f.Where)
				if f.Line > 0 {
					msg += fmt.Sprintf(" (from input line %d)", f.Line)
				}
				cons.Error("%s", msg)
			}
			if len(findings) > 0 {
				return exitError{exitLeak}
			}
			cons.Result("no leak: %d files checked against %s", len(files), strings.Join(inputs, ", "))
			return nil
		},
	}
}
