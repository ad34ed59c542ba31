package opencode

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"

	"github.com/contextreceipts/convert/converters"
)

// OpenCode 1.2 and later keep every session in one SQLite database,
// opencode.db in its data directory (~/.local/share/opencode, or
// $XDG_DATA_HOME/opencode), with the storage/ tree migrated into it. The
// tables read, from packages/opencode/src/session/session.sql.ts (drizzle;
// Timestamps are time_created and time_updated, Unix milliseconds):
//
//	session  id, project_id, parent_id, slug, directory, title, version,
//	         share_url, summary_additions, summary_deletions, summary_files,
//	         summary_diffs, revert, permission, time_created, time_updated,
//	         time_compacting, time_archived (and, in newer versions,
//	         workspace_id, path, agent, model, cost, tokens_*)
//	message  id, session_id, time_created, time_updated,
//	         data (JSON: MessageV2.Info without id and sessionID)
//	part     id, message_id, session_id, time_created, time_updated,
//	         data (JSON: MessageV2.Part without id, sessionID and messageID)
//
// Every query runs through converters.QueryStore, under the deadline and
// row bound the pipeline sets (a table can be a view over an endless
// query). Only the columns needed are named in queries; a session row is read
// whole and its known columns rebuilt into the Session.Info document the
// storage tree's session file holds. The database is a store
// (converters.Store): each session is converted as an input of its own,
// its records the storage tree's, in its order: the session, its messages
// (by time_created, then id), then their parts (by their message's order,
// then part id). The reader maps them as it maps the files.
var opencodeStore = &converters.Store{
	Name:     opencodeStoreName,
	Claim:    opencodeClaim,
	Sessions: opencodeSessions,
	Lines:    opencodeLines,
}

// opencodeStoreName: opencode.db, and the channel databases other builds
// write beside it (opencode-<channel>.db, as ccusage reads them).
func opencodeStoreName(base string) bool {
	return base == "opencode.db" || opencodeChannelDB.MatchString(base)
}

var opencodeChannelDB = regexp.MustCompile(`^opencode-[A-Za-z0-9_-]+\.db$`)

// opencodeColumns are the columns the store reads, by table.
var opencodeColumns = map[string][]string{
	"session": {"id", "time_created", "time_updated"},
	"message": {"id", "session_id", "time_created", "time_updated", "data"},
	"part":    {"id", "message_id", "session_id", "time_updated", "data"},
}

// opencodeClaim reports a database with OpenCode's session, message and
// part tables and the columns read.
func opencodeClaim(ctx context.Context, db *sql.DB) bool {
	return converters.StoreHas(ctx, db, opencodeColumns)
}

// opencodeSessions lists the sessions by creation, each with the latest
// time_updated of the session and its messages and how many rows it has:
// what an unchanged rerun compares. The counts come from the indexes on
// session_id; the times from the session and message rows only, not the
// parts (the bulk of a database): OpenCode updates a message when its
// turn ends, after its parts, so a part that changed moves its message's
// time too.
func opencodeSessions(ctx context.Context, db *sql.DB) ([]converters.StoreSession, error) {
	rows, err := converters.QueryStore(ctx, db, "session list", `SELECT s.id,
		max(s.time_updated, coalesce((SELECT max(m.time_updated) FROM message m WHERE m.session_id = s.id), 0)),
		1 + (SELECT count(*) FROM message m WHERE m.session_id = s.id)
		  + (SELECT count(*) FROM part p WHERE p.session_id = s.id)
		FROM session s ORDER BY s.time_created, s.id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []converters.StoreSession
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var s converters.StoreSession
		if err := rows.Scan(&s.ID, &s.Updated, &s.Rows); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// opencodeLines writes a session's records: its Session.Info, each
// message's info, then each message's parts, one compact JSON object a
// line. Every query walks an index in its order (message_session_time_
// created_id_idx, part_message_id_id_idx), so rows stream from the first
// one, with no sort of a session's parts before it; only the message ids
// are kept, to read their parts in that order. Parts whose message is
// gone come last, by message id and id.
func opencodeLines(ctx context.Context, db *sql.DB, session string, emit func([]byte) error) error {
	info, err := opencodeSessionInfo(ctx, db, session)
	if err != nil {
		return err
	}
	if err := emit(info); err != nil {
		return err
	}
	var ids []string
	if err := opencodeRows(ctx, db, "message", `SELECT id, '', data FROM message WHERE session_id = ? ORDER BY session_id, time_created, id`,
		session, func(id string, line []byte) error {
			ids = append(ids, id)
			return emit(line)
		}); err != nil {
		return err
	}
	keep := func(_ string, line []byte) error { return emit(line) }
	for _, id := range ids {
		if err := opencodeRows(ctx, db, "part", `SELECT id, message_id, data FROM part WHERE message_id = ? AND session_id = ? ORDER BY message_id, id`,
			session, keep, id); err != nil {
			return err
		}
	}
	return opencodeRows(ctx, db, "part", `SELECT p.id, p.message_id, p.data FROM part p
		WHERE p.session_id = ? AND NOT EXISTS (SELECT 1 FROM message m WHERE m.id = p.message_id)
		ORDER BY p.message_id, p.id`, session, keep)
}

// opencodeRows writes each row of a message or part query as its data
// object with the ids the table keeps apart put back at its front: id,
// sessionID (and messageID for a part), as the storage tree's files hold
// them. A data column that is not a JSON object fails, naming the row.
func opencodeRows(ctx context.Context, db *sql.DB, table, query, session string, emit func(id string, line []byte) error, first ...any) error {
	rows, err := converters.QueryStore(ctx, db, table+" rows", query, append(first, session)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var line, data bytes.Buffer
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		var id, msg string
		var raw sql.RawBytes
		if err := rows.Scan(&id, &msg, &raw); err != nil {
			return err
		}
		data.Reset()
		if json.Compact(&data, raw) != nil || data.Len() < 2 || data.Bytes()[0] != '{' {
			return fmt.Errorf("%s row %s: data is not a JSON object", table, opencodeRowID(id))
		}
		line.Reset()
		line.WriteString(`{"id":`)
		line.Write(jsonString(id))
		line.WriteString(`,"sessionID":`)
		line.Write(jsonString(session))
		if table == "part" {
			line.WriteString(`,"messageID":`)
			line.Write(jsonString(msg))
		}
		if body := data.Bytes()[1:]; !bytes.Equal(body, []byte("}")) {
			line.WriteByte(',')
			line.Write(body)
		} else {
			line.WriteByte('}')
		}
		if err := emit(id, line.Bytes()); err != nil {
			return err
		}
	}
	return rows.Err()
}

// opencodeRowID is a row id as an error may name it: an id of OpenCode's
// shape, else its position in words.
func opencodeRowID(id string) string {
	if opencodeID.MatchString(id) {
		return id
	}
	return "(an id not of OpenCode's shape)"
}

var opencodeID = regexp.MustCompile(`^(ses|msg|prt)_[A-Za-z0-9]{1,64}$`)

// opencodeSessionInfo rebuilds a session row as the Session.Info
// document (packages/opencode/src/session/index.ts, fromRow) the storage
// tree's session file holds: known columns under their document names,
// JSON columns as JSON, times under "time". Columns of no known name are
// not read.
func opencodeSessionInfo(ctx context.Context, db *sql.DB, session string) ([]byte, error) {
	row, err := opencodeSessionRow(ctx, db, session)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	field := func(key string, v []byte) {
		if v == nil {
			return
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.Write(jsonString(key))
		b.WriteByte(':')
		b.Write(v)
	}
	field("id", row.str("id"))
	field("slug", row.str("slug"))
	field("version", row.str("version"))
	field("projectID", row.str("project_id"))
	field("workspaceID", row.str("workspace_id"))
	field("directory", row.str("directory"))
	field("path", row.str("path"))
	field("parentID", row.str("parent_id"))
	field("title", row.str("title"))
	field("agent", row.str("agent"))
	field("model", row.raw("model"))
	field("share", jsonObject([2]any{"url", row.str("share_url")}))
	field("summary", jsonObject([2]any{"additions", row.num("summary_additions")}, [2]any{"deletions", row.num("summary_deletions")},
		[2]any{"files", row.num("summary_files")}, [2]any{"diffs", row.raw("summary_diffs")}))
	field("revert", row.raw("revert"))
	field("permission", row.raw("permission"))
	field("time", jsonObject([2]any{"created", row.num("time_created")}, [2]any{"updated", row.num("time_updated")},
		[2]any{"compacting", row.num("time_compacting")}, [2]any{"archived", row.num("time_archived")}))
	b.WriteByte('}')
	return b.Bytes(), nil
}

// opencodeRow is a row's values by column name, as the driver scanned them.
type opencodeRow map[string]any

// opencodeSessionRow reads the session's row of the session table.
func opencodeSessionRow(ctx context.Context, db *sql.DB, session string) (opencodeRow, error) {
	rows, err := converters.QueryStore(ctx, db, "session row", "SELECT * FROM session WHERE id = ?", session)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("session row %s: gone since the database was listed", opencodeRowID(session))
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	row := opencodeRow{}
	for i, c := range cols {
		row[c] = vals[i]
	}
	return row, rows.Err()
}

// str is a text column as a JSON string, nil when it is not text.
func (r opencodeRow) str(col string) []byte {
	switch v := r[col].(type) {
	case string:
		return jsonString(v)
	case []byte:
		return jsonString(string(v))
	}
	return nil
}

// num is a number column as a JSON number, nil when it is not a number.
func (r opencodeRow) num(col string) []byte {
	switch v := r[col].(type) {
	case int64:
		return []byte(strconv.FormatInt(v, 10))
	case float64:
		return []byte(strconv.FormatFloat(v, 'f', -1, 64))
	}
	return nil
}

// raw is a column holding JSON text, compacted (a JSON string when it does
// not parse), nil when it is not text.
func (r opencodeRow) raw(col string) []byte {
	var s []byte
	switch v := r[col].(type) {
	case string:
		s = []byte(v)
	case []byte:
		s = v
	default:
		return nil
	}
	var c bytes.Buffer
	if json.Compact(&c, s) != nil {
		return jsonString(string(s))
	}
	return c.Bytes()
}

// jsonObject is a JSON object of the parts (key, value) whose value is not
// nil, nil when none is.
func jsonObject(parts ...[2]any) []byte {
	var o bytes.Buffer
	k := 0
	for _, p := range parts {
		v := p[1].([]byte)
		if v == nil {
			continue
		}
		if k > 0 {
			o.WriteByte(',')
		}
		k++
		o.Write(jsonString(p[0].(string)))
		o.WriteByte(':')
		o.Write(v)
	}
	if k == 0 {
		return nil
	}
	return append(append([]byte{'{'}, o.Bytes()...), '}')
}

// jsonString is s as a JSON string.
func jsonString(s string) []byte {
	out, _ := json.Marshal(s)
	return out
}
