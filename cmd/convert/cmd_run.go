package main

import (
	"bufio"
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
		Description: "For each input X.jsonl writes DIR/X.receipt.ndjson and DIR/X.otel.json. Directories are walked\n" +
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
			&cli.StringFlag{Name: "otel-format", Value: "json", Usage: "`FORMAT` of the trace file: json (one indented OTLP/JSON document, X.otel.json) or jsonl (the OTLP file-exporter layout, one TracesData per line, X.otel.jsonl)"},
			&cli.StringFlag{Name: "service-name", EnvVars: []string{"OTEL_SERVICE_NAME"}, Usage: "the traces' service.name (default: the agent, e.g. claude-code, codex)"},
			&cli.BoolFlag{Name: "legacy-genai-names", EnvVars: []string{"CONVERT_LEGACY_GENAI_NAMES"}, Usage: "also write, next to each GenAI trace attribute the conventions renamed, its old name (gen_ai.usage.cache_creation.input_tokens), for dashboards not yet moved; also CONVERT_LEGACY_GENAI_NAMES=true"},
			&cli.StringFlag{Name: "reveal", Usage: "`names`: write MCP server and tool names, skill names and subagent types in clear instead of as digests (never content)"},
			&cli.StringFlag{Name: "shard", Usage: "convert only share `K/N` of the inputs (0 <= K < N), chosen by session id, so N workers given the same PATHs cover them exactly once"},
			&cli.StringFlag{Name: "hash-key-file", Usage: "keyed digests (HMAC-SHA256) with the key in `FILE`, so names and paths cannot be guessed from shared receipts; also CONVERT_HASH_KEY_FILE", EnvVars: []string{"CONVERT_HASH_KEY_FILE"}},
			&cli.BoolFlag{Name: "json", Usage: "print the run summary as one JSON object on stdout (schemas/run-summary.schema.json) instead of the closing table"},
		}, exportFlags()...),
		Action: runAction,
	}
}

func runAction(c *cli.Context) error {
	cons := con(c)
	args := c.Args().Slice()
	stdinIn := stdinReader
	var defaults []agentLogs // a run with no PATH: the agents found
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
			case <-c.Context.Done(): // a pipe nobody writes to: Ctrl-C still ends the run
				return c.Context.Err()
			}
			empty, stdinIn = errors.Is(err, io.EOF), br
			if empty {
				cons.Info("convert: no PATH given and standard input is empty: reading the agents' default locations instead (give - to convert standard input)")
			}
		}
		if !stdinPiped() || empty {
			var err error
			if args, defaults, err = defaultPaths(cons); err != nil { // run_defaults.go
				return err
			}
		}
	}
	for i, a := range args {
		if a == "/dev/stdin" || a == "/dev/fd/0" {
			args[i] = pipeline.StdinArg
		}
	}
	name := c.String("converter")
	if _, ok := converters.Lookup(name); name != "auto" && !ok {
		return usageError("unknown converter %q%s (convert list names them all)", name, didYouMean(name, converters.Names()))
	}
	if c.Int("jobs") < 0 || c.Int("max-line-bytes") < 0 {
		return usageError("--jobs and --max-line-bytes must not be negative")
	}
	if f := c.String("otel-format"); f != "json" && f != "jsonl" {
		return usageError("--otel-format takes json or jsonl")
	}
	if r := c.String("reveal"); r != "" && r != "names" {
		return usageError("--reveal takes one value: names")
	}
	var h receipt.Hasher
	if kf := c.String("hash-key-file"); kf != "" {
		key, err := os.ReadFile(kf)
		if err != nil {
			return usageError("--hash-key-file: cannot read the key file")
		}
		if h, err = receipt.NewKeyed([]byte(strings.TrimSpace(string(key)))); err != nil {
			return usageError("--hash-key-file: %v", err)
		}
	}
	stdins := 0
	for _, a := range args {
		if a == pipeline.StdinArg {
			stdins++
		}
	}
	if stdins > 1 {
		return usageError("- (standard input) can be given once")
	}
	if stdins == 1 {
		cleanup, err := pipeline.SpoolStdinContext(c.Context, stdinIn)
		if errors.Is(err, pipeline.ErrInterrupted) {
			return err // runContext: "convert: interrupted", exit 130
		}
		if err != nil {
			return usageError("%v", err)
		}
		defer cleanup()
	}
	var ins []pipeline.Input
	var err error
	if defaults != nil {
		ins, err = defaultInputs(defaults)
	} else {
		ins, err = pipeline.Expand(args)
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
		return usageError("%v", ae)
	case err != nil:
		return usageError("%v", err)
	case len(ins) == 0:
		return usageError("no *.jsonl input found under %s", strings.Join(args, " "))
	}
	pipeline.NameInputs(ins, displayInput) // names.go: no message carries an input's folders
	if s := c.String("shard"); s != "" {
		k, n, err := pipeline.ParseShard(s)
		if err != nil {
			return usageError("--shard: %v", err)
		}
		ins = pipeline.Shard(ins, k, n)
	}
	exp, err := exportHook(c)
	if err != nil {
		return err
	}
	converting := setMemoryLimit()
	opt := pipeline.RunOptions{
		Options: pipeline.Options{Converter: name, Strict: c.Bool("strict"), MaxLine: c.Int("max-line-bytes"), Hash: h,
			Reveal: c.String("reveal") == "names", ServiceName: c.String("service-name"), LegacyGenAINames: c.Bool("legacy-genai-names")},
		Out: c.String("out"), Jobs: c.Int("jobs"), OTelFormat: c.String("otel-format"),
		Force: c.Bool("force"), Reexport: c.Bool("reexport"),
		Progress: cons.Progress, Converting: converting,
		Messages: func(m pipeline.Message) {
			if m.Kind == pipeline.Failure {
				cons.Error("%s", m.Text)
			} else {
				cons.Warn("%s", m.Text)
			}
		},
	}
	if exp != nil {
		opt.AfterWrite, opt.ExportEndpoint = afterWrite(exp), exp.Name()
	}
	if defaults != nil {
		migrateLayout(cons, opt.Out, defaults)
	}
	oc := pipeline.Run(c.Context, ins, opt, nil)
	interrupted := c.Context.Err() != nil
	sum := newSummary(oc, opt, interrupted)
	if c.Bool("json") {
		if err := printSummaryJSON(cons, sum); err != nil {
			return err
		}
	} else {
		printOutcome(cons, sum)
	}
	return exitError{sum.ExitCode}
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
