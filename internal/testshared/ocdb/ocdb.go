// Package ocdb writes OpenCode databases for tests: OpenCode's own schema
// (opencode.db, as its migrations create it), holding the sessions of the
// sample storage/ tree as OpenCode's migration moves them in. The
// repository commits no binary input: every test makes its database.
package ocdb

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared"
	_ "modernc.org/sqlite" // the driver the pipeline reads with
)

// Schema is OpenCode's schema for the tables convert reads, as its
// drizzle migrations create them (packages/opencode/src/session/
// session.sql.ts; project/project.sql.ts), with the indexes it makes.
const Schema = "CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text, " +
	"`icon_url` text, `icon_color` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_initialized` integer, `sandboxes` text NOT NULL);\n" +
	"CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `parent_id` text, `slug` text NOT NULL, " +
	"`directory` text NOT NULL, `title` text NOT NULL, `version` text NOT NULL, `share_url` text, `summary_additions` integer, " +
	"`summary_deletions` integer, `summary_files` integer, `summary_diffs` text, `revert` text, `permission` text, " +
	"`time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_compacting` integer, `time_archived` integer, " +
	"`workspace_id` text, `path` text, `agent` text, `model` text, " +
	"CONSTRAINT `fk_session_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE);\n" +
	"CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, " +
	"`time_updated` integer NOT NULL, `data` text NOT NULL, " +
	"CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE);\n" +
	"CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, " +
	"`time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL, " +
	"CONSTRAINT `fk_part_message_id_message_id_fk` FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE CASCADE);\n" +
	"CREATE TABLE `todo` (`session_id` text NOT NULL, `content` text NOT NULL, `status` text NOT NULL, `priority` text NOT NULL, " +
	"`position` integer NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, " +
	"CONSTRAINT `todo_pk` PRIMARY KEY(`session_id`, `position`));\n" +
	"CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);\n" +
	"CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);\n" +
	"CREATE INDEX `part_session_idx` ON `part` (`session_id`);\n" +
	"CREATE INDEX `session_project_idx` ON `session` (`project_id`);\n" +
	"CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);\n"

// Storage is the sample storage/ tree whose sessions the generated
// databases hold.
const Storage = "samples/opencode/storage"

// Build writes, at path, the database Write writes (the storage tree
// found from the test's module root), failing the test on any error.
func Build(t testing.TB, path string, edit func(db *sql.DB)) {
	t.Helper()
	if err := Write(path, testshared.Repo(t, Storage), edit); err != nil {
		t.Fatal(err)
	}
}

// Write writes, at path, an OpenCode database holding the sessions of the
// storage/ tree at root as OpenCode's migration moves them into it
// (session columns from Session.Info; message and part data without the
// ids the tables keep apart; a part's times its message's), in WAL mode as
// OpenCode keeps it; edit, when not nil, runs on the database before it
// is closed.
func Write(path, root string, edit func(db *sql.DB)) (err error) {
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := db.Close(); err == nil {
			err = cerr
		}
	}()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("PRAGMA journal_mode=WAL;\n" + Schema); err != nil {
		return err
	}
	exec := func(q string, args ...any) {
		if err != nil {
			return
		}
		if _, e := db.Exec(q, args...); e != nil {
			err = fmt.Errorf("%s: %w", q, e)
		}
	}
	read := func(p string) map[string]any {
		var m map[string]any
		b, e := os.ReadFile(p)
		if e == nil {
			e = json.Unmarshal(b, &m)
		}
		if e != nil && err == nil {
			err = fmt.Errorf("%s: %w", p, e)
		}
		if m == nil {
			m = map[string]any{}
		}
		return m
	}
	ms := func(v any) any {
		if f, ok := v.(float64); ok {
			return int64(f)
		}
		return nil
	}
	str := func(v any) string { s, _ := v.(string); return s }
	data := func(m map[string]any, drop ...string) string {
		for _, k := range drop {
			delete(m, k)
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	sessions, _ := filepath.Glob(filepath.Join(root, "session", "*", "ses_*.json"))
	projects := map[string]bool{}
	msgTime := map[string]int64{}
	for _, p := range sessions {
		s := read(p)
		proj := str(s["projectID"])
		if !projects[proj] {
			projects[proj] = true
			exec("INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?, ?, 'git', 1, 1, '[]')", proj, "/Users/CANARY-user/projects/CANARY-ledger")
		}
		tm, _ := s["time"].(map[string]any)
		sum, _ := s["summary"].(map[string]any)
		exec(`INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, summary_additions, summary_deletions, summary_files,
			time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			s["id"], proj, s["parentID"], s["slug"], s["directory"], s["title"], s["version"],
			ms(sum["additions"]), ms(sum["deletions"]), ms(sum["files"]), ms(tm["created"]), ms(tm["updated"]))
		msgs, _ := filepath.Glob(filepath.Join(root, "message", str(s["id"]), "msg_*.json"))
		for _, mp := range msgs {
			m := read(mp)
			id, mt := str(m["id"]), m["time"].(map[string]any)
			created, updated := ms(mt["created"]), ms(mt["completed"])
			if updated == nil {
				updated = created
			}
			msgTime[id], _ = created.(int64)
			exec("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)",
				id, s["id"], created, updated, data(m, "id", "sessionID"))
			parts, _ := filepath.Glob(filepath.Join(root, "part", id, "prt_*.json"))
			for _, pp := range parts {
				pt := read(pp)
				pid := pt["id"] // before data drops it
				exec("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)",
					pid, id, s["id"], msgTime[id], msgTime[id], data(pt, "id", "sessionID", "messageID"))
			}
		}
	}
	if err == nil && (len(sessions) < 2 || len(msgTime) < 5) {
		return fmt.Errorf("the storage tree at %s gave %d sessions, %d messages", root, len(sessions), len(msgTime))
	}
	if err == nil && edit != nil {
		edit(db)
	}
	return err
}
