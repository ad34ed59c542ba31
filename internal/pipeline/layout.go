package pipeline

import (
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/jsonl"
	"github.com/tidwall/gjson"
)

// An agent may keep one session in several files (Claude Code's subagent
// transcripts, Cursor's session folder): each native format's
// converters.Layout says which, and the pipeline reads the disk for it.
// group turns a list of inputs into sessions: every .jsonl under a
// session's own directories, and every sibling file that names it, becomes
// a companion of that session instead of an input of its own.

// group attaches companions to their sessions. ins hold slash-relative Rel
// paths; the result keeps the input order of the remaining inputs.
func group(ins []Input, isRegular func(string) bool) []Input {
	owners := map[string]int{} // a session's own directory -> index in ins
	for i, in := range ins {
		for _, d := range converters.SessionDirs(in.Path, peeker(in.Path)) {
			owners[filepath.Clean(d)] = i
		}
	}
	for i := range ins {
		ins[i].Meta = mainSidecar(ins[i].Path, isRegular)
	}
	if len(owners) == 0 {
		return ins
	}
	owner := make([]int, len(ins))
	for i, in := range ins {
		owner[i] = -1
		if m, ok := dirOwner(in.Path, i, owners); ok {
			owner[i] = m
		} else if d := converters.SiblingDir(in.Path, peeker(in.Path)); d != "" {
			if m, ok := owners[filepath.Clean(d)]; ok {
				owner[i] = m
			}
		}
	}
	var out []Input
	index := map[int]int{}
	for i, in := range ins {
		if owner[i] < 0 {
			index[i] = len(out)
			out = append(out, in)
		}
	}
	for i, in := range ins {
		if m := owner[i]; m >= 0 {
			main := &out[index[m]]
			main.Companions = append(main.Companions, companion(main.Path, in.Path, isRegular))
		}
	}
	for i := range out {
		sort.Slice(out[i].Companions, func(a, b int) bool { return out[i].Companions[a].Rel < out[i].Companions[b].Rel })
	}
	return out
}

// dirOwner finds the session whose own directory is the nearest to hold p.
// When that is p's own session (a main file inside its own directory, as
// a Claude Code workflow run's journal is, nested in its parent session's
// directory), p belongs to no other.
func dirOwner(p string, self int, owners map[string]int) (int, bool) {
	for dir := filepath.Dir(p); filepath.Dir(dir) != dir; dir = filepath.Dir(dir) {
		if m, ok := owners[filepath.Clean(dir)]; ok {
			return m, m != self
		}
	}
	return 0, false
}

// nested returns the directories, below a session's own, that hold a
// session of their own (a file there owns a directory that holds it):
// their files are that session's, not the enclosing one's.
func nested(files []string) map[string]bool {
	out := map[string]bool{}
	for _, f := range files {
		for _, d := range converters.SessionDirs(f, peeker(f)) {
			d = filepath.Clean(d)
			if rel, err := filepath.Rel(d, f); err == nil && !strings.HasPrefix(rel, "..") {
				out[d] = true
			}
		}
	}
	return out
}

// underAny reports whether p lies under one of dirs.
func underAny(p string, dirs map[string]bool) bool {
	for dir := filepath.Dir(p); filepath.Dir(dir) != dir; dir = filepath.Dir(dir) {
		if dirs[filepath.Clean(dir)] {
			return true
		}
	}
	return false
}

// companion describes p as a companion of main, with its sidecar if any
// (a regular file, as isRegular says).
func companion(main, p string, isRegular func(string) bool) Companion {
	rel, err := filepath.Rel(filepath.Dir(main), p)
	if err != nil {
		rel = filepath.Base(p)
	}
	c := Companion{Path: p, Rel: filepath.ToSlash(rel)}
	for _, meta := range converters.Sidecars(p) {
		if isRegular(meta) {
			c.Meta = meta
			break
		}
	}
	return c
}

// mainSidecar is the sidecar of a main transcript, "" when it has none.
func mainSidecar(p string, isRegular func(string) bool) string {
	for _, meta := range converters.MainSidecars(p) {
		if isRegular(meta) {
			return meta
		}
	}
	return ""
}

// peeker returns a layout's view of p's first lines: the first non-empty
// string value of a top-level field among the first 64 lines (of at most
// 1 MiB each).
func peeker(p string) func(field string) string {
	return func(field string) string {
		fh, err := openInput(p, false)
		if err != nil {
			return ""
		}
		defer fh.Close()
		r := jsonl.NewReader(io.LimitReader(fh.Reader, DetectBytes), 1<<20)
		for i := 0; i < 64; i++ {
			l, err := r.Next()
			if err != nil {
				return ""
			}
			if v := gjson.GetBytes(l.Bytes, field); v.Type == gjson.String && v.Str != "" {
				return strings.Clone(v.Str) // a layout may keep it: l.Bytes is the reader's
			}
		}
		return ""
	}
}

// companionsOf finds the companions of a session file given on its own:
// the .jsonl files (and a format's one-document files) under its
// session's directories and the sibling files
// beside it that name it.
func companionsOf(main string) []Companion {
	dirs := converters.SessionDirs(main, peeker(main))
	if len(dirs) == 0 {
		return nil
	}
	own := map[string]bool{}
	for _, d := range dirs {
		own[filepath.Clean(d)] = true
	}
	seen := map[string]bool{main: true}
	var out []Companion
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, companion(main, p, isRegularFile))
		}
	}
	var below []string
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && (strings.HasSuffix(p, ".jsonl") || converters.IsDocument(e.Name())) {
				below = append(below, p)
			}
			return nil
		})
	}
	skip := nested(below)
	delete(skip, filepath.Clean(main)) // never the session's own directory
	for _, d := range dirs {
		delete(skip, filepath.Clean(d))
	}
	for _, p := range below {
		if !underAny(p, skip) {
			add(p)
		}
	}
	siblings, _ := filepath.Glob(filepath.Join(filepath.Dir(main), "*.jsonl"))
	for _, s := range siblings {
		if d := converters.SiblingDir(s, peeker(s)); d != "" && own[filepath.Clean(d)] {
			add(s)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Rel < out[b].Rel })
	return out
}
