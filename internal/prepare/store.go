package prepare

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/contextreceipts/convert/internal/receipt"
	"modernc.org/sqlite" // pure Go SQLite with FTS5
	sqlite3 "modernc.org/sqlite/lib"
)

// Store is the embedded artifact store: SQLite with an FTS5 index. Every
// revision stays readable; heads say which revision is current and whether
// it is still active (not forgotten, merged or retired).
//
// Recall reads the live index only: live_fts holds the active head rows,
// each word indexed under a prefix naming its scope and family (indexText),
// so a search is one match of the prefixed query terms whose work, bm25's
// document frequencies included, follows the matching rows of that scope
// and family, never the store's size. Load keeps it in step (sync).
type Store struct {
	db       *sql.DB
	readOnly bool
	postings bool // schema 3: the FTS channel may read the postings (postings.go)
}

// schemaVersion is PRAGMA user_version of a store this code made: 2 adds
// the live index, 3 the postings (postings.go). A version 1 store
// (artifacts_fts over every revision) is brought up to date by the next
// load; prepare refuses it until then. A version 2 store is read as it is
// (FTS5 ranks every search) until a load adds its postings.
const schemaVersion = 3

const ddl = `
CREATE TABLE IF NOT EXISTS artifacts(
  id INTEGER PRIMARY KEY,
  scope_id TEXT NOT NULL, family TEXT NOT NULL, artifact_id TEXT NOT NULL, revision INTEGER NOT NULL,
  entry_id TEXT NOT NULL DEFAULT '', entry_version_id TEXT NOT NULL DEFAULT '',
  fingerprint TEXT NOT NULL DEFAULT '', path TEXT NOT NULL DEFAULT '', file_sha256 TEXT NOT NULL DEFAULT '',
  start_line INTEGER NOT NULL DEFAULT 0,
  body TEXT NOT NULL, vec BLOB,
  UNIQUE(scope_id, family, artifact_id, revision, entry_id));
CREATE TABLE IF NOT EXISTS heads(
  scope_id TEXT NOT NULL, family TEXT NOT NULL, artifact_id TEXT NOT NULL,
  revision INTEGER NOT NULL, state TEXT NOT NULL,
  PRIMARY KEY(scope_id, family, artifact_id));
CREATE TABLE IF NOT EXISTS grants(
  caller TEXT NOT NULL, scope_id TEXT NOT NULL,
  PRIMARY KEY(caller, scope_id));
CREATE TABLE IF NOT EXISTS live(id INTEGER PRIMARY KEY, vec BLOB);
CREATE INDEX IF NOT EXISTS heads_by_state ON heads(scope_id, family, state, artifact_id);
CREATE VIRTUAL TABLE IF NOT EXISTS live_fts USING fts5(body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0');
`

// storeTables are the tables a prepare store has; a file without them is
// not one.
var storeTables = []string{"artifacts", "heads", "grants", "live", "live_fts"}

// Open opens the store at path for loading: created if needed (":memory:"
// works), schema made or brought up to date. A concurrent reader is waited
// for (busy timeout), and the loader's cache never spills into the file
// before its commit, so a prepare reading it meanwhile reads the last
// committed state.
func Open(path string) (*Store, error) {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA busy_timeout=10000", "PRAGMA cache_spill=OFF", ddl, postingsDDL} {
		if _, err := db.Exec(q); err != nil {
			db.Close()
			return nil, fmt.Errorf("open store: %w", err)
		}
	}
	if err := migrate(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	return &Store{db: db, postings: true}, nil
}

// migrate brings an older store to version 3: a version 1 store gets the
// live index, filled from the active heads, and loses the old index over
// every revision; a version 2 store gets the postings of its live rows, and
// so does a version 3 store whose postings are not current.
func migrate(db *sql.DB) error {
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if v >= schemaVersion {
		// A store changed since its last load by a loader that does not
		// keep the postings (an older convert's) gets them made again.
		_, _, cur, err := postingsCurrent(tx)
		if err != nil || cur {
			return err
		}
		for _, q := range []string{`DELETE FROM live_post`, `DELETE FROM live_gone`, `DELETE FROM live_odd`} {
			if _, err := tx.Exec(q); err != nil {
				return err
			}
		}
	}
	if v < 2 {
		if err := liveIndex(tx); err != nil {
			return err
		}
	}
	l := &loader{tx: tx, stmts: map[string]*sql.Stmt{}}
	defer l.close()
	if err := buildPostings(l); err != nil {
		return err
	}
	if _, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version=%d`, schemaVersion)); err != nil {
		return err
	}
	return tx.Commit()
}

// liveRow is a row of the live index: what live_fts and the postings
// index.
type liveRow struct {
	id               int64
	scope, fam, body string
}

// liveRows reads the live index's rows, in id order.
func liveRows(tx *sql.Tx) ([]liveRow, error) {
	rows, err := tx.Query(`SELECT a.id, a.scope_id, a.family, a.body FROM live l JOIN artifacts a ON a.id = l.id ORDER BY a.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var rs []liveRow
	for rows.Next() {
		var x liveRow
		if err := rows.Scan(&x.id, &x.scope, &x.fam, &x.body); err != nil {
			return nil, err
		}
		rs = append(rs, x)
	}
	return rs, rows.Err()
}

// liveIndex fills the live index of a version 1 store.
func liveIndex(tx *sql.Tx) error {
	for _, q := range []string{
		`DROP TABLE IF EXISTS artifacts_fts`,
		`INSERT OR IGNORE INTO live(id, vec) SELECT a.id, a.vec FROM artifacts a JOIN heads h ON h.scope_id = a.scope_id AND h.family = a.family
		   AND h.artifact_id = a.artifact_id AND h.revision = a.revision WHERE h.state = 'active'`,
	} {
		if _, err := tx.Exec(q); err != nil {
			return err
		}
	}
	rs, err := liveRows(tx)
	if err != nil {
		return err
	}
	for _, x := range rs {
		if _, err := tx.Exec(`INSERT INTO live_fts(rowid, body) VALUES(?,?)`, x.id, indexText(x.scope, x.fam, x.body)); err != nil {
			return err
		}
	}
	return nil
}

// Store refusals of OpenReadOnly: what the file is, never its content.
var (
	ErrNoStore     = errors.New("no store there (make one with convert prepare load)")
	ErrEmptyStore  = errors.New("an empty file, not a store (make one with convert prepare load)")
	ErrNotAStore   = errors.New("not a prepare store (make one with convert prepare load)")
	ErrOldStore    = errors.New("a store made by an older convert: run convert prepare load on it once (any file, even an empty one) to bring its index up to date")
	busyTimeoutMS  = 5000
	ErrStoreLocked = errors.New("the store stayed locked by a writer past the busy timeout")
)

// OpenReadOnly opens an existing store for prepare and exact reads: read
// only and query only, so nothing (no schema, no row, no journal) is ever
// written to it. A missing file, an empty one and one that is not a store
// are refused and left as they were. A load running meanwhile never fails
// it: SQLite's busy timeout waits out a writer's commit, and the reads see
// the last committed state.
func OpenReadOnly(path string) (*Store, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return nil, ErrNoStore
	case fi.IsDir():
		return nil, ErrNotAStore
	case fi.Size() == 0:
		return nil, ErrEmptyStore
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, ErrNoStore
	}
	slash := filepath.ToSlash(abs)
	if !strings.HasPrefix(slash, "/") {
		slash = "/" + slash
	}
	u := url.URL{Scheme: "file", Path: slash, RawQuery: fmt.Sprintf("mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(%d)", busyTimeoutMS)}
	db, err := sql.Open("sqlite", u.String())
	if err != nil {
		return nil, ErrNotAStore
	}
	db.SetMaxOpenConns(1)
	v, err := checkSchema(db)
	if err != nil {
		db.Close()
		return nil, err
	}
	return &Store{db: db, readOnly: true, postings: v >= 3}, nil
}

// checkSchema tells a store prepare reads (version 2 or 3) from anything
// else, and returns its version.
func checkSchema(db *sql.DB) (int, error) {
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		if isBusy(err) {
			return 0, ErrStoreLocked
		}
		return 0, ErrNotAStore
	}
	have := map[string]bool{}
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		if isBusy(err) {
			return 0, ErrStoreLocked
		}
		return 0, ErrNotAStore
	}
	for rows.Next() {
		var n string
		if rows.Scan(&n) == nil {
			have[n] = true
		}
	}
	rows.Close()
	if v < 2 && have["artifacts_fts"] && have["artifacts"] {
		return 0, ErrOldStore
	}
	need := storeTables
	if v == 3 {
		need = append(slices.Clip(need), postingTables...)
	}
	for _, t := range need {
		if !have[t] {
			return 0, ErrNotAStore
		}
	}
	if v != 2 && v != 3 {
		return 0, ErrNotAStore
	}
	return v, nil
}

// isBusy reports SQLITE_BUSY (a writer's lock held past the timeout).
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// sfPrefix names a scope and family in the live index: 16 hex digits of
// sha256 over both. Every indexed word carries it, so each word of each
// scope and family has its own posting list: a match reads the postings of
// the searched scope and family only, and bm25's document frequencies are
// counted over them. A prefix shared by two pairs (a 64-bit collision)
// could only shrink a pool: the rows read are checked for scope and family.
func sfPrefix(scope, family string) string {
	s := sha256.Sum256([]byte(scope + "\x00" + family))
	return hex.EncodeToString(s[:8])
}

// indexText is what live_fts indexes for a body: each word as terms()
// splits it (letters and digits, lower case, repeats kept for bm25's term
// frequency, one-letter words too) with the scope-and-family prefix.
func indexText(scope, family, body string) string {
	pre := sfPrefix(scope, family)
	var b strings.Builder
	for _, w := range strings.FieldsFunc(strings.ToLower(body), notWordRune) {
		b.WriteString(pre)
		b.WriteString(w)
		b.WriteByte(' ')
	}
	return b.String()
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// record is one line of an artifacts JSONL file.
type record struct {
	Kind       string  `json:"kind"`
	ScopeID    string  `json:"scope_id"`
	Family     string  `json:"family"` // lifecycle only
	ArtifactID string  `json:"artifact_id"`
	Revision   int     `json:"revision"`
	Body       *string `json:"body"`
	Entries    []struct {
		EntryID        string `json:"entry_id"`
		EntryVersionID string `json:"entry_version_id"`
		Body           string `json:"body"`
	} `json:"entries"`
	Fingerprint string `json:"fingerprint"`
	Path        string `json:"path"`
	FileSHA256  string `json:"file_sha256"`
	StartLine   int    `json:"start_line"`
	Action      string `json:"action"`
	Caller      string `json:"caller"` // grant only
}

// LoadStats counts what Load imported.
type LoadStats struct{ Revisions, Entries, Lifecycle, Grants int }

// Load imports an artifacts JSONL stream (name labels errors as name:line).
// A record is atomic-memory (entries), topic-memory, experience, profile or
// code (body), lifecycle (action forget, merge or retire on an artifact), or
// grant (caller may read scope_id).
// The whole load is one transaction: a bad line imports nothing.
func (s *Store) Load(r io.Reader, name string) (LoadStats, error) {
	var st LoadStats
	if s.readOnly {
		return st, errors.New("the store was opened read-only")
	}
	tx, err := s.db.Begin()
	if err != nil {
		return st, err
	}
	defer tx.Rollback()
	l := &loader{tx: tx, stmts: map[string]*sql.Stmt{}}
	defer l.close()
	if l.post, err = newPostWriter(l); err != nil {
		return st, err
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var rec record
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			return st, fmt.Errorf("%s:%d: not an artifact record: %s", name, n, jsonErr(err))
		}
		if err := l.loadOne(rec, &st); err != nil {
			return st, fmt.Errorf("%s:%d: %w", name, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return st, fmt.Errorf("%s: %w", name, err)
	}
	if err := l.post.finish(l); err != nil {
		return st, err
	}
	return st, tx.Commit()
}

// jsonErr describes a decode error without quoting input.
func jsonErr(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("malformed JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		return "wrong type for field " + te.Field
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return "unknown field"
	}
	return "malformed JSON"
}

func checkID(what, v string) error {
	if !receipt.IsToken(v) {
		return fmt.Errorf("%s must be a token (ASCII letters, digits, _ . : + -, 1-128 bytes)", what)
	}
	return nil
}

// loader is one Load's transaction with its prepared statements, each
// parsed once per load rather than once per record.
type loader struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
	post  *postWriter
}

func (l *loader) stmt(q string) (*sql.Stmt, error) {
	if st, ok := l.stmts[q]; ok {
		return st, nil
	}
	st, err := l.tx.Prepare(q)
	if err == nil {
		l.stmts[q] = st
	}
	return st, err
}

func (l *loader) Exec(q string, args ...any) (sql.Result, error) {
	st, err := l.stmt(q)
	if err != nil {
		return nil, err
	}
	return st.Exec(args...)
}

func (l *loader) Query(q string, args ...any) (*sql.Rows, error) {
	st, err := l.stmt(q)
	if err != nil {
		return nil, err
	}
	return st.Query(args...)
}

func (l *loader) close() {
	for _, st := range l.stmts {
		st.Close()
	}
}

// sync keeps the live index exact for one artifact: its head revision's
// rows while the head is active, nothing otherwise. It runs after every
// record that changes the artifact (a new revision, a lifecycle action).
func (l *loader) sync(scope, fam, id string) error {
	rows, err := l.Query(`SELECT a.id, a.revision, a.body, a.vec, l.id IS NOT NULL, COALESCE(h.revision, 0), COALESCE(h.state, '') FROM artifacts a
		LEFT JOIN live l ON l.id = a.id
		LEFT JOIN heads h ON h.scope_id = a.scope_id AND h.family = a.family AND h.artifact_id = a.artifact_id
		WHERE a.scope_id = ? AND a.family = ? AND a.artifact_id = ?`, scope, fam, id)
	if err != nil {
		return err
	}
	type one struct {
		id          int64
		rev, head   int
		body, state string
		vec         []byte
		in          bool
	}
	var all []one
	for rows.Next() {
		var o one
		if err := rows.Scan(&o.id, &o.rev, &o.body, &o.vec, &o.in, &o.head, &o.state); err != nil {
			rows.Close()
			return err
		}
		all = append(all, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, o := range all {
		want := o.state == ArtifactStateActive && o.rev == o.head
		switch {
		case want && !o.in:
			if _, err := l.Exec(`INSERT INTO live(id, vec) VALUES(?,?)`, o.id, o.vec); err != nil {
				return err
			}
			if _, err := l.Exec(`INSERT INTO live_fts(rowid, body) VALUES(?,?)`, o.id, indexText(scope, fam, o.body)); err != nil {
				return err
			}
			if err := l.post.enter(l, o.id, scope, fam, o.body); err != nil {
				return err
			}
		case !want && o.in:
			if _, err := l.Exec(`DELETE FROM live WHERE id = ?`, o.id); err != nil {
				return err
			}
			if err := l.post.leave(l, o.id, scope, fam, o.body); err != nil {
				return err
			}
			if _, err := l.Exec(`DELETE FROM live_fts WHERE rowid = ?`, o.id); err != nil {
				return err
			}
		}
	}
	return nil
}

func (l *loader) loadOne(rec record, st *LoadStats) error {
	if err := checkID("scope_id", rec.ScopeID); err != nil {
		return err
	}
	switch rec.Kind {
	case "grant":
		if err := checkID("caller", rec.Caller); err != nil {
			return err
		}
		if _, err := l.Exec(`INSERT INTO grants VALUES(?,?) ON CONFLICT DO NOTHING`, rec.Caller, rec.ScopeID); err != nil {
			return err
		}
		st.Grants++
		return nil
	case "lifecycle":
		state := map[string]string{"forget": ArtifactStateForgotten, "merge": ArtifactStateMerged, "retire": ArtifactStateRetired}[rec.Action]
		if state == "" {
			return errors.New("lifecycle action must be forget, merge or retire")
		}
		res, err := l.Exec(`UPDATE heads SET state=? WHERE scope_id=? AND family=? AND artifact_id=?`, state, rec.ScopeID, rec.Family, rec.ArtifactID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errors.New("lifecycle names an artifact that was never loaded")
		}
		st.Lifecycle++
		return l.sync(rec.ScopeID, rec.Family, rec.ArtifactID)
	case FamilyCode:
		if rec.Fingerprint == "" || rec.Path == "" || rec.Body == nil || rec.StartLine < 1 {
			return errors.New("code needs fingerprint, path, start_line >= 1 and body")
		}
		if err := checkID("fingerprint", rec.Fingerprint); err != nil {
			return err
		}
		if strings.HasPrefix(rec.Path, "/") || strings.Contains(rec.Path, "..") {
			return errors.New("code path must be repository-relative")
		}
		// An absent file_sha256 means the body is the whole file: its digest
		// is made at prepare time, with the key in keyed mode.
		fsha := rec.FileSHA256
		if fsha != "" && (!strings.HasPrefix(fsha, "sha256:") || !receipt.IsDigest(fsha)) {
			return errors.New("file_sha256 must be sha256:<64 hex>")
		}
		return l.insert(rec.ScopeID, FamilyCode, codeID(rec.Fingerprint, rec.Path, fsha, rec.StartLine, *rec.Body), 1, "", "", rec.Fingerprint, rec.Path, fsha, rec.StartLine, *rec.Body, st)
	case FamilyMemory, FamilyTopic, FamilyExperience, FamilyProfile:
	default:
		return errors.New("kind must be atomic-memory, topic-memory, experience, profile, code, lifecycle or grant")
	}
	if err := checkID("artifact_id", rec.ArtifactID); err != nil {
		return err
	}
	if rec.Revision < 1 {
		return errors.New("revision must be >= 1")
	}
	if rec.Kind == FamilyMemory {
		if len(rec.Entries) == 0 || rec.Body != nil {
			return errors.New("atomic-memory needs entries and no body")
		}
		for _, e := range rec.Entries {
			if err := checkID("entry_id", e.EntryID); err != nil {
				return err
			}
			if err := checkID("entry_version_id", e.EntryVersionID); err != nil {
				return err
			}
			if err := l.insert(rec.ScopeID, rec.Kind, rec.ArtifactID, rec.Revision, e.EntryID, e.EntryVersionID, "", "", "", 0, e.Body, st); err != nil {
				return err
			}
		}
	} else {
		if rec.Body == nil || len(rec.Entries) > 0 {
			return fmt.Errorf("%s needs a body and no entries", rec.Kind)
		}
		if err := l.insert(rec.ScopeID, rec.Kind, rec.ArtifactID, rec.Revision, "", "", "", "", "", 0, *rec.Body, st); err != nil {
			return err
		}
	}
	st.Revisions++
	_, err := l.Exec(`INSERT INTO heads VALUES(?,?,?,?,?) ON CONFLICT DO UPDATE SET revision=excluded.revision, state=excluded.state WHERE excluded.revision >= heads.revision`,
		rec.ScopeID, rec.Kind, rec.ArtifactID, rec.Revision, ArtifactStateActive)
	if err != nil {
		return err
	}
	return l.sync(rec.ScopeID, rec.Kind, rec.ArtifactID)
}

// codeID is a code snippet's storage key: its whole identity (fingerprint,
// path, file hash, line range), so two files of one repository whose ranges
// start on the same line never collide. It is never shown.
func codeID(fp, path, fsha string, start int, body string) string {
	sum := sha256.Sum256([]byte(fmt.Sprint(fp, "\x00", path, "\x00", fsha, "\x00", start, "-", endLine(start, body))))
	return "code-" + hex.EncodeToString(sum[:16])
}

// isUnique reports a UNIQUE (or primary key) constraint violation, by the
// driver's result code.
func isUnique(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && (se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE || se.Code() == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY)
}

// endLine is the last line a snippet starting at start covers.
func endLine(start int, body string) int {
	return start + strings.Count(strings.TrimSuffix(body, "\n"), "\n")
}

func (l *loader) insert(scope, fam, id string, rev int, eid, evid, fp, path, fsha string, start int, body string, st *LoadStats) error {
	_, err := l.Exec(`INSERT INTO artifacts(scope_id,family,artifact_id,revision,entry_id,entry_version_id,fingerprint,path,file_sha256,start_line,body,vec) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)`,
		scope, fam, id, rev, eid, evid, fp, path, fsha, start, body, vecBytes(HashEmbed(body)))
	if err != nil {
		if isUnique(err) {
			if fam == FamilyCode {
				return errors.New("duplicate code snippet (same fingerprint, path, file hash and line range)")
			}
			return errors.New("duplicate artifact revision or entry")
		}
		return err
	}
	st.Entries++
	if fam == FamilyCode {
		st.Revisions++
		if _, err = l.Exec(`INSERT INTO heads VALUES(?,?,?,1,?) ON CONFLICT DO NOTHING`, scope, fam, id, ArtifactStateActive); err != nil {
			return err
		}
		return l.sync(scope, fam, id)
	}
	return nil
}

func vecBytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func bytesVec(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

const rowCols = `a.id, a.scope_id, a.family, a.artifact_id, a.revision, a.entry_id, a.entry_version_id, a.fingerprint, a.path, a.file_sha256, a.start_line, a.body, a.vec`

// row is one stored unit with its search evidence.
type row struct {
	id      int64
	cand    Candidate
	vec     []float32
	matched int     // distinct query terms the body holds
	sim     float64 // cosine with the query vector (vector channel)
}

// scanRows reads rows; code rows get their CodeRef, digests made by h.
func scanRows(rows *sql.Rows, h receipt.Hasher) ([]row, error) {
	defer rows.Close()
	var out []row
	for rows.Next() {
		var r row
		var c Candidate
		var fp, path, fsha string
		var start int
		var vb []byte
		if err := rows.Scan(&r.id, &c.Addr.ScopeID, &c.Addr.Family, &c.Addr.ArtifactID, &c.Addr.Revision, &c.EntryID, &c.EntryVersionID, &fp, &path, &fsha, &start, &c.Body, &vb); err != nil {
			return nil, err
		}
		if c.Addr.Family == FamilyCode {
			if fsha == "" {
				fsha = h.Text(c.Body)
			}
			c.Code = &CodeRef{ScopeID: c.Addr.ScopeID, Fingerprint: fp, Path: path, FileSHA256: fsha, StartLine: start, EndLine: endLine(start, c.Body), SnippetSHA256: h.Text(c.Body)}
		}
		r.cand, r.vec = c, bytesVec(vb)
		out = append(out, r)
	}
	return out, rows.Err()
}

// The searches below check scope and family with unary plus: it keeps
// SQLite from answering them by a scan of the family's index range (the
// whole family) instead of the pool's rowid lookups.

// liveMatch is the FTS5 query of one search: any of the query terms in a
// body of the scope and family (indexText).
func liveMatch(scope, family string, qterms []string) string {
	pre := sfPrefix(scope, family)
	ts := make([]string, len(qterms))
	for i, t := range qterms {
		ts[i] = pre + t
	}
	return ftsQuery(ts)
}

// searchFTS returns up to pool active head rows of one family in one scope
// that match any query term, best bm25 first. The live index holds the
// active heads only, so only the pool's rows are read.
func (s *Store) searchFTS(ctx context.Context, h receipt.Hasher, scope, family string, qterms []string, pool int) ([]row, error) {
	if len(qterms) == 0 {
		return nil, nil
	}
	ids, ok, err := s.topPostings(ctx, scope, family, qterms, pool)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", family, err)
	}
	if ok {
		return s.rowsByID(ctx, h, scope, family, ids, "search")
	}
	return s.searchFTS5(ctx, h, scope, family, qterms, pool)
}

// searchFTS5 is searchFTS ranked by FTS5 itself: what a store without
// postings, or a search they cannot answer exactly, takes.
func (s *Store) searchFTS5(ctx context.Context, h receipt.Hasher, scope, family string, qterms []string, pool int) ([]row, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+rowCols+` FROM (SELECT rowid AS id, rank FROM live_fts WHERE live_fts MATCH ? ORDER BY rank, rowid LIMIT ?) f
		JOIN artifacts a ON a.id = f.id WHERE +a.scope_id = ? AND +a.family = ? ORDER BY f.rank, a.id`, liveMatch(scope, family, qterms), pool, scope, family)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", family, err)
	}
	return scanRows(rows, h)
}

// searchVector returns up to pool active head rows of one family in one
// scope, most similar to qvec first (ties by storage order). Its index is
// the live FTS index: the store's vectors are HashEmbed, a signed hashed
// bag of words, so a body that shares no query term with the query reaches
// a non-zero cosine only through two different words hashed to one
// dimension. The channel scores the vectors of the bodies sharing a query
// term (stop words are no evidence here either), reading only their
// vectors, and then the pool's rows.
func (s *Store) searchVector(ctx context.Context, h receipt.Hasher, scope, family string, qterms []string, qvec []float32, pool int) ([]row, error) {
	if len(qterms) == 0 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT l.id, l.vec FROM live l WHERE l.id IN (SELECT rowid FROM live_fts WHERE live_fts MATCH ?)`, liveMatch(scope, family, qterms))
	if err != nil {
		return nil, fmt.Errorf("vector search %s: %w", family, err)
	}
	type scored struct {
		id  int64
		sim float64
	}
	var all []scored
	for rows.Next() {
		var id int64
		var vb []byte
		if err := rows.Scan(&id, &vb); err != nil {
			rows.Close()
			return nil, fmt.Errorf("vector search %s: %w", family, err)
		}
		all = append(all, scored{id, cosine(qvec, bytesVec(vb))})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("vector search %s: %w", family, err)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].sim != all[j].sim {
			return all[i].sim > all[j].sim
		}
		return all[i].id < all[j].id
	})
	all = all[:min(pool, len(all))]
	if len(all) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(all))
	sims := make(map[int64]float64, len(all))
	for i, x := range all {
		ids[i], sims[x.id] = x.id, x.sim
	}
	out, err := s.rowsByID(ctx, h, scope, family, ids, "vector search")
	for i := range out {
		out[i].sim = sims[out[i].id]
	}
	return out, err
}

// profiles reads the profile snapshot of a scope: the head revision of
// each active profile artifact, in artifact id order, at most limit of
// them, and how many there are.
func (s *Store) profiles(ctx context.Context, scope string, limit int) ([]row, int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM heads WHERE scope_id = ? AND family = 'profile' AND state = 'active'`, scope).Scan(&n); err != nil {
		return nil, 0, fmt.Errorf("profile snapshot: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+rowCols+` FROM heads h
		JOIN artifacts a ON h.scope_id = a.scope_id AND h.family = a.family AND h.artifact_id = a.artifact_id AND h.revision = a.revision
		WHERE h.scope_id = ? AND h.family = 'profile' AND h.state = 'active' ORDER BY h.artifact_id LIMIT ?`, scope, limit)
	if err != nil {
		return nil, 0, fmt.Errorf("profile snapshot: %w", err)
	}
	rs, err := scanRows(rows, receipt.Hasher{})
	return rs, n, err
}

// Revision is one exact artifact revision as stored: its entries (atomic
// memory) or its single body.
type Revision struct {
	Address Address
	State   string // state of the artifact's head now
	Head    int    // head revision now
	Entries []Candidate
}

// ErrUnavailable is every failed exact read: a revision never recorded, an
// unknown artifact, a code range that does not match, and a scope the caller
// may not read. One message for all, so a denial reveals nothing.
var ErrUnavailable = errors.New("no such revision")

// Authorization errors of a prepare request.
var (
	ErrCallerRequired = errors.New("this store has grants: name the caller")
	ErrNotAuthorized  = errors.New("the caller is not authorized to read the current scope")
)

// Access is what one caller may read. A store without any grant is a
// single-user store: every scope is readable. Once a store holds a grant,
// every read needs a named caller and a grant for the scope.
type Access struct {
	open   bool
	scopes map[string]bool
}

// Can reports whether the caller may read scope.
func (a Access) Can(scope string) bool { return a.open || a.scopes[scope] }

// Access resolves the grants of caller ("" for none named).
func (s *Store) Access(ctx context.Context, caller string) (Access, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM grants`).Scan(&n); err != nil {
		return Access{}, err
	}
	if n == 0 {
		return Access{open: true}, nil
	}
	if caller == "" {
		return Access{}, ErrCallerRequired
	}
	a := Access{scopes: map[string]bool{}}
	rows, err := s.db.QueryContext(ctx, `SELECT scope_id FROM grants WHERE caller=?`, caller)
	if err != nil {
		return Access{}, err
	}
	defer rows.Close()
	for rows.Next() {
		var sc string
		if err := rows.Scan(&sc); err != nil {
			return Access{}, err
		}
		a.scopes[sc] = true
	}
	return a, rows.Err()
}

// Read returns exactly the recorded revision, whatever the head is now:
// forgotten, merged and retired artifacts keep their historical revisions
// readable, and a newer head is never followed. It is authorized now (acc),
// not when the receipt was made.
func (s *Store) Read(ctx context.Context, acc Access, a Address) (Revision, error) {
	rev := Revision{Address: a}
	if !acc.Can(a.ScopeID) || a.Family == FamilyCode {
		return rev, ErrUnavailable
	}
	err := s.db.QueryRowContext(ctx, `SELECT revision, state FROM heads WHERE scope_id=? AND family=? AND artifact_id=?`, a.ScopeID, a.Family, a.ArtifactID).Scan(&rev.Head, &rev.State)
	if errors.Is(err, sql.ErrNoRows) {
		return rev, ErrUnavailable
	}
	if err != nil {
		return rev, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+rowCols+` FROM artifacts a WHERE scope_id=? AND family=? AND artifact_id=? AND revision=? ORDER BY id`, a.ScopeID, a.Family, a.ArtifactID, a.Revision)
	if err != nil {
		return rev, err
	}
	rs, err := scanRows(rows, receipt.Hasher{})
	if err != nil {
		return rev, err
	}
	if len(rs) == 0 {
		return rev, ErrUnavailable
	}
	for _, r := range rs {
		rev.Entries = append(rev.Entries, r.cand)
	}
	return rev, nil
}

// ResolveKeyed finds the artifact a keyed receipt names: in keyed mode
// the receipt's artifact id is h.Text of the stored id (keyIdentities), so
// the stored ids of the address's scope and family are hashed under the
// same key until one matches. Its work follows the artifacts of that scope
// and family (an exact read, not the request path). A scope the caller may
// not read, no key, and no match all fail as ErrUnavailable.
func (s *Store) ResolveKeyed(ctx context.Context, acc Access, h receipt.Hasher, a Address) (Address, error) {
	if h.KeyID() == "" || !acc.Can(a.ScopeID) {
		return a, ErrUnavailable
	}
	rows, err := s.db.QueryContext(ctx, `SELECT artifact_id FROM heads WHERE scope_id = ? AND family = ?`, a.ScopeID, a.Family)
	if err != nil {
		return a, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return a, err
		}
		if h.Text(id) == a.ArtifactID {
			a.ArtifactID = id
			return a, nil
		}
	}
	if err := rows.Err(); err != nil {
		return a, err
	}
	return a, ErrUnavailable
}

// IsKeyedDigest reports a value shaped like a keyed digest (hmac-sha256:
// and 64 hex digits): an id, path or digest of a keyed receipt.
func IsKeyedDigest(s string) bool {
	return strings.HasPrefix(s, "hmac-sha256:") && receipt.IsDigest(s)
}

// ReadCode is the exact code read: by scope, fingerprint, path, file hash
// and line range, checked against the snippet hash (digests made by h, the
// hasher the receipt was made with). It serves a truncated item's final
// range too: the recorded snippet's lines start..end.
func (s *Store) ReadCode(ctx context.Context, acc Access, h receipt.Hasher, ref CodeRef) (string, error) {
	if !acc.Can(ref.ScopeID) || ref.StartLine < 1 || ref.EndLine < ref.StartLine {
		return "", ErrUnavailable
	}
	// A keyed receipt names the path by its digest under the key
	// (keyIdentities): the fingerprint's rows are matched by it.
	keyedPath := h.KeyID() != "" && receipt.IsDigest(ref.Path)
	q, args := `SELECT `+rowCols+` FROM artifacts a WHERE scope_id=? AND family='code' AND fingerprint=? AND path=? AND start_line<=? ORDER BY id`,
		[]any{ref.ScopeID, ref.Fingerprint, ref.Path, ref.StartLine}
	if keyedPath {
		q, args = `SELECT `+rowCols+` FROM artifacts a WHERE scope_id=? AND family='code' AND fingerprint=? AND start_line<=? ORDER BY id`,
			[]any{ref.ScopeID, ref.Fingerprint, ref.StartLine}
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return "", err
	}
	rs, err := scanRows(rows, h)
	if err != nil {
		return "", err
	}
	for _, r := range rs {
		c := r.cand.Code
		if keyedPath && h.Text(c.Path) != ref.Path {
			continue
		}
		if c.FileSHA256 != ref.FileSHA256 || ref.EndLine > c.EndLine {
			continue
		}
		lines := strings.SplitAfter(r.cand.Body, "\n")
		snippet := strings.Join(lines[ref.StartLine-c.StartLine:ref.EndLine-c.StartLine+1], "")
		if h.Text(snippet) == ref.SnippetSHA256 {
			return snippet, nil
		}
	}
	return "", ErrUnavailable
}

// Bodies returns every stored body of the given scopes, all revisions: the
// raw strings the leak check probes.
func (s *Store) Bodies(ctx context.Context, scopes []string) ([]string, error) {
	var out []string
	for _, sc := range scopes {
		rows, err := s.db.QueryContext(ctx, `SELECT body FROM artifacts WHERE scope_id=? ORDER BY id`, sc)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var b string
			if err := rows.Scan(&b); err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, b)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}
