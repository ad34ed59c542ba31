package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/urfave/cli/v2"
)

// leakcheck OUT with no --input checks what a run wrote into OUT as the
// run wrote it: each input's outputs (the manifest lists them) against
// that input's own files (its log, sidecars and subagent transcripts),
// found again where the run read them. Checking every agent's outputs
// against one agent's logs would take another agent's ids and names for
// raw content.

// runManifest is the part of a run's .convert-manifest.json the check
// reads (pipeline.ManifestName): per input, its files and its outputs.
type runManifest struct {
	Inputs map[string]struct {
		Files []struct {
			Path   string `json:"path"`
			Size   int64  `json:"size"`
			SHA256 string `json:"sha256"`
		} `json:"files"`
		Outputs     []string `json:"outputs"`
		RevealNames bool     `json:"reveal_names"`
	} `json:"inputs"`
}

// runCheck is one input of a run to check: its files and its outputs, and
// whether the run wrote them with --reveal names (its manifest says so).
type runCheck struct {
	in              pipeline.Input
	inputs, outputs []string
	reveal          bool
}

// leakcheckRun checks each output folder's outputs against the inputs
// its manifest records, found under logs (or the agents' default
// locations, as a run with no PATH reads them).
func leakcheckRun(c *cli.Context) error {
	cons := con(c)
	manifests := make([]runManifest, c.NArg())
	for i, out := range c.Args().Slice() {
		m, err := loadRunManifest(out)
		if err != nil {
			return err
		}
		manifests[i] = m
	}
	found, where, err := runInputsToMatch(c.Context, c.StringSlice("logs"))
	if err != nil {
		return err
	}
	hashers := []receipt.Hasher{{}}
	if kf := c.String("hash-key-file"); kf != "" {
		key, err := os.ReadFile(kf)
		if err != nil {
			return usageError("--hash-key-file: cannot read the key file")
		}
		h, err := receipt.NewKeyed([]byte(strings.TrimSpace(string(key))))
		if err != nil {
			return usageError("--hash-key-file: %v", err)
		}
		hashers = append(hashers, h)
	}
	var checks []runCheck
	missing, files := 0, 0
	for i, out := range c.Args().Slice() {
		cs, miss := matchManifest(out, manifests[i], found, hashers)
		checks, missing = append(checks, cs...), missing+miss
	}
	type finding struct {
		What  string `json:"what"`
		Where string `json:"where"`
		Line  int    `json:"input_line,omitempty"`
	}
	report := struct {
		Files    int       `json:"files"`
		Inputs   int       `json:"inputs"`
		NotFound int       `json:"inputs_not_found"`
		Leak     bool      `json:"leak"`
		Findings []finding `json:"findings"`
	}{Inputs: len(checks), NotFound: missing, Findings: []finding{}}
	leaks := 0
	for _, ch := range checks {
		findings, err := pipeline.LeakCheckInput(ch.in, ch.inputs, ch.outputs, ch.reveal || c.String("reveal") == "names")
		if err != nil {
			cons.Error("%s", screenedPathError(err, ch.inputs))
			return exitError{exitFailed}
		}
		files += len(ch.outputs)
		for _, f := range findings {
			msg := fmt.Sprintf("leak: %s in %s", f.What, displayPath(fmt.Sprint(f.Where)))
			if f.Line > 0 {
				msg += fmt.Sprintf(" (from input line %d)", f.Line)
			}
			cons.Error("%s", msg)
			report.Findings = append(report.Findings, finding{f.What, displayPath(fmt.Sprint(f.Where)), f.Line})
			leaks++
		}
	}
	report.Files, report.Leak = files, leaks > 0
	if c.Bool("json") {
		if err := printJSON(c, report); err != nil {
			return err
		}
	}
	if leaks > 0 {
		return exitError{exitLeak}
	}
	if missing > 0 {
		cons.Error("convert: leakcheck: %d of %d inputs the manifest records were not found under %s (moved, changed or deleted since the run): their outputs are not checked; give the folders the run read with --logs PATH",
			missing, missing+len(checks), where)
		return exitError{exitFailed}
	}
	if c.Bool("json") {
		return nil
	}
	cons.Result("no leak: %d files checked, each against its own input (%d inputs found under %s)", files, len(checks), where)
	return nil
}

// screenedPathError is err with the inputs' paths as messages show them.
func screenedPathError(err error, inputs []string) string {
	msg := err.Error()
	for _, p := range inputs {
		msg = strings.ReplaceAll(msg, p, displayPath(p))
	}
	return "convert: leakcheck: " + msg
}

// runInputsToMatch is the inputs a run would find under logs, or with
// none under the agents' default locations; where says where, as the
// user knows it.
func runInputsToMatch(ctx context.Context, logs []string) (ins []pipeline.Input, where string, err error) {
	if len(logs) > 0 {
		ins, err = pipeline.ExpandContext(ctx, logs)
		if err != nil {
			return nil, "", usageError("--logs: %v", err)
		}
		var shown []string
		for _, l := range logs {
			shown = append(shown, displayPath(l))
		}
		return ins, strings.Join(shown, ", "), nil
	}
	home, _ := homeDir()
	var agents []agentLogs
	var shown []string
	for _, a := range defaultLogs(os.Getenv, home) {
		if len(a.paths) > 0 {
			agents = append(agents, a)
			shown = append(shown, a.shown)
		}
	}
	if len(agents) == 0 {
		return nil, "", usageError("leakcheck with no --input finds each output's input where the run read it: no agent's logs are in their default locations; give the folders the run read with --logs PATH")
	}
	ins, err = defaultInputs(ctx, agents)
	if err != nil {
		return nil, "", usageError("%v", err)
	}
	return ins, "the agents' default locations (" + strings.Join(shown, ", ") + ")", nil
}

// inputFiles is the files of in, in the order a run records them.
func inputFiles(in pipeline.Input) []string {
	out := []string{in.Path}
	if in.Meta != "" {
		out = append(out, in.Meta)
	}
	for _, c := range in.Companions {
		out = append(out, c.Path)
		if c.Meta != "" {
			out = append(out, c.Meta)
		}
	}
	return out
}

// matchManifest pairs the inputs out's manifest records with the inputs
// found: by the digest of the path the run read (plain, or keyed under a
// hasher given), else by the main file's size and sha256 (a run given a
// relative path). missing counts the recorded inputs not found.
func matchManifest(out string, m runManifest, found []pipeline.Input, hashers []receipt.Hasher) (checks []runCheck, missing int) {
	byPath := map[string]pipeline.Input{}
	bySize := map[int64][]pipeline.Input{}
	for _, in := range found {
		for _, h := range hashers {
			byPath[h.Text(in.Path)] = in
		}
		if st, err := os.Stat(in.Path); err == nil && st.Mode().IsRegular() {
			bySize[st.Size()] = append(bySize[st.Size()], in)
		}
	}
	keys := make([]string, 0, len(m.Inputs))
	for k := range m.Inputs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		e := m.Inputs[k]
		if len(e.Files) == 0 || len(e.Outputs) == 0 {
			continue
		}
		in, ok := byPath[e.Files[0].Path]
		if !ok {
			for _, cand := range bySize[e.Files[0].Size] {
				if fileSum(cand.Path) == e.Files[0].SHA256 {
					in, ok = cand, true
					break
				}
			}
		}
		if !ok {
			missing++
			continue
		}
		var outs []string
		for _, o := range e.Outputs {
			p := filepath.Join(out, filepath.FromSlash(o))
			if _, err := os.Stat(p); err == nil {
				outs = append(outs, p)
			}
		}
		if len(outs) > 0 {
			checks = append(checks, runCheck{in: in, inputs: inputFiles(in), outputs: outs, reveal: e.RevealNames})
		}
	}
	return checks, missing
}

// loadRunManifest reads the manifest of the run that wrote out.
func loadRunManifest(out string) (runManifest, error) {
	var m runManifest
	b, err := os.ReadFile(filepath.Join(out, pipeline.ManifestName))
	if err != nil {
		return m, usageError("leakcheck needs --input, or a folder convert run wrote: %s has no %s (%s)",
			displayPath(out), pipeline.ManifestName, reason(err))
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, usageError("%s: not a run's manifest", displayPath(filepath.Join(out, pipeline.ManifestName)))
	}
	return m, nil
}

// fileSum is the hex sha256 of the file at p, as a manifest records it
// ("" when it cannot be read).
func fileSum(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}
