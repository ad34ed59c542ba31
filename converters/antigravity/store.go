package antigravity

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/contextreceipts/convert/converters"
)

// Antigravity keeps each conversation in an SQLite database of its own,
// conversations/<conversation id>.db, whose tables hold protobuf blobs
// (the tables as ccusage 20.0.24 reads them; Antigravity's own builds
// have trajectory_meta, executor_metadata, parent_references and
// battle_mode_infos too, which are not read):
//
//	gen_metadata              idx, data (a generation's metadata)
//	steps                     idx, metadata (a step's metadata), and the
//	                          plain step_type, status, has_subtrajectory
//	trajectory_metadata_blob  data (the conversation's metadata)
//
// The store writes the conversation as lines of its own shapes, the blobs
// decoded (proto.go): {"antigravity_conversation": {id, created}}, then
// the steps by idx ({"antigravity_step": {idx, step_type, status,
// subtrajectory, time, model, model_id, provider, usage, retries}}), then
// the generations by idx ({"antigravity_generation": {idx, time, model,
// model_id, usage, retries}}), ccusage's order. A blob that is not
// protobuf fails the conversation, as it fails ccusage's report.
var antigravityStore = &converters.Store{
	Claim:    antigravityClaim,
	Sessions: antigravitySessions,
	Lines:    antigravityLines,
}

// antigravityClaim reports a database with Antigravity's gen_metadata
// table and its steps or its trajectory metadata: the tables ccusage
// reads, with the columns it reads.
func antigravityClaim(ctx context.Context, db *sql.DB) bool {
	return converters.StoreHas(ctx, db, map[string][]string{"gen_metadata": {"idx", "data"}}) &&
		(converters.StoreHas(ctx, db, map[string][]string{"steps": {"idx", "metadata"}}) ||
			converters.StoreHas(ctx, db, map[string][]string{"trajectory_metadata_blob": {"data"}}))
}

// antigravityFile is the database's own file, as SQLite names it.
func antigravityFile(ctx context.Context, db *sql.DB) string {
	rows, err := converters.QueryStore(ctx, db, "database list", "SELECT file FROM pragma_database_list WHERE name = 'main'")
	if err != nil {
		return ""
	}
	defer rows.Close()
	var file string
	for rows.Next() {
		_ = rows.Scan(&file)
	}
	return file
}

// antigravitySessions is the one conversation a database holds: its id is
// the file's name without .db (as ccusage names the session), its update
// the file's (and its write-ahead log's) time, its rows the steps and
// generations.
func antigravitySessions(ctx context.Context, db *sql.DB) ([]converters.StoreSession, error) {
	s := converters.StoreSession{ID: "conversation", Rows: 1}
	if file := antigravityFile(ctx, db); file != "" {
		if id := strings.TrimSuffix(filepath.Base(file), ".db"); id != "" {
			s.ID = id
		}
		for _, p := range []string{file, file + "-wal"} {
			if st, err := os.Stat(p); err == nil {
				s.Updated = max(s.Updated, st.ModTime().UnixMilli())
			}
		}
	}
	for _, table := range []string{"steps", "gen_metadata"} {
		if cols, err := converters.StoreColumns(ctx, db, table); err != nil {
			return nil, err
		} else if len(cols) == 0 {
			continue
		}
		rows, err := converters.QueryStore(ctx, db, table, "SELECT count(*) FROM "+table)
		if err != nil {
			return nil, err
		}
		var n int64
		for rows.Next() {
			if err := rows.Scan(&n); err != nil {
				rows.Close()
				return nil, err
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
		s.Rows += n
	}
	return []converters.StoreSession{s}, nil
}

// antigravityLines writes the conversation, its steps, its generations.
func antigravityLines(ctx context.Context, db *sql.DB, session string, emit func([]byte) error) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	line := func(key string, v map[string]any) error {
		b.Reset()
		if err := enc.Encode(map[string]any{key: v}); err != nil {
			return err
		}
		return emit(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	}
	conv := map[string]any{"id": session}
	if cols, err := converters.StoreColumns(ctx, db, "trajectory_metadata_blob"); err != nil {
		return err
	} else if cols["data"] {
		n := 0
		err := eachRow(ctx, db, "trajectory_metadata_blob", "SELECT data FROM trajectory_metadata_blob ORDER BY rowid", func(s scanner) error {
			n++
			var data []byte
			if err := s.Scan(&data); err != nil {
				return err
			}
			t, err := trajectoryCreated(data)
			if err != nil {
				return fmt.Errorf("trajectory_metadata_blob row %d: %w", n, err)
			}
			if _, seen := conv["created"]; !seen && t != "" {
				conv["created"] = t
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if err := line("antigravity_conversation", conv); err != nil {
		return err
	}
	if err := antigravitySteps(ctx, db, line); err != nil {
		return err
	}
	return eachRow(ctx, db, "gen_metadata", "SELECT idx, data FROM gen_metadata ORDER BY idx", func(s scanner) error {
		var idx int64
		var data []byte
		if err := s.Scan(&idx, &data); err != nil {
			return err
		}
		g, err := generation(data)
		if err != nil {
			return fmt.Errorf("gen_metadata row %d: %w", idx, err)
		}
		g["idx"] = idx
		return line("antigravity_generation", g)
	})
}

// antigravitySteps writes the steps by idx, with the plain columns the
// table has and the metadata decoded.
func antigravitySteps(ctx context.Context, db *sql.DB, line func(string, map[string]any) error) error {
	cols, err := converters.StoreColumns(ctx, db, "steps")
	if err != nil || !cols["idx"] || !cols["metadata"] {
		return err
	}
	plain := map[string]string{"step_type": "step_type", "status": "status", "has_subtrajectory": "subtrajectory"}
	q, names := "SELECT idx, metadata", []string{}
	for _, c := range []string{"step_type", "status", "has_subtrajectory"} {
		if cols[c] {
			q += ", " + c
			names = append(names, c)
		}
	}
	return eachRow(ctx, db, "steps", q+" FROM steps ORDER BY idx", func(s scanner) error {
		var idx int64
		var meta []byte
		vals := make([]sql.NullInt64, len(names))
		dest := []any{&idx, &meta}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := s.Scan(dest...); err != nil {
			return err
		}
		step := map[string]any{"idx": idx}
		for i, v := range vals {
			if v.Valid {
				if names[i] == "has_subtrajectory" {
					step[plain[names[i]]] = v.Int64 != 0
				} else {
					step[plain[names[i]]] = v.Int64
				}
			}
		}
		if meta != nil {
			if err := stepMetadata(meta, step); err != nil {
				return fmt.Errorf("steps row %d: metadata: %w", idx, err)
			}
		}
		return line("antigravity_step", step)
	})
}

// scanner is a row being read.
type scanner interface{ Scan(dest ...any) error }

// eachRow runs one bounded query and calls each with every row.
func eachRow(ctx context.Context, db *sql.DB, what, q string, each func(scanner) error) error {
	rows, err := converters.QueryStore(ctx, db, what, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := each(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
