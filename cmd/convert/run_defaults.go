package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/pipeline"
)

// A run given no PATH, with a terminal (not a pipe) on standard input,
// converts the logs of every agent it knows that are on this machine: the
// registry's default locations (converters.Format.Locations), moved by
// their environment variables (CLAUDE_CONFIG_DIR, CODEX_HOME).

// homeDir is the home directory; tests set HOME.
var homeDir = os.UserHomeDir

// agentLogs is one agent's logs found at a default location.
type agentLogs struct {
	converter string   // the converter that reads them
	shown     string   // the location as the user knows it: ~/... relative to HOME
	paths     []string // the directories there (a pattern may match several)
}

// defaultLogs returns the default locations of every known agent, each
// with the directories that exist there (none: the agent is not here).
func defaultLogs(getenv func(string) string, home string) []agentLogs {
	var out []agentLogs
	seen := map[string]bool{}
	for _, c := range converters.Natives() {
		var places []string // none for a place only its variable names, unset
		for _, l := range c.Native.Locations {
			places = append(places, l.Paths(getenv, home)...)
		}
		for _, p := range places {
			found := agentLogs{converter: c.Name, shown: tildePath(p, home)}
			if seen[p] {
				continue // two variables' defaults that are one place
			}
			seen[p] = true
			matches, _ := filepath.Glob(p) // a pattern's only error is a bad pattern: ours are not
			for _, m := range matches {
				// A folder of logs, or a database of sessions
				// (OpenCode's opencode.db: converters.Store).
				if st, err := os.Stat(m); err == nil && (st.IsDir() || st.Mode().IsRegular() && converters.StoreFor(filepath.Base(m)) != nil) {
					found.paths = append(found.paths, m)
				}
			}
			out = append(out, found)
		}
	}
	return out
}

// tildePath writes p relative to the home directory as ~/...; a path
// elsewhere (an environment variable's) is written as it is.
func tildePath(p, home string) string {
	if home == "" {
		return filepath.ToSlash(p)
	}
	rel, err := filepath.Rel(home, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(p)
	}
	return "~/" + filepath.ToSlash(rel)
}

// defaultPaths picks the PATHs of a run given none: the existing default
// locations, said on stderr; none is a usage error naming where it looked.
// found is the agents whose logs are here, for defaultInputs.
func defaultPaths(cons *console) (paths []string, found []agentLogs, err error) {
	home, _ := homeDir()
	all := defaultLogs(os.Getenv, home)
	var read, looked []string
	for _, a := range all {
		looked = append(looked, a.shown)
		if len(a.paths) == 0 {
			continue
		}
		paths = append(paths, a.paths...)
		found = append(found, a)
		note := a.converter + " " + a.shown
		if n := len(a.paths); n > 1 {
			note += fmt.Sprintf(" (%d folders)", n)
		}
		read = append(read, note)
	}
	if len(paths) == 0 {
		return nil, nil, usageError("run needs at least one PATH (a file, a directory, or - for standard input); no agent's logs are in their default locations (%s)", strings.Join(looked, ", "))
	}
	cons.Info("convert: no PATH given: reading the agents' default locations: %s", strings.Join(read, "; "))
	return paths, found, nil
}

// agentDir is the folder of --out that a run with no PATH writes an
// agent's outputs in: its converter's name with dashes (claude-code,
// codex, gemini-cli), whatever other agents are installed, so installing
// a second agent never moves the first one's outputs.
func agentDir(converter string) string { return strings.ReplaceAll(converter, "_", "-") }

// defaultInputs expands each agent's default locations on their own and
// puts them under the agent's folder: out/claude-code/project-<hex>/…,
// out/codex/2026/…
func defaultInputs(ctx context.Context, found []agentLogs) ([]pipeline.Input, error) {
	var ins []pipeline.Input
	for _, a := range found {
		got, err := pipeline.ExpandContext(ctx, a.paths)
		if err != nil {
			return nil, err
		}
		for i := range got {
			got[i].Rel = agentDir(a.converter) + "/" + got[i].Rel
		}
		ins = append(ins, got...)
	}
	// A session OpenCode migrated into opencode.db is read from there
	// only, not also from the storage/ tree it left.
	return pipeline.PreferStores(ins), nil
}

// oldLayout is what earlier runs with no PATH wrote, by agent: with one
// agent installed, the subtrees of its folder at the top of --out
// (project-<hex>, 2026); with several, each folder under its last name
// (projects, sessions).
func oldLayout(a agentLogs) []string {
	var names []string
	seen := map[string]bool{}
	add := func(n string) {
		if n != "" && n != "." && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, p := range a.paths {
		add(filepath.Base(p))
		entries, _ := os.ReadDir(p)
		for _, e := range entries {
			if e.IsDir() {
				first, _, _ := strings.Cut(pipeline.OutputName(e.Name()+"/x.jsonl", ""), "/")
				add(first)
			}
		}
	}
	return names
}

// migrateLayout moves the outputs an earlier run with no PATH wrote in the
// old layout into each agent's folder, so they are neither converted again
// beside themselves nor counted twice by convert report. An output whose
// new place is taken already stays where it is, and is reported: one
// line, a count, the folder. Only receipts and traces move.
func migrateLayout(cons *console, out string, found []agentLogs) {
	if out == "" {
		return
	}
	agents := map[string]bool{}
	for _, a := range natives() {
		agents[agentDir(a)] = true
	}
	for _, a := range found {
		for _, old := range oldLayout(a) {
			if agents[old] {
				continue // the new layout itself
			}
			from := filepath.Join(out, old)
			if st, err := os.Stat(from); err != nil || !st.IsDir() {
				continue
			}
			to := filepath.Join(out, agentDir(a.converter))
			if !isAgentFolder(old, a) {
				to = filepath.Join(to, old) // a subtree of the agent's folder
			}
			moved, left := moveOutputs(from, to)
			if moved > 0 {
				cons.Info("convert: moved %d outputs of an earlier run from %s to %s (outputs are now kept per agent)", moved, tildePath(from, ""), tildePath(to, ""))
			}
			if left > 0 {
				cons.Warn("convert: %d outputs of an earlier run stay in %s: their new copies are in %s, so the old folder can go (convert report counts each session once)", left, tildePath(from, ""), tildePath(to, ""))
			}
		}
	}
}

// isAgentFolder reports whether old names one of the agent's folders
// itself (the layout of several agents: out/projects/…), not a subtree of it.
func isAgentFolder(old string, a agentLogs) bool {
	for _, p := range a.paths {
		if filepath.Base(p) == old {
			return true
		}
	}
	return false
}

// natives is the converter names of the agents with default locations.
func natives() []string {
	var out []string
	for _, c := range converters.Natives() {
		out = append(out, c.Name)
	}
	return out
}

// moveOutputs moves every receipt and trace under from to the same place
// under to, unless one is there already; empty folders left are removed.
func moveOutputs(from, to string) (moved, left int) {
	var dirs []string
	_ = filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			dirs = append(dirs, p)
			return nil
		}
		name := d.Name()
		if !strings.HasSuffix(name, ".receipt.ndjson") && !strings.HasSuffix(name, ".otel.json") && !strings.HasSuffix(name, ".otel.jsonl") {
			return nil
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return nil
		}
		dst := filepath.Join(to, rel)
		if _, err := os.Lstat(dst); err == nil {
			left++
			return nil
		}
		if os.MkdirAll(filepath.Dir(dst), 0o755) != nil || os.Rename(p, dst) != nil {
			left++
			return nil
		}
		moved++
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Remove(dirs[i]) // only an empty folder goes
	}
	return moved, left
}
