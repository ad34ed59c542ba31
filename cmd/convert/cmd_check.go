package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/gate"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/prepare"
	"github.com/contextreceipts/convert/internal/untrusted"
	"github.com/urfave/cli/v2"
)

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check receipts against the schemas, traces against the OTLP/JSON rules, prepare's documents by their schema field",
		UsageText: "convert validate [--json] FILE|DIR...   (*.receipt.ndjson, *.otel.json, *.otel.jsonl, prepare's *.json; a DIR is walked for receipts and traces)",
		Flags:     []cli.Flag{jsonFlag},
		Action: func(c *cli.Context) error {
			cons := con(c)
			if c.NArg() == 0 {
				return usageError("validate needs at least one FILE or DIR")
			}
			files, err := expandFiles(c.Args().Slice(), outputSuffixes)
			if err != nil {
				return err
			}
			bad, notOutputs := 0, 0
			report := struct {
				Files      int      `json:"files"`
				Valid      bool     `json:"valid"`
				Problems   []string `json:"problems"`
				NotOutputs []string `json:"not_outputs"`
			}{Files: len(files), Problems: []string{}, NotOutputs: []string{}}
			for _, f := range files {
				probs, err := gate.ValidateFile(f)
				for i, p := range probs {
					probs[i] = screenProblem(f, p)
				}
				if err != nil { // the program's own words about the file: only its name is screened
					if rest, ok := strings.CutPrefix(err.Error(), f); ok {
						err = fmt.Errorf("%w", wrapped{displayPath(f) + rest, err})
					}
				}
				switch {
				case errors.Is(err, gate.ErrNotOutput):
					cons.Error("%v", err) // then the other files: one stray file is no reason to stop
					report.NotOutputs = append(report.NotOutputs, displayPath(f))
					notOutputs++
					continue
				case err != nil:
					cons.Error("%v", err)
					return exitError{exitFailed}
				}
				for _, p := range probs {
					cons.Error("%v", p)
				}
				report.Problems = append(report.Problems, probs...)
				bad += len(probs)
			}
			report.Valid = bad == 0 && notOutputs == 0
			if c.Bool("json") {
				if err := printJSON(c, report); err != nil {
					return err
				}
			}
			switch {
			case bad > 0:
				return exitError{exitSchema}
			case notOutputs > 0:
				return exitError{exitFailed} // not a schema violation: there was no output to violate one
			}
			if !c.Bool("json") {
				cons.Result("%d files valid", len(files))
			}
			return nil
		},
	}
}

// wrapped is an error with another text and the same cause.
type wrapped struct {
	text  string
	cause error
}

func (w wrapped) Error() string { return w.text }
func (w wrapped) Unwrap() error { return w.cause }

// screenProblem is a problem found in the file at path as validate prints
// it: the file named as messages name paths, and every word the validator
// quoted from the file (a key, a value, an event name) shown only when a
// written receipt could hold it, else by digest: the file may come from
// anywhere.
func screenProblem(path, p string) string {
	if rest, ok := strings.CutPrefix(p, path); ok {
		return displayPath(path) + untrusted.Message(rest)
	}
	return untrusted.Message(p)
}

func leakcheckCommand() *cli.Command {
	return &cli.Command{
		Name:  "leakcheck",
		Usage: "check that no output (receipt, trace, PreparedContext, recall effort, saved stderr) carries raw content of its inputs",
		UsageText: "convert leakcheck [--logs PATH]... [--hash-key-file FILE] [--reveal names] OUT...   (a run's --out folder: each output against the input its manifest records)\n" +
			"convert leakcheck --input LOG [--input LOG...] [--converter NAME] [--reveal names] FILE|DIR...   (a DIR is walked for receipts and traces)\n" +
			"convert leakcheck --artifacts FILE.jsonl [--artifacts ...] (--query Q | --query-file F) FILE...   (convert prepare's outputs)",
		Description: "With no --input, each OUT is a folder convert run wrote: every output is checked against the\n" +
			"input its .convert-manifest.json records for it (each agent's outputs against its own logs),\n" +
			"found again where the run read it: under --logs PATH (the PATHs given to run), or the agents'\n" +
			"default locations as a run with no PATH reads them. An input not found (moved, changed since)\n" +
			"leaves its outputs unchecked, and the check fails (exit 1) saying so.\n" +
			"A PreparedContext is checked by its receipt (its content is the injection, raw by design),\n" +
			"known by its schema field whatever the file is called.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "input", Aliases: []string{"i"}, Usage: "a source `LOG` the outputs were made from; repeat it for a session's companion files (subagent transcripts, .meta.json and .settings.json sidecars)"},
			&cli.StringSliceFlag{Name: "logs", Usage: "with no --input: a `PATH` the run read (repeatable; default: the agents' default locations)"},
			&cli.StringFlag{Name: "hash-key-file", Usage: "with no --input: the key `FILE` of a keyed run, to find its inputs by their keyed path digests", EnvVars: []string{"CONVERT_HASH_KEY_FILE"}},
			&cli.StringFlag{Name: "converter", Aliases: []string{"c"}, Value: "auto", Usage: "converter whose pass-through fields apply to every LOG (auto: each log's own kind, detected)"},
			&cli.StringFlag{Name: "reveal", Usage: "with --input: the --reveal value the outputs were made with (`names`: a model name no catalog knows was written in clear, and is checked as such; a run's folder records it in its manifest)"},
			&cli.StringSliceFlag{Name: "artifacts", Usage: "instead of --input: the artifacts `FILE.jsonl` a prepare store was loaded from"},
			&cli.StringFlag{Name: "query", Usage: "with --artifacts: the prepare query `TEXT`"},
			&cli.StringFlag{Name: "query-file", Usage: "with --artifacts: read the query from `FILE`"},
			jsonFlag,
		},
		Action: func(c *cli.Context) error {
			switch {
			case c.String("reveal") != "" && c.String("reveal") != "names":
				return usageError("--reveal takes one value: names")
			case c.IsSet("reveal") && c.IsSet("artifacts"):
				return usageError("--reveal goes with session logs, not --artifacts")
			case c.IsSet("input") && c.IsSet("artifacts"):
				return usageError("leakcheck takes --input (session logs) or --artifacts (prepare), not both")
			case c.NArg() == 0:
				return usageError("leakcheck needs at least one FILE to check")
			}
			if c.IsSet("artifacts") {
				return leakcheckPrepared(c)
			}
			if !c.IsSet("input") {
				if c.IsSet("converter") {
					return usageError("with no --input each input is read as its own kind: --converter goes with --input")
				}
				return leakcheckRun(c) // leakcheck_run.go
			}
			if c.IsSet("logs") {
				return usageError("--logs goes without --input (it is where a run's inputs are found again)")
			}
			if c.IsSet("query") || c.IsSet("query-file") {
				return usageError("--query and --query-file go with --artifacts")
			}
			return leakcheckLogs(c)
		},
	}
}

// otherNamedLogs are the files under dir that a format reads as logs
// whatever their ending (converters.IsDocumentPath) and that end neither
// in .jsonl nor in .json.
func otherNamedLogs(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !hasSuffix(p, []string{".jsonl", ".json"}) && converters.IsDocumentPath(p) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// leakcheckLogs checks outputs against the session logs they were made from.
func leakcheckLogs(c *cli.Context) error {
	cons := con(c)
	var inputs []string
	for _, in := range c.StringSlice("input") {
		st, err := os.Stat(in)
		if err != nil {
			return usageError("--input %s: %s", displayPath(in), reason(err))
		}
		if !st.IsDir() {
			inputs = append(inputs, in)
			continue
		}
		// A folder is every log, document and sidecar under it (.json: a
		// .meta.json or .settings.json sidecar, an OpenCode or Gemini CLI
		// session document, an OpenCode storage file): one session with
		// its companions, or several whose raw text all counts as raw.
		logs, err := expandFiles([]string{in}, []string{".jsonl", ".json"})
		if err != nil {
			return err
		}
		inputs = append(inputs, logs...)
		// and the logs a format knows by another name (OpenClaw's
		// archived transcripts, <id>.jsonl.reset.<time>), which run reads
		// in a walk too.
		inputs = append(inputs, otherNamedLogs(in)...)
	}
	// An empty file is no log (run skips it): it would fail detection.
	inputs = slices.DeleteFunc(inputs, func(p string) bool {
		st, err := os.Stat(p)
		return err == nil && st.Mode().IsRegular() && st.Size() == 0
	})
	if len(inputs) == 0 {
		return usageError("--input: every file given is empty: nothing to check against")
	}
	// The kind is detected from the first input: a log, not a sidecar.
	sidecar := func(p string) bool {
		return strings.HasSuffix(p, ".meta.json") || strings.HasSuffix(p, ".settings.json")
	}
	sort.SliceStable(inputs, func(i, j int) bool { return !sidecar(inputs[i]) && sidecar(inputs[j]) })
	files, err := expandFiles(c.Args().Slice(), outputSuffixes)
	if err != nil {
		return err
	}
	findings, err := pipeline.LeakCheckArgs(c.StringSlice("input"), c.String("converter"), inputs, files, c.String("reveal") == "names")
	if err != nil {
		cons.Error("%v", err)
		return exitError{exitFailed}
	}
	type found struct {
		What  string `json:"what"`
		Where string `json:"where"`
		Line  int    `json:"input_line,omitempty"`
	}
	report := struct {
		Files    int     `json:"files"`
		Inputs   int     `json:"inputs"`
		Leak     bool    `json:"leak"`
		Findings []found `json:"findings"`
	}{Files: len(files), Inputs: len(inputs), Leak: len(findings) > 0, Findings: []found{}}
	for _, f := range findings {
		msg := fmt.Sprintf("leak: %s in %s", f.What, f.Where)
		if f.Line > 0 {
			msg += fmt.Sprintf(" (from input line %d)", f.Line)
		}
		cons.Error("%s", msg)
		report.Findings = append(report.Findings, found{f.What, fmt.Sprint(f.Where), f.Line})
	}
	if c.Bool("json") {
		if err := printJSON(c, report); err != nil {
			return err
		}
	}
	if len(findings) > 0 {
		return exitError{exitLeak}
	}
	if !c.Bool("json") {
		var shown []string
		for _, in := range c.StringSlice("input") {
			shown = append(shown, displayPath(in))
		}
		cons.Result("no leak: %d files checked against %s", len(files), strings.Join(shown, ", "))
	}
	return nil
}

// leakcheckPrepared checks convert prepare's outputs against the query and
// every artifact body (the identities the artifacts name pass through).
func leakcheckPrepared(c *cli.Context) error {
	cons := con(c)
	if c.IsSet("query") == c.IsSet("query-file") {
		return usageError("leakcheck --artifacts needs exactly one of --query and --query-file")
	}
	query := c.String("query")
	if f := c.String("query-file"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return usageError("--query-file: cannot read %s", f)
		}
		query = string(b)
	}
	var bodies, pass []string
	for _, a := range c.StringSlice("artifacts") {
		b, err := os.ReadFile(a)
		if err != nil {
			return usageError("--artifacts %s: %s", a, reason(err))
		}
		bs, ps, err := prepare.ArtifactBodies(b, a)
		if err != nil {
			cons.Error("convert: %v", err)
			return exitError{exitFailed}
		}
		bodies, pass = append(bodies, bs...), append(pass, ps...)
	}
	files, err := expandFiles(c.Args().Slice(), outputSuffixes)
	if err != nil {
		return err
	}
	outs := gate.NewOutputs()
	for _, f := range files {
		if err = outs.AddFile(f, gate.DerivedFields); err != nil {
			break
		}
	}
	if err != nil {
		cons.Error("convert: %v", err)
		return exitError{exitFailed}
	}
	findings := prepare.Probe(outs, query, bodies, pass)
	for _, f := range findings {
		cons.Error("leak: %s in %s", f.What, f.Where)
	}
	if len(findings) > 0 {
		return exitError{exitLeak}
	}
	cons.Result("no leak: %d files checked against the query and %d artifact bodies", len(files), len(bodies))
	return nil
}
