package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/contextreceipts/convert/internal/outfile"
	"github.com/contextreceipts/convert/internal/report"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "what entered the agents' runs across a history: tables, JSON, Markdown or one HTML page, from receipts or the logs themselves",
		UsageText: "convert report [--format table|json|markdown|html] [--out FILE] [--by day|week|month|session|project|agent|model] [--since DATE] [--until DATE] [--session ID]... [--timezone ZONE] [--prices FILE | --no-cost] PATH...",
		Description: "PATH: receipt files or folders of them (what convert run wrote), or native logs and their folders,\n" +
			"converted in the same run through the same pipeline and leak check (no receipt is written unless\n" +
			"--out-receipts DIR). A folder holding any *.receipt.ndjson is read as receipts. Sessions, agents,\n" +
			"tokens per model, instruction files and other context inputs, audit gaps, skills, MCP, memory,\n" +
			"compaction, subagents and conversion health, grouped by --by. Exit 0; 1 when a receipt could not be\n" +
			"read or a log did not convert (the report covers the rest); 2 usage; 3 a leak: nothing written.",
		Flags:  reportFlags(),
		Action: reportAction,
	}
}

// reportFlags are report's flags (docs/usage.md, convert report).
func reportFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: "table", Usage: "`FORMAT`: table, json, markdown or html"},
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "write the report to `FILE` instead of stdout"},
		&cli.StringFlag{Name: "by", Value: "day", Usage: "group by `KEY`: day, week, month (each response's tokens in the period it was made in), session, project, agent or model"},
		&cli.StringFlag{Name: "since", Usage: "sessions starting on or after `DATE` (2026-07-01, 20260701 or an RFC 3339 time)"},
		&cli.StringFlag{Name: "until", Usage: "sessions starting before the end of `DATE` (a day is included whole)"},
		&cli.StringSliceFlag{Name: "session", Usage: "only the sessions whose id starts with `ID` (a prefix; repeat the flag for more)"},
		&cli.StringFlag{Name: "timezone", Aliases: []string{"z"}, Usage: "the IANA time `ZONE` days, weeks and months are counted in, --since/--until days too (default: the system's zone)"},
		&cli.StringFlag{Name: "prices", Usage: "price table `FILE` (JSON: model -> input, output, cache_read, cache_write in USD per million tokens) whose entries come before the model catalog's prices, model by model"},
		&cli.BoolFlag{Name: "no-cost", Usage: "leave cost out (no price table, no cost column)"},
		&cli.StringFlag{Name: "reveal", Usage: "`names`: convert logs with MCP, skill and subagent-type names in clear, as convert run --reveal names does"},
		&cli.StringFlag{Name: "out-receipts", Usage: "also write the receipts and traces of the logs converted here to `DIR` (as convert run --out DIR --force)"},
		&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Usage: "logs converted in parallel (0: one per CPU)"},
		&cli.IntFlag{Name: "timelines", Value: 50, Usage: "html: draw the timelines of the `N` most recent sessions (-1: all)"},
	}
}

// reportAction reads the receipts and logs the arguments name, builds the
// report, leak-checks it and writes it. Nothing is written when the check
// finds raw input in it.
func reportAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageError("report needs at least one PATH (receipts, logs, or folders of them)")
	}
	format, opt, err := reportOptions(c)
	if err != nil {
		return err
	}
	stderr := c.App.ErrWriter
	loaded, err := report.Load(c.Context, c.Args().Slice(), report.LoadOptions{
		Reveal: c.String("reveal") == "names", OutReceipts: c.String("out-receipts"), Jobs: c.Int("jobs"),
		Traces: format == "html", Stderr: stderr, Name: displayInput, // names.go: no message carries a folder
	})
	if err != nil {
		return usageError("report: %v", err)
	}
	r := loaded.Report(opt)
	if len(opt.Sessions) > 0 && r.Sources.NotSelected == len(loaded.Sessions) {
		return usageError("--session: no session id of the %d sessions read starts with that prefix (convert report --by session lists them)", len(loaded.Sessions))
	}
	if errs := r.PriceErrors(); len(errs) > 0 {
		// A partial price entry is refused, never priced at 0.
		for _, e := range errs {
			fmt.Fprintln(stderr, "convert: report: --prices: "+e)
		}
		return exitError{exitUsage}
	}
	if format == "html" {
		if err := report.AddTimelines(r, opt.Timelines); err != nil {
			fmt.Fprintln(stderr, "convert: report: "+err.Error())
			return exitError{exitFailed}
		}
	}
	if err := leakCheckReport(stderr, loaded, r); err != nil {
		return err
	}
	out, err := renderReport(c, format, r)
	if err != nil {
		return err
	}
	if err := writeReport(c, r, out); err != nil {
		return err
	}
	return reportExit(stderr, loaded)
}

// reportOptions checks report's flags (a bad one is a usage error) and
// returns the format and the report's options.
func reportOptions(c *cli.Context) (format string, opt report.Options, err error) {
	format = c.String("format")
	if !slices.Contains([]string{"table", "json", "markdown", "html"}, format) {
		return "", opt, usageError("--format takes table, json, markdown or html")
	}
	opt = report.Options{By: c.String("by"), Timelines: c.Int("timelines"), Sessions: c.StringSlice("session")}
	for _, p := range opt.Sessions {
		if p == "" {
			return "", opt, usageError("--session takes a session id or the start of one")
		}
	}
	if !slices.Contains(report.Bys, opt.By) {
		return "", opt, usageError("--by takes %s", strings.Join(report.Bys, ", "))
	}
	if opt.Location, err = reportZone(c.String("timezone")); err != nil {
		return "", opt, usageError("--timezone: %v", err)
	}
	if v := c.String("since"); v != "" {
		if opt.Since, err = report.ParseDate(v, false, opt.Location); err != nil {
			return "", opt, usageError("--since: %v", err)
		}
		opt.SinceText = v
	}
	if v := c.String("until"); v != "" {
		if opt.Until, err = report.ParseDate(v, true, opt.Location); err != nil {
			return "", opt, usageError("--until: %v", err)
		}
		opt.UntilText = v
	}
	if r := c.String("reveal"); r != "" && r != "names" {
		return "", opt, usageError("--reveal takes one value: names")
	}
	if c.Int("jobs") < 0 {
		return "", opt, usageError("--jobs must not be negative")
	}
	if err := reportPrices(c, &opt); err != nil {
		return "", opt, err
	}
	return format, opt, nil
}

// reportPrices sets the report's prices: the model catalog's, after a
// --prices file's entries; none with --no-cost.
func reportPrices(c *cli.Context, opt *report.Options) error {
	if c.Bool("no-cost") {
		if c.String("prices") != "" {
			return usageError("--no-cost leaves cost out: give --prices or --no-cost, not both")
		}
		return nil
	}
	opt.Prices, opt.Catalog = report.Bundled()
	if p := c.String("prices"); p != "" {
		file, err := report.LoadPrices(p)
		if err != nil {
			return usageError("--prices: %v", err)
		}
		opt.Prices, opt.PriceFile = opt.Prices.Merge(file), true
	}
	return nil
}

// leakCheckReport fails closed: a report that would carry a raw input
// string is not written (exit 3), and the findings name where, never what.
func leakCheckReport(stderr io.Writer, loaded *report.Loaded, r *report.Report) error {
	findings, err := loaded.LeakCheck(r)
	if err != nil {
		fmt.Fprintln(stderr, "convert: report: leak check: "+err.Error())
		return exitError{exitFailed}
	}
	if len(findings) > 0 {
		for _, f := range findings {
			fmt.Fprintf(stderr, "convert: report: leak: %s\n", f)
		}
		fmt.Fprintln(stderr, "convert: report: the report would have carried raw input; nothing written")
		return exitError{exitLeak}
	}
	return nil
}

// renderReport writes r in format; a JSON report is validated against its
// schema first. The table is in colour only on a terminal, without --out
// and NO_COLOR.
func renderReport(c *cli.Context, format string, r *report.Report) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	switch format {
	case "json":
		if err := report.Validate(r); err != nil {
			fmt.Fprintln(c.App.ErrWriter, "convert: report: "+err.Error())
			return nil, exitError{exitSchema}
		}
		err = report.WriteJSON(&buf, r)
	case "markdown":
		err = report.WriteMarkdown(&buf, r)
	case "html":
		err = report.WriteHTML(&buf, r)
	default:
		color := c.String("out") == "" && isTerminal(con(c).out) && os.Getenv("NO_COLOR") == ""
		err = report.WriteTableWidth(&buf, r, color, tableColumns(c))
	}
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// tableColumns is the width the table fits: $COLUMNS when set, else the
// terminal's when stdout is one; 0 (no limit) for --out or a pipe.
func tableColumns(c *cli.Context) int {
	if c.String("out") != "" {
		return 0
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := con(c).out.(*os.File); ok && isTerminal(f) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 0
}

// writeReport writes the rendered report to --out (a file whole or not at
// all; a device or FIFO in place, see outfile), or to stdout.
func writeReport(c *cli.Context, r *report.Report, data []byte) error {
	out := c.String("out")
	if out == "" {
		_, err := c.App.Writer.Write(data)
		return err
	}
	if err := outfile.Write(out, data); err != nil {
		fmt.Fprintf(c.App.ErrWriter, "convert: report: %s: cannot write the report: %v\n", out, err)
		return exitError{exitFailed}
	}
	fmt.Fprintf(c.App.ErrWriter, "convert: report of %d sessions written to %s\n", r.Sources.SessionsInRange, out)
	return nil
}

// reportExit is the exit of a report that was written: 3 when logs were
// left out because their receipts would have carried raw input, 1 when a
// receipt could not be read or a log did not convert.
func reportExit(stderr io.Writer, loaded *report.Loaded) error {
	if loaded.Leaks > 0 {
		// As convert run: nothing of those logs was written, nor entered the report.
		fmt.Fprintf(stderr, "convert: report: %d logs left out: their receipts would have carried raw input\n", loaded.Leaks)
		return exitError{exitLeak}
	}
	if loaded.Failed > 0 || loaded.Sources.Unreadable > 0 {
		return exitError{exitFailed}
	}
	return nil
}

// reportZone is the zone of --timezone, or the system's: $TZ, else the
// zone /etc/localtime links to, else the process's local zone.
func reportZone(name string) (*time.Location, error) {
	if name == "" {
		name = os.Getenv("TZ")
	}
	if name == "" {
		if p, err := filepath.EvalSymlinks("/etc/localtime"); err == nil {
			if _, zone, ok := strings.Cut(filepath.ToSlash(p), "/zoneinfo/"); ok {
				name = zone
			}
		}
	}
	if name == "" {
		return time.Local, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("%q is not an IANA time zone (Europe/Berlin, UTC)", name)
	}
	return loc, nil
}
