package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// urfave/cli (like Go's flag package) stops reading flags at the first
// positional argument, so `convert verify X.sig.json --key me.pub` would
// take --key for a second envelope. normalize rewrites the command line
// into the order the parser wants, keeping every word:
//
//	convert [app flags] CMD [SUB] [CMD flags] [--] [positionals]
//
// A flag is the command's own if the command (or, for a subcommand, the
// subcommand) defines it, else the app's (-q, --version, --help) if the app
// defines it; a flag neither knows stays with the command, whose parser
// then reports it as unknown. A flag that takes a value keeps the word after
// it (unless written --flag=value). "--" ends the flags: what follows is
// positional whatever it looks like, and a lone "-" (standard input) is
// always positional. `convert help [CMD...]` becomes `convert [CMD...] --help`.
func normalize(app *cli.App, args []string) ([]string, error) {
	if len(args) < 2 {
		return args, nil
	}
	rest := args[1:]
	if rest[0] == "help" {
		rest = append(append([]string{}, rest[1:]...), "--help")
	}
	var appFlags, positional, after []string
	var path []*cli.Command
	level := func() ([]cli.Flag, []*cli.Command) {
		if len(path) == 0 {
			return app.Flags, app.Commands
		}
		c := path[len(path)-1]
		return c.Flags, c.Subcommands
	}
	cmdFlags := [][]string{nil} // flags per level: app (unused), then each command
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			after = append(after, rest[i+1:]...)
			break
		}
		if !isFlagWord(a) {
			_, subs := level()
			if len(positional) == 0 {
				if sub := findCommand(subs, a); sub != nil {
					path = append(path, sub)
					cmdFlags = append(cmdFlags, nil)
					continue
				}
			}
			positional = append(positional, a)
			continue
		}
		name, hasValue := flagName(a)
		flags, _ := level()
		words := []string{a}
		switch f := findFlag(flags, name); {
		case f != nil && len(path) > 0:
			if takesValue(f) && !hasValue {
				if i+1 == len(rest) {
					cmd := "convert " + commandPath(path)
					return nil, fmt.Errorf("%s: %s needs a value (see %s --help)", strings.TrimPrefix(cmd, "convert "), dashes(name), cmd)
				}
				i++
				words = append(words, rest[i])
			}
			cmdFlags[len(path)] = append(cmdFlags[len(path)], words...)
		case isAppFlag(app, name):
			if f := findFlag(app.Flags, name); f != nil && takesValue(f) && !hasValue && i+1 < len(rest) {
				i++
				words = append(words, rest[i])
			}
			appFlags = append(appFlags, words...)
		case len(path) > 0:
			// unknown to this command: its parser says so, in one line
			cmdFlags[len(path)] = append(cmdFlags[len(path)], words...)
		default:
			appFlags = append(appFlags, words...)
		}
	}
	out := []string{args[0]}
	out = append(out, appFlags...)
	for i, c := range path {
		out = append(out, c.Name)
		out = append(out, cmdFlags[i+1]...)
	}
	if len(path) == 0 {
		// no command: the app makes of the line what it can (an unknown
		// command, say)
		return append([]string{args[0]}, rest...), nil
	}
	for _, w := range cmdFlags[len(path)] {
		if n, _ := flagName(w); n == "help" || n == "h" {
			// help needs no arguments, and urfave/cli would take the
			// first one for a command to show the help of
			return out, nil
		}
	}
	needDash := len(after) > 0
	for _, p := range positional {
		if strings.HasPrefix(p, "-") && p != "-" {
			needDash = true
		}
	}
	if needDash {
		out = append(out, "--")
	}
	out = append(out, positional...)
	return append(out, after...), nil
}

func commandPath(path []*cli.Command) string {
	var names []string
	for _, c := range path {
		names = append(names, c.Name)
	}
	return strings.Join(names, " ")
}

// isFlagWord: "-x", "--xyz", "--xyz=v"; not "-" (stdin) nor "--".
func isFlagWord(a string) bool {
	return len(a) > 1 && a[0] == '-' && a != "--"
}

func flagName(a string) (string, bool) {
	n := strings.TrimLeft(a, "-")
	if i := strings.IndexByte(n, '='); i >= 0 {
		return n[:i], true
	}
	return n, false
}

func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// isAppFlag: the app's own flags and the ones urfave/cli adds to it.
func isAppFlag(app *cli.App, name string) bool {
	switch name {
	case "version", "v":
		return true
	}
	return findFlag(app.Flags, name) != nil
}

func takesValue(f cli.Flag) bool {
	if tv, ok := f.(interface{ TakesValue() bool }); ok {
		return tv.TakesValue()
	}
	return false
}
