package piagent

import (
	"bytes"
	"context"
	"database/sql"
	"strconv"
	"time"

	"github.com/contextreceipts/convert/converters"
	"github.com/tidwall/gjson"
)

// Newer OpenClaw builds keep an agent's transcripts in one SQLite
// database instead of (or, after `openclaw doctor` imported them, beside)
// the sessions/<id>.jsonl files: agents/<agent>/agent/openclaw-agent.sqlite
// under its state folder, where ccusage 20.0.24 reads it (that path only;
// a database of that name elsewhere is not read). Its table
//
//	transcript_events  session_id, seq, event_json, created_at
//	                   (Unix milliseconds), primary key (session_id, seq)
//
// holds, per session and in seq order, the very entries a transcript file
// holds, one JSON object each (openclaw/openclaw's SQLite transcript store;
// ccusage reads `SELECT session_id, seq, event_json, created_at FROM
// transcript_events ORDER BY session_id, seq`). The store writes a
// session as a first line of its own, {"openclaw_store": {"rows": n}} (it
// says the session is OpenClaw's, which its entries may not), then each
// event_json as it is. ccusage dates an entry that carries no time by its
// row's created_at; the store gives such an entry that time as its
// timestamp, so it is dated (and counted) as ccusage dates it. A row whose
// event_json is not a JSON object is skipped, as ccusage skips it (the
// first line's rows tell how many there were).
var clawStore = &converters.Store{
	Name:     func(base string) bool { return base == clawStoreName },
	Claim:    clawClaim,
	Sessions: clawSessions,
	Lines:    clawLines,
	// Only OpenClaw's file name is this store: another database with a
	// transcript_events table is some other program's.
	NameOnly: true,
	// Its transcripts: agents/<a>/sessions, beside agents/<a>/agent/.
	Up: 1,
}

const clawStoreName = "openclaw-agent.sqlite"

// clawColumns are the columns the store reads.
var clawColumns = map[string][]string{"transcript_events": {"session_id", "seq", "event_json", "created_at"}}

func clawClaim(ctx context.Context, db *sql.DB) bool {
	return converters.StoreHas(ctx, db, clawColumns)
}

// clawSessions lists the sessions by id (ccusage's order), each with its
// latest row time and its number of rows.
func clawSessions(ctx context.Context, db *sql.DB) ([]converters.StoreSession, error) {
	rows, err := converters.QueryStore(ctx, db, "session list",
		`SELECT session_id, coalesce(max(created_at), 0), count(*) FROM transcript_events GROUP BY session_id ORDER BY session_id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []converters.StoreSession
	for rows.Next() {
		var s converters.StoreSession
		var updated sql.NullInt64
		if err := rows.Scan(&s.ID, &updated, &s.Rows); err != nil {
			return nil, err
		}
		s.Updated = updated.Int64
		out = append(out, s)
	}
	return out, rows.Err()
}

// clawLines writes the session's first line, then its entries in seq
// order.
func clawLines(ctx context.Context, db *sql.DB, session string, emit func([]byte) error) error {
	var n int64
	count, err := converters.QueryStore(ctx, db, "session rows", "SELECT count(*) FROM transcript_events WHERE session_id = ?", session)
	if err != nil {
		return err
	}
	for count.Next() {
		if err := count.Scan(&n); err != nil {
			count.Close()
			return err
		}
	}
	count.Close()
	if err := count.Err(); err != nil {
		return err
	}
	if n == 0 {
		return sql.ErrNoRows
	}
	if err := emit([]byte(`{"openclaw_store":{"rows":` + strconv.FormatInt(n, 10) + `}}`)); err != nil {
		return err
	}
	rows, err := converters.QueryStore(ctx, db, "transcript_events",
		"SELECT event_json, created_at FROM transcript_events WHERE session_id = ? ORDER BY seq", session)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		var event sql.NullString
		var created sql.NullInt64
		if err := rows.Scan(&event, &created); err != nil {
			return err
		}
		line := bytes.TrimSpace([]byte(event.String))
		if len(line) < 2 || line[0] != '{' || !gjson.ValidBytes(line) {
			continue // as ccusage skips it; the reader sees fewer entries than rows
		}
		if !gjson.GetBytes(line, "timestamp").Exists() && created.Valid {
			line = clawDated(line, created.Int64)
		}
		if err := emit(line); err != nil {
			return err
		}
	}
	return rows.Err()
}

// clawDated gives an entry (a JSON object) its row's time, Unix
// milliseconds, as its ISO timestamp.
func clawDated(line []byte, ms int64) []byte {
	ts := strconv.Quote(time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00"))
	rest := bytes.TrimSpace(line[1:])
	out := append([]byte(`{"timestamp":`), ts...)
	if len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, rest...)
}
