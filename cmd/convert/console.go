package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/internal/leak"
	"golang.org/x/term"

	"github.com/urfave/cli/v2"
)

// console is the one way out of the command: every byte any subcommand (and
// urfave/cli's help and version output) writes to stdout or stderr goes
// through write, so a screen (the leak check of messages, say) can be put in
// one place. It also owns the progress line: a message first clears it, so
// nothing is ever glued to it.
//
// Kinds of output:
//   - Data: what a command exists to print (a JSON document, list, diff); always on stdout.
//   - Result: a success line on stdout ("3 files valid"); not under -q.
//   - Info: a note on stderr (the closing table, "exported ..."); not under -q.
//   - Warn: a warning on stderr (a skipped line); not under -q.
//   - Error: a failure on stderr; always.
//   - Progress: the self-overwriting status line, on a terminal only; not under -q.
type console struct {
	mu       sync.Mutex
	out, err io.Writer
	quiet    bool // -q: errors only
	color    bool // stderr is a terminal and NO_COLOR is not set
	tty      bool // stderr is a terminal (the progress line is shown)
	progress bool // a progress line is on screen
	// screen, when set, sees every chunk before it is written and may
	// rewrite it; the lead's message leak check goes here.
	screen func(stream string, p []byte) []byte
}

func newConsole(stdout, stderr io.Writer) *console {
	c := &console{out: stdout, err: stderr, screen: screenSecrets}
	c.tty = isTerminal(stderr)
	c.color = c.tty && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	return c
}

// isTerminal reports whether w is a terminal; pipes, files, test buffers
// and /dev/null (a character device, but no terminal: a cron job's
// 2>/dev/null) are not.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// write is the single place bytes leave the process.
func (c *console) write(stream string, p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writeLocked(stream, p)
}

func (c *console) writeLocked(stream string, p []byte) {
	if c.progress {
		c.err.Write([]byte("\r\033[K"))
		c.progress = false
	}
	if c.screen != nil {
		p = c.screen(stream, p)
	}
	if stream == "stdout" {
		c.out.Write(p)
	} else {
		c.err.Write(p)
	}
}

// screenSecrets is the last screen of every message on stderr: a line that
// holds a secret-shaped token (a credential in an endpoint URL, a key in a
// file name, a token a schema error quoted) is replaced whole. stdout is
// left alone: it carries what a command exists to print (prepare's injected
// context is the user's own content by design), and the pipeline checks its
// own messages against the input before they get here.
func screenSecrets(stream string, p []byte) []byte {
	if stream == "stdout" || leak.SecretKind(string(p)) == "" {
		return p
	}
	var out []byte
	for _, l := range bytes.SplitAfter(p, []byte("\n")) {
		if k := leak.SecretKind(string(l)); k != "" {
			l = []byte("convert: a message was withheld: it held a secret-shaped token (" + k + ")\n")
		}
		out = append(out, l...)
	}
	return out
}

func line(format string, a []any) []byte {
	s := format
	if len(a) > 0 {
		s = fmt.Sprintf(format, a...)
	}
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return []byte(s)
}

// Data prints what the command is for on stdout, whatever -q says.
func (c *console) Data(format string, a ...any) { c.write("stdout", line(format, a)) }

// Result prints a success line on stdout unless -q.
func (c *console) Result(format string, a ...any) {
	if !c.quiet {
		c.write("stdout", line(format, a))
	}
}

// Info prints a note on stderr unless -q.
func (c *console) Info(format string, a ...any) {
	if !c.quiet {
		c.write("stderr", line(format, a))
	}
}

// Warn prints a warning on stderr unless -q.
func (c *console) Warn(format string, a ...any) {
	if !c.quiet {
		c.write("stderr", c.paint("33", line(format, a)))
	}
}

// Error prints a failure on stderr, always.
func (c *console) Error(format string, a ...any) {
	c.write("stderr", c.paint("31", line(format, a)))
}

// Bold is s in bold on a colour terminal.
func (c *console) Bold(s string) string {
	if !c.color {
		return s
	}
	return "\033[1m" + s + "\033[0m"
}

// paint colours a line (its newline stays outside the colour).
func (c *console) paint(code string, p []byte) []byte {
	if !c.color {
		return p
	}
	s := strings.TrimSuffix(string(p), "\n")
	return []byte("\033[" + code + "m" + s + "\033[0m\n")
}

// Progress shows (or, with "", clears) the status line on a terminal.
func (c *console) Progress(status string) {
	if !c.tty || c.quiet {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p := []byte("\r\033[K" + status)
	if c.screen != nil {
		p = c.screen("stderr", p)
	}
	c.err.Write(p)
	c.progress = status != ""
}

// progressLine is Progress when the status line is shown, else nil: the
// run then skips what only the line needs (the total size of the inputs,
// a stat of every file, which an unchanged rerun would pay for nothing).
func (c *console) progressLine() func(string) {
	if !c.tty || c.quiet {
		return nil
	}
	return c.Progress
}

// Stdout and Stderr are io.Writers into the console, for code that wants
// one (urfave/cli's help, subcommands that print documents).
func (c *console) Stdout() io.Writer { return streamWriter{c, "stdout"} }
func (c *console) Stderr() io.Writer { return streamWriter{c, "stderr"} }

type streamWriter struct {
	c      *console
	stream string
}

func (w streamWriter) Write(p []byte) (int, error) {
	w.c.write(w.stream, p)
	return len(p), nil
}

// con is the console of a running command.
func con(c *cli.Context) *console {
	return c.App.Metadata["console"].(*console)
}
