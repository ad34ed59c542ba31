package pipeline

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/receipt"
)

// Input is one file to convert: where it is, and its path relative to the
// argument it was found under (which the output layout mirrors).
type Input struct {
	Path       string
	Rel        string
	Companions []Companion // further files of the same session, read after Path
	// Meta is the main file's own sidecar (Layout.MainSidecar), "" when
	// none; MetaName is how messages name it.
	Meta, MetaName string
	// Arg is the argument the input was found under (the file itself, or
	// the directory walked); Name is how messages name it ("": Path). A
	// command sets Name so that no message carries the input's directories
	// (a user name, an encoded working folder): see NameInputs.
	Arg, Name string
	// Typed is how many of Rel's first folders are names the user typed:
	// the subtree names that keep several arguments' outputs apart
	// (subtreeNames, "claude_code/basic"). They are the user's own words,
	// as the paths given on the command line are to the leak check
	// (leak.Input.Pass), and outputs keep them (Input.OutputName); a
	// folder found below an argument is not.
	Typed int
}

// Shown is how messages name the input.
func (in Input) Shown() string {
	if in.Name != "" {
		return in.Name
	}
	return in.Path
}

// Companion is a file converted as part of another input: a subagent
// transcript of a session, with its optional sidecar.
type Companion struct {
	Path string
	Rel  string // relative to the main file's directory, slash-separated
	Meta string // path of the sidecar .meta.json, "" when none
	// Name and MetaName are how messages name Path and Meta ("": as they are).
	Name, MetaName string
}

// NameInputs sets the name every message gives each input and companion:
// name(n, arg, path) of the input's number (from 1), the argument it was
// found under and the file's path.
func NameInputs(ins []Input, name func(n int, arg, path string) string) {
	for i := range ins {
		in := &ins[i]
		if in.Path == StdinName {
			in.Name = StdinName
			continue
		}
		in.Name = name(i+1, in.Arg, in.Path)
		if in.Meta != "" {
			in.MetaName = name(i+1, in.Arg, in.Meta)
		}
		for j := range in.Companions {
			c := &in.Companions[j]
			c.Name = name(i+1, in.Arg, c.Path)
			if c.Meta != "" {
				c.MetaName = name(i+1, in.Arg, c.Meta)
			}
		}
	}
}

func orPath(name, path string) string {
	if name != "" {
		return name
	}
	return path
}

// ArgError is an argument that cannot be used: a missing file or
// directory, an unreadable one, or two arguments that would write the same
// outputs. The command reports it as a usage error (exit 2).
type ArgError struct {
	Arg string
	Msg string
	// Other, when set, is the second file of two that would write the
	// same outputs. A command shows Arg and Other as its messages name
	// paths (cmd/convert's displayPath).
	Other string
}

func (e *ArgError) Error() string {
	msg := e.Msg
	if e.Other != "" {
		msg += ": " + e.Other
	}
	if e.Arg == "" {
		return msg
	}
	return e.Arg + ": " + msg
}

// StdinArg is the argument that means standard input; StdinName is how the
// input is named in messages and outputs (stdin.receipt.ndjson).
const (
	StdinArg  = "-"
	StdinName = "stdin"
)

// inputSuffixes are the file endings a directory walk picks up.
var inputSuffixes = []string{".jsonl", ".jsonl.gz", ".jsonl.zst"}

// Expand turns file and directory arguments into inputs. Directories are
// walked in sorted order; files are taken whatever their name. When several
// arguments are directories, each keeps its own subtree under the output
// directory, named after the directory (with as many parent names as it
// takes to tell them apart). "-" is standard input, which must have been
// spooled with SpoolStdin first. Files of one name from different
// directories are named the same way. Two inputs that would still write the
// same output (the same file twice, say) are an error.
func Expand(args []string) ([]Input, error) {
	return ExpandContext(context.Background(), args)
}

// ExpandContext is Expand under ctx: a query that lists a database's
// sessions stops when it is cancelled (Ctrl-C), and that database is an
// input failing with ErrInterrupted, which the run then reports with the
// others it did not convert.
func ExpandContext(ctx context.Context, args []string) ([]Input, error) {
	var dirArgs []string
	var ins []Input
	for _, a := range args {
		in, dir, err := argInput(ctx, a)
		switch {
		case err != nil:
			return nil, err
		case dir:
			dirArgs = append(dirArgs, a)
		default:
			ins = append(ins, in)
		}
	}
	nameApart(ins)
	// A database of sessions (opencode.db) given as a file is its
	// sessions, each named below the database's name.
	var files []Input
	for _, in := range ins {
		if in.Path != StdinName && virtualEntry(in.Path) == nil {
			if found, ok := storeExpand(ctx, in.Path, in.Rel, in.Arg, true); ok {
				files = append(files, found...)
				continue
			}
		}
		files = append(files, in)
	}
	ins = files
	prefixes := subtreeNames(dirArgs)
	for _, a := range dirArgs {
		found, err := walkInputs(ctx, a, prefixes[a])
		if err != nil {
			return nil, err
		}
		for i := range found {
			found[i].Typed = folders(prefixes[a])
		}
		ins = append(ins, found...)
	}
	ins = PreferStores(ins)
	seen := map[string]string{}
	for _, in := range ins {
		o := in.OutputName(receipt.Hasher{}, "")
		if prev, dup := seen[o]; dup {
			return nil, &ArgError{Arg: prev, Other: in.Path, Msg: "would write the same outputs as another input; convert them in separate runs with different --out"}
		}
		seen[o] = in.Path
	}
	return ins, nil
}

// argInput is the input an argument names: standard input, or a file with
// its session's companions; dir is true for a directory, walked later.
func argInput(ctx context.Context, a string) (in Input, dir bool, err error) {
	if a == StdinArg {
		if stdinSpool() == "" {
			return in, false, &ArgError{Arg: a, Msg: "standard input was not read"}
		}
		return Input{Path: StdinName, Rel: StdinName + ".jsonl", Arg: a}, false, nil
	}
	if filepath.Clean(a) == StdinName && stdinSpool() != "" {
		return in, false, &ArgError{Arg: a, Msg: "a file named stdin and - (standard input) in one run; rename the file"}
	}
	st, err := os.Stat(a)
	switch {
	case err != nil:
		if s, ok := storeSession(ctx, a); ok {
			// One session of a database: opencode.db/ses_x.
			s.Rel = filepath.Base(filepath.Dir(a)) + "/" + filepath.Base(a)
			return s, false, nil
		}
		return in, false, &ArgError{Arg: a, Msg: openError(err).Error()}
	case st.IsDir():
		return in, true, nil
	case !st.Mode().IsRegular():
		// a pipe or device reads once, and an input is read more than once
		return in, false, &ArgError{Arg: a, Msg: "not a regular file (a pipe or a device, as <(...) gives): an input is read more than once, so pipe it to standard input instead (COMMAND | convert run -) or save it to a file"}
	}
	return Input{Path: a, Rel: filepath.Base(a), Companions: companionsOf(a), Meta: mainSidecar(a, isRegularFile), Arg: a}, false, nil
}

// nameApart puts files of one name from different directories each under
// its directory's name, as several directory arguments are.
func nameApart(ins []Input) {
	byName := map[string][]string{}
	for _, in := range ins {
		if in.Path != StdinName {
			byName[in.Rel] = append(byName[in.Rel], filepath.Dir(in.Path))
		}
	}
	for i, in := range ins {
		if dirs := byName[in.Rel]; len(dirs) > 1 && in.Path != StdinName {
			if n := subtreeNames(dirs)[filepath.Dir(in.Path)]; n != "" {
				ins[i].Rel, ins[i].Typed = n+"/"+in.Rel, folders(n)
			}
		}
	}
}

// folders is how many folders a subtree name holds ("" none).
func folders(name string) int {
	if name == "" {
		return 0
	}
	return strings.Count(name, "/") + 1
}

// walkInputs finds the inputs under dir and groups sessions; their Rel is
// prefix/relative path (prefix "" for one directory argument).
//
// Each folder is listed once, in name order (as filepath.WalkDir does),
// and what the listings hold answers the questions grouping asks of files
// beside an input (is there a sidecar?) without a stat per question: on a
// history of thousands of sessions those stats, most of them of files
// that do not exist, were most of an unchanged rerun's time.
func walkInputs(ctx context.Context, dir, prefix string) ([]Input, error) {
	var found, stores []Input
	l := listing{dirs: map[string]bool{}, regular: map[string]bool{}, links: map[string]bool{}}
	var walk func(d string) error
	walk = func(d string) error {
		f, err := os.Open(d)
		if err != nil {
			return &ArgError{Arg: d, Msg: openError(err).Error()}
		}
		entries, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return &ArgError{Arg: d, Msg: openError(err).Error()}
		}
		if d != dir && slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == ManifestName }) {
			return nil // convert's own outputs, never its inputs
		}
		slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		l.dirs[filepath.Clean(d)] = true
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			switch {
			case e.IsDir():
				if err := walk(p); err != nil {
					return err
				}
				continue
			case e.Type().IsRegular():
				l.regular[p] = true
			case e.Type()&fs.ModeSymlink != 0:
				l.links[p] = true
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			if !hasInputSuffix(p) {
				// A database of sessions: a *.db or *.sqlite that a
				// store names (opencode.db, OpenClaw's
				// openclaw-agent.sqlite) or whose tables are a store's
				// (ZCode's db.sqlite); another program's database is
				// not a log, and is passed over in silence. Every
				// store's file has one of the two suffixes: a walk
				// asks nothing of the other files.
				if strings.HasSuffix(p, ".db") || strings.HasSuffix(p, ".sqlite") {
					if ins, ok := storeExpand(ctx, p, filepath.ToSlash(rel), dir, true); ok {
						stores = append(stores, ins...)
					}
				}
				continue
			}
			found = append(found, Input{Path: p, Rel: filepath.ToSlash(rel), Arg: dir})
		}
		return nil
	}
	if err := walk(dir); err != nil {
		return nil, err
	}
	found = append(group(found, l.isRegular), stores...)
	if prefix != "" {
		for i := range found {
			found[i].Rel = prefix + "/" + found[i].Rel
		}
	}
	return found, nil
}

// listing is what a walk saw: the folders it listed, and the regular
// files and the links in them.
type listing struct{ dirs, regular, links map[string]bool }

// isRegular answers isRegularFile from the listings for a file in a listed
// folder (a link there is followed), and by a stat elsewhere.
func (l listing) isRegular(p string) bool {
	switch {
	case l.regular[p]:
		return true
	case l.links[p] || !l.dirs[filepath.Dir(p)]:
		return isRegularFile(p)
	}
	return false
}

// isRegularFile reports whether p is (or links to) a regular file.
func isRegularFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// subtreeNames names each directory argument's subtree when there are
// several: the last path element, or the last two, three... until they are
// all different. One directory keeps today's layout (no prefix).
func subtreeNames(dirs []string) map[string]string {
	names := map[string]string{}
	if len(dirs) < 2 {
		return names
	}
	parts := make([][]string, len(dirs))
	for i, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			abs = d
		}
		for _, p := range strings.Split(filepath.ToSlash(abs), "/") {
			if p != "" {
				parts[i] = append(parts[i], p)
			}
		}
		if len(parts[i]) == 0 {
			parts[i] = []string{"root"}
		}
	}
	for depth := 1; ; depth++ {
		seen, clash, longest := map[string]bool{}, false, 0
		for i, d := range dirs {
			ps := parts[i]
			longest = max(longest, len(ps))
			n := strings.Join(ps[max(0, len(ps)-depth):], "/")
			if seen[n] {
				clash = true
			}
			seen[n] = true
			names[d] = n
		}
		if !clash || depth >= longest {
			return names
		}
	}
}

// hasInputSuffix reports a file a walk reads: a log's ending, and not a
// trace convert wrote (X.otel.jsonl ends in .jsonl too).
func hasInputSuffix(p string) bool {
	if strings.HasSuffix(p, TraceSuffix("jsonl")) {
		return false
	}
	if converters.IsDocumentPath(p) {
		return true // a format's one-document files (Format.Document)
	}
	for _, s := range inputSuffixes {
		if strings.HasSuffix(p, s) {
			return true
		}
	}
	return false
}

// stdin is standard input copied to a private temporary file: the pipeline
// reads an input more than once (detection, conversion, the leak check's
// second pass), which a pipe cannot give.
var stdin struct {
	sync.Mutex
	path string
}

func stdinSpool() string {
	stdin.Lock()
	defer stdin.Unlock()
	return stdin.path
}

// SpoolStdin copies r (standard input) to a private temporary file that
// the input "stdin" then reads, and returns the function that removes it.
func SpoolStdin(r io.Reader) (cleanup func(), err error) {
	return SpoolStdinContext(context.Background(), r)
}

// SpoolStdinContext is SpoolStdin that gives up when ctx ends (Ctrl-C), even
// while a read of standard input waits for a writer that never writes: it
// then returns ErrInterrupted and leaves no spool (the read stays blocked
// until the process exits).
func SpoolStdinContext(ctx context.Context, r io.Reader) (cleanup func(), err error) {
	fh, err := os.CreateTemp("", "convert-stdin-*.jsonl")
	if err != nil {
		return nil, &ArgError{Arg: StdinArg, Msg: "cannot spool standard input: " + openError(err).Error()}
	}
	copied := make(chan error, 1)
	go func() {
		_, err := io.Copy(fh, stopping(ctx, r))
		copied <- err
	}()
	var cerr error
	select {
	case cerr = <-copied:
	case <-ctx.Done():
		os.Remove(fh.Name())
		return nil, ErrInterrupted
	}
	if errors.Is(cerr, ErrInterrupted) {
		fh.Close()
		os.Remove(fh.Name())
		return nil, ErrInterrupted
	}
	if err := errors.Join(cerr, fh.Close()); err != nil {
		os.Remove(fh.Name())
		return nil, &ArgError{Arg: StdinArg, Msg: "cannot read standard input: " + openError(err).Error()}
	}
	stdin.Lock()
	stdin.path = fh.Name()
	stdin.Unlock()
	return func() {
		stdin.Lock()
		stdin.path = ""
		stdin.Unlock()
		os.Remove(fh.Name())
	}, nil
}

// resolve maps an input path to the file holding it: "stdin" to its spool.
func resolve(p string) string {
	if p == StdinName {
		if s := stdinSpool(); s != "" {
			return s
		}
	}
	return p
}

// statInput is os.Stat of an input path (see resolve).
// A session of a database (store.go) has the stat its rows give.
func statInput(p string) (os.FileInfo, error) { return statVirtual(p) }

// Empty reports whether res, the conversion of in, found a blank file (an
// empty or whitespace-only log with no companion): a run skips and counts
// it instead of failing it, and so does every command that converts logs.
func Empty(in Input, res Result) bool {
	return len(in.Companions) == 0 && res.Stats.Records == 0 && !errors.Is(res.Err, ErrInterrupted) && blank(in.Path)
}

// blank reports whether the file holds nothing but whitespace (an empty
// or blank-only log: real ~/.claude trees have them). It reads until the
// first other byte; the run asks only of an input that yielded no record.
func blank(p string) bool {
	fh, err := openInput(p, false)
	if err != nil {
		return false
	}
	defer fh.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := fh.Read(buf)
		for _, b := range buf[:n] {
			if b != ' ' && b != '\n' && b != '\r' && b != '\t' {
				return false
			}
		}
		if err != nil {
			return errors.Is(err, io.EOF)
		}
	}
}

// size is the input's size on disk: the files the manifest records for it
// (inputPaths: main file, companions, their metadata; standard input's
// spool). A file that cannot be read counts 0: the conversion reports it.
func (in Input) size() int64 {
	var n int64
	for _, p := range inputPaths(in) {
		if st, err := statInput(p); err == nil {
			n += st.Size()
		}
	}
	return n
}
