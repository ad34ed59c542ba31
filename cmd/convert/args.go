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
	l := cmdLine{app: app, cmdFlags: [][]string{nil}}
	if err := l.read(rest); err != nil {
		return nil, err
	}
	if len(l.path) == 0 {
		// no command: the app makes of the line what it can (an unknown
		// command, say)
		return append([]string{args[0]}, rest...), nil
	}
	return l.words(args[0]), nil
}

// cmdLine is a command line sorted by normalize: the app's flags, the
// command path with each command's flags, the positionals, and what
// follows "--".
type cmdLine struct {
	app                         *cli.App
	appFlags, positional, after []string
	path                        []*cli.Command
	cmdFlags                    [][]string // flags per level: app (unused), then each command
}

// level is the flags and subcommands of the innermost command read so far
// (the app's before any).
func (l *cmdLine) level() ([]cli.Flag, []*cli.Command) {
	if len(l.path) == 0 {
		return l.app.Flags, l.app.Commands
	}
	c := l.path[len(l.path)-1]
	return c.Flags, c.Subcommands
}

// read sorts the words of rest (the line after the program's name).
func (l *cmdLine) read(rest []string) error {
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			l.after = append(l.after, rest[i+1:]...)
			return nil
		}
		if !isFlagWord(a) {
			_, subs := l.level()
			if len(l.positional) == 0 {
				if sub := findCommand(subs, a); sub != nil {
					l.path = append(l.path, sub)
					l.cmdFlags = append(l.cmdFlags, nil)
					continue
				}
			}
			l.positional = append(l.positional, a)
			continue
		}
		var err error
		if i, err = l.flag(rest, i); err != nil {
			return err
		}
	}
	return nil
}

// flag sorts the flag at rest[i], with its value when it takes one
// (rest[i+1] unless written --flag=value), and returns the index of the
// last word it took.
func (l *cmdLine) flag(rest []string, i int) (int, error) {
	a := rest[i]
	name, hasValue := flagName(a)
	flags, _ := l.level()
	words := []string{a}
	switch f := findFlag(flags, name); {
	case f != nil && len(l.path) > 0:
		if takesValue(f) && !hasValue {
			if i+1 == len(rest) {
				cmd := "convert " + commandPath(l.path)
				return i, fmt.Errorf("%s: %s needs a value (see %s --help)", strings.TrimPrefix(cmd, "convert "), dashes(name), cmd)
			}
			i++
			words = append(words, rest[i])
		}
		l.cmdFlags[len(l.path)] = append(l.cmdFlags[len(l.path)], words...)
	case isAppFlag(l.app, name):
		if f := findFlag(l.app.Flags, name); f != nil && takesValue(f) && !hasValue && i+1 < len(rest) {
			i++
			words = append(words, rest[i])
		}
		l.appFlags = append(l.appFlags, words...)
	case len(l.path) > 0:
		// unknown to this command: its parser says so, in one line
		l.cmdFlags[len(l.path)] = append(l.cmdFlags[len(l.path)], words...)
	default:
		l.appFlags = append(l.appFlags, words...)
	}
	return i, nil
}

// words is the sorted line, starting with the program's name arg0: app
// flags, each command and its flags, then "--" when a positional could be
// taken for a flag, and the positionals.
func (l *cmdLine) words(arg0 string) []string {
	out := []string{arg0}
	out = append(out, l.appFlags...)
	for i, c := range l.path {
		out = append(out, c.Name)
		out = append(out, l.cmdFlags[i+1]...)
	}
	for _, w := range l.cmdFlags[len(l.path)] {
		if n, _ := flagName(w); n == "help" || n == "h" {
			// help needs no arguments, and urfave/cli would take the
			// first one for a command to show the help of
			return out
		}
	}
	needDash := len(l.after) > 0
	for _, p := range l.positional {
		if strings.HasPrefix(p, "-") && p != "-" {
			needDash = true
		}
	}
	if needDash {
		out = append(out, "--")
	}
	out = append(out, l.positional...)
	return append(out, l.after...)
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
