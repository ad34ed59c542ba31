package prepare

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fts5Order is what FTS5 itself ranks: the ids of ORDER BY rank, rowid
// LIMIT pool over the live index.
func fts5Order(t *testing.T, s *Store, scope, fam string, qterms []string, pool int) []int64 {
	t.Helper()
	rows, err := s.db.Query(`SELECT rowid FROM live_fts WHERE live_fts MATCH ? ORDER BY rank, rowid LIMIT ?`, liveMatch(scope, fam, qterms), pool)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

// postingsStore builds a store by several loads (several segments per
// token, merged past maxSegments; flushes within a load), with rows
// replaced by new revisions, forgotten, retired, and brought back (a
// forgotten memory given a new entry at its revision), tombstones
// compacted past maxGone; bodies of 1-40 words from a small vocabulary
// (repeated words, many equal scores), two scopes. Scope "t"'s experience
// family holds a word unicode61 may read otherwise (an odd row).
func postingsStore(t *testing.T, path string, rng *rand.Rand, text func(int) string) {
	t.Helper()
	defer func(g, m, f int) { maxGone, maxSegments, flushAt = g, m, f }(maxGone, maxSegments, flushAt)
	maxGone, maxSegments, flushAt = 40, 3, 500
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	scopes := []string{"s", "t"}
	topics := map[string]bool{}
	for load := range 6 {
		var recs []rec
		for i := range 200 {
			scope := scopes[i%2]
			id := fmt.Sprint("a", rng.IntN(300))
			k := rng.IntN(10)
			if k < 2 && !topics[scope+"/"+id] {
				k = 5
			}
			switch k {
			case 0:
				recs = append(recs, rec{"kind": "lifecycle", "scope_id": scope, "family": FamilyTopic, "artifact_id": id, "action": "forget"})
			case 1:
				recs = append(recs, rec{"kind": "lifecycle", "scope_id": scope, "family": FamilyTopic, "artifact_id": id, "action": "retire"})
			case 2, 3, 4:
				recs = append(recs, mem(scope, id, load*1000+i+1, text(1+rng.IntN(40)), text(1+rng.IntN(40))))
			default:
				recs = append(recs, art(FamilyTopic, scope, id, load*1000+i+1, text(1+rng.IntN(40))))
				topics[scope+"/"+id] = true
			}
		}
		recs = append(recs, art(FamilyExperience, "t", fmt.Sprint("e", load), 1, "café ledger "+text(5)),
			art(FamilyExperience, "s", fmt.Sprint("e", load), 1, "ledger "+text(5)),
			mem("s", "back", load+1, text(8), text(9)),
			rec{"kind": "lifecycle", "scope_id": "s", "family": FamilyMemory, "artifact_id": "back", "action": "forget"})
		if load > 0 { // the forgotten revision gets a new entry: its rows come back
			recs = append(recs, rec{"kind": FamilyMemory, "scope_id": "s", "artifact_id": "back", "revision": load,
				"entries": []map[string]string{{"entry_id": "late", "entry_version_id": "late.v1", "body": text(6)}}})
		}
		if _, err := st.Load(bytes.NewReader(jsonl(recs...)), "fixture.jsonl"); err != nil {
			t.Fatal(err)
		}
	}
	var last []rec // a few tombstones left after the last compaction
	for k := range topics {
		scope, id, _ := strings.Cut(k, "/")
		last = append(last, rec{"kind": "lifecycle", "scope_id": scope, "family": FamilyTopic, "artifact_id": id, "action": "retire"})
		if len(last) == 5 {
			break
		}
	}
	if _, err := st.Load(bytes.NewReader(jsonl(last...)), "last.jsonl"); err != nil {
		t.Fatal(err)
	}
}

// TestPostingsAreFTS5Order: the search read from the postings returns
// exactly the rows, in exactly the order, of FTS5's own ORDER BY bm25
// rank, rowid LIMIT pool, ties included, over a store changed by many
// loads; through Open and through OpenReadOnly. A family holding an odd
// row, and a query term unicode61 could read otherwise, are left to FTS5.
func TestPostingsAreFTS5Order(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 3))
	words := []string{"ledger", "cache", "x", "q1", "9", "build", "route", "token", "alpha", "beta", "Ledger,", "CACHE!", "q1-9", "x.y", "(build)"}
	for i := range 30 {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	text := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[min(len(words)-1, int(rng.ExpFloat64()*8))]
		}
		return strings.Join(ws, " ")
	}
	path := filepath.Join(t.TempDir(), "store.db")
	postingsStore(t, path, rng, text)
	rw, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var gone int
	ro.db.QueryRow(`SELECT count(*) FROM live_gone`).Scan(&gone)
	if gone == 0 {
		t.Fatal("the fixture left no tombstone to skip")
	}
	ctx := context.Background()
	answered := 0
	for q := range 60 {
		qt := queryTerms(NormalizeQuery(text(1 + rng.IntN(6))))
		odd := q%20 == 0
		if odd {
			qt = append(qt, "café")
		}
		if len(qt) == 0 {
			continue
		}
		for _, s := range []*Store{rw, ro} {
			for _, scope := range []string{"s", "t"} {
				for _, fam := range []string{FamilyTopic, FamilyMemory, FamilyExperience} {
					for _, pool := range []int{1, 3, 32, 5000} {
						want := fts5Order(t, s, scope, fam, qt, pool)
						got, ok, err := s.topPostings(ctx, scope, fam, qt, pool)
						if err != nil {
							t.Fatal(err)
						}
						if oddFam := scope == "t" && fam == FamilyExperience; ok == (odd || oddFam) {
							t.Fatalf("query %v, %s %s: answered from the postings %v", qt, scope, fam, ok)
						}
						if ok && !slices.Equal(got, want) {
							t.Fatalf("query %v, %s %s, pool %d:\n got %v\nwant %v", qt, scope, fam, pool, got, want)
						}
						if ok && len(want) > 1 {
							answered++
						}
					}
				}
			}
		}
	}
	if answered < 500 {
		t.Fatalf("only %d searches were answered from the postings", answered)
	}
}

// TestPostingsNeverStale: a store changed after its last load by a writer
// that does not keep the postings (an older convert's loader: a row added,
// a row removed from the live index) is searched by FTS5, never through
// the postings it left stale; the next load of this code makes them again,
// and they answer, in FTS5's order.
func TestPostingsNeverStale(t *testing.T) {
	for i, change := range []string{
		`INSERT INTO artifacts(scope_id, family, artifact_id, revision, body) VALUES('s', 'topic-memory', 'new', 1, 'ledger')`,
		`DELETE FROM live_fts WHERE rowid = (SELECT min(id) FROM live); DELETE FROM live WHERE id = (SELECT min(id) FROM live)`,
	} {
		path := filepath.Join(t.TempDir(), fmt.Sprint(i, ".db"))
		st, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Load(bytes.NewReader(jsonl(art(FamilyTopic, "s", "a", 1, "ledger cache"), art(FamilyTopic, "s", "b", 1, "ledger"),
			art(FamilyTopic, "s", "c", 1, "ledger ledger x"))), "x.jsonl"); err != nil {
			t.Fatal(err)
		}
		q := []string{"ledger"}
		if _, ok, err := st.topPostings(context.Background(), "s", FamilyTopic, q, 5); err != nil || !ok {
			t.Fatalf("a fresh store: %v %v", ok, err)
		}
		if _, err := st.db.Exec(change); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := st.topPostings(context.Background(), "s", FamilyTopic, q, 5); err != nil || ok {
			t.Fatalf("after %q: answered from the postings (%v, %v)", change, ok, err)
		}
		st.Close()
		if st, err = Open(path); err != nil { // what the next load does first
			t.Fatal(err)
		}
		got, ok, err := st.topPostings(context.Background(), "s", FamilyTopic, q, 5)
		if want := fts5Order(t, st, "s", FamilyTopic, q, 5); err != nil || !ok || !slices.Equal(got, want) {
			t.Fatalf("after %q and a load: %v %v %v, want %v", change, got, ok, err, want)
		}
		st.Close()
	}
}

// TestVersion2StoreIsRead: a store made before the postings (schema 2)
// is read as it is, by FTS5, and left byte for byte as it was; a load
// adds its postings, and the same request then reads them, with the same
// context.
func TestVersion2StoreIsRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v2.db")
	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../samples/prepare/artifacts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Load(bytes.NewReader(data), "artifacts.jsonl"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP TABLE live_post`, `DROP TABLE live_gone`, `DROP TABLE live_odd`, `DROP TABLE live_meta`, `PRAGMA user_version=2`, `VACUUM`} {
		if _, err := st.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	before, _ := os.ReadFile(path)
	prepared := func() []byte {
		ro, err := OpenReadOnly(path)
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		res, err := NewRuntime(ro, fixed(Options{})).Prepare(context.Background(), Request{ScopeIDs: []string{"project:payments"}, Query: "Why did we choose SQLite?", IncludeReceipt: true})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := ro.topPostings(context.Background(), "project:payments", FamilyMemory, []string{"sqlite"}, 5); ok != ro.postings {
			t.Fatalf("postings read: %v, store has them: %v", ok, ro.postings)
		}
		b, _ := json.Marshal(res.Context)
		return b
	}
	old := prepared()
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Fatal("prepare changed a version 2 store")
	}
	st, err = Open(path) // what a load does first
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if now := prepared(); !bytes.Equal(old, now) {
		t.Fatalf("the postings changed the context:\n%s\n%s", old, now)
	}
}
