package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/urfave/cli/v2"
)

// Exit codes: one small documented set (docs/formats.md, "Exit codes";
// `convert --help`). Each
// comes from a typed error an Action returns (exitError, usage), never from
// matching message text.
const (
	exitOK          = 0   // every input converted / every file valid / no leak
	exitFailed      = 1   // one or more inputs failed; the others were converted
	exitUsage       = 2   // bad flags or arguments, or an argument that cannot be read
	exitLeak        = 3   // an output would have carried raw input; nothing written for it
	exitSchema      = 4   // an output broke its schema or the OTLP/JSON rules
	exitInterrupted = 130 // Ctrl-C (SIGINT) or SIGTERM: stopped cleanly, nothing partial written
)

const exitHelp = `EXIT CODES:
   0  every input converted (run), every file valid (validate), no leak (leakcheck)
   1  one or more inputs failed (or an export failed); the others were still converted
   2  usage error, or an argument that does not exist or cannot be read
   3  leak detected: an output would have carried raw input, nothing written for it
   4  schema violation in an output
   5  diff: a file is not a receipt (nothing compared)
  10-14  convert verify verdicts (see convert verify --help)
 130  interrupted (Ctrl-C): nothing partial written; run it again to continue`

// commit is set at build time (make build: -ldflags "-X main.commit=...");
// otherwise it comes from the Go build information when there is any.
var commit = ""

// versionLine is what convert --version and convert version print.
func versionLine() string {
	rev := commit
	if bi, ok := debug.ReadBuildInfo(); ok && rev == "" {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				rev = s.Value
			}
		}
	}
	if rev == "" {
		rev = "unknown"
	} else if len(rev) > 12 {
		rev = rev[:12]
	}
	return fmt.Sprintf("convert %s (commit %s, %s %s/%s)", pipeline.Version, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// exitError carries an exit code out of an Action; its message (if any) was
// already printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// usageError is a usage error: one line naming the fix, exit 2.
func usageError(format string, a ...any) error {
	return usage{fmt.Sprintf(format, a...)}
}

type usage struct{ msg string }

func (u usage) Error() string { return u.msg }

func newApp(stdout, stderr io.Writer) *cli.App {
	cons := newConsole(stdout, stderr)
	cli.VersionPrinter = func(c *cli.Context) { con(c).Data("%s", versionLine()) }
	app := &cli.App{
		Name:    "convert",
		Usage:   "context receipts from AI coding agent logs, with nothing raw in them",
		Version: pipeline.Version,
		Description: "convert reads JSONL session logs and writes, for each input X.jsonl, X.receipt.ndjson\n" +
			"(one receipt event per line: hashes, counts, buckets, categories, audit gaps) and X.otel.jsonl\n" +
			"(the OpenTelemetry file-exporter layout: one TracesData per line). Every conversion runs a leak check and writes nothing when it fails.\n" +
			"Flags go anywhere on the line (-- ends them); convert help COMMAND shows a command's flags.",
		CustomAppHelpTemplate: cli.AppHelpTemplate + "\n" + exitHelp + "\n",
		Metadata:              map[string]any{"console": cons},
		Writer:                cons.Stdout(),
		ErrWriter:             cons.Stderr(),
		HideHelpCommand:       true,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print errors only (any command, anywhere on the line)"},
		},
		Before: func(c *cli.Context) error {
			cons.quiet = c.Bool("quiet")
			return nil
		},
		Commands:       commands(),
		ExitErrHandler: func(*cli.Context, error) {},
		CommandNotFound: func(c *cli.Context, name string) {
			var names []string
			for _, cmd := range c.App.Commands {
				names = append(names, cmd.Name)
			}
			cons.Error("convert: unknown command %q%s (see convert --help)", name, didYouMean(name, names))
		},
		OnUsageError: func(c *cli.Context, err error, _ bool) error { return usage{flagProblem(err, c.App.Flags)} },
	}
	for _, cmd := range app.Commands {
		oneLineUsage(cmd, "convert "+cmd.Name)
	}
	return app
}

// commands is the list of subcommands, one per line for easy merging.
func commands() []*cli.Command {
	return []*cli.Command{
		runCommand(),
		listCommand(),
		validateCommand(),
		leakcheckCommand(),
		signCommand(),
		keygenCommand(),
		verifyCommand(),
		auditCommand(),
		diffCommand(),
		whichCommand(),
		reportCommand(),
		hookCommand(),
		prepareCommand(),
		versionCommand(),
	}
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:      "version",
		Usage:     "print the version, commit and Go version (also convert --version)",
		UsageText: "convert version",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageError("version takes no arguments")
			}
			con(c).Data("%s", versionLine())
			return nil
		},
	}
}

// oneLineUsage makes every flag-parsing problem of cmd and its subcommands a
// one-line usage error (urfave/cli prints the whole help otherwise), and
// checks required flags itself for the same reason.
func oneLineUsage(cmd *cli.Command, path string) {
	if cmd.OnUsageError == nil { // a command may handle its own (hook never fails its agent)
		cmd.OnUsageError = func(c *cli.Context, err error, _ bool) error {
			return usage{fmt.Sprintf("%s: %s (see %s --help)", strings.TrimPrefix(path, "convert "), flagProblem(err, cmd.Flags), path)}
		}
	}
	var required []string
	for _, f := range cmd.Flags {
		switch f := f.(type) {
		case *cli.StringFlag:
			if f.Required {
				f.Required, required = false, append(required, f.Name)
			}
		case *cli.StringSliceFlag:
			if f.Required {
				f.Required, required = false, append(required, f.Name)
			}
		case *cli.IntFlag:
			if f.Required {
				f.Required, required = false, append(required, f.Name)
			}
		}
	}
	if len(required) > 0 {
		before := cmd.Before
		cmd.Before = func(c *cli.Context) error {
			for _, r := range required {
				if !c.IsSet(r) {
					return usageError("%s needs --%s (see %s --help)", strings.TrimPrefix(path, "convert "), r, path)
				}
			}
			if before != nil {
				return before(c)
			}
			return nil
		}
	}
	for _, sub := range cmd.Subcommands {
		oneLineUsage(sub, path+" "+sub.Name)
	}
}

// flagProblem rewrites the flag package's messages as a user reads them;
// an unknown flag gets the nearest of flags, when one is near.
func flagProblem(err error, flags []cli.Flag) string {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "flag provided but not defined: "):
		name := strings.TrimLeft(strings.TrimPrefix(msg, "flag provided but not defined: "), "-")
		var names []string
		for _, f := range flags {
			for _, n := range f.Names() {
				if len(n) > 1 {
					names = append(names, n)
				}
			}
		}
		hint := ""
		if s := suggest(name, names); s != "" {
			hint = "; did you mean --" + s + "?"
		}
		return "unknown flag " + dashes(name) + hint
	case strings.HasPrefix(msg, "flag needs an argument: "):
		return dashes(strings.TrimPrefix(msg, "flag needs an argument: ")) + " needs a value"
	case strings.HasPrefix(msg, "invalid value "):
		// invalid value "abc" for flag -jobs: parse error
		rest := strings.TrimPrefix(msg, "invalid value ")
		if i := strings.Index(rest, " for flag "); i >= 0 {
			val, name := rest[:i], rest[i+len(" for flag "):]
			if j := strings.Index(name, ": "); j >= 0 {
				name = name[:j]
			}
			return fmt.Sprintf("%s does not take %s: %s", dashes(name), val, valueHint(name))
		}
	}
	return msg
}

func dashes(name string) string {
	name = strings.TrimLeft(name, "-")
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

func valueHint(name string) string {
	switch strings.TrimLeft(name, "-") {
	case "otlp-timeout":
		return "give a duration such as 10s or 500ms"
	case "reexport", "force", "strict", "json", "quiet", "q":
		return "it is a switch (--flag or --flag=false)"
	}
	return "give a whole number"
}

// run is main without os.Exit, so tests drive the whole CLI in process.
// SIGINT and SIGTERM cancel the context: the run stops cleanly, exit 130.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills the process at once, as it would without us
	}()
	return runContext(ctx, args, stdout, stderr)
}

// runContext is run under ctx (tests cancel it to interrupt).
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	app := newApp(stdout, stderr)
	cons := app.Metadata["console"].(*console)
	args, err := normalize(app, args)
	if err != nil {
		cons.Error("convert: %v", err)
		return exitUsage
	}
	err = app.RunContext(ctx, args)
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
		cons.Error("convert: %s", ue.msg)
		return exitUsage
	case ctx.Err() != nil:
		cons.Error("convert: interrupted")
		return exitInterrupted
	default:
		cons.Error("convert: %s", err.Error())
		return exitFailed
	}
}
