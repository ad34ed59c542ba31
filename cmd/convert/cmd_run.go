package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/urfave/cli/v2"
)

// stdinReader is standard input; tests replace it.
var stdinReader io.Reader = os.Stdin

// stdinPiped reports whether standard input is a pipe or a file (not a
// terminal, not /dev/null): convert run with no PATH then reads it.
var stdinPiped = func() bool {
	st, err := os.Stdin.Stat()
	return err == nil && (st.Mode()&os.ModeNamedPipe != 0 || st.Mode().IsRegular())
}

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "convert JSONL logs (files, directories or - for standard input) to receipts and traces",
		UsageText: "convert run [--converter NAME|auto] [--out DIR] [--jobs N] [--strict] [--json] [--reveal names] [--hash-key-file FILE] PATH...|-\n" +
			"   ... | convert run [flags]   (no PATH, standard input a pipe or file that is not empty: reads it)\n" +
			"   convert run [flags]         (no PATH, standard input a terminal: every agent's default log folders that exist, e.g. ~/.claude/projects, ~/.codex/sessions)",
		Description: "For each input X.jsonl writes DIR/X.receipt.ndjson and DIR/X.otel.jsonl. Directories are walked\n" +
			"in sorted order (*.jsonl files) and their layout is mirrored under DIR; with several directories\n" +
			"each keeps its own subtree (DIR/<name>/...). - reads standard input (DIR/stdin.*). Empty files are\n" +
			"skipped and counted. Bad lines are skipped, counted in the summary event and reported on stderr as\n" +
			"path:line: converter: reason.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "converter", Aliases: []string{"c"}, Value: "auto", Usage: "converter `NAME` (see convert list), or auto to detect it from each input"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "receipts", Usage: "output `DIR`"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: 0, Usage: "inputs converted in parallel (0: one per CPU)"},
			&cli.BoolFlag{Name: "force", Usage: "convert every input again, even those unchanged since the last run into --out (see .convert-manifest.json there)"},
			&cli.BoolFlag{Name: "strict", Usage: "fail an input on any bad line instead of skipping it"},
			&cli.IntFlag{Name: "max-line-bytes", Value: 0, Usage: "longest line converted; longer lines are skipped (0: 64 MiB)"},
			&cli.StringFlag{Name: "otel-format", Value: "jsonl", Usage: "`FORMAT` of the trace file: jsonl (the OpenTelemetry file-exporter layout the Collector's otlpjsonfile receiver reads: one compact TracesData per line, X.otel.jsonl) or json (one indented OTLP/JSON document for reading by eye, X.otel.json)"},
			&cli.StringFlag{Name: "service-name", Usage: "the traces' service.name (default: the agent, e.g. claude-code, codex); OTEL_SERVICE_NAME changes the exported traces only"},
			&cli.BoolFlag{Name: "legacy-genai-names", EnvVars: []string{"CONVERT_LEGACY_GENAI_NAMES"}, Usage: "also write, next to each GenAI trace attribute the conventions renamed, its old name (gen_ai.usage.cache_creation.input_tokens), for dashboards not yet moved; also CONVERT_LEGACY_GENAI_NAMES=true"},
			&cli.StringFlag{Name: "reveal", Usage: "`names`: write MCP server and tool names, skill names and subagent types in clear instead of as digests (never content)"},
			&cli.StringFlag{Name: "shard", Usage: "convert only share `K/N` of the inputs (0 <= K < N), chosen by session id, so N workers given the same PATHs cover them exactly once"},
			&cli.StringFlag{Name: "hash-key-file", Usage: "keyed digests (HMAC-SHA256) with the key in `FILE`, so names and paths cannot be guessed from shared receipts; also CONVERT_HASH_KEY_FILE", EnvVars: []string{"CONVERT_HASH_KEY_FILE"}},
			&cli.BoolFlag{Name: "json", Usage: "print the run summary as one JSON object on stdout (schemas/run-summary.schema.json) instead of the closing table"},
		}, exportFlags()...),
		Action: runAction,
	}
}

// runAction converts the inputs the arguments name (or the ones it picks
// when none are given) and prints the run's outcome; its exit code is the
// summary's.
func runAction(c *cli.Context) error {
	cons := con(c)
	p, err := runArgs(c.Context, cons, c.Args().Slice())
	if err != nil {
		return err
	}
	name, h, err := runFlags(c)
	if err != nil {
		return err
	}
	opt := runOptions(c, cons, name, h)
	if p.defaults == nil { // a default run may migrate an older layout's manifest first
		opt.Manifest = pipeline.PrefetchManifest(opt.Out, opt.Hash)
	}
	ins, cleanup, err := runInputs(c, p, inputNamer(cons.tty, h))
	if err != nil {
		return err
	}
	defer cleanup()
	exp, err := exportHook(c, cons)
	if err != nil {
		return err
	}
	var clock *busyClock // the time spent exporting, told apart
	if exp != nil {
		defer exp.Close()
		clock = &busyClock{}
		opt.AfterWrite, opt.ExportEndpoint = afterWrite(exp, clock), exp.Key()
	}
	if p.defaults != nil {
		migrateLayout(cons, opt.Out, p.defaults)
	}
	oc := pipeline.Run(c.Context, ins, opt, nil)
	interrupted := c.Context.Err() != nil
	sum := newSummary(oc, opt, interrupted)
	if exp != nil {
		sum.setExport(exp, clock.Total())
	}
	if c.Bool("json") {
		if err := printSummaryJSON(cons, sum); err != nil {
			return err
		}
	} else {
		printOutcome(cons, sum)
	}
	return exitError{sum.ExitCode}
}

// runPaths is what a run reads.
type runPaths struct {
	args     []string
	stdin    io.Reader   // standard input as it is to be read (after a peek)
	defaults []agentLogs // a run with no PATH: the agents found
}

// runArgs is what run reads: the PATHs given, or with none standard input
// when it is a pipe or file that is not empty, else the agents' default
// locations. /dev/stdin and /dev/fd/0 are standard input (-).
func runArgs(ctx context.Context, cons *console, args []string) (runPaths, error) {
	stdinIn := stdinReader
	var defaults []agentLogs
	if len(args) == 0 {
		args = []string{pipeline.StdinArg}
		empty := false
		if stdinPiped() {
			// An empty pipe or file on standard input (CI, ssh or docker
			// exec without a terminal) is no log: read the default folders,
			// as with a terminal, and say why.
			br := bufio.NewReader(stdinReader)
			peeked := make(chan error, 1)
			go func() { _, err := br.Peek(1); peeked <- err }()
			var err error
			select {
			case err = <-peeked:
			case <-ctx.Done(): // a pipe nobody writes to: Ctrl-C still ends the run
				return runPaths{}, ctx.Err()
			}
			empty, stdinIn = errors.Is(err, io.EOF), br
			if empty {
				cons.Info("convert: no PATH given and standard input is empty: reading the agents' default locations instead (give - to convert standard input)")
			}
		}
		if !stdinPiped() || empty {
			var err error
			if args, defaults, err = defaultPaths(cons); err != nil { // run_defaults.go
				return runPaths{}, err
			}
		}
	}
	for i, a := range args {
		if a == "/dev/stdin" || a == "/dev/fd/0" {
			args[i] = pipeline.StdinArg
		}
	}
	return runPaths{args: args, stdin: stdinIn, defaults: defaults}, nil
}

// runFlags checks run's flags (a bad one is a usage error) and returns
// the converter's name and the hasher: keyed when --hash-key-file names a
// key.
func runFlags(c *cli.Context) (name string, h receipt.Hasher, _ error) {
	name = c.String("converter")
	if _, ok := converters.Lookup(name); name != "auto" && !ok {
		return "", h, usageError("unknown converter %q%s (convert list names them all)", name, didYouMean(name, converters.Names()))
	}
	if c.Int("jobs") < 0 || c.Int("max-line-bytes") < 0 {
		return "", h, usageError("--jobs and --max-line-bytes must not be negative")
	}
	if f := c.String("otel-format"); f != "json" && f != "jsonl" {
		return "", h, usageError("--otel-format takes json or jsonl")
	}
	if r := c.String("reveal"); r != "" && r != "names" {
		return "", h, usageError("--reveal takes one value: names")
	}
	if kf := c.String("hash-key-file"); kf != "" {
		key, err := os.ReadFile(kf)
		if err != nil {
			return "", h, usageError("--hash-key-file: cannot read the key file")
		}
		if h, err = receipt.NewKeyed([]byte(strings.TrimSpace(string(key)))); err != nil {
			return "", h, usageError("--hash-key-file: %v", err)
		}
	}
	return name, h, nil
}

// runInputs expands p into the inputs of this run (this shard's, with
// --shard), standard input spooled to a temporary file when it is one of
// them; a run given no PATH takes the default locations' inputs. cleanup removes the spool; it is not nil when err is nil, and an
// error leaves nothing to clean up.
func runInputs(c *cli.Context, p runPaths, name func(n int, arg, path string) string) (ins []pipeline.Input, cleanup func(), err error) {
	args := p.args
	stdins := 0
	for _, a := range args {
		if a == pipeline.StdinArg {
			stdins++
		}
	}
	if stdins > 1 {
		return nil, nil, usageError("- (standard input) can be given once")
	}
	spool := func() {}
	if stdins == 1 {
		if spool, err = pipeline.SpoolStdinContext(c.Context, p.stdin); err != nil {
			if errors.Is(err, pipeline.ErrInterrupted) {
				return nil, nil, err // runContext: "convert: interrupted", exit 130
			}
			return nil, nil, usageError("%v", err)
		}
	}
	defer func() {
		if err != nil {
			spool()
		}
	}()
	if p.defaults != nil {
		ins, err = defaultInputs(c.Context, p.defaults)
	} else {
		ins, err = pipeline.ExpandContext(c.Context, args)
	}
	var ae *pipeline.ArgError
	switch {
	case errors.As(err, &ae):
		if ae.Arg != "" {
			ae.Arg = displayPath(ae.Arg)
		}
		if ae.Other != "" {
			ae.Other = displayPath(ae.Other)
		}
		return nil, nil, usageError("%v", ae)
	case err != nil:
		return nil, nil, usageError("%v", err)
	case len(ins) == 0:
		return nil, nil, usageError("no *.jsonl input found under %s", strings.Join(args, " "))
	}
	pipeline.NameInputs(ins, name) // names.go: no message carries an input's folders, nor a shared one a user's file name
	if s := c.String("shard"); s != "" {
		k, n, err := pipeline.ParseShard(s)
		if err != nil {
			return nil, nil, usageError("--shard: %v", err)
		}
		ins = pipeline.Shard(ins, k, n)
	}
	return ins, spool, nil
}

// runOptions are the pipeline's options for run's flags. It sets the
// memory limit (setMemoryLimit), so it is called once, just before the
// run.
func runOptions(c *cli.Context, cons *console, name string, h receipt.Hasher) pipeline.RunOptions {
	return pipeline.RunOptions{
		Options: pipeline.Options{Converter: name, Strict: c.Bool("strict"), MaxLine: c.Int("max-line-bytes"), Hash: h,
			Reveal: c.String("reveal") == "names", ServiceName: c.String("service-name"), LegacyGenAINames: c.Bool("legacy-genai-names"),
			OTelFormat: c.String("otel-format")},
		Out: c.String("out"), Jobs: c.Int("jobs"),
		Force: c.Bool("force"), Reexport: c.Bool("reexport"),
		Progress: cons.progressLine(), Converting: setMemoryLimit(),
		Messages: func(m pipeline.Message) {
			if m.Kind == pipeline.Failure {
				cons.Error("%s", m.Text)
			} else {
				cons.Warn("%s", m.Text)
			}
		},
	}
}

// setMemoryLimit makes the soft memory limit follow the inputs being
// converted (memlimit.go), unless the user set GOMEMLIMIT. It returns what
// the pipeline calls as each input starts (RunOptions.Converting): nil
// when the user's limit stands.
func setMemoryLimit() func(size int64) (done func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	m := newMemoryLimit(os.Getenv("GOGC") == "")
	return m.converting
}
