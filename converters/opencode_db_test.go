package converters_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
	"github.com/tidwall/gjson"
	_ "modernc.org/sqlite"
)

// ocSchema is OpenCode's schema for the tables convert reads, as its
// drizzle migrations create them (packages/opencode/src/session/
// session.sql.ts; project/project.sql.ts), with the indexes it makes.
const ocSchema = "CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text, " +
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

// ocStorage is the sample storage/ tree whose sessions the generated
// databases hold.
const ocStorage = "samples/opencode/storage"

// ocBuildDB writes, at path, an OpenCode database holding the sessions of
// the sample storage/ tree as OpenCode's migration moves them into it
// (session columns from Session.Info; message and part data without the
// ids the tables keep apart), in WAL mode as OpenCode keeps it; edit, when
// not nil, runs on the database before it is closed.
func ocBuildDB(t *testing.T, path string, edit func(db *sql.DB)) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("PRAGMA journal_mode=WAL;\n" + ocSchema); err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	read := func(p string) map[string]any {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return m
	}
	ms := func(v any) any {
		if f, ok := v.(float64); ok {
			return int64(f)
		}
		return nil
	}
	data := func(m map[string]any, drop ...string) string {
		for _, k := range drop {
			delete(m, k)
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	root := testshared.Repo(t, ocStorage)
	sessions, _ := filepath.Glob(filepath.Join(root, "session", "*", "ses_*.json"))
	projects := map[string]bool{}
	msgTime := map[string]int64{}
	for _, p := range sessions {
		s := read(p)
		proj := s["projectID"].(string)
		if !projects[proj] {
			projects[proj] = true
			exec("INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?, ?, 'git', 1, 1, '[]')", proj, "/Users/CANARY-user/projects/CANARY-ledger")
		}
		tm := s["time"].(map[string]any)
		sum, _ := s["summary"].(map[string]any)
		exec(`INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, summary_additions, summary_deletions, summary_files,
			time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			s["id"], proj, s["parentID"], s["slug"], s["directory"], s["title"], s["version"],
			ms(sum["additions"]), ms(sum["deletions"]), ms(sum["files"]), ms(tm["created"]), ms(tm["updated"]))
		msgs, _ := filepath.Glob(filepath.Join(root, "message", s["id"].(string), "msg_*.json"))
		for _, mp := range msgs {
			m := read(mp)
			id, mt := m["id"].(string), m["time"].(map[string]any)
			created, updated := ms(mt["created"]), ms(mt["completed"])
			if updated == nil {
				updated = created
			}
			msgTime[id] = created.(int64)
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
	if len(sessions) < 2 || len(msgTime) < 5 {
		t.Fatalf("the sample storage tree gave %d sessions, %d messages", len(sessions), len(msgTime))
	}
	if edit != nil {
		edit(db)
	}
}

// ocEvents is a receipt's events but its summary, each as its name, time
// and attributes: what a session says, whatever file it was read from.
func ocEvents(receipt []byte) []string {
	var out []string
	for _, l := range bytes.Split(bytes.TrimSpace(receipt), []byte("\n")) {
		e := gjson.ParseBytes(l)
		if e.Get("name").Str != "convert.summary" {
			out = append(out, e.Get("name").Str+" "+e.Get("time").Str+" "+e.Get("attributes").Raw)
		}
	}
	return out
}

// listing is a folder's file names.
func listing(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

// TestOpencodeDatabase: each session of an opencode.db, given by path or
// found in a walk, is an input of its own, named by its session id, and
// writes the events the same session writes from the storage/ tree (its
// tokens, tools, its child session's subagent.spawned); no canary reaches
// an output or a message, and the database's folder is as it was (no
// journal or shared-memory file left beside it).
func TestOpencodeDatabase(t *testing.T) {
	testshared.InRepo(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "opencode.db")
	ocBuildDB(t, db, nil)
	before := listing(t, dir)
	storage := map[string][]string{}
	for _, r := range convertDir(t, ocStorage, pipeline.Options{}) {
		storage[strings.TrimSuffix(filepath.Base(r.Path), ".json")] = ocEvents(r.Receipt)
	}
	for _, arg := range []string{db, dir} {
		rs := convertDir(t, arg, pipeline.Options{})
		if len(rs) != len(storage) {
			t.Fatalf("%s: %d inputs, want one per session (%d)", filepath.Base(arg), len(rs), len(storage))
		}
		for _, r := range rs {
			sid := filepath.Base(r.Path)
			want, ok := storage[sid]
			if !ok || filepath.Base(filepath.Dir(r.Path)) != "opencode.db" || r.Converter != "opencode" {
				t.Fatalf("input %s (%s) is no session of the database", r.Path, r.Converter)
			}
			got := ocEvents(r.Receipt)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s: the database and the storage tree write different events:\n%s\n---\n%s", sid, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if all := string(r.Receipt) + string(r.Trace) + r.Path; strings.Contains(all, canary) {
				t.Errorf("%s: a canary reached the output", sid)
			}
			if sid == "ses_4f1e2c8a1ffeH8i9J0k1L2m3N4" && !strings.Contains(strings.Join(got, "\n"), "subagent.spawned") {
				t.Errorf("the child session says nothing of its parent")
			}
			if !strings.Contains(string(r.Receipt), "gen_ai.token_usage.summarized") {
				t.Errorf("%s: no tokens", sid)
			}
		}
	}
	if after := listing(t, dir); after != before {
		t.Errorf("the database's folder changed: %q, was %q", after, before)
	}
}

// TestOpencodeDatabaseRefusals: a database that cannot be read is an error
// of its own input, in words of convert's; a row whose data is no JSON
// object fails its session at that row; another program's SQLite file in
// a walked folder is passed over.
func TestOpencodeDatabaseRefusals(t *testing.T) {
	testshared.InRepo(t)
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk", "opencode.db")
	os.MkdirAll(filepath.Dir(junk), 0o755)
	os.WriteFile(junk, []byte("CANARY-not-a-database\n"), 0o644)
	other := filepath.Join(dir, "other", "opencode.db")
	os.MkdirAll(filepath.Dir(other), 0o755)
	foreign := filepath.Join(dir, "walk", "app.db")
	os.MkdirAll(filepath.Dir(foreign), 0o755)
	for _, p := range []string{other, foreign} {
		odb, err := sql.Open("sqlite", p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := odb.Exec("CREATE TABLE session (id text, title text); INSERT INTO session VALUES ('CANARY-id', 'CANARY-title')"); err != nil {
			t.Fatal(err)
		}
		odb.Close()
	}
	torn := filepath.Join(dir, "torn", "opencode.db")
	os.MkdirAll(filepath.Dir(torn), 0o755)
	ocBuildDB(t, torn, func(db *sql.DB) {
		if _, err := db.Exec("UPDATE message SET data = 'CANARY-torn {' WHERE id = 'msg_a10000000003ffeQw1Er2Ty3Ui'"); err != nil {
			t.Fatal(err)
		}
	})
	cases := []struct {
		arg, want string
		inputs    int
	}{
		{junk, "opencode.db: not an SQLite database", 1},
		{other, "opencode.db: an SQLite database without the tables", 1},
		{torn, "opencode.db/ses_4f1e2d3c5ffeA1b2C3d4E5f6G7: message row msg_a10000000003ffeQw1Er2Ty3Ui: data is not a JSON object", 2},
		{filepath.Dir(foreign), "", 0},
	}
	for _, c := range cases {
		ins, err := pipeline.Expand([]string{c.arg})
		if err != nil {
			t.Fatal(err)
		}
		if len(ins) != c.inputs {
			t.Errorf("%s: %d inputs, want %d", c.arg, len(ins), c.inputs)
		}
		var errs []string
		for _, in := range ins {
			res := pipeline.Convert(in, pipeline.Options{})
			if res.Err != nil {
				errs = append(errs, res.Err.Error())
			}
			if strings.Contains(string(res.Receipt)+string(res.Trace), canary) {
				t.Errorf("%s: a canary reached the output", in.Path)
			}
		}
		all := strings.Join(errs, "\n")
		if c.want != "" && !strings.Contains(all, c.want) || c.want == "" && all != "" {
			t.Errorf("%s: errors %q, want %q", c.arg, all, c.want)
		}
		if strings.Contains(all, canary) {
			t.Errorf("%s: a canary reached a message: %s", c.arg, all)
		}
	}
}
