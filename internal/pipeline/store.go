package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/contextreceipts/convert/converters"
	"modernc.org/sqlite" // pure Go SQLite, as internal/prepare uses
)

// A store is a database file that holds many sessions (OpenCode's
// opencode.db: converters.Store). Each of its sessions is converted as an
// input of its own, a virtual file: its path is the database's path and
// the session's name below it (opencode.db/ses_x), which no real file can
// have, since the database is a file. Reading the virtual file streams the
// session's records from the database, one JSON line each, as the format's
// Store.Lines writes them, so a line number in an error is the row's place
// in that stream (1 the session, then its messages, then its parts). The
// input's digest is the sha256 of those lines (each followed by "\n"), its
// size the bytes of them; the manifest, to tell an unchanged session, keeps
// its row count as its size and the latest update its store reports
// (StoreSession.Updated) as its mtime.
//
// The database is opened read-only (mode=ro) and query-only, never
// created, and closed after each reading.

// Every query against a store runs under storeBounds (a deadline and a row
// bound per query, converters.StoreBounds) and the run's context, so that
// a database whose tables are views over endless queries fails as that
// input, naming the bound, and Ctrl-C stops a query at once. The figures
// are far above what a real store needs: OpenCode lists a history of
// thousands of sessions and reads a session's rows in well under a
// second, and its largest sessions have tens of thousands of rows, while
// the session list is held in memory (a million rows is some 100 MB).
var storeBounds = converters.StoreBounds{Query: 60 * time.Second, Rows: 1_000_000}

// SetStoreBounds replaces the bounds of store queries until the returned
// function restores them: tests make them small to be fast.
func SetStoreBounds(b converters.StoreBounds) (restore func()) {
	old := storeBounds
	storeBounds = b
	return func() { storeBounds = old }
}

// bounded is ctx carrying the store bounds.
func bounded(ctx context.Context) context.Context {
	return converters.WithStoreBounds(ctx, storeBounds)
}

// storeEntry is a virtual input: a session of a store, or a database that
// cannot be read (err: every reading of it fails with that).
type storeEntry struct {
	ctx     context.Context // the run's (Ctrl-C), which reading it stops at
	db      string          // the database file's path
	name    string          // the session's name below it (storeName)
	store   *converters.Store
	session converters.StoreSession
	err     error
}

// storeInputs are the virtual inputs Expand made, by path.
var storeInputs sync.Map // string -> *storeEntry

// virtualEntry is the store entry a path names, nil for a real file.
func virtualEntry(p string) *storeEntry {
	if e, ok := storeInputs.Load(p); ok {
		return e.(*storeEntry)
	}
	return nil
}

// sqliteMagic opens every SQLite database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// storeOf reports the store a file is: its name is a store's, or (when
// byContent) its first bytes are SQLite's and a store claims its tables.
// A file named as a store but unreadable is that store, with the error.
func storeOf(ctx context.Context, p string, byContent bool) (*converters.Store, error) {
	named := converters.StoreFor(filepath.Base(p))
	if named == nil && (!byContent || len(converters.Stores()) == 0 || !hasMagic(p)) {
		return nil, nil
	}
	// Another name's file is only probed for its tables: immutable, so
	// another program's database, locked or being written, costs no wait.
	db, err := openStore(p, named == nil)
	if err != nil {
		return named, err
	}
	defer db.Close()
	if named != nil {
		rows, err := converters.QueryStore(bounded(ctx), db, "schema", "SELECT count(*) FROM sqlite_master")
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		if err != nil {
			return named, storeError(err) // locked, corrupt, not a database
		}
		if !named.Claim(bounded(ctx), db) {
			if named.CommonName && hasMagic(p) {
				return nil, nil // another program's database of a common name: not a log
			}
			if !hasMagic(p) {
				return named, errors.New("not an SQLite database")
			}
			return named, errors.New("an SQLite database without the tables this agent keeps sessions in")
		}
		return named, nil
	}
	for _, s := range converters.Stores() {
		if s.Claim(bounded(ctx), db) {
			return s, nil
		}
	}
	return nil, nil // another program's database: not a log
}

// hasMagic reports a file whose first 16 bytes are SQLite's header.
func hasMagic(p string) bool {
	fh, err := openFile(nil, p)
	if err != nil {
		return false
	}
	defer fh.Close()
	head := make([]byte, len(sqliteMagic))
	n, _ := io.ReadFull(fh, head)
	return n == len(head) && bytes.Equal(head, sqliteMagic)
}

// openStore opens a database file read-only and query-only: it never
// creates one, and never writes to it. probe opens it immutable whatever
// is beside it, for a look at its tables only.
func openStore(p string, probe bool) (*sql.DB, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, err
	}
	slash := filepath.ToSlash(abs)
	if !strings.HasPrefix(slash, "/") {
		slash = "/" + slash // file:///C:/..., as SQLite reads a Windows path
	}
	q := "mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(2000)"
	if probe || !exists(abs+"-wal") && !exists(abs+"-journal") {
		// No write-ahead log or rollback journal beside it: no program
		// is writing it (OpenCode removes the log when it closes the
		// database). Opened as immutable, SQLite takes no locks and makes
		// no -wal and -shm files of its own beside the user's database,
		// which a read-only open of a WAL database otherwise leaves
		// behind. With a log or journal there, the database is read
		// through it, under SQLite's locks (a writer's lock held past
		// the busy timeout is an error of the input).
		q += "&immutable=1"
	}
	u := url.URL{Scheme: "file", Path: slash, RawQuery: q}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// storeError says why a database cannot be read, in words of its own: a
// driver's message is not copied (it may quote the file).
func storeError(err error) error {
	msg := err.Error()
	var be *converters.StoreBoundError
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, ErrInterrupted):
		return ErrInterrupted
	case errors.As(err, &be):
		return be // words of its own, with the bound's figure
	case strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "locked"):
		return errors.New("the database is locked by another program (is a migration running?); run again later")
	case strings.Contains(msg, "not a database") || strings.Contains(msg, "SQLITE_NOTADB"):
		return errors.New("not an SQLite database")
	case strings.Contains(msg, "malformed") || strings.Contains(msg, "SQLITE_CORRUPT"):
		return errors.New("the database is corrupt (malformed)")
	case strings.Contains(msg, "unable to open") || strings.Contains(msg, "SQLITE_CANTOPEN"):
		return errors.New("the database cannot be opened")
	}
	return errors.New("the database cannot be read")
}

// storeName is the name a session's virtual file has below its database:
// its id when it has the shape of OpenCode's session ids
// (openCodeSession), else "store-" and 12 hex digits of the id's sha256,
// a name that is not id-shaped: the outputs and messages name that input
// by InputFileName's digest of it, keyed in keyed mode, so no name a
// message or an output carries is an id of some other shape, nor a plain
// digest of one.
var storeNameRe = regexp.MustCompile(`^` + openCodeSession + `$`)

func storeName(id string) string {
	if storeNameRe.MatchString(id) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "store-" + hex.EncodeToString(sum[:6])
}

// PreferStores drops the inputs that hold a session a database among ins
// holds too, beside it: OpenCode's migration copies its storage/ tree into
// opencode.db and leaves the tree, so a run over its data directory finds
// each older session twice. The database's copy is read (it is the one
// OpenCode keeps writing), as ccusage prefers it; so is OpenClaw's
// transcript held in its agent's openclaw-agent.sqlite. Only a file under
// the folder the store names (Store.Up) is its copy: another agent's store
// (Kilo's kilo.db, OpenCode's schema in another folder) holding the same
// id shadows nothing.
func PreferStores(ins []Input) []Input {
	inStore := map[string][]string{} // session id -> the folders of the databases that hold it
	for _, in := range ins {
		if e := virtualEntry(in.Path); e != nil && e.err == nil {
			id := strings.ToLower(e.session.ID) // as converters.SessionID gives ids
			dir := filepath.Dir(e.db)           // where the agent's log files copy it (Store.Up)
			for range e.store.Up {
				dir = filepath.Dir(dir)
			}
			inStore[id] = append(inStore[id], dir)
		}
	}
	if len(inStore) == 0 {
		return ins
	}
	out := ins[:0:0]
	for _, in := range ins {
		if virtualEntry(in.Path) == nil && in.Path != StdinName {
			if id := converters.SessionID(filepath.Base(in.Path)); id != "" && beside(in.Path, inStore[id]) {
				continue
			}
		}
		out = append(out, in)
	}
	return out
}

// beside reports whether path lies under one of dirs.
func beside(path string, dirs []string) bool {
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// storeExpand turns a store file into its sessions' inputs, Rel each
// rel/<name>; a database that cannot be read is one input that fails with
// why. ok is false when p is no store.
func storeExpand(ctx context.Context, p, rel, arg string, byContent bool) (ins []Input, ok bool) {
	st, err := storeOf(ctx, p, byContent)
	if st == nil {
		return nil, false
	}
	if err == nil {
		var db *sql.DB
		if db, err = openStore(p, false); err == nil {
			var sessions []converters.StoreSession
			sessions, err = st.Sessions(bounded(ctx), db)
			db.Close()
			if err == nil {
				storeInputs.Delete(p) // readable now, whatever an earlier look found
				for _, s := range sessions {
					name := storeName(s.ID)
					vp := filepath.Join(p, name)
					storeInputs.Store(vp, &storeEntry{ctx: ctx, db: p, name: name, store: st, session: s})
					ins = append(ins, Input{Path: vp, Rel: rel + "/" + name, Arg: arg})
				}
				return ins, true
			}
		}
		err = storeError(err)
	}
	storeInputs.Store(p, &storeEntry{ctx: ctx, db: p, store: st, err: err})
	return []Input{{Path: p, Rel: rel, Arg: arg}}, true
}

// openVirtual opens a virtual input: the session's lines, streamed from
// the database as they are read (rows are not loaded first).
func openVirtual(e *storeEntry) (fs.File, error) {
	if e.err != nil {
		return nil, e.err
	}
	db, err := openStore(e.db, false)
	if err != nil {
		return nil, storeError(err)
	}
	ctx, cancel := context.WithCancel(bounded(e.ctx))
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		err := e.store.Lines(ctx, db, e.session.ID, func(line []byte) error {
			if _, err := pw.Write(line); err != nil {
				return err
			}
			_, err := pw.Write([]byte{'\n'})
			return err
		})
		var se *sqlite.Error
		var be *converters.StoreBoundError
		switch {
		case err != nil && ctx.Err() != nil:
			err = ErrInterrupted // Ctrl-C, or the reader closed it
		case errors.As(err, &se), errors.As(err, &be):
			err = storeError(err) // the driver's words are not copied
		}
		pw.CloseWithError(err)
	}()
	return &virtualFile{r: pr, entry: e, close: func() {
		cancel()
		pr.Close()
		<-done
		db.Close()
	}}, nil
}

// virtualFile is an open virtual input.
type virtualFile struct {
	r     io.Reader
	n     int64 // bytes read so far
	entry *storeEntry
	close func()
	once  sync.Once
}

func (f *virtualFile) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	f.n += int64(n)
	return n, err
}

// Stat of an open session is the bytes of its records read so far (all of
// them once it is read to the end, what the leak check's second pass
// compares with the first's) and its latest update.
func (f *virtualFile) Stat() (fs.FileInfo, error) {
	return virtualInfo{name: f.entry.name, size: f.n, mod: f.entry.session.Updated}, nil
}

func (f *virtualFile) Close() error {
	f.once.Do(f.close)
	return nil
}

// info is a session's stat as the manifest compares it: its row count as
// its size and the latest update its store reports as its mtime.
func (e *storeEntry) info() fs.FileInfo {
	return virtualInfo{name: e.name, size: e.session.Rows, mod: e.session.Updated}
}

type virtualInfo struct {
	name      string
	size, mod int64 // mod in Unix milliseconds
}

func (v virtualInfo) Name() string       { return v.name }
func (v virtualInfo) Size() int64        { return v.size }
func (v virtualInfo) Mode() fs.FileMode  { return 0o444 }
func (v virtualInfo) ModTime() time.Time { return time.UnixMilli(v.mod) }
func (v virtualInfo) IsDir() bool        { return false }
func (v virtualInfo) Sys() any           { return nil }

// statVirtual is os.Stat for an input path that may be virtual.
func statVirtual(p string) (os.FileInfo, error) {
	if e := virtualEntry(p); e != nil {
		if e.err != nil {
			return os.Stat(e.db)
		}
		return e.info(), nil
	}
	return os.Stat(resolve(p))
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// storeSessions replaces each database among paths by its sessions'
// virtual inputs (a leak check's --input opencode.db is every session's
// rows): a database that cannot be read is an error, never a file whose
// bytes are checked as lines, which would find no raw string in it.
func storeSessions(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		ins, ok := storeExpand(context.Background(), p, filepath.Base(p), p, true)
		if !ok {
			out = append(out, p)
			continue
		}
		for _, in := range ins {
			if e := virtualEntry(in.Path); e != nil && e.err != nil {
				return nil, &InputError{Path: p, Msg: e.err.Error()}
			}
			out = append(out, in.Path)
		}
	}
	return out, nil
}

// storeSession is the input a path names when it is a session below a
// database file (opencode.db/ses_x, as outputs and messages name it): the
// database expanded, that session kept. ok is false for any other path.
func storeSession(ctx context.Context, p string) (in Input, ok bool) {
	db := filepath.Dir(p)
	if st, err := os.Stat(db); err != nil || !st.Mode().IsRegular() {
		return in, false
	}
	ins, found := storeExpand(ctx, db, filepath.Base(db), p, true)
	if !found {
		return in, false
	}
	for _, s := range ins {
		if s.Path == filepath.Clean(p) {
			return s, true
		}
	}
	return in, false
}

// SessionSHA256 is the hex sha256 of a database session's records as a
// conversion reads them (its receipt's convert.input.sha256), for a path
// that names one (opencode.db/ses_x); ok is false for any other path.
func SessionSHA256(p string) (sum string, ok bool, err error) {
	in, ok := storeSession(context.Background(), p)
	if !ok {
		return "", false, nil
	}
	fh, err := openFile(nil, in.Path)
	if err != nil {
		return "", true, err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return "", true, err
	}
	return hex.EncodeToString(h.Sum(nil)), true, nil
}
