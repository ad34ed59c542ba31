package goose

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/contextreceipts/convert/converters"
)

// Goose keeps every session in one SQLite database, sessions.db, in its
// data folder's sessions/ (block/goose, crates/goose/src/session/
// session_manager.rs, schema version 5):
//
//	sessions  id, name, description, user_set_name, session_type,
//	          working_dir, created_at, updated_at, extension_data,
//	          total_tokens, input_tokens, output_tokens,
//	          accumulated_total_tokens, accumulated_input_tokens,
//	          accumulated_output_tokens, schedule_id, recipe_json,
//	          user_recipe_values_json (and, in the builds ccusage 20.0.24
//	          reads, model_config_json and provider_name)
//	messages  id, session_id, role, content_json, created_timestamp,
//	          timestamp, tokens, metadata_json
//
// The store writes each session as lines of its own shapes: the session
// row ({"goose_session": {...}}, the columns read, model_config_json
// parsed), then its messages by id ({"goose_message": {id, role,
// created_timestamp, content, metadata}}, content_json and metadata_json
// parsed). Names, titles, recipes and extension data are not read.
var gooseStore = &converters.Store{
	Name: func(base string) bool { return base == "sessions.db" },
	// Other programs keep a database of that name too.
	CommonName: true,
	Claim:      gooseClaim,
	Sessions:   gooseSessions,
	Lines:      gooseLines,
}

// gooseColumns are the columns the store needs, by table.
var gooseColumns = map[string][]string{
	"sessions": {"id", "working_dir", "created_at", "updated_at"},
	"messages": {"id", "session_id", "role", "content_json", "created_timestamp"},
}

// gooseSessionColumns are the session columns read when the table has
// them: ids, times, the session's type and token counts, the model.
var gooseSessionColumns = []string{
	"id", "working_dir", "created_at", "updated_at", "session_type", "schedule_id", "provider_name",
	"total_tokens", "input_tokens", "output_tokens",
	"accumulated_total_tokens", "accumulated_input_tokens", "accumulated_output_tokens", "model_config_json",
}

// gooseClaim reports a database with Goose's sessions and messages tables
// and the columns read.
func gooseClaim(ctx context.Context, db *sql.DB) bool {
	return converters.StoreHas(ctx, db, gooseColumns)
}

// gooseSessions lists the sessions by creation, with the last update (Unix
// milliseconds) and the number of rows: what an unchanged rerun compares.
func gooseSessions(ctx context.Context, db *sql.DB) ([]converters.StoreSession, error) {
	rows, err := converters.QueryStore(ctx, db, "session list", `SELECT s.id, coalesce(CAST(strftime('%s', s.updated_at) AS INTEGER), 0) * 1000,
		1 + (SELECT count(*) FROM messages m WHERE m.session_id = s.id)
		FROM sessions s ORDER BY s.created_at, s.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []converters.StoreSession
	for rows.Next() {
		var s converters.StoreSession
		if err := rows.Scan(&s.ID, &s.Updated, &s.Rows); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// gooseLines writes a session's row, then its messages by id.
func gooseLines(ctx context.Context, db *sql.DB, session string, emit func([]byte) error) error {
	var row map[string]any
	err := converters.StoreSelect(ctx, db, "sessions", gooseSessionColumns, "id = ?", "", session, func(r map[string]any) error {
		row = r
		return nil
	})
	if err == nil && row == nil {
		err = sql.ErrNoRows
	}
	if err != nil {
		return err
	}
	if s, ok := row["model_config_json"].(string); ok && json.Valid([]byte(s)) {
		row["model_config"] = json.RawMessage(s)
	}
	delete(row, "model_config_json")
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"goose_session": row}); err != nil {
		return err
	}
	if err := emit(bytes.TrimSuffix(b.Bytes(), []byte("\n"))); err != nil {
		return err
	}
	meta := "NULL"
	if m, err := converters.StoreColumns(ctx, db, "messages"); err == nil && m["metadata_json"] {
		meta = "metadata_json"
	}
	rows, err := converters.QueryStore(ctx, db, "messages", "SELECT id, role, content_json, created_timestamp, "+meta+
		" FROM messages WHERE session_id = ? ORDER BY id", session)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		var id, created int64
		var role string
		var content, metadata sql.NullString
		if err := rows.Scan(&id, &role, &content, &created, &metadata); err != nil {
			return err
		}
		if !json.Valid([]byte(content.String)) {
			return fmt.Errorf("messages row %d: content_json is not JSON", id)
		}
		m := map[string]any{"id": id, "role": role, "created_timestamp": created, "content": json.RawMessage(content.String)}
		if metadata.Valid && json.Valid([]byte(metadata.String)) {
			m["metadata"] = json.RawMessage(metadata.String)
		}
		b.Reset()
		if err := enc.Encode(map[string]any{"goose_message": m}); err != nil {
			return err
		}
		if err := emit(bytes.TrimSuffix(b.Bytes(), []byte("\n"))); err != nil {
			return err
		}
	}
	return rows.Err()
}
