package zcode

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"

	"github.com/contextreceipts/convert/converters"
)

// ZCode (Zhipu's coding agent app) keeps its usage ledger in one SQLite
// database, cli/db/db.sqlite under its home, ~/.zcode (ZCODE_HOME moves
// it), the one ccusage 20.0.24 opens query-only with a busy timeout. Its
// query, read from its binary, is the reference for what is read:
//
//	model_usage  id, session_id, started_at (Unix milliseconds), model_id,
//	             status, input_tokens, output_tokens, and when present
//	             cache_creation_input_tokens, cache_read_input_tokens,
//	             computed_total_tokens, provider_id
//	session      id, directory (and version)
//
// Other builds' rows, as other tools that read the same table describe
// them, add turn_id, attempt_index, query_source, reasoning_tokens,
// completed_at, duration_ms and time_to_first_token_ms: read when the
// table has them.
//
// A session is a session_id of model_usage (ccusage lists no other). The
// store writes it as lines of its own shapes: the session row when there
// is one ({"zcode_session": {id, directory, version}}), then its
// model_usage rows by start and id ({"zcode_model_usage": {...}}, the
// columns read that it has). Titles and the conversation are not read.
var zcodeStore = &converters.Store{
	Name: func(base string) bool { return base == "db.sqlite" },
	// Other programs keep a database of that name too.
	CommonName: true,
	Claim:      zcodeClaim,
	Sessions:   zcodeSessions,
	Lines:      zcodeLines,
}

// zcodeColumns are the columns the store needs: ccusage's query's own. A
// database without the session table is not read by ccusage either (it
// prints no session for it).
var zcodeColumns = map[string][]string{
	"model_usage": {"id", "session_id", "started_at", "model_id", "status", "input_tokens", "output_tokens"},
	"session":     {"id", "directory"},
}

// zcodeUsageColumns and zcodeSessionColumns are the columns read when the
// tables have them: ids, times, statuses and token counts, the model.
var (
	zcodeUsageColumns = []string{
		"id", "session_id", "turn_id", "attempt_index", "query_source", "provider_id", "model_id", "status",
		"started_at", "completed_at", "duration_ms", "time_to_first_token_ms",
		"input_tokens", "output_tokens", "reasoning_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
		"computed_total_tokens",
	}
	zcodeSessionColumns = []string{"id", "directory", "version"}
)

// zcodeClaim reports a database with ZCode's model_usage and session
// tables and the columns ccusage's query reads.
func zcodeClaim(ctx context.Context, db *sql.DB) bool {
	return converters.StoreHas(ctx, db, zcodeColumns)
}

// zcodeSessions lists the sessions of model_usage by first start, with
// the latest start (Unix milliseconds) and the number of rows.
func zcodeSessions(ctx context.Context, db *sql.DB) ([]converters.StoreSession, error) {
	rows, err := converters.QueryStore(ctx, db, "session list", `SELECT session_id,
		coalesce(max(CASE WHEN typeof(started_at) = 'integer' THEN started_at END), 0), 1 + count(*)
		FROM model_usage WHERE session_id IS NOT NULL AND session_id != '' GROUP BY session_id
		ORDER BY min(CASE WHEN typeof(started_at) = 'integer' THEN started_at END), session_id`)
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

// zcodeLines writes a session's row, when the session table has one, then
// its model_usage rows by start and id.
func zcodeLines(ctx context.Context, db *sql.DB, session string, emit func([]byte) error) error {
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
	err := converters.StoreSelect(ctx, db, "session", zcodeSessionColumns, "id = ?", " LIMIT 1", session, func(r map[string]any) error {
		return write("zcode_session", r)
	})
	if err != nil {
		return err
	}
	return converters.StoreSelect(ctx, db, "model_usage", zcodeUsageColumns, "session_id = ?", " ORDER BY started_at, id", session,
		func(r map[string]any) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return write("zcode_model_usage", r)
		})
}
