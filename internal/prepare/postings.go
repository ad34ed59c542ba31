package prepare

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/contextreceipts/convert/internal/receipt"
)

// Postings are the FTS channel's own index (store schema 3), written by
// the loader beside live_fts and read by prepare instead of FTS5's bm25.
//
// Ranked by FTS5, a search scores every row of the scope and family that
// holds a query term, and each score reads that row's length from FTS5's
// docsize table: one B-tree lookup (a pread when the page is not cached)
// per matching row, most of a prepare at 1M artifacts. The postings keep,
// for each indexed token (the scope-and-family prefix and the word, as
// live_fts indexes it), the live rows holding it with the token's count in
// the row (tf) and the row's length (dl), packed in blobs: a search reads a
// few blobs per query term and computes FTS5's bm25, operation for
// operation, from them and the index totals FTS5 keeps (rows, tokens). The
// rows read are each term's posting blobs; no per-row lookup remains.
//
// Exact by construction, or not used: the ranking must equal FTS5's
// ORDER BY rank, rowid (TestPostingsAreFTS5Order). So the postings answer
// a search only when
//   - every query term is ASCII letters and digits (one unicode61 token,
//     the term itself);
//   - the scope and family holds no live row with a word that is not (such
//     a row, "odd", has no postings and is counted in live_odd: unicode61's
//     tables are not Go's, so its tokens and length could differ);
//   - the index totals and the newest artifact row are what the last load
//     of this code recorded (live_meta): a store changed since by a loader
//     that does not keep the postings is never read through stale ones.
//
// Otherwise the search is FTS5's own, as before (a version 2 store too:
// prepare never writes, and the next load builds the postings).
//
// A row that leaves the live index (a newer revision, a lifecycle action)
// is a tombstone in live_gone while its postings stay in their blobs; the
// loader rewrites the blobs of the tombstoned rows' tokens and clears them
// once there are more than maxGone, so a search reads at most that many.
// A token gets one blob segment per load that adds to it; its segments are
// merged into one when there are more than maxSegments.
const postingsDDL = `
CREATE TABLE IF NOT EXISTS live_post(tok TEXT NOT NULL, seg INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY(tok, seg)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS live_gone(id INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS live_odd(sf TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS live_meta(k TEXT PRIMARY KEY, v INTEGER NOT NULL) WITHOUT ROWID;
`

// postingTables are the tables of schema 3's postings.
var postingTables = []string{"live_post", "live_gone", "live_odd", "live_meta"}

// Limits of the postings (variables for the tests that exercise them).
var (
	maxGone     = 1024     // tombstones a search may read
	maxSegments = 8        // blob segments of one token before they are merged
	flushAt     = 16 << 20 // pending postings held in memory during a load
)

const maxWordBytes = 255 // a longer word makes its row odd

// posting is one row of a token's list.
type posting struct {
	id     int64
	tf, dl uint32
}

// postWriter is one load's postings work: new postings held until the
// load ends (or flushAt of them), and the changes to the index totals the
// load makes, mirrored from its live_fts writes.
type postWriter struct {
	pending    map[string][]posting
	n          int
	odd        map[string]int
	rows, toks int64 // the live index's totals: at the load's start, then kept in step
	mayBeGone  bool  // live_gone may hold rows
}

// plainWords returns the words of body as indexText indexes them, and
// whether unicode61 reads each as exactly one token, the word itself
// (ASCII letters and digits, not too long).
func plainWords(body string) ([]string, bool) {
	ws := strings.FieldsFunc(strings.ToLower(body), notWordRune)
	for _, w := range ws {
		if !plainTerm(w) {
			return ws, false
		}
	}
	return ws, true
}

// plainTerm reports a word of ASCII letters and digits, short enough.
func plainTerm(w string) bool {
	if len(w) == 0 || len(w) > maxWordBytes {
		return false
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// newPostWriter starts a load's postings work at the live index's
// committed totals.
func newPostWriter(l *loader) (*postWriter, error) {
	w := &postWriter{pending: map[string][]posting{}, odd: map[string]int{}}
	var err error
	if w.rows, w.toks, err = ftsTotals(l.tx); err != nil {
		return nil, err
	}
	var gone int
	if err := l.tx.QueryRow(`SELECT EXISTS(SELECT 1 FROM live_gone)`).Scan(&gone); err != nil {
		return nil, err
	}
	w.mayBeGone = gone != 0
	return w, nil
}

// docSize is a live_fts row's length as FTS5 recorded it.
func docSize(l *loader, id int64) (int64, error) {
	var sz []byte
	q, err := l.stmt(`SELECT sz FROM live_fts_docsize WHERE id = ?`)
	if err != nil {
		return 0, err
	}
	if err := q.QueryRow(id).Scan(&sz); err != nil {
		return 0, fmt.Errorf("live index: row size: %w", err)
	}
	d, _, err := varint(sz)
	return int64(d), err
}

// enter records a row just added to live_fts.
func (w *postWriter) enter(l *loader, id int64, scope, fam, body string) error {
	ws, plain := plainWords(body)
	sf := sfPrefix(scope, fam)
	w.rows++
	if !plain {
		w.odd[sf]++
		d, err := docSize(l, id)
		w.toks += d
		return err
	}
	w.toks += int64(len(ws))
	if w.mayBeGone {
		res, err := l.Exec(`DELETE FROM live_gone WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			return nil // its postings are still there
		}
	}
	tf := map[string]uint32{}
	for _, x := range ws {
		tf[x]++
	}
	for x, n := range tf {
		w.pending[sf+x] = append(w.pending[sf+x], posting{id, n, uint32(len(ws))})
	}
	w.n += len(tf)
	if w.n >= flushAt {
		return w.flush(l)
	}
	return nil
}

// leave records a row about to be removed from live_fts.
func (w *postWriter) leave(l *loader, id int64, scope, fam, body string) error {
	ws, plain := plainWords(body)
	w.rows--
	if !plain {
		w.odd[sfPrefix(scope, fam)]--
		d, err := docSize(l, id)
		w.toks -= d
		return err
	}
	w.toks -= int64(len(ws))
	w.mayBeGone = true
	_, err := l.Exec(`INSERT OR IGNORE INTO live_gone(id) VALUES(?)`, id)
	return err
}

// flush writes the pending postings, one new segment per token, tokens in
// order (two loads of the same input write the same file).
func (w *postWriter) flush(l *loader) error {
	toks := make([]string, 0, len(w.pending))
	for t := range w.pending {
		toks = append(toks, t)
	}
	sort.Strings(toks)
	segs, err := l.stmt(`SELECT COALESCE(max(seg), 0), count(*) FROM live_post WHERE tok = ?`)
	if err != nil {
		return err
	}
	for _, t := range toks {
		var seg, n int64
		if err := segs.QueryRow(t).Scan(&seg, &n); err != nil {
			return err
		}
		if _, err := l.Exec(`INSERT INTO live_post(tok, seg, data) VALUES(?,?,?)`, t, seg+1, encodePostings(w.pending[t])); err != nil {
			return err
		}
		if n+1 > int64(maxSegments) {
			if err := rewrite(l, t, nil); err != nil {
				return err
			}
		}
	}
	clear(w.pending)
	w.n = 0
	return nil
}

// finish ends the load's postings work: the pending postings written, the
// odd counts kept, tombstones cleared when too many, and the totals this
// load leaves recorded for prepare's freshness check.
func (w *postWriter) finish(l *loader) error {
	if err := w.flush(l); err != nil {
		return err
	}
	for sf, d := range w.odd {
		if d == 0 {
			continue
		}
		if _, err := l.Exec(`INSERT INTO live_odd(sf, n) VALUES(?,?) ON CONFLICT DO UPDATE SET n = n + excluded.n`, sf, d); err != nil {
			return err
		}
	}
	if err := compact(l); err != nil {
		return err
	}
	var maxID int64
	if err := l.tx.QueryRow(`SELECT COALESCE(max(id), 0) FROM artifacts`).Scan(&maxID); err != nil {
		return err
	}
	for k, v := range map[string]int64{"rows": w.rows, "tokens": w.toks, "max_id": maxID} {
		if _, err := l.Exec(`INSERT OR REPLACE INTO live_meta(k, v) VALUES(?,?)`, k, v); err != nil {
			return err
		}
	}
	return nil
}

// compact drops the tombstoned rows from every token they hold once there
// are more than maxGone of them.
func compact(l *loader) error {
	var n int
	if err := l.tx.QueryRow(`SELECT count(*) FROM live_gone`).Scan(&n); err != nil || n <= maxGone {
		return err
	}
	rows, err := l.tx.Query(`SELECT g.id, a.scope_id, a.family, a.body FROM live_gone g JOIN artifacts a ON a.id = g.id`)
	if err != nil {
		return err
	}
	gone := map[int64]bool{}
	toks := map[string]bool{}
	for rows.Next() {
		var id int64
		var scope, fam, body string
		if err := rows.Scan(&id, &scope, &fam, &body); err != nil {
			rows.Close()
			return err
		}
		gone[id] = true
		ws, _ := plainWords(body)
		sf := sfPrefix(scope, fam)
		for _, x := range ws {
			toks[sf+x] = true
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	ts := make([]string, 0, len(toks))
	for t := range toks {
		ts = append(ts, t)
	}
	sort.Strings(ts)
	for _, t := range ts {
		if err := rewrite(l, t, gone); err != nil {
			return err
		}
	}
	_, err = l.Exec(`DELETE FROM live_gone`)
	return err
}

// rewrite makes a token's segments one, without the rows in drop.
func rewrite(l *loader, tok string, drop map[int64]bool) error {
	rows, err := l.tx.Query(`SELECT data FROM live_post WHERE tok = ?`, tok)
	if err != nil {
		return err
	}
	var all []posting
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			rows.Close()
			return err
		}
		if err := decodePostings(b, func(p posting) {
			if !drop[p.id] {
				all = append(all, p)
			}
		}); err != nil {
			rows.Close()
			return err
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := l.Exec(`DELETE FROM live_post WHERE tok = ?`, tok); err != nil || len(all) == 0 {
		return err
	}
	_, err = l.Exec(`INSERT INTO live_post(tok, seg, data) VALUES(?, 1, ?)`, tok, encodePostings(all))
	return err
}

// encodePostings packs a list by row id: per row the id's gap from the
// previous one, tf and dl, each a uvarint.
func encodePostings(ps []posting) []byte {
	slices.SortFunc(ps, func(a, b posting) int { return int(min(max(a.id-b.id, -1), 1)) })
	b := make([]byte, 0, 6*len(ps))
	last := int64(0)
	for _, p := range ps {
		b = binary.AppendUvarint(b, uint64(p.id-last))
		b = binary.AppendUvarint(b, uint64(p.tf))
		b = binary.AppendUvarint(b, uint64(p.dl))
		last = p.id
	}
	return b
}

var errPostings = errors.New("live postings: malformed segment")

// decodePostings calls f with each posting of a segment.
func decodePostings(b []byte, f func(posting)) error {
	last := int64(0)
	for len(b) > 0 {
		var v [3]uint64
		for i := range v {
			x, n := binary.Uvarint(b)
			if n <= 0 {
				return errPostings
			}
			v[i], b = x, b[n:]
		}
		last += int64(v[0])
		f(posting{last, uint32(v[1]), uint32(v[2])})
	}
	return nil
}

// buildPostings makes the postings of every live row (a store brought up
// to schema 3).
func buildPostings(l *loader) error {
	w, err := newPostWriter(l)
	if err != nil {
		return err
	}
	rs, err := liveRows(l.tx)
	if err != nil {
		return err
	}
	// The rows are already in live_fts: counted in its totals. enter
	// counts them again, so they start below by as much.
	for _, x := range rs {
		ws, plain := plainWords(x.body)
		w.rows--
		if plain {
			w.toks -= int64(len(ws))
		} else {
			d, err := docSize(l, x.id)
			if err != nil {
				return err
			}
			w.toks -= d
		}
		if err := w.enter(l, x.id, x.scope, x.fam, x.body); err != nil {
			return err
		}
	}
	return w.finish(l)
}

// querier is a connection or a transaction.
type querier interface {
	QueryRow(q string, args ...any) *sql.Row
}

// ftsTotals reads what bm25 reads for its average length: the live
// index's row count and token count (its averages record, rowid 1).
func ftsTotals(q querier) (nRow, nTok int64, err error) {
	var rec []byte
	err = q.QueryRow(`SELECT block FROM live_fts_data WHERE id = 1`).Scan(&rec)
	if errors.Is(err, sql.ErrNoRows) || err == nil && len(rec) == 0 {
		return 0, 0, nil // an index never written to: FTS5 reads zeros
	}
	if err != nil {
		return 0, 0, err
	}
	r, n, err := varint(rec)
	if err != nil {
		return 0, 0, fmt.Errorf("live index totals: %w", err)
	}
	t, _, err := varint(rec[n:])
	if err != nil {
		return 0, 0, fmt.Errorf("live index totals: %w", err)
	}
	return int64(r), int64(t), nil
}

// varint decodes one SQLite varint (FTS5 writes its records with them).
func varint(b []byte) (uint64, int, error) {
	var v uint64
	for i := 0; i < 9; i++ {
		if i == len(b) {
			return 0, 0, errors.New("short varint")
		}
		if i == 8 {
			return v<<8 | uint64(b[i]), 9, nil
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, i + 1, nil
		}
	}
	return 0, 0, errors.New("bad varint")
}

// bm25's constants in FTS5 (fts5_aux.c).
const bm25K1, bm25B = 1.2, 0.75

// bm25IDF is FTS5's idf of a phrase found in nHit of nRow rows.
func bm25IDF(nRow, nHit int64) float64 {
	idf := math.Log((float64(nRow-nHit) + 0.5) / (float64(nHit) + 0.5))
	if idf <= 0 {
		idf = 1e-6
	}
	return idf
}

// bm25Score is FTS5's bm25() of one row (higher is better; FTS5's rank is
// its negation): tf per phrase, the row's length d, per phrase idf, the
// index's average length. The conversions keep each step rounded as the
// C code rounds it (no fused operations).
func bm25Score(tf []uint32, d float64, idf []float64, avgdl float64) float64 {
	score := 0.0
	for i, n := range tf {
		f := float64(n)
		score = score + float64(idf[i]*(float64(f*(bm25K1+1))/(f+float64(bm25K1*(1-bm25B+float64(bm25B*d)/avgdl)))))
	}
	return score
}

// ranked is a row and its bm25 score.
type ranked struct {
	id    int64
	score float64
}

// better is the SQL order ORDER BY rank, rowid.
func better(a, b ranked) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.id < b.id
}

// topPostings returns the ids of the best pool live rows of one scope and
// family holding any of qterms, in the order FTS5 ranks them (ORDER BY
// rank, rowid LIMIT pool), read from the postings; ok is false when the
// postings cannot answer exactly (see postingsDDL) and FTS5 must.
func (s *Store) topPostings(ctx context.Context, scope, family string, qterms []string, pool int) (ids []int64, ok bool, err error) {
	if !s.postings || pool <= 0 {
		return nil, false, nil
	}
	for _, t := range qterms {
		if !plainTerm(t) {
			return nil, false, nil
		}
	}
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, false, err
	}
	defer tx.Rollback() // a read: nothing to commit
	sf := sfPrefix(scope, family)
	nRow, nTok, fresh, err := postingsFresh(tx, sf)
	if err != nil || !fresh {
		return nil, false, err
	}
	gone, err := goneRows(ctx, tx)
	if err != nil {
		return nil, false, err
	}
	lists, idf, err := readPostings(ctx, tx, sf, qterms, gone, nRow)
	if err != nil || nRow == 0 {
		return nil, err == nil, err
	}
	top := topK(lists, idf, float64(nTok)/float64(nRow), pool)
	ids = make([]int64, len(top))
	for i, r := range top {
		ids[i] = r.id
	}
	return ids, true, nil
}

// postingsFresh reads the live index's totals and reports whether the
// postings answer for scope-and-family sf: they are current (postingsCurrent)
// and sf has no odd row.
func postingsFresh(tx *sql.Tx, sf string) (nRow, nTok int64, fresh bool, err error) {
	nRow, nTok, cur, err := postingsCurrent(tx)
	if err != nil || !cur {
		return nRow, nTok, false, err
	}
	var odd int64
	if err := tx.QueryRow(`SELECT COALESCE((SELECT n FROM live_odd WHERE sf = ?), 0)`, sf).Scan(&odd); err != nil {
		return 0, 0, false, err
	}
	return nRow, nTok, odd == 0, nil
}

// postingsCurrent reads the live index's totals and reports whether they
// and the newest artifact row are what the last load of this code
// recorded: false after a loader that does not keep the postings (an
// older convert's) changed the store.
func postingsCurrent(q querier) (nRow, nTok int64, cur bool, err error) {
	if nRow, nTok, err = ftsTotals(q); err != nil {
		return 0, 0, false, err
	}
	var rows, toks, maxID, have sql.NullInt64
	err = q.QueryRow(`SELECT (SELECT v FROM live_meta WHERE k = 'rows'), (SELECT v FROM live_meta WHERE k = 'tokens'),
		(SELECT v FROM live_meta WHERE k = 'max_id'), (SELECT COALESCE(max(id), 0) FROM artifacts)`).Scan(&rows, &toks, &maxID, &have)
	if err != nil {
		return 0, 0, false, err
	}
	cur = rows.Valid && rows.Int64 == nRow && toks.Valid && toks.Int64 == nTok && maxID.Valid && maxID.Int64 == have.Int64
	return nRow, nTok, cur, nil
}

// goneRows reads the tombstones (at most maxGone after a load).
func goneRows(ctx context.Context, tx *sql.Tx) (map[int64]bool, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id FROM live_gone`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	gone := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		gone[id] = true
	}
	return gone, rows.Err()
}

// readPostings reads each query term's live postings, by row id, and
// its idf over nRow rows.
func readPostings(ctx context.Context, tx *sql.Tx, sf string, qterms []string, gone map[int64]bool, nRow int64) ([][]posting, []float64, error) {
	lists := make([][]posting, len(qterms))
	idf := make([]float64, len(qterms))
	for i, t := range qterms {
		rows, err := tx.QueryContext(ctx, `SELECT data FROM live_post WHERE tok = ?`, sf+t)
		if err != nil {
			return nil, nil, err
		}
		segs := 0
		for rows.Next() {
			var b []byte
			if err := rows.Scan(&b); err != nil {
				rows.Close()
				return nil, nil, err
			}
			segs++
			if err := decodePostings(b, func(p posting) {
				if !gone[p.id] {
					lists[i] = append(lists[i], p)
				}
			}); err != nil {
				rows.Close()
				return nil, nil, err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, nil, err
		}
		if segs > 1 {
			slices.SortFunc(lists[i], func(a, b posting) int { return int(min(max(a.id-b.id, -1), 1)) })
		}
		idf[i] = bm25IDF(nRow, int64(len(lists[i])))
	}
	return lists, idf, nil
}

// topK scores every row of the lists (each by row id) as FTS5's bm25
// does, walking them together by row id, and keeps the best k, in the
// order (rank, rowid).
func topK(lists [][]posting, idf []float64, avgdl float64, k int) []ranked {
	top := make([]ranked, 0, k+1)
	at := make([]int, len(lists))
	tf := make([]uint32, len(lists))
	for {
		id, dl := int64(math.MaxInt64), uint32(0)
		for i, l := range lists {
			if at[i] < len(l) && l[at[i]].id < id {
				id, dl = l[at[i]].id, l[at[i]].dl
			}
		}
		if id == math.MaxInt64 {
			return top
		}
		for i, l := range lists {
			tf[i] = 0
			if at[i] < len(l) && l[at[i]].id == id {
				tf[i] = l[at[i]].tf
				at[i]++
			}
		}
		r := ranked{id, bm25Score(tf, float64(dl), idf, avgdl)}
		if len(top) == k && !better(r, top[k-1]) {
			continue
		}
		i := sort.Search(len(top), func(i int) bool { return better(r, top[i]) })
		top = slices.Insert(top, i, r)
		if len(top) > k {
			top = top[:k]
		}
	}
}

// rowsByID reads the rows of ids, in that order, that are of scope and
// family (a 64-bit prefix collision could name another's); what names the
// search in an error.
func (s *Store) rowsByID(ctx context.Context, h receipt.Hasher, scope, family string, ids []int64, what string) ([]row, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := []any{scope, family}
	for _, id := range ids {
		args = append(args, id)
	}
	got, err := s.db.QueryContext(ctx, `SELECT `+rowCols+` FROM artifacts a WHERE +a.scope_id = ? AND +a.family = ? AND a.id IN (`+
		strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, family, err)
	}
	rs, err := scanRows(got, h)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]row, len(rs))
	for _, r := range rs {
		byID[r.id] = r
	}
	out := make([]row, 0, len(ids))
	for _, id := range ids {
		if r, ok := byID[id]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}
