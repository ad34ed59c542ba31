package hermes

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"

	"github.com/contextreceipts/convert/converters"
)

// Hermes Agent keeps every session in one SQLite database, state.db, in
// its home (NousResearch/hermes-agent, hermes_state_common.py SCHEMA_SQL,
// schema version 30). The tables read:
//
//	sessions  id, source, model, parent_session_id, started_at, ended_at,
//	          end_reason, message_count, tool_call_count, input_tokens,
//	          output_tokens, cache_read_tokens, cache_write_tokens,
//	          reasoning_tokens, cwd, billing_provider, estimated_cost_usd,
//	          actual_cost_usd (times Unix seconds, REAL)
//	messages  id, session_id, role, content, tool_call_id, tool_calls
//	          (JSON), tool_name, timestamp, finish_reason,
//	          _compressed_summary
//
// The store writes each session as lines of its own shapes: the session
// row ({"hermes_session": {...}}, the columns read that it has), then its
// messages by id ({"hermes_message": {...}}, tool_calls parsed). Titles,
// user and chat ids, system prompts and routing are not read.
var hermesStore = &converters.Store{
	Name: func(base string) bool { return base == "state.db" },
	// Other programs keep a database of that name too.
	CommonName: true,
	Claim:      hermesClaim,
	Sessions:   hermesSessions,
	Lines:      hermesLines,
}

// hermesColumns are the columns the store needs, by table.
var hermesColumns = map[string][]string{
	"sessions": {"id", "source", "started_at", "input_tokens", "output_tokens"},
	"messages": {"id", "session_id", "role", "content", "tool_call_id", "tool_calls", "timestamp"},
}

// hermesSessionColumns and hermesMessageColumns are the columns read when
// the table has them.
var (
	hermesSessionColumns = []string{
		"id", "source", "model", "parent_session_id", "started_at", "ended_at", "end_reason", "message_count",
		"tool_call_count", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens",
		"cwd", "billing_provider", "estimated_cost_usd", "actual_cost_usd",
	}
	hermesMessageColumns = []string{
		"id", "role", "content", "tool_call_id", "tool_calls", "tool_name", "timestamp", "finish_reason", "_compressed_summary",
	}
)

func hermesClaim(ctx context.Context, db *sql.DB) bool {
	return converters.StoreHas(ctx, db, hermesColumns)
}

// hermesSessions lists the sessions by start, with the latest activity
// (Unix milliseconds) and the number of rows.
func hermesSessions(ctx context.Context, db *sql.DB) ([]converters.StoreSession, error) {
	rows, err := converters.QueryStore(ctx, db, "session list", `SELECT s.id,
		CAST(1000 * max(s.started_at, coalesce((SELECT max(m.timestamp) FROM messages m WHERE m.session_id = s.id), 0)) AS INTEGER),
		1 + (SELECT count(*) FROM messages m WHERE m.session_id = s.id)
		FROM sessions s ORDER BY s.started_at, s.id`)
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

// hermesLines writes a session's row, then its messages by id.
func hermesLines(ctx context.Context, db *sql.DB, session string, emit func([]byte) error) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	write := func(key string, row map[string]any) error {
		b.Reset()
		if err := enc.Encode(map[string]any{key: row}); err != nil {
			return err
		}
		return emit(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	}
	first := true
	err := converters.StoreSelect(ctx, db, "sessions", hermesSessionColumns, "id = ?", "", session, func(row map[string]any) error {
		first = false
		return write("hermes_session", row)
	})
	if err != nil || first {
		return err
	}
	return converters.StoreSelect(ctx, db, "messages", hermesMessageColumns, "session_id = ?", " ORDER BY id", session, func(row map[string]any) error {
		if s, ok := row["tool_calls"].(string); ok && json.Valid([]byte(s)) {
			row["tool_calls"] = json.RawMessage(s)
		}
		if v, ok := row["_compressed_summary"]; ok {
			delete(row, "_compressed_summary")
			if n, ok := v.(int64); ok && n != 0 {
				row["compressed_summary"] = true
			}
		}
		return write("hermes_message", row)
	})
}
