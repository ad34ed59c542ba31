package converters

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// TestQueryStoreBounds: a query past its deadline or its row bound is a
// StoreBoundError saying which; the caller's cancellation (Ctrl-C) is not
// a bound but the context's error; a query within both gives every row.
func TestQueryStoreBounds(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	const endless = `WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r`
	const rows = `WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r WHERE n < 5000) SELECT n FROM r`
	tests := []struct {
		name    string
		query   string
		bounds  StoreBounds
		cancel  time.Duration // cancel the caller's context after this
		rows    int64
		timeout time.Duration // the StoreBoundError's, or
		maxRows int64         // the StoreBoundError's
		err     error         // errors.Is
	}{
		{name: "endless, past the deadline", query: endless, bounds: StoreBounds{Query: 200 * time.Millisecond}, timeout: 200 * time.Millisecond},
		{name: "more rows than the bound", query: rows, bounds: StoreBounds{Query: time.Minute, Rows: 1000}, rows: 1000, maxRows: 1000},
		{name: "within both bounds", query: rows, bounds: StoreBounds{Query: time.Minute, Rows: 5000}, rows: 5000},
		{name: "cancelled by the caller", query: endless, bounds: StoreBounds{Query: time.Hour}, cancel: 200 * time.Millisecond, err: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(WithStoreBounds(context.Background(), tt.bounds))
			defer cancel()
			if tt.cancel > 0 {
				time.AfterFunc(tt.cancel, cancel)
			}
			start := time.Now()
			var n int64
			r, err := QueryStore(ctx, db, "test table", tt.query)
			if err == nil {
				for r.Next() {
					n++
				}
				err = r.Err()
				r.Close()
			}
			if el := time.Since(start); el > 10*time.Second {
				t.Errorf("took %s", el)
			}
			var be *StoreBoundError
			switch {
			case tt.timeout > 0 || tt.maxRows > 0:
				if !errors.As(err, &be) || be.Timeout != tt.timeout || be.Rows != tt.maxRows || be.What != "test table" {
					t.Fatalf("err %v, want a bound of %s / %d rows", err, tt.timeout, tt.maxRows)
				}
			case tt.err != nil:
				if errors.As(err, &be) || (!errors.Is(err, tt.err) && ctx.Err() == nil) {
					t.Fatalf("err %v, want the caller's cancellation", err)
				}
			case err != nil:
				t.Fatal(err)
			}
			if n != tt.rows {
				t.Errorf("%d rows, want %d", n, tt.rows)
			}
		})
	}
}
