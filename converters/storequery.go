package converters

import (
	"context"
	"database/sql"
)

// What a Store's functions share, every query bounded (QueryStore).

// StoreColumns is the set of table's columns (empty when the table is
// missing).
func StoreColumns(ctx context.Context, db *sql.DB, table string) (map[string]bool, error) {
	rows, err := QueryStore(ctx, db, table+" table's columns", "SELECT name FROM pragma_table_info(?)", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if rows.Scan(&name) == nil {
			have[name] = true
		}
	}
	return have, rows.Err()
}

// StoreHas reports a database whose tables have at least the columns
// want names, by table: a Store's Claim.
func StoreHas(ctx context.Context, db *sql.DB, want map[string][]string) bool {
	for table, cols := range want {
		have, err := StoreColumns(ctx, db, table)
		if err != nil {
			return false
		}
		for _, c := range cols {
			if !have[c] {
				return false
			}
		}
	}
	return true
}

// StoreSelect runs one query of the columns of want that table has (an
// older schema lacks some), "WHERE where" and order appended, and calls
// each with every row as a map of its non-NULL values (text as a string).
func StoreSelect(ctx context.Context, db *sql.DB, table string, want []string, where, order string, arg any, each func(map[string]any) error) error {
	have, err := StoreColumns(ctx, db, table)
	if err != nil {
		return err
	}
	var cols []string
	q := "SELECT "
	for _, c := range want {
		if have[c] {
			if len(cols) > 0 {
				q += ", "
			}
			q += `"` + c + `"`
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		return nil
	}
	rows, err := QueryStore(ctx, db, table, q+" FROM "+table+" WHERE "+where+order, arg)
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		row := map[string]any{}
		for i, c := range cols {
			v := vals[i]
			if bs, ok := v.([]byte); ok {
				v = string(bs)
			}
			if v != nil {
				row[c] = v
			}
		}
		if err := each(row); err != nil {
			return err
		}
	}
	return rows.Err()
}
