package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/contextreceipts/convert/internal/export"
	"github.com/contextreceipts/convert/internal/hook"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/urfave/cli/v2"
)

// A hook runs inside an agent: it must never block or break it. `convert
// hook AGENT` always exits 0 and prints nothing; it reads the payload,
// starts a detached worker (`convert hook worker`) that converts the
// session into the receipts directory and exports it, waits for it up to
// --budget, and leaves it running past that. Problems go to the log file,
// scrubbed of paths and raw values.

// hookStdin is where the payload is read from (tests replace it).
var hookStdin io.Reader = os.Stdin

// hookAgents maps the hook's agent name to its converter.
var hookAgents = map[string]string{"claude-code": "claude_code", "codex": "codex"}

// hookJob is what the front hands its worker, on the worker's stdin (never
// on the command line: headers can be credentials, paths are raw).
type hookJob struct {
	Agent       string            `json:"agent"`
	Event       string            `json:"event,omitempty"`
	Input       string            `json:"input"`
	Out         string            `json:"out"`
	Log         string            `json:"log"`
	Withhold    []string          `json:"withhold,omitempty"`
	HashKeyFile string            `json:"hash_key_file,omitempty"`
	ExportURL   string            `json:"export_url,omitempty"`
	Protocol    string            `json:"protocol,omitempty"`
	Compression string            `json:"compression,omitempty"`
	Insecure    bool              `json:"insecure,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	Resource    []export.Attr     `json:"resource,omitempty"`
	TimeoutMS   int64             `json:"timeout_ms,omitempty"`
	Retries     int               `json:"retries"`
	// LegacyGenAINames: CONVERT_LEGACY_GENAI_NAMES, as for convert run.
	LegacyGenAINames bool `json:"legacy_genai_names,omitempty"`
}

func hookCommand() *cli.Command {
	return &cli.Command{
		Name:  "hook",
		Usage: "convert the session an agent's hook names (claude-code, codex), or install that hook",
		Description: "convert hook claude-code reads a Claude Code hook payload on stdin; convert hook codex reads a Codex notify\n" +
			"payload (its last argument). Either converts that session, subagents included, into the receipts directory\n" +
			"and exports it when an OTLP endpoint is set. It always exits 0 and prints nothing; problems go to the log.",
		Subcommands: []*cli.Command{
			hookAgentCommand("claude-code"), hookAgentCommand("codex"),
			hookInstallCommand(false), hookInstallCommand(true), hookWorkerCommand(),
		},
	}
}

func hookAgentCommand(agent string) *cli.Command {
	return &cli.Command{
		Name:  agent,
		Usage: "convert the session named by a " + agent + " hook payload (run by the agent, see convert hook install)",
		UsageText: map[string]string{
			"claude-code": "convert hook claude-code [--out DIR] [--budget 2s] [--otlp-endpoint URL] < payload.json",
			"codex":       "convert hook codex [--out DIR] [--budget 2s] [--otlp-endpoint URL] PAYLOAD_JSON",
		}[agent],
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "receipts `DIR` (default: DATA/receipts/" + agent + ", DATA being convert's data directory, see README)"},
			&cli.StringFlag{Name: "log", Usage: "log `FILE` (default: DATA/hook.log)"},
			&cli.DurationFlag{Name: "budget", Value: 2 * time.Second, Usage: "return to the agent after `DURATION`; a longer conversion continues in the background"},
			&cli.BoolFlag{Name: "foreground", Usage: "convert in this process and wait for it, whatever the budget (to try it out)"},
			&cli.StringFlag{Name: "hash-key-file", Usage: "keyed digests with the key in `FILE`; also CONVERT_HASH_KEY_FILE", EnvVars: []string{"CONVERT_HASH_KEY_FILE"}},
			&cli.StringFlag{Name: "otlp-endpoint", Usage: "also export the trace to `URL` (http/* append /v1/traces); also OTEL_EXPORTER_OTLP_ENDPOINT (and the other OTEL_EXPORTER_OTLP_* variables)"},
			&cli.StringFlag{Name: "otlp-protocol", Usage: "`PROTOCOL` of the export: http/protobuf (default), http/json or grpc; also OTEL_EXPORTER_OTLP_PROTOCOL"},
			&cli.StringFlag{Name: "otlp-compression", Usage: "`COMPRESSION` of the export: gzip or none (default); also OTEL_EXPORTER_OTLP_COMPRESSION"},
			&cli.StringSliceFlag{Name: "otlp-header", Usage: "header `KEY=VALUE` for the export (repeatable); also OTEL_EXPORTER_OTLP_HEADERS"},
			&cli.DurationFlag{Name: "otlp-timeout", Usage: "export timeout, every attempt included (default 10s); also OTEL_EXPORTER_OTLP_TIMEOUT"},
		},
		// A hook never fails its agent, not even on a bad flag.
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			// Not the error itself: it quotes the command line.
			logFor(c, agent).Printf("hook %s: usage: a flag is not defined or has a bad value (see convert hook %s --help)", agent, agent)
			return nil
		},
		Action: func(c *cli.Context) error {
			lg := logFor(c, agent)
			defer func() {
				if p := recover(); p != nil {
					lg.Printf("hook %s: internal error: %v", agent, p)
				}
			}()
			hookFront(c, agent, lg)
			return nil
		},
	}
}

// dataDir is convert's per-user data directory (see hook.DataDir).
func dataDir() string {
	home, _ := os.UserHomeDir()
	return hook.DataDir(os.Getenv, runtime.GOOS, home)
}

func logFor(c *cli.Context, agent string) *hook.Log {
	p := c.String("log")
	if p == "" {
		p = filepath.Join(dataDir(), "hook.log")
	}
	return hook.OpenLog(p)
}

// hookFront is the part of the hook the agent waits for.
func hookFront(c *cli.Context, agent string, lg *hook.Log) {
	start := time.Now()
	budget := c.Duration("budget")
	if budget <= 0 {
		budget = 2 * time.Second
	}
	payload, err := readPayload(c, agent, min(budget/2, time.Second))
	if err != nil {
		lg.Printf("hook %s: %v", agent, err)
		return
	}
	var p hook.Payload
	if agent == "claude-code" {
		p, err = hook.ParseClaude(payload)
	} else {
		p, err = hook.ParseCodex(payload)
	}
	withhold := rawFields(payload)
	lg.Withhold(withhold...)
	if err != nil {
		lg.Printf("hook %s: %v", agent, err)
		return
	}
	if p.Transcript == "" { // Codex: find the rollout by thread id
		home, _ := os.UserHomeDir()
		if p.Transcript, err = hook.FindRollout(hook.CodexHome(os.Getenv, home), p.SessionID); err != nil {
			lg.Printf("hook %s %s: %v", agent, p.Event, err)
			return
		}
	}
	ref := hook.SessionRef(hookHasher(c.String("hash-key-file")), p.Transcript)
	if st, err := os.Stat(p.Transcript); err != nil || !st.Mode().IsRegular() {
		lg.Printf("hook %s %s %s: the session file is not there (or not a file)", agent, p.Event, ref)
		return
	}
	job, warnings, err := newHookJob(c, agent, p, withhold)
	if err != nil {
		lg.Printf("hook %s %s %s: %v (nothing converted)", agent, p.Event, ref, err)
		return
	}
	for _, w := range warnings {
		lg.Printf("hook %s %s %s: warning: %s", agent, p.Event, ref, w)
	}
	if c.Bool("foreground") {
		runHookJob(c.Context, job)
		return
	}
	remaining := budget - time.Since(start)
	done, err := startWorker(job)
	if err != nil { // no worker: convert here within the budget, or leave it for the next run
		lg.Printf("hook %s %s %s: no background worker (%v): converting in the hook", agent, p.Event, ref, err)
		ctx, cancel := context.WithTimeout(c.Context, remaining)
		defer cancel()
		runHookJob(ctx, job)
		return
	}
	select {
	case <-done:
	case <-time.After(remaining):
		lg.Printf("hook %s %s %s: still converting after %s: it continues in the background", agent, p.Event, ref, budget)
	}
}

// readPayload reads the payload: the last argument (Codex notify) or
// stdin, without waiting for an end of file that may never come (the
// first JSON value is enough) and for at most wait.
func readPayload(c *cli.Context, agent string, wait time.Duration) ([]byte, error) {
	if agent == "codex" && c.NArg() > 0 {
		a := c.Args().Get(c.NArg() - 1)
		if len(a) > hook.MaxPayload {
			return nil, errors.New("the payload argument is too long")
		}
		return []byte(a), nil
	}
	type read struct {
		b   []byte
		err error
	}
	ch := make(chan read, 1)
	stdin := hookStdin // the reader may outlive this call
	go func() {
		var raw json.RawMessage
		err := json.NewDecoder(io.LimitReader(stdin, hook.MaxPayload)).Decode(&raw)
		ch <- read{raw, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, errors.New("stdin holds no JSON payload")
		}
		return r.b, nil
	case <-time.After(wait):
		return nil, fmt.Errorf("no payload on stdin within %s", wait)
	}
}

// rawFields are the payload's string values a log line must never hold:
// the cwd, the transcript path and its directories, messages.
func rawFields(payload []byte) []string {
	var m map[string]any
	if json.Unmarshal(payload, &m) != nil {
		return nil
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			out = append(out, x)
			if filepath.IsAbs(x) {
				for d := filepath.Dir(x); d != filepath.Dir(d); d = filepath.Dir(d) {
					if b := filepath.Base(d); len(b) >= 8 {
						out = append(out, b)
					}
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for k, v := range m {
		switch k {
		case "session_id", "hook_event_name", "type", "thread-id", "turn-id", "permission_mode", "client":
			continue // ids and categories: what the log names sessions by
		}
		walk(v)
	}
	return out
}

// newHookJob is the worker's job; the warnings are about bad OTEL_*
// variables (each named, never its value), for the log.
func newHookJob(c *cli.Context, agent string, p hook.Payload, withhold []string) (hookJob, []string, error) {
	job := hookJob{Agent: agent, Event: p.Event, Input: p.Transcript, Out: c.String("out"), Log: c.String("log"),
		Withhold: withhold, HashKeyFile: c.String("hash-key-file"), Retries: export.DefaultRetries}
	if job.Out == "" {
		job.Out = filepath.Join(dataDir(), "receipts", agent)
	}
	if job.Log == "" {
		job.Log = filepath.Join(dataDir(), "hook.log")
	}
	// The worker converts from the session's directory: paths given
	// relative to the hook's are made absolute here.
	for _, p := range []*string{&job.Out, &job.Log, &job.HashKeyFile} {
		if *p != "" {
			if abs, err := filepath.Abs(*p); err == nil {
				*p = abs
			}
		}
	}
	env := export.FromEnv(os.Getenv)
	job.LegacyGenAINames, _ = strconv.ParseBool(os.Getenv("CONVERT_LEGACY_GENAI_NAMES"))
	set := export.Settings{Endpoint: c.String("otlp-endpoint"), Protocol: strings.TrimSpace(c.String("otlp-protocol")),
		Compression: strings.TrimSpace(c.String("otlp-compression")), Headers: c.StringSlice("otlp-header")}
	if d := c.Duration("otlp-timeout"); d > 0 {
		set.Timeout = d
	}
	cfg, warnings, err := export.Resolve(set, env)
	if err != nil {
		return job, nil, err
	}
	job.ExportURL, job.Protocol, job.Compression, job.Insecure = cfg.URL, cfg.Protocol, cfg.Compression, cfg.Insecure
	job.Headers, job.Resource, job.TimeoutMS = cfg.Headers, cfg.Resource, cfg.Timeout.Milliseconds()
	if cfg.URL == "" && env.Endpoint == "" && env.TracesEndpoint == "" {
		warnings = nil // no export, no noise about its variables
	}
	return job, warnings, nil
}

// startWorker starts `convert hook worker` detached from the agent (its
// own session, stdio on the null device, so the agent waits for neither)
// and returns a channel closed when it exits.
func startWorker(job hookJob) (<-chan struct{}, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(job)
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if len(b) > 60<<10 { // more than a pipe holds before the worker reads it
		w.Close()
		return nil, errors.New("the job is too large to hand over")
	}
	_, err = w.Write(b)
	w.Close()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "hook", "worker")
	cmd.Stdin = r
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	return done, nil
}

func hookWorkerCommand() *cli.Command {
	return &cli.Command{
		Name:   "worker",
		Hidden: true,
		Usage:  "the background half of convert hook (reads its job on stdin)",
		Action: func(c *cli.Context) error {
			var job hookJob
			b, err := io.ReadAll(io.LimitReader(hookStdin, 1<<20))
			if err == nil {
				err = json.Unmarshal(b, &job)
			}
			if err != nil || job.Input == "" || job.Out == "" {
				hook.OpenLog(filepath.Join(dataDir(), "hook.log")).Printf("hook worker: no job on stdin")
				return nil
			}
			runHookJob(c.Context, job)
			return nil
		},
	}
}

// runHookJob converts one session (incrementally: the manifest in the
// receipts directory skips a session unchanged since the last run), and
// for Codex the rollouts of its subagent threads, exports them, and logs
// one line.
func runHookJob(ctx context.Context, job hookJob) {
	lg, prefix := hookJobLog(job)
	defer func() {
		if p := recover(); p != nil {
			lg.Printf("%sinternal error: %v", prefix, p)
		}
	}()
	start := time.Now()
	opt, closeExport, exported, problem := hookJobOptions(job)
	defer closeExport()
	if problem != "" {
		lg.Printf("%s%s (nothing converted)", prefix, problem)
		return
	}
	ins, restore, err := hookJobInputs(ctx, job)
	defer restore()
	if err != nil {
		lg.Printf("%sthe session file cannot be read", prefix)
		return
	}
	pipeline.NameInputs(ins, displayInput)
	// One worker at a time per receipts directory (its manifest); a run
	// that waits converts the newer snapshot once the other is done.
	lockCtx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	unlock, err := hook.Lock(lockCtx, job.Out, 30*time.Minute)
	cancel()
	if err != nil {
		lg.Printf("%sanother hook run kept the receipts directory busy: left for the next run", prefix)
		return
	}
	defer unlock()
	opt.Converting = setMemoryLimit()
	msgs := lg.Writer(prefix)
	oc := pipeline.Run(ctx, ins, opt, msgs)
	msgs.Flush()
	logHookOutcome(lg, prefix, job.Agent, ins, oc, exported, time.Since(start).Round(time.Millisecond))
}

// hookHasher is the hasher of a hash key file: keyed when the file holds a
// usable key, else plain (hookJobOptions refuses the job then, before
// anything is named by it).
func hookHasher(keyFile string) receipt.Hasher {
	if keyFile == "" {
		return receipt.Hasher{}
	}
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return receipt.Hasher{}
	}
	h, err := receipt.NewKeyed([]byte(strings.TrimSpace(string(key))))
	if err != nil {
		return receipt.Hasher{}
	}
	return h
}

// hookJobLog opens the job's log, with the session's folder, the receipts
// folder and what the job withholds kept out of it, and the prefix of the
// job's lines (agent, event and a reference to the session, never its
// path).
func hookJobLog(job hookJob) (*hook.Log, string) {
	lg := hook.OpenLog(job.Log)
	lg.Withhold(job.Withhold...)
	dir := filepath.Dir(job.Input)
	lg.Replace(dir+string(filepath.Separator), "")
	lg.Replace(job.Out, "<receipts>")
	lg.Withhold(dir)
	prefix := fmt.Sprintf("hook %s %s %s: ", job.Agent, job.Event, hook.SessionRef(hookHasher(job.HashKeyFile), job.Input))
	return lg, strings.Replace(prefix, "  ", " ", 1)
}

// hookJobOptions are the pipeline's options for the job: its converter,
// the keyed hasher and the exporter it names. exported is what the log
// line adds when the traces are exported; problem, when not "", says why
// nothing can be converted.
func hookJobOptions(job hookJob) (opt pipeline.RunOptions, closeExport func(), exported, problem string) {
	closeExport = func() {}
	opt = pipeline.RunOptions{Options: pipeline.Options{Converter: hookAgents[job.Agent], LegacyGenAINames: job.LegacyGenAINames},
		Out: job.Out, Jobs: 1}
	if job.HashKeyFile != "" {
		key, err := os.ReadFile(job.HashKeyFile)
		if err == nil {
			opt.Hash, err = receipt.NewKeyed([]byte(strings.TrimSpace(string(key))))
		}
		if err != nil {
			return opt, closeExport, "", "the hash key file cannot be used"
		}
	}
	if job.ExportURL != "" {
		exp, err := export.New(export.Config{URL: job.ExportURL, Protocol: job.Protocol, Compression: job.Compression, Insecure: job.Insecure,
			Headers: job.Headers, Resource: job.Resource, Timeout: time.Duration(job.TimeoutMS) * time.Millisecond, Retries: job.Retries})
		if err != nil {
			return opt, closeExport, "", err.Error()
		}
		opt.AfterWrite = afterWrite(exp, nil)
		exported = ", exported"
		closeExport = func() { exp.Close() }
	}
	return opt, closeExport, exported, ""
}

// hookJobInputs are the session's inputs (and for Codex its subagent
// threads', for Claude Code its workflow runs'), each named by the agent's session id, or by a digest when
// its name may be raw. It converts from the session's own directory, so
// every path the pipeline keeps (the manifest's) or prints is relative to
// it: the directory names the user's project. restore returns to the
// working directory; it is never nil.
func hookJobInputs(ctx context.Context, job hookJob) (ins []pipeline.Input, restore func(), err error) {
	restore = func() {}
	dir := filepath.Dir(job.Input)
	paths := []string{job.Input}
	if job.Agent == "codex" { // each subagent thread has a rollout of its own
		paths = append(paths, hook.CodexSubagents(job.Input)...)
	}
	if job.Agent == "claude-code" { // each workflow run is a session of its own
		paths = append(paths, hook.ClaudeWorkflows(job.Input)...)
	}
	rels := make([]string, len(paths))
	h := hookHasher(job.HashKeyFile)
	for i, p := range paths {
		rels[i] = hook.InputName(h, p) // a session id, or a digest (keyed when keyed) of a name that may be raw
	}
	if wd, err := os.Getwd(); err == nil && os.Chdir(dir) == nil {
		restore = func() { os.Chdir(wd) }
		for i, p := range paths {
			if rel, err := filepath.Rel(dir, p); err == nil {
				paths[i] = rel
			}
		}
	}
	ins, err = pipeline.ExpandContext(ctx, paths) // the job's deadline and Ctrl-C stop a store's listing
	if err == nil && len(ins) != len(paths) {
		err = fmt.Errorf("%d inputs for %d paths", len(ins), len(paths))
	}
	if err != nil {
		return nil, restore, err
	}
	for i := range ins {
		ins[i].Rel = rels[i]
	}
	return ins, restore, nil
}

// logHookOutcome logs the job's one line: what was converted, unchanged
// or failed, and how long it took.
func logHookOutcome(lg *hook.Log, prefix, agent string, ins []pipeline.Input, oc pipeline.Outcome, exported string, took time.Duration) {
	others := "the thread and %d subagent threads"
	if agent == "claude-code" {
		others = "the session and %d workflow runs"
	}
	switch {
	case len(ins) > 1:
		lg.Printf("%s"+others+": %d converted, %d unchanged since the last run, %d failed, %d events%s (%s)",
			prefix, len(ins)-1, oc.Converted, oc.Unchanged, oc.Failed+oc.Leaks+oc.SchemaErrors+oc.Interrupted, oc.Events, exported, took)
	case oc.Unchanged > 0:
		lg.Printf("%sunchanged since the last run (%s)", prefix, took)
	case oc.Converted > 0 && oc.ExportFailed > 0:
		lg.Printf("%sconverted, %d files, %d events; export failed (%s)", prefix, 1+len(ins[0].Companions), oc.Events, took)
	case oc.Converted > 0:
		lg.Printf("%sconverted, %d files, %d events%s (%s)", prefix, 1+len(ins[0].Companions), oc.Events, exported, took)
	case oc.Interrupted > 0:
		lg.Printf("%snot converted within the budget: left for the next run", prefix)
	default:
		lg.Printf("%sfailed (leak %d, schema %d); see the lines above", prefix, oc.Leaks, oc.SchemaErrors)
	}
}

// install / uninstall

func hookInstallCommand(uninstall bool) *cli.Command {
	name, verb := "install", "add convert's hook to"
	if uninstall {
		name, verb = "uninstall", "take convert's hook out of"
	}
	cmd := &cli.Command{
		Name:      name,
		Usage:     "print the settings that " + verb + " an agent (claude-code, codex); --write applies them",
		UsageText: "convert hook " + name + " claude-code|codex [--scope user|project] [--settings FILE] [--write]",
		Action: func(c *cli.Context) error {
			return usageError("hook %s takes one agent: claude-code or codex", name)
		},
	}
	for _, agent := range []string{"claude-code", "codex"} {
		flags := []cli.Flag{
			&cli.StringFlag{Name: "scope", Value: "user", Usage: "`user` (~/.claude/settings.json, $CODEX_HOME/config.toml) or project (.claude/settings.json, .codex/config.toml under the current directory)"},
			&cli.StringFlag{Name: "settings", Usage: "the settings `FILE` to edit, instead of the scope's"},
			&cli.BoolFlag{Name: "write", Usage: "edit the settings file (keeping what is there; the old file as FILE.bak-<UTC time>, never overwritten); without it, only print"},
		}
		if !uninstall {
			flags = append(flags, &cli.StringFlag{Name: "command", Usage: "the convert `PROGRAM` the agent runs (default: this binary's absolute path for --scope user, convert for project)"})
			if agent == "claude-code" {
				flags = append(flags, &cli.StringSliceFlag{Name: "event", Value: cli.NewStringSlice("SessionEnd"), Usage: "Claude Code hook `EVENT` to run on (repeatable): SessionEnd, Stop, SubagentStop, PreCompact"})
			}
		}
		cmd.Subcommands = append(cmd.Subcommands, &cli.Command{
			Name:   agent,
			Usage:  verb + " " + agent,
			Flags:  flags,
			Action: hookInstallAction(agent, uninstall),
		})
	}
	return cmd
}

func hookInstallAction(agent string, uninstall bool) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.NArg() != 0 {
			return usageError("unexpected argument %q", c.Args().First())
		}
		scope := c.String("scope")
		if scope != "user" && scope != "project" {
			return usageError("--scope takes user or project")
		}
		for _, ev := range c.StringSlice("event") {
			if !strings.Contains(" "+strings.Join(hook.Events, " ")+" ", " "+ev+" ") {
				return usageError("--event takes %s", strings.Join(hook.Events, ", "))
			}
		}
		path := c.String("settings")
		if path == "" {
			path = settingsPath(agent, scope)
		}
		prog, err := hookProgram(c.String("command"), scope, c.App.ErrWriter)
		if err != nil && !uninstall {
			return err
		}
		old, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(c.App.ErrWriter, "convert: %s: cannot read it\n", path)
			return exitError{exitFailed}
		}
		var out []byte
		var header, snippet string // what install prints: where it goes, and the lines
		var changed bool
		switch {
		case agent == "claude-code" && !uninstall:
			cmd := shellQuote(prog) + " hook claude-code"
			header, snippet = fmt.Sprintf("# Claude Code settings (%s): convert a receipt of each session as it ends\n", path), string(hook.ClaudeSnippet(cmd, c.StringSlice("event")))
			out, changed, err = hook.MergeClaude(old, cmd, c.StringSlice("event"))
		case agent == "claude-code":
			out, changed, err = hook.RemoveClaude(old)
		case !uninstall:
			line := hook.CodexNotify([]string{prog, "hook", "codex"})
			header, snippet = fmt.Sprintf("# Codex config (%s), at the top level before any [table]: a receipt after each turn\n", path), line+"\n"
			out, changed, err = hook.MergeCodex(old, []string{prog, "hook", "codex"})
		default:
			out, changed = hook.RemoveCodex(old)
		}
		if err != nil {
			fmt.Fprintf(c.App.ErrWriter, "convert: %s: %v\n", path, err)
			return exitError{exitFailed}
		}
		switch {
		case !changed:
			io.WriteString(c.App.Writer, header+snippet)
			fmt.Fprintf(c.App.ErrWriter, "convert: %s: nothing to change\n", path)
		case !c.Bool("write"):
			io.WriteString(c.App.Writer, header+snippet)
			fmt.Fprintf(c.App.ErrWriter, "convert: %s would change; run again with --write to apply it\n", path)
		default:
			backup, err := hook.WriteFile(path, out)
			if err != nil {
				fmt.Fprintf(c.App.ErrWriter, "convert: %s: cannot write it: %v\n", path, err)
				return exitError{exitFailed}
			}
			if snippet != "" {
				fmt.Fprintf(c.App.Writer, "# wrote into %s:\n%s", path, snippet)
			}
			if backup != "" {
				fmt.Fprintf(c.App.ErrWriter, "convert: %s updated (the previous file is %s)\n", path, backup)
			} else {
				fmt.Fprintf(c.App.ErrWriter, "convert: %s written\n", path)
			}
		}
		return nil
	}
}

// settingsPath is the settings file of an agent at a scope.
func settingsPath(agent, scope string) string {
	home, _ := os.UserHomeDir()
	switch {
	case agent == "claude-code" && scope == "user":
		if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
			return filepath.Join(d, "settings.json")
		}
		return filepath.Join(home, ".claude", "settings.json")
	case agent == "claude-code":
		return filepath.Join(".claude", "settings.json")
	case scope == "user":
		return filepath.Join(hook.CodexHome(os.Getenv, home), "config.toml")
	}
	return filepath.Join(".codex", "config.toml")
}

// shellQuote quotes a program path for the shell command Claude Code runs.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// hookProgram is the convert the agent's hook runs. Given --command, that,
// with a warning when a bare name finds another program first on PATH.
// Otherwise, for the user's settings, this binary's resolved absolute path
// (with a warning when it is a clone's build output, which make clean or
// moving the clone removes); for a project's settings, shared with others,
// the bare name convert, but only when it finds this program: on a machine
// where ImageMagick's convert comes first the hook would run ImageMagick.
func hookProgram(given, scope string, warn io.Writer) (string, error) {
	self := selfPath()
	if given != "" {
		if !strings.ContainsRune(given, filepath.Separator) {
			if found, ok := findsUs(given, self); !ok && found != "" {
				fmt.Fprintf(warn, "convert: warning: %s on PATH is %s, which is not this convert: the agent will run that\n", given, displayPath(found))
			}
		}
		return given, nil
	}
	if scope == "user" {
		if self == "" {
			return "", usageError("hook install: cannot tell where this convert is; give --command /path/to/convert")
		}
		if clone := cloneOf(self); clone != "" {
			fmt.Fprintf(warn, "convert: warning: %s is the build output of the clone at %s: make clean or moving the clone disables the hook; go install ./cmd/convert there and install the hook with the installed binary\n", displayPath(self), displayPath(clone))
		}
		return self, nil
	}
	found, ok := findsUs("convert", self)
	switch {
	case ok:
		return "convert", nil
	case found == "":
		return "", usageError("hook install --scope project: no convert on PATH, so the agent could not run the hook; install convert (go install) or give --command")
	default:
		return "", usageError("hook install --scope project: convert on PATH is %s, which is not this convert (ImageMagick's?): the agent would run it; put this convert first on PATH, or give --command", displayPath(found))
	}
}

// selfPath is this program's resolved absolute path, "" when unknown.
func selfPath() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	abs, err := filepath.Abs(exe)
	if err != nil {
		return ""
	}
	return abs
}

// findsUs looks name up on PATH: where it is ("" when nowhere), and whether
// it is this program (the same file, or one whose --version says convert).
func findsUs(name, self string) (string, bool) {
	found, err := exec.LookPath(name)
	if err != nil {
		return "", false
	}
	if r, err := filepath.EvalSymlinks(found); err == nil {
		found = r
	}
	if abs, err := filepath.Abs(found); err == nil {
		found = abs
	}
	if found == self {
		return found, true
	}
	out, err := exec.Command(found, "--version").Output()
	return found, err == nil && strings.HasPrefix(string(out), "convert ")
}

// cloneOf is the root of the clone of this repository whose build output
// path is (bin/ beside its go.mod), "" when it is not one.
func cloneOf(path string) string {
	root := filepath.Dir(filepath.Dir(path))
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !strings.HasPrefix(string(mod), "module github.com/contextreceipts/convert\n") {
		return ""
	}
	return root
}
