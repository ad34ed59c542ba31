package main

// Issue #49, item 5: every query against a store has a deadline and a row
// bound, and Ctrl-C stops it. An opencode.db whose part table is a view
// over an endless recursive query fails as that input, naming the
// database and the bound, instead of hanging the run.

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared/ocdb"
)

// partsView replaces the part table by a view of n parts (0: with no
// end), all of the first message of the database and its session: rows
// that every query of the store asks for (a view whose ids match no row
// is skipped by SQLite without running it).
func partsView(t *testing.T, n int) func(db *sql.DB) {
	return func(db *sql.DB) {
		var msg, ses string
		if err := db.QueryRow(`SELECT id, session_id FROM message ORDER BY id LIMIT 1`).Scan(&msg, &ses); err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^[A-Za-z0-9_]+$`).MatchString(msg + ses) {
			t.Fatalf("ids %q %q cannot be written in a view", msg, ses)
		}
		stop := ""
		if n > 0 {
			stop = fmt.Sprintf(" WHERE n < %d", n)
		}
		if _, err := db.Exec(fmt.Sprintf(`DROP TABLE part;
			CREATE VIEW part AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r%s)
			SELECT 'prt_' || n AS id, '%s' AS message_id, '%s' AS session_id, 0 AS time_created, 0 AS time_updated,
			'{"type":"text","text":"CANARY"}' AS data FROM r`, stop, msg, ses)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestStoreQueriesAreBounded(t *testing.T) {
	tests := []struct {
		name   string
		parts  int // rows of the part view; 0: endless
		bounds converters.StoreBounds
		stderr string
	}{
		{"an endless part view passes the deadline", 0, converters.StoreBounds{Query: 300 * time.Millisecond, Rows: 1_000_000},
			"opencode.db: the query of its session list took longer than 300ms, the bound of one store query"},
		{"a part view of more rows than the bound", 5000, converters.StoreBounds{Query: time.Minute, Rows: 1000},
			"the query of its part rows gave more than 1000 rows, the bound of one store query"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer pipeline.SetStoreBounds(tt.bounds)()
			db := filepath.Join(t.TempDir(), "opencode.db")
			ocdb.Build(t, db, partsView(t, tt.parts))
			start := time.Now()
			code, _, se := runCLI(t, "", "run", "--out", t.TempDir(), db)
			if el := time.Since(start); el > 20*time.Second {
				t.Errorf("took %s", el)
			}
			if code != exitFailed || !strings.Contains(se, tt.stderr) {
				t.Fatalf("exit %d, want %d; stderr lacks %q:\n%s", code, exitFailed, tt.stderr, se)
			}
		})
	}
}

// TestStoreQueryStopsAtCtrlC: Ctrl-C (the run's context cancelled) stops
// a store query that would run past any deadline: exit 130 at once.
func TestStoreQueryStopsAtCtrlC(t *testing.T) {
	defer pipeline.SetStoreBounds(converters.StoreBounds{Query: time.Hour})()
	db := filepath.Join(t.TempDir(), "opencode.db")
	ocdb.Build(t, db, partsView(t, 0))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	var so, se bytes.Buffer
	code := runContext(ctx, []string{"convert", "run", "--out", t.TempDir(), db}, &so, &se)
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("took %s after Ctrl-C", el)
	}
	if code != exitInterrupted || !strings.Contains(se.String(), "interrupted") {
		t.Fatalf("exit %d, want %d:\n%s", code, exitInterrupted, se.String())
	}
	if _, err := os.Stat(db); err != nil {
		t.Fatal(err)
	}
}
