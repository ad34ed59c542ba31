package converters

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// StoreBounds bound every query a Store makes, so that a database whose
// tables are views over endless queries (a recursive query with no end)
// fails as an input instead of hanging the run (issue #49): each query
// has Query to give all its rows, and gives at most Rows rows. The
// pipeline puts them in the context it passes (WithStoreBounds); a Store
// runs its queries through QueryStore, which applies them. Zero: no bound.
type StoreBounds struct {
	Query time.Duration
	Rows  int64
}

type storeBoundsKey struct{}

// WithStoreBounds returns ctx carrying b for the queries of a Store.
func WithStoreBounds(ctx context.Context, b StoreBounds) context.Context {
	return context.WithValue(ctx, storeBoundsKey{}, b)
}

// BoundsOf returns the StoreBounds ctx carries (none: zero, no bound).
func BoundsOf(ctx context.Context) StoreBounds {
	b, _ := ctx.Value(storeBoundsKey{}).(StoreBounds)
	return b
}

// StoreBoundError is a query that passed a bound: what names the query
// (a table), the rest says which bound and its figure.
type StoreBoundError struct {
	What    string
	Timeout time.Duration // the deadline passed, or
	Rows    int64         // the row bound passed
}

func (e *StoreBoundError) Error() string {
	if e.Rows > 0 {
		return fmt.Sprintf("the query of its %s gave more than %d rows, the bound of one store query: the database is damaged or built to stall a reader", e.What, e.Rows)
	}
	return fmt.Sprintf("the query of its %s took longer than %s, the bound of one store query: the database is damaged, built to stall a reader, or too large for one run", e.What, e.Timeout)
}

// StoreRows are the rows of one bounded query: Next stops at the row
// bound, and Err (and the error of QueryStore) is a *StoreBoundError when
// a bound was passed. Close always.
type StoreRows struct {
	*sql.Rows
	what      string
	bounds    StoreBounds
	ctx, qctx context.Context
	cancel    context.CancelFunc
	n         int64
	err       error
}

// QueryStore runs one query of a Store under ctx's StoreBounds; what
// names it in a bound's message (the table read).
func QueryStore(ctx context.Context, db *sql.DB, what, query string, args ...any) (*StoreRows, error) {
	b := BoundsOf(ctx)
	qctx, cancel := ctx, context.CancelFunc(func() {})
	if b.Query > 0 {
		qctx, cancel = context.WithTimeout(ctx, b.Query)
	}
	r := &StoreRows{what: what, bounds: b, ctx: ctx, qctx: qctx, cancel: cancel}
	rows, err := db.QueryContext(qctx, query, args...)
	if err != nil {
		cancel()
		return nil, r.bound(err)
	}
	r.Rows = rows
	return r, nil
}

// Next advances to the next row; false past the last one, on an error or
// past the row bound.
func (r *StoreRows) Next() bool {
	if r.err != nil || !r.Rows.Next() {
		return false
	}
	r.n++
	if r.bounds.Rows > 0 && r.n > r.bounds.Rows {
		r.err = &StoreBoundError{What: r.what, Rows: r.bounds.Rows}
		return false
	}
	return true
}

// Err is the error that stopped Next: a bound passed, or the query's.
func (r *StoreRows) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.bound(r.Rows.Err())
}

// Close ends the query (and its deadline).
func (r *StoreRows) Close() error {
	err := r.Rows.Close()
	r.cancel()
	return err
}

// bound reads err: the query's own deadline passed (not the caller's
// context, whose cancellation is Ctrl-C) is a *StoreBoundError.
func (r *StoreRows) bound(err error) error {
	if err != nil && r.ctx.Err() == nil && errors.Is(r.qctx.Err(), context.DeadlineExceeded) {
		return &StoreBoundError{What: r.what, Timeout: r.bounds.Query}
	}
	return err
}
