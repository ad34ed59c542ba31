package converters

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
)

// Format is what an agent's own log format (Claude Code, Codex, Cursor)
// declares beyond its Converter, so that the pipeline, detection, the fuzz
// targets and the converter tables of docs/converters.md follow from the
// registry instead of lists kept by hand. Every field is data or a
// function; the ones that look at the disk are Layout's (which files form a
// session: they may list a directory or read a file's first lines) and
// Store's (an agent's SQLite file, opened read-only by the pipeline).
//
// Adding a format is one package, converters/<agent>/ (its code and its
// tests), that registers a Converter with a Format, and one import line in
// converters/all (see "Adding an agent's log format" in
// docs/adding-a-format.md).
type Format struct {
	// Type returns a record's type, for formats whose lines do not all
	// carry it in one field (a Converter.TypeField); a result that is not
	// a JSON string means the record has none. nil: Converter.TypeField.
	Type func(r Record) view.Value
	// Time returns a record's time as an RFC 3339 JSON string, for formats
	// that write times some other way; a result that does not exist means
	// the record has none. nil: Converter.TimeField.
	Time func(r Record) view.Value
	// Layout says which files on disk make one session; the zero Layout
	// means every file is a session of its own.
	Layout Layout
	// Locations are where the agent keeps its logs, for a run given no
	// paths.
	Locations []Location
	// Document reports the files (by base name) that hold one JSON
	// document each, perhaps pretty-printed over many lines, rather than
	// one record per line: the pipeline reads such a file as one record.
	// nil: none.
	Document func(base string) bool
	// DocumentAt reports, like Document, the one-document files a format
	// knows by where they are rather than by name (Gemini CLI's subagent
	// chats, chats/<session id>/<id>.json): p is an OS path as given.
	// nil: none.
	DocumentAt func(p string) bool
	// Seeds are the sample folders (slash paths from the repository root)
	// whose .jsonl files seed the native fuzz target.
	Seeds []string
	// IDs is the grammar of the ids the agent's logs carry, its own and
	// its model providers' (leak.IDs): prefixes, lengths and alphabets,
	// each rule next to the sources it rests on and its examples. The
	// reader writes an id in clear only when it matches (and passes the
	// id shape's screens), else its digest; nil: every id is a digest.
	IDs leak.IDs
	// Models are the model names the agent writes of its own that the
	// model catalog (internal/models) does not list (Claude Code's
	// <synthetic>, Cursor's Auto): written in clear like the catalog's.
	Models []string
	// Store describes the SQLite database the agent keeps many sessions
	// in (OpenCode's opencode.db); nil: none. The pipeline opens the file
	// read-only and converts each of its sessions as an input of its own.
	Store *Store
}

// Store is a database file that holds many sessions. The pipeline opens it
// (read-only, query-only) and hands the open database to these functions,
// which only read: each session becomes one input, whose records are the
// lines Lines writes, in the shapes the format's reader reads from files.
type Store struct {
	// Name reports the file names (base names) that are this store: a
	// walk reads them, and a file of another name only when its first
	// bytes are SQLite's and Claim holds.
	Name func(base string) bool
	// Claim reports whether an open database has the tables and columns
	// the store reads.
	Claim func(ctx context.Context, db *sql.DB) bool
	// Sessions lists the sessions, in the order they are converted, with
	// what says whether one changed since a run.
	Sessions func(ctx context.Context, db *sql.DB) ([]StoreSession, error)
	// Lines writes one session's records to emit, one JSON object each,
	// in the order the reader reads them; it stops at emit's error.
	Lines func(ctx context.Context, db *sql.DB, session string, emit func(line []byte) error) error
	// NameOnly: only a file Name names is this store; a database of
	// another name is never probed for it, since its tables are another
	// agent's too (Kilo's kilo.db holds OpenCode's schema).
	NameOnly bool
	// CommonName: the file name is common to other programs' databases
	// (Hermes's state.db, Goose's sessions.db): an SQLite database of that
	// name without the tables Claim wants is another program's, not a log
	// (skipped), rather than this agent's, broken.
	CommonName bool
	// Up is where the agent's own log files copy the store's sessions:
	// below the database's folder (0: OpenCode's storage/ beside
	// opencode.db), or that many folders above it (1: OpenClaw's
	// agents/<a>/sessions beside agents/<a>/agent/openclaw-agent.sqlite).
	// A file there holding one of its sessions is read from the store
	// instead; a file elsewhere with the same id (another agent's) is not.
	Up int
}

// StoreSession is one session of a Store: its id, the latest time it was
// updated (Unix milliseconds, as the store can tell it cheaply) and how
// many rows it has: an unchanged rerun compares both.
type StoreSession struct {
	ID      string
	Updated int64
	Rows    int64
}

// StoreFor returns the store whose file name base is, nil for none.
func StoreFor(base string) *Store {
	for _, c := range Natives() {
		if s := c.Native.Store; s != nil && s.Name != nil && s.Name(base) {
			return s
		}
	}
	return nil
}

// Stores returns the registered formats' stores that a database of
// another name is probed for (all but the NameOnly ones).
func Stores() []*Store {
	var out []*Store
	for _, c := range Natives() {
		if c.Native.Store != nil && !c.Native.Store.NameOnly {
			out = append(out, c.Native.Store)
		}
	}
	return out
}

// Layout describes a session kept in several files: a main transcript and
// companions (subagent transcripts) read after it as one input. Paths are
// OS paths as the user gave them. Every function may be nil.
type Layout struct {
	// Session reports whether the file at p is a session's main transcript,
	// and the directories every .jsonl file under which belongs to it. peek
	// is as for Sibling (for layouts whose directories are named by an id
	// the file holds rather than its name).
	Session func(p string, peek func(field string) string) (dirs []string, ok bool)
	// Sibling returns, for a file outside every session's directories, the
	// directory of the session it belongs to ("" for none). peek returns
	// the first non-empty string value of a top-level field in the file's
	// first lines. Candidates found for a main given alone are the .jsonl
	// files beside it.
	Sibling func(p string, peek func(field string) string) string
	// Sidecar names the file that may hold a companion's metadata
	// (SourceFile.Meta), "" for none; it is read when it exists.
	Sidecar func(companion string) string
	// MainSidecar names the file that may hold a main transcript's own
	// metadata (its SourceFile.Meta: Factory Droid's <id>.settings.json),
	// "" for none; it is read when it exists, as a companion's Sidecar is.
	MainSidecar func(main string) string
	// SessionID returns the session id a file's base name carries ("" for
	// none): it keys sharding, so a session's files stay together.
	SessionID func(base string) string
}

// Location is one place an agent keeps its logs: Below, under the
// directory the environment variable Env names when it is set, else under
// Default in the home directory. Below may hold glob patterns.
type Location struct {
	Env     string // e.g. CLAUDE_CONFIG_DIR; "" when the agent has none
	Default string // slash path relative to the home directory, e.g. ".claude"
	Below   string // slash path (or pattern) below it, e.g. "projects"
	// EnvOnly: the place is only where Env names one (Goose's
	// GOOSE_PATH_ROOT/data/sessions); unset, there is none, rather than
	// one under the home directory itself.
	EnvOnly bool
}

// Path resolves l with getenv (os.Getenv) and the home directory: a path
// or a filepath.Glob pattern; "" for an EnvOnly place whose variable is
// unset (there is none to look at). A variable naming several folders
// gives the first (Paths gives them all).
func (l Location) Path(getenv func(string) string, home string) string {
	if ps := l.Paths(getenv, home); len(ps) > 0 {
		return ps[0]
	}
	return ""
}

// Paths resolves l as Path does, each folder its variable names: ccusage
// reads every agent's directory variable as one folder or a
// comma-separated list of them (CLAUDE_CONFIG_DIR=~/a,~/b), so a
// variable set for ccusage finds the same logs here. None for an EnvOnly
// place whose variable is unset.
func (l Location) Paths(getenv func(string) string, home string) []string {
	roots := []string{filepath.Join(home, filepath.FromSlash(l.Default))}
	if l.Env != "" {
		if v := getenv(l.Env); v != "" {
			roots = roots[:0]
			for _, r := range strings.Split(v, ",") {
				if r = strings.TrimSpace(r); r != "" {
					roots = append(roots, r)
				}
			}
		} else if l.EnvOnly {
			return nil
		}
	}
	out := make([]string, len(roots))
	for i, r := range roots {
		out[i] = filepath.Join(r, filepath.FromSlash(l.Below))
	}
	return out
}

// RecordType returns r's type: the format's Type, else the TypeField.
func (c Converter) RecordType(r Record) view.Value {
	if c.Native != nil && c.Native.Type != nil {
		return c.Native.Type(r)
	}
	return r.Get(c.TypeField)
}

// RecordTime returns r's time value: the format's Time, else the
// TimeField ("" TimeField: none).
func (c Converter) RecordTime(r Record) view.Value {
	if c.Native != nil && c.Native.Time != nil {
		return c.Native.Time(r)
	}
	if c.TimeField == "" {
		return view.Value{}
	}
	return r.Get(c.TimeField)
}

// Samples are the folders (slash paths from the repository root) whose
// .jsonl files seed c's fuzz target: a format's Seeds, else samples/<name>.
func (c Converter) Samples() []string {
	if c.Native != nil && len(c.Native.Seeds) > 0 {
		return c.Native.Seeds
	}
	return []string{"samples/" + c.Name}
}

// typeKey names the way c finds record types, for detection: converters
// reading the same field share a key; a format's own Type function has its
// own.
func (c Converter) typeKey() string {
	if c.Native != nil && c.Native.Type != nil {
		return "@" + c.Name
	}
	return c.TypeField
}

// Typer is one way of finding a record's type, named by its Key.
type Typer struct {
	Key  string
	Type func(r Record) view.Value
}

// Typers returns the distinct ways the registered converters find record
// types, sorted by key: what detection reads from an input's first lines.
func Typers() []Typer { return TypersOf(All()) }

// TypersOf is Typers among the given converters only (detection tests use
// it to see an input as a build without some reader does).
func TypersOf(convs []Converter) []Typer {
	seen := map[string]bool{}
	var out []Typer
	for _, c := range convs {
		if k := c.typeKey(); !seen[k] {
			seen[k] = true
			out = append(out, Typer{Key: k, Type: c.RecordType})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Natives returns the converters of agents' own log formats, by name.
// The list is shared: callers must not modify it.
func Natives() []Converter {
	_, native := lists()
	return native
}

// SessionDirs returns the directories owned by the session whose main
// transcript p is, in any native format's layout (none: p is not one).
func SessionDirs(p string, peek func(field string) string) []string {
	var out []string
	for _, c := range Natives() {
		if l := c.Native.Layout; l.Session != nil {
			if dirs, ok := l.Session(p, peek); ok {
				out = append(out, dirs...)
			}
		}
	}
	return out
}

// SiblingDir returns the directory of the session that a file outside
// every session directory belongs to, in the first native layout that
// claims it ("" for none).
func SiblingDir(p string, peek func(field string) string) string {
	for _, c := range Natives() {
		if l := c.Native.Layout; l.Sibling != nil {
			if d := l.Sibling(p, peek); d != "" {
				return d
			}
		}
	}
	return ""
}

// MainSidecars returns the files that may hold a main transcript's own
// metadata.
func MainSidecars(main string) []string {
	var out []string
	for _, c := range Natives() {
		if l := c.Native.Layout; l.MainSidecar != nil {
			if s := l.MainSidecar(main); s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// Sidecars returns the files that may hold a companion's metadata.
func Sidecars(companion string) []string {
	var out []string
	for _, c := range Natives() {
		if l := c.Native.Layout; l.Sidecar != nil {
			if s := l.Sidecar(companion); s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// IsDocument reports whether a native format reads files of this base
// name as one JSON document (Format.Document).
func IsDocument(base string) bool {
	for _, c := range Natives() {
		if d := c.Native.Document; d != nil && d(base) {
			return true
		}
	}
	return false
}

// IsDocumentPath reports whether a native format reads the file at p as
// one JSON document, by its name (Format.Document) or by where it is
// (Format.DocumentAt).
func IsDocumentPath(p string) bool {
	if IsDocument(filepath.Base(p)) {
		return true
	}
	for _, c := range Natives() {
		if d := c.Native.DocumentAt; d != nil && d(p) {
			return true
		}
	}
	return false
}

// SessionID returns the session id a file's base name carries in any
// native layout ("" for none).
func SessionID(base string) string {
	for _, c := range Natives() {
		if l := c.Native.Layout; l.SessionID != nil {
			if id := l.SessionID(base); id != "" {
				return strings.ToLower(id)
			}
		}
	}
	return ""
}
