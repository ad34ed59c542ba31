package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/receipt"
)

// How messages name files. This is the one place: every path a message
// shows goes through displayPath or displayInput, so no message carries a
// user name or an agent's encoded working folder (Claude Code keeps a
// session under ~/.claude/projects/-home-alice-acme/), and convert's own
// stderr passes convert leakcheck --input of the logs it read.

// elided stands for folders a message leaves out.
const elided = "…"

// displayPath is p as a message shows it: ~/... under the home directory
// (run_defaults.go's homeDir and tildePath, as the default locations are),
// a relative path as it was typed; either way with every folder that
// encodes a working folder or names the user left out.
func displayPath(p string) string {
	home, _ := homeDir()
	if !filepath.IsAbs(p) {
		return elide(filepath.ToSlash(p), home)
	}
	return elide(tildePath(p, home), home)
}

// displayInput is how messages name the input at p, found under the
// argument arg: the argument as typed when relative, ~/... under the home,
// and nothing of it otherwise; then the folders between arg and the file
// only when they are session ids (or date folders), and the file's own
// name unless it holds the user's name or encodes a path. n numbers an
// input whose name is withheld, so that two such inputs are told apart.
func displayInput(n int, arg, p string) string { return displayInputAs(n, arg, p, nil) }

// inputNamer is how a run's messages name its inputs: displayInput on a
// terminal, where the user reading needs the file's own name; written to
// a file or a pipe (a log that may be shared, CI), a file name that is
// not an agent's own session name is shown as the name its outputs carry
// (pipeline.InputFileName under h: input-<12 hex>.jsonl, keyed in keyed
// mode) when a walk found it, since the name is the user's choice and may
// say who or what the session was about. A file the user named is shown
// as displayInput shows it.
func inputNamer(tty bool, h receipt.Hasher) func(n int, arg, p string) string {
	if tty {
		return displayInput
	}
	return func(n int, arg, p string) string {
		return displayInputAs(n, arg, p, func(name string) string { return pipeline.InputFileName(h, name) })
	}
}

// displayInputAs is displayInput with the file's own name passed through
// rename (nil: kept).
func displayInputAs(n int, arg, p string, rename func(string) string) string {
	if p == pipeline.StdinName {
		return p
	}
	home, _ := homeDir()
	where := ""
	if !filepath.IsAbs(arg) || underHome(arg, home) {
		where = strings.TrimSuffix(displayPath(arg), "/")
	}
	var parts []string
	if p == arg {
		if where != "" && !filepath.IsAbs(arg) {
			return where // as the user typed it
		}
		parts = []string{filepath.Base(p)}
		if where != "" {
			where = strings.TrimSuffix(displayPath(filepath.Dir(p)), "/")
		}
	} else if rel, err := filepath.Rel(arg, p); err == nil && !strings.HasPrefix(rel, "..") {
		parts = strings.Split(filepath.ToSlash(rel), "/")
	} else {
		parts = []string{filepath.Base(p)}
	}
	last := len(parts) - 1
	for i, c := range parts {
		switch {
		case i == last && rename != nil && p != arg: // a file the walk found, not one the user named
			parts[i] = rename(c)
		case i == last && elide(c, home) != c:
			parts[i] = fmt.Sprintf("[input %d, name withheld]", n) // it names the user, or encodes a path
		case i < last && !idName(c) && !sessionFolders[c] && !(len(c) <= 4 && digitsOrTime(c)): // a date folder (2026/01) stays
			parts[i] = elided
		}
	}
	if where == "" {
		where = elided
	}
	return squeeze(where + "/" + strings.Join(parts, "/"))
}

// sessionFolders are folder names agents use inside a session's folder.
var sessionFolders = map[string]bool{"subagents": true, "sessions": true, "chats": true}

func underHome(p, home string) bool {
	return home != "" && strings.HasPrefix(tildePath(p, home), "~/")
}

// elide replaces each folder of a slash path that encodes a path
// (-home-alice-acme, C--Users-alice) or holds the user's name with ….
func elide(p, home string) string {
	user := ""
	if home != "" {
		user = strings.ToLower(filepath.Base(home))
	}
	parts := strings.Split(p, "/")
	for i, c := range parts {
		lc := strings.ToLower(c)
		if strings.HasPrefix(c, "-") || strings.Contains(c, "--") || (len(user) >= 3 && strings.Contains(lc, user)) {
			parts[i] = elided
		}
	}
	return squeeze(strings.Join(parts, "/"))
}

// squeeze folds runs of … folders into one.
func squeeze(p string) string {
	for strings.Contains(p, elided+"/"+elided) {
		p = strings.ReplaceAll(p, elided+"/"+elided, elided)
	}
	return p
}

// idWords are the words agents put around a session id in a file name
// (rollout-2026-01-02T03-04-05-<uuid>.jsonl, agent-<id>.jsonl).
var idWords = map[string]bool{"rollout": true, "agent": true, "session": true, "chat": true, "events": true}

// idName reports whether a file or folder name is an id an agent chose: it
// holds a run of 8 or more hex digits with a digit in it (a UUID, a hex
// id), and every other piece is a number, a date or time piece, or one of
// idWords; or it is one of idWords alone (Copilot CLI's events.jsonl).
func idName(c string) bool {
	stem := c
	for _, ext := range []string{".gz", ".zst", ".jsonl", ".json", ".meta"} {
		stem = strings.TrimSuffix(stem, ext)
	}
	if idWords[stem] {
		return true
	}
	hexRun := false
	for _, piece := range strings.FieldsFunc(stem, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		switch {
		case idWords[piece], digitsOrTime(piece):
		case len(piece) >= 4 && hexDigits(piece):
			if len(piece) >= 8 || strings.ContainsAny(piece, "0123456789") {
				hexRun = hexRun || len(piece) >= 8
			} else {
				return false
			}
		default:
			return false
		}
	}
	return hexRun
}

// digitsOrTime is a number or a date-time piece (19T10).
func digitsOrTime(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9') && !(c == 'T' && i > 0 && i < len(s)-1) {
			return false
		}
	}
	return true
}

func hexDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
