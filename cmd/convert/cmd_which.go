package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/urfave/cli/v2"
)

// convert which answers, on the user's own machine, which file an output
// name stands for: a run names a walked file whose name is the user's
// choice by the digest of its stem (input-<12 hex>), and a folder that
// encodes a working directory by the digest of its name (project-<12 hex>)
// (pipeline.InputFileName, pipeline.ProjectDir). Nothing maps them back but
// the digests computed again over the files that are here. It prints the
// paths of this machine, so it prints them to a terminal only: never to a
// pipe or a file, where a log to be shared is made.

// whichTerminal reports whether w is the user's terminal; tests replace it.
var whichTerminal = isTerminal

// whichNameRe is an output name which resolves: its digest part, with any
// extension a run or its messages give it after.
var whichNameRe = regexp.MustCompile(`^((?:input|project)-[0-9a-f]{12})(\..*)?$`)

func whichCommand() *cli.Command {
	return &cli.Command{
		Name:      "which",
		Usage:     "which file or folder of this machine an output name (input-<hex>, project-<hex>) stands for; to your terminal only",
		UsageText: "convert which [--hash-key-file FILE] NAME [PATH...]   (no PATH: the agents' default log folders, as convert run reads them)",
		Description: "NAME is an output's name, as a run writes it or its messages show it off a terminal\n" +
			"(input-cd6d9626efca.jsonl, input-cd6d9626efca.receipt.ndjson, project-9f0b9ae06a10, or a path\n" +
			"ending in one). The digests are computed again over every file and folder under PATH (keyed with\n" +
			"the run's --hash-key-file), and the paths that give NAME are printed. They are this machine's\n" +
			"paths (a user name, a project's name): the answer is printed to a terminal only, never to a pipe\n" +
			"or a file, and is not for a log you share.\n" +
			"Exit 0: found; 1: nothing under PATH gives NAME; 2: usage, or standard output is not a terminal.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "hash-key-file", Usage: "the key `FILE` the run was keyed with (its names are HMACs under it); also CONVERT_HASH_KEY_FILE", EnvVars: []string{"CONVERT_HASH_KEY_FILE"}},
		},
		Action: whichAction,
	}
}

func whichAction(c *cli.Context) error {
	if c.NArg() == 0 {
		return usageError("which needs a NAME (input-<12 hex> or project-<12 hex>, as an output or a message names it)")
	}
	arg := c.Args().First()
	m := whichNameRe.FindStringSubmatch(filepath.Base(filepath.FromSlash(arg)))
	if m == nil {
		return usageError("which: %s is no name a run gives by digest (input-<12 hex>, project-<12 hex>)", displayPath(arg))
	}
	want := m[1]
	if !whichTerminal(c.App.Writer) {
		return usageError("which prints paths of this machine: it prints them to a terminal only, never to a pipe or a file (a log you share)")
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
	roots := c.Args().Tail()
	if len(roots) == 0 {
		home, _ := homeDir()
		for _, a := range defaultLogs(os.Getenv, home) {
			roots = append(roots, a.paths...)
		}
		if len(roots) == 0 {
			return usageError("which: no PATH given, and no agent's logs are in their default locations: give the folders the run read")
		}
	}
	found, err := whichFind(want, roots, h)
	if err != nil {
		return err
	}
	if len(found) == 0 {
		con(c).Error("convert: which: nothing under the %d folders searched gives %s (a keyed run needs its --hash-key-file; a file renamed or moved since is not found)", len(roots), want)
		return exitError{exitFailed}
	}
	for _, p := range found {
		con(c).Data("%s", p)
	}
	return nil
}

// whichFind is every file under roots whose output name is want's
// (pipeline.InputFileName) and every folder whose output folder name is
// (pipeline.ProjectDir), as absolute paths, sorted.
func whichFind(want string, roots []string, h receipt.Hasher) ([]string, error) {
	project := strings.HasPrefix(want, "project-")
	seen := map[string]bool{}
	for _, r := range roots {
		if _, err := os.Stat(r); err != nil {
			return nil, usageError("which: %s: %s", displayPath(r), reason(err))
		}
		filepath.WalkDir(r, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // an unreadable folder: the others are searched
			}
			name := d.Name()
			var got string
			switch {
			case project && d.IsDir():
				got = pipeline.ProjectDir(h, name)
			case !project && !d.IsDir():
				got = pipeline.InputFileName(h, name)
			default:
				return nil
			}
			if got == want || strings.HasPrefix(got, want+".") {
				if abs, err := filepath.Abs(p); err == nil {
					seen[abs] = true
				}
			}
			return nil
		})
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}
