package converters_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
	"github.com/contextreceipts/convert/internal/testshared/ocdb"
)

// unknownLabel prefixes a label value: still a label's syntax, no longer
// a word the program knows.
const unknownLabel = "unknownlabelzq"

// walkStrings calls f with the path (object keys joined by ".", "#" for
// an array element) of every string in a record's JSON value, and
// replaces the string by what f returns.
func walkStrings(v any, path string, f func(p, s string) string) any {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch x := v.(type) {
	case string:
		return f(path, x)
	case map[string]any:
		for k, e := range x {
			x[k] = walkStrings(e, join(k), f)
		}
	case []any:
		for i, e := range x {
			x[i] = walkStrings(e, join("#"), f)
		}
	}
	return v
}

// relabel rewrites, in a record's JSON value, the non-empty strings at
// the paths in paths to unknown labels, and counts them.
func relabel(v any, paths map[string]bool, n *int) any {
	return walkStrings(v, "", func(p, s string) string {
		if paths[p] && s != "" {
			*n++
			return unknownLabel + s
		}
		return s
	})
}

// decodeOne decodes b when it holds exactly one JSON value.
func decodeOne(b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return nil, false
	}
	return v, true
}

// encode writes v as JSON with no HTML escaping (the value's own bytes),
// indented when indent (a pretty-printed document stays one).
func encode(v any, indent bool) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if indent {
		e.SetIndent("", "  ")
	}
	if err := e.Encode(v); err != nil {
		panic(err) // decoded JSON: cannot happen
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'})
}

// isRecord reports a JSON object or array (a record, or a document of
// them), not a bare string or number.
func isRecord(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// relabelFile rewrites a sample file's label values, whatever its name
// (OpenClaw's archived transcripts end .jsonl.deleted.<time>). A file that
// is one JSON document over many lines (Amp's thread, Codebuff's
// chat-messages.json: read whole by the pipeline, an array as one record
// per element) is rewritten as a whole; any other file line by line, its
// lines that are no JSON object or array (junk on purpose, Markdown) left
// as they are.
func relabelFile(b []byte, paths map[string]bool, n *int) []byte {
	if v, ok := decodeOne(b); ok && isRecord(v) && bytes.Count(bytes.TrimSpace(b), []byte{'\n'}) > 0 {
		if arr, ok := v.([]any); ok { // one record per element
			for i, e := range arr {
				arr[i] = relabel(e, paths, n)
			}
		} else {
			v = relabel(v, paths, n)
		}
		return append(encode(v, true), '\n')
	}
	lines := bytes.Split(b, []byte{'\n'})
	for i, l := range lines {
		if v, ok := decodeOne(l); ok && isRecord(v) {
			lines[i] = encode(relabel(v, paths, n), false)
		}
	}
	return bytes.Join(lines, []byte{'\n'})
}

// recordKind are the label fields that say what a record is (its type,
// pi's run transcripts' recordType, a message's role, Codebuff's
// ChatMessage variant, the store a kin of OpenCode marks its lines with,
// $store): made unknown, the record is another one, which the reader
// skips and counts.
var recordKind = map[string]bool{"type": true, "recordType": true, "record_type": true, "role": true, "variant": true, "$store": true}

// labelPaths are the paths a converter declares labels, but those that
// say what a record is.
func labelPaths(c converters.Converter) map[string]bool {
	paths := map[string]bool{}
	for p, sh := range c.PassThrough {
		if k := p[strings.LastIndexByte(p, '.')+1:]; sh == leak.Label && !recordKind[k] {
			paths[p] = true
		}
	}
	return paths
}

// testStore is a database a store reader reads, built for a test: from
// a script in a reader's testdata (convtest.SQLiteFromFile), or as
// OpenCode's migration writes the sample storage tree (ocdb; Kilo's
// kilo.db has OpenCode's schema).
type testStore struct {
	script string // converters/<reader>/testdata/<name>.sql, or "" for ocdb
	name   string // the database's file name
}

// testStores are every test database the readers' tests build, named as
// the agent names it.
func testStores(t *testing.T) []testStore {
	scripts, err := filepath.Glob(filepath.Join("converters", "*", "testdata", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	out := []testStore{{name: "opencode.db"}, {name: "kilo.db"}}
	for _, s := range scripts {
		stem := strings.TrimSuffix(filepath.Base(s), ".sql")
		name := ""
		for _, c := range []string{stem + ".db", stem + ".sqlite"} {
			if st := converters.StoreFor(c); st != nil || name == "" {
				name = c
				if st != nil {
					break
				}
			}
		}
		out = append(out, testStore{script: s, name: name})
	}
	return out
}

// build writes the store at path.
func (s testStore) build(t *testing.T, path string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if s.script == "" {
		ocdb.Build(t, path, nil)
		return
	}
	convtest.SQLiteFromFile(t, s.script, path)
}

// storeLines are the records st writes from the database at path, every
// session's, decoded.
func storeLines(t *testing.T, st *converters.Store, path string) []any {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	sessions, err := st.Sessions(ctx, db)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []any
	for _, s := range sessions {
		err := st.Lines(ctx, db, s.ID, func(line []byte) error {
			if v, ok := decodeOne(line); ok {
				out = append(out, v)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s: session %s: %v", path, s.ID, err)
		}
	}
	return out
}

// relabelStore makes unknown, in the database at path, the label values
// its records hold. A store's records are built from its columns, some
// plain text (a role, a status), some JSON (a message's content), so a
// value is found by what it is in the records rather than by column: a
// string the records hold only at declared label paths (never at
// another path, a record's kind included) is a label value, and every
// text cell that is that value, and every string that is that value in a
// text cell holding a JSON object or array, is rewritten. It returns how
// many label values the records then hold made unknown.
func relabelStore(t *testing.T, st *converters.Store, path string, paths map[string]bool) int {
	labels, other := map[string]bool{}, map[string]bool{}
	for _, v := range storeLines(t, st, path) {
		walkStrings(v, "", func(p, s string) string {
			if paths[p] && s != "" {
				labels[s] = true
			} else {
				other[s] = true
			}
			return s
		})
	}
	for s := range other {
		delete(labels, s)
	}
	if len(labels) > 0 {
		rewriteCells(t, path, func(s string) (string, bool) {
			if labels[s] {
				return unknownLabel + s, true
			}
			if (strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[")) && json.Valid([]byte(s)) {
				v, _ := decodeOne([]byte(s))
				changed := false
				v = walkStrings(v, "", func(_, e string) string {
					if labels[e] {
						changed = true
						return unknownLabel + e
					}
					return e
				})
				return string(encode(v, false)), changed
			}
			return s, false
		})
	}
	n := 0
	for _, v := range storeLines(t, st, path) {
		walkStrings(v, "", func(p, s string) string {
			if paths[p] && strings.HasPrefix(s, unknownLabel) {
				n++
			}
			return s
		})
	}
	return n
}

// rewriteCells replaces every text cell of every table of the database
// at path by what edit returns for it, when it says it changed.
func rewriteCells(t *testing.T, path string, edit func(string) (string, bool)) {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tables := queryStrings(t, db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
	type cell struct {
		rowid int64
		col   string
		val   string
	}
	for _, tb := range tables {
		cols := queryStrings(t, db, fmt.Sprintf(`SELECT name FROM pragma_table_info(%q)`, tb))
		var edits []cell
		for _, c := range cols {
			rows, err := db.Query(fmt.Sprintf(`SELECT rowid, %q FROM %q WHERE typeof(%q) = 'text'`, c, tb, c))
			if err != nil {
				t.Fatalf("%s: table %s: %v", path, tb, err)
			}
			for rows.Next() {
				var e cell
				if err := rows.Scan(&e.rowid, &e.val); err != nil {
					t.Fatal(err)
				}
				if s, ok := edit(e.val); ok {
					e.col, e.val = c, s
					edits = append(edits, e)
				}
			}
			rows.Close()
		}
		for _, e := range edits {
			if _, err := db.Exec(fmt.Sprintf(`UPDATE %q SET %q = ? WHERE rowid = ?`, tb, e.col), e.val, e.rowid); err != nil {
				t.Fatalf("%s: table %s: %v", path, tb, err)
			}
		}
	}
}

// TestUnknownLabelsNeverWritten: every native reader's samples, with the
// value of each field it declares a label (but those that say what a
// record is, recordKind) replaced by a word the program does not know,
// convert with --reveal names and write none of them: a label is in
// clear only when the program knows it, and an unknown one is never a
// refusal (a leak check failure included). Samples are rewritten line by
// line, or as one document when the file is one (read whole); a store
// reader's test databases (testdata/*.sql, and OpenCode's schema holding
// the sample storage tree) are built and their label values rewritten in
// the cells that hold them (relabelStore). A reader that declares a label
// field has at least one made unknown; one that declares none (its
// categorical values are numbers) is said to.
func TestUnknownLabelsNeverWritten(t *testing.T) {
	testshared.InRepo(t)
	stores := testStores(t)
	for _, c := range converters.All() {
		if c.Native == nil {
			continue
		}
		paths := labelPaths(c)
		t.Run(c.Name, func(t *testing.T) {
			src := filepath.Join("samples", c.Name)
			dst := t.TempDir()
			n := 0
			err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				b = relabelFile(b, paths, &n)
				q := filepath.Join(dst, strings.TrimPrefix(p, src))
				if err := os.MkdirAll(filepath.Dir(q), 0o755); err != nil {
					return err
				}
				return os.WriteFile(q, b, 0o644)
			})
			if err != nil {
				t.Fatal(err)
			}
			args := []string{dst}
			if st := c.Native.Store; st != nil {
				for i, s := range stores {
					if !storeNames(st, s.name) {
						continue
					}
					db := filepath.Join(t.TempDir(), fmt.Sprint(i), s.name)
					s.build(t, db)
					if !storeClaims(t, st, db) {
						continue
					}
					m := relabelStore(t, st, db, paths)
					if len(paths) > 0 && m == 0 {
						t.Errorf("%s (%s): no label value of its records made unknown", s.name, s.script)
					}
					t.Logf("store %s (%s): %d label values made unknown", s.name, s.script, m)
					n += m
					args = append(args, db)
				}
				if len(args) == 1 {
					t.Errorf("a store reader with no test database")
				}
			}
			if len(paths) == 0 {
				t.Logf("%s declares no label field (its PassThrough has none): nothing to make unknown", c.Name)
			} else if n == 0 {
				t.Errorf("declares label fields %v, but no sample or store holds a value at one", keys(paths))
			}
			ins, err := pipeline.Expand(args)
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range ins {
				res := pipeline.Convert(in, pipeline.Options{Reveal: true})
				if res.Err != nil {
					t.Errorf("%s: refused: %v", in.Rel, res.Err)
					continue
				}
				out := string(res.Receipt) + string(res.Trace) + strings.Join(res.Diags, "\n")
				if strings.Contains(out, unknownLabel) {
					t.Errorf("%s: an unknown label was written in clear", in.Shown())
				}
			}
			t.Logf("%d label values made unknown in %d inputs", n, len(ins))
		})
	}
}

// storeNames reports whether a database of that file name is st's to
// read: one its Name names, or any name no other store names.
func storeNames(st *converters.Store, name string) bool {
	if st.Name != nil {
		return st.Name(name)
	}
	return converters.StoreFor(name) == nil
}

// storeClaims reports whether the database at path has the tables st
// reads.
func storeClaims(t *testing.T, st *converters.Store, path string) bool {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	return st.Claim(context.Background(), db)
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// queryStrings returns the one text column of a query's rows.
func queryStrings(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
