package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/contextreceipts/convert/converters"
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
	for _, c := range converters.Natives() {
		for _, l := range c.Native.Locations {
			p := l.Path(getenv, home)
			found := agentLogs{converter: c.Name, shown: tildePath(p, home)}
			matches, _ := filepath.Glob(p) // a pattern's only error is a bad pattern: ours are not
			for _, m := range matches {
				if st, err := os.Stat(m); err == nil && st.IsDir() {
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
func defaultPaths(cons *console) ([]string, error) {
	home, _ := homeDir()
	all := defaultLogs(os.Getenv, home)
	var paths, read, looked []string
	for _, a := range all {
		looked = append(looked, a.shown)
		if len(a.paths) == 0 {
			continue
		}
		paths = append(paths, a.paths...)
		note := a.converter + " " + a.shown
		if n := len(a.paths); n > 1 {
			note += fmt.Sprintf(" (%d folders)", n)
		}
		read = append(read, note)
	}
	if len(paths) == 0 {
		return nil, usageError("run needs at least one PATH (a file, a directory, or - for standard input); no agent's logs are in their default locations (%s)", strings.Join(looked, ", "))
	}
	cons.Info("convert: no PATH given: reading the agents' default locations: %s", strings.Join(read, "; "))
	return paths, nil
}
