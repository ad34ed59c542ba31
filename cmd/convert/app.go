package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/urfave/cli/v2"
)

// Exit codes: one small documented set (README, `convert --help`).
const (
	exitOK     = 0 // every input converted / every file valid / no leak
	exitFailed = 1 // one or more inputs failed; the others were converted
	exitUsage  = 2 // bad flags or arguments
	exitLeak   = 3 // an output would have carried raw input; nothing written for it
	exitSchema = 4 // an output broke its schema or the OTLP/JSON rules
)

const exitHelp = `EXIT CODES:
   0  every input converted (run), every file valid (validate), no leak (leakcheck)
   1  one or more inputs failed; the others were still converted
   2  usage error
   3  leak detected: an output would have carried raw input, nothing written for it
   4  schema violation in an output
   10-14  convert verify verdicts (see convert verify --help)`

// exitError carries an exit code out of an Action; its message (if any) was
// already printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func usageError(format string, a ...any) error {
	return usage{fmt.Sprintf(format, a...)}
}

type usage struct{ msg string }

func (u usage) Error() string { return u.msg }

func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:  "convert",
		Usage: "context receipts from AI coding agent logs, with nothing raw in them",
		Description: "convert reads JSONL session logs and writes, for each input X.jsonl, X.receipt.ndjson\n" +
			"(one receipt event per line: hashes, counts, buckets, categories, audit gaps) and X.otel.json\n" +
			"(OTLP/JSON trace). Every conversion runs a leak check and writes nothing when it fails.",
		CustomAppHelpTemplate: cli.AppHelpTemplate + "\n" + exitHelp + "\n",
		Writer:                stdout,
		ErrWriter:             stderr,
		HideHelpCommand:       true,
		Commands:              []*cli.Command{runCommand(), listCommand(), validateCommand(), leakcheckCommand(), signCommand(), keygenCommand(), verifyCommand(), auditCommand(), diffCommand(), prepareCommand(), hookCommand()},
		ExitErrHandler:        func(*cli.Context, error) {},
		CommandNotFound: func(c *cli.Context, name string) {
			fmt.Fprintf(stderr, "convert: unknown command %q (see convert --help)\n", name)
		},
		OnUsageError: func(c *cli.Context, err error, _ bool) error { return usage{err.Error()} },
	}
}

// run is main without os.Exit, so tests drive the whole CLI in process.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	app := newApp(stdout, stderr)
	err := app.RunContext(ctx, args)
	var ee exitError
	var ue usage
	switch {
	case err == nil:
		if len(args) > 1 && !strings.HasPrefix(args[1], "-") && app.Command(args[1]) == nil {
			return exitUsage
		}
		return exitOK
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "convert: "+ue.msg)
		return exitUsage
	default:
		fmt.Fprintln(stderr, "convert: "+err.Error())
		if strings.Contains(err.Error(), "flag provided but not defined") || strings.Contains(err.Error(), "Required flag") {
			return exitUsage
		}
		return exitFailed
	}
}
