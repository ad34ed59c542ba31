package converters_test

import (
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/convtest"
)

// TestLocations: each agent's default log directory, and the environment
// variable that moves it.
func TestLocations(t *testing.T) {
	home := filepath.FromSlash("/Users/alice")
	cases := []struct {
		conv string
		env  map[string]string
		want string
	}{
		{"claude_code", nil, "/Users/alice/.claude/projects"},
		{"claude_code", map[string]string{"CLAUDE_CONFIG_DIR": "/srv/claude"}, "/srv/claude/projects"},
		{"claude_code", map[string]string{"CODEX_HOME": "/srv/codex"}, "/Users/alice/.claude/projects"},
		{"codex", nil, "/Users/alice/.codex/sessions"},
		{"codex", map[string]string{"CODEX_HOME": "/srv/codex"}, "/srv/codex/sessions"},
		{"codex", map[string]string{"CODEX_HOME": ""}, "/Users/alice/.codex/sessions"},
		{"cursor", nil, "/Users/alice/.cursor/projects/*/agent-transcripts"},
		{"cursor", map[string]string{"CLAUDE_CONFIG_DIR": "/srv/claude"}, "/Users/alice/.cursor/projects/*/agent-transcripts"},
		{"gemini_cli", nil, "/Users/alice/.gemini/tmp"},
		{"gemini_cli", map[string]string{"GEMINI_CLI_HOME": "/Users/alice/profiles/work"}, "/Users/alice/profiles/work/.gemini/tmp"},
		{"copilot_cli", nil, "/Users/alice/.copilot/session-state"},
		{"copilot_cli", map[string]string{"COPILOT_HOME": "/srv/copilot"}, "/srv/copilot/session-state"},
		{"opencode", nil, "/Users/alice/.local/share/opencode/storage"},
		{"opencode", map[string]string{"XDG_DATA_HOME": "/srv/data"}, "/srv/data/opencode/storage"},
		// OpenCode's database: beside storage/, or in OPENCODE_DATA_DIR.
		{"opencode", nil, "/Users/alice/.local/share/opencode/opencode*.db"},
		{"opencode", map[string]string{"XDG_DATA_HOME": "/srv/data"}, "/srv/data/opencode/opencode*.db"},
		{"opencode", nil, "/Users/alice/.local/share/opencode/opencode*.db"},
		{"opencode", map[string]string{"OPENCODE_DATA_DIR": "/srv/oc"}, "/srv/oc/opencode*.db"},
	}
	at := map[string]int{} // a converter's locations, in order, after its first
	for _, tc := range cases {
		c, _ := converters.Lookup(tc.conv)
		i := 0
		if tc.conv == "opencode" {
			i = at[tc.conv] / 2 // two cases each: storage/, the database by XDG_DATA_HOME, by OPENCODE_DATA_DIR
			at[tc.conv]++
		}
		if c.Native == nil || len(c.Native.Locations) <= i {
			t.Fatalf("%s: want location %d, have %+v", tc.conv, i, c.Native)
		}
		got := c.Native.Locations[i].Path(func(k string) string { return tc.env[k] }, home)
		if got != filepath.FromSlash(tc.want) {
			t.Errorf("%s with %v: %s, want %s", tc.conv, tc.env, got, tc.want)
		}
	}
}

// TestLocationEnvOnly: a place only its variable names (Goose's
// GOOSE_PATH_ROOT/data/sessions) is no place when the variable is unset or
// empty, never one built under the home directory itself; a place with a
// default falls back to it.
func TestLocationEnvOnly(t *testing.T) {
	home := filepath.FromSlash("/Users/alice")
	only := converters.Location{Env: "GOOSE_PATH_ROOT", Below: "data/sessions/sessions.db", EnvOnly: true}
	home0 := converters.Location{Env: "GEMINI_CLI_HOME", Below: ".gemini/tmp"} // unset: the home itself
	for _, tc := range []struct {
		l    converters.Location
		env  string
		want string
	}{
		{only, "", ""},
		{only, "/srv/goose", "/srv/goose/data/sessions/sessions.db"},
		{home0, "", "/Users/alice/.gemini/tmp"},
		{home0, "/srv/g", "/srv/g/.gemini/tmp"},
	} {
		got := tc.l.Path(func(k string) string {
			if k == tc.l.Env {
				return tc.env
			}
			return ""
		}, home)
		if got != filepath.FromSlash(tc.want) {
			t.Errorf("%+v with %q: %q, want %q", tc.l, tc.env, got, tc.want)
		}
	}
}

// TestLayouts: which file names are sessions, which directories they own,
// which siblings they claim and which sidecars they read, per format.
func TestLayouts(t *testing.T) {
	const sid = "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b"
	p := func(s string) string { return filepath.FromSlash(s) }
	peek := func(v string) func(string) string {
		return func(field string) string {
			if field == "sessionId" {
				return v
			}
			return ""
		}
	}
	const chats = "/Users/a/.gemini/tmp/9f2c/chats/"
	dirs := []struct {
		path    string
		session string // the sessionId the file's lines hold
		want    []string
	}{
		{"/Users/a/.claude/projects/-Users-a-app/" + sid + ".jsonl", "", []string{"/Users/a/.claude/projects/-Users-a-app/" + sid}},
		{"/Users/a/.cursor/projects/app/agent-transcripts/" + sid + "/" + sid + ".jsonl", "", []string{
			"/Users/a/.cursor/projects/app/agent-transcripts/" + sid + "/" + sid, // the Claude Code shape matches too
			"/Users/a/.cursor/projects/app/agent-transcripts/" + sid,
		}},
		{"/Users/a/.claude/projects/-Users-a-app/agent-a52886dc.jsonl", "", nil},
		{"/Users/a/.codex/sessions/2026/07/01/rollout-2026-07-01T10-00-00-" + sid + ".jsonl", "", nil},
		{"/Users/a/notes/" + sid + ".jsonl.gz", "", nil},
		{chats + "session-2026-07-01T10-00-7f3c2a10.jsonl", sid, []string{chats + sid}},
		{chats + "session-2026-07-01T10-00-7f3c2a10.jsonl", "", nil},
		{chats + "session-2026-07-01T10-00-7f3c2a10.jsonl", "../../../etc", nil},
		{chats + "session-2026-07-01T10-00-7f3c2a10.json", sid, nil},
		// OpenCode's storage tree: a session file owns its message folder
		// (and the part folders its messages name, none here).
		{"/Users/a/.local/share/opencode/storage/session/9f86/ses_4f1eA.json", "", []string{"/Users/a/.local/share/opencode/storage/message/ses_4f1eA"}},
		{"/Users/a/exports/ses_4f1eA.json", "", nil},
		{"/Users/a/.local/share/opencode/storage/message/ses_4f1eA/msg_01.json", "", nil},
		// OpenClaw: a live transcript in a sessions folder keys its
		// archives; an archive with no live transcript (none exists
		// here) is its session's input.
		{"/Users/a/.openclaw/agents/main/sessions/" + sid + ".jsonl", "", []string{
			"/Users/a/.openclaw/agents/main/sessions/" + sid, // the Claude Code shape matches too
			"/Users/a/.openclaw/agents/main/sessions/" + sid + ".jsonl.archives",
		}},
		{"/Users/a/.openclaw/agents/main/sessions/" + sid + ".jsonl.reset.2026-11-21T07-59-00.000Z", "", []string{"/Users/a/.openclaw/agents/main/sessions/" + sid + ".jsonl.archives"}},
		{"/Users/a/.openclaw/agents/main/sessions/notes.jsonl.reset.2026-11-21T07-59-00.000Z", "", nil},
	}
	for _, tc := range dirs {
		var want []string
		for _, w := range tc.want {
			want = append(want, p(w))
		}
		if got := converters.SessionDirs(p(tc.path), peek(tc.session)); !reflect.DeepEqual(got, want) {
			t.Errorf("SessionDirs(%s) = %q, want %q", tc.path, got, want)
		}
	}
	ids := map[string]string{
		sid + ".jsonl":                                      sid,
		strings.ToUpper(sid) + ".jsonl":                     sid,
		"rollout-2026-07-01T10-00-00-" + sid + ".jsonl.zst": sid,
		"agent-a52886dc.jsonl":                              "",
		sid + ".json":                                       "",
		"ses_4f1eA.json":                                    "ses_4f1ea",
		"msg_01.json":                                       "",
		sid + ".jsonl.deleted.2026-11-22T10-00-00.000Z":     sid,
	}
	for base, want := range ids {
		if got := converters.SessionID(base); got != want {
			t.Errorf("SessionID(%s) = %q, want %q", base, got, want)
		}
	}
	siblings := []struct{ path, session, want string }{
		{"/Users/a/p/agent-a1.jsonl", sid, "/Users/a/p/" + sid},
		{"/Users/a/p/agent-a1.jsonl", "", ""},
		{"/Users/a/p/notes.jsonl", sid, ""},
		{"/Users/a/storage/todo/ses_4f1eA.json", "", "/Users/a/storage/message/ses_4f1eA"},
		{"/Users/a/storage/session_diff/ses_4f1eA.json", "", "/Users/a/storage/message/ses_4f1eA"},
		{"/Users/a/exports/ses_4f1eA.json", "", ""},
	}
	for _, tc := range siblings {
		want := tc.want
		if want != "" {
			want = p(want)
		}
		if got := converters.SiblingDir(p(tc.path), peek(tc.session)); got != want {
			t.Errorf("SiblingDir(%s, sessionId %q) = %q, want %q", tc.path, tc.session, got, want)
		}
	}
	if got := converters.Sidecars(p("/Users/a/p/" + sid + "/subagents/agent-a1.jsonl")); !reflect.DeepEqual(got, []string{p("/Users/a/p/" + sid + "/subagents/agent-a1.meta.json")}) {
		t.Errorf("Sidecars = %q", got)
	}
}

// TestNativeFormats: every native format says how it finds its records'
// types and has fuzz seeds that exist.
func TestNativeFormats(t *testing.T) {
	natives := converters.Natives()
	if len(natives) == 0 {
		t.Fatal("no native formats registered")
	}
	for _, c := range natives {
		if c.Native.Type == nil && c.TypeField == "" {
			t.Errorf("%s: neither Native.Type nor TypeField", c.Name)
		}
		if len(c.Native.Locations) == 0 {
			t.Errorf("%s: no locations", c.Name)
		}
		for _, dir := range c.Samples() {
			seeds := 0
			filepath.WalkDir(filepath.Join("..", filepath.FromSlash(dir)), func(p string, d os.DirEntry, err error) error {
				// JSON Lines, or a one-document file (an Amp thread, a
				// Codebuff chat) that the fuzz seeds compact onto a line
				if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".json")) {
					seeds++
				}
				return nil
			})
			if seeds == 0 {
				t.Errorf("%s: no .jsonl or .json seeds under %s", c.Name, dir)
			}
		}
	}
}

// TestReadmeConverters: the converter tables of docs/converters.md (once
// the README's) are the registry's (-update rewrites them), and its notes on
// native formats name each one.
func TestReadmeConverters(t *testing.T) {
	docPath := filepath.Join("..", "docs", "converters.md")
	raw, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	var native, scenario strings.Builder
	native.WriteString("| converter | logs on disk | what it reads |\n|---|---|---|\n")
	scenario.WriteString("| converter | what it reads |\n|---|---|\n")
	var names []string
	for _, c := range converters.All() {
		if c.Native == nil {
			scenario.WriteString("| `" + c.Name + "` | " + c.Doc + " |\n")
			continue
		}
		var locs []string
		for _, l := range c.Native.Locations {
			loc := "`~/" + path.Join(l.Default, l.Below) + "`"
			if l.EnvOnly {
				locs = append(locs, "`$"+path.Join(l.Env, l.Below)+"`")
				continue
			}
			if l.Env != "" {
				loc += " (`$" + path.Join(l.Env, l.Below) + "`)"
			}
			locs = append(locs, loc)
		}
		native.WriteString("| `" + c.Name + "` | " + strings.Join(locs, ", ") + " | " + c.Doc + " |\n")
		names = append(names, c.Name)
	}
	var notes strings.Builder
	for _, c := range converters.All() {
		if c.Native != nil {
			notes.WriteString(readerNote(t, c))
		}
	}
	want := doc
	for _, b := range []struct{ name, table string }{{"native", native.String()}, {"scenario", scenario.String()},
		{"notes (the doc.go of each reader; go test ./converters -run TestReadmeConverters -update)", notes.String()}} {
		open, end := "<!-- converters:"+b.name+" (go test ./converters -run TestReadmeConverters -update) -->\n", "<!-- /converters:"+b.name+" -->"
		if strings.HasPrefix(b.name, "notes") {
			open, end = "<!-- converters:"+b.name+" -->\n", "<!-- /converters:notes -->"
		}
		i, j := strings.Index(want, open), strings.Index(want, end)
		if i < 0 || j < i {
			t.Fatalf("%s: no %q ... %q block", docPath, strings.TrimSpace(open), end)
		}
		want = want[:i+len(open)] + b.table + want[j:]
	}
	if want != doc {
		if convtest.Updating() {
			if err := os.WriteFile(docPath, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
		} else {
			t.Errorf("%s: the converter tables differ from the registry; run go test ./converters -run TestReadmeConverters -update", docPath)
		}
	}
	bullet := regexp.MustCompile("(?m)^- `([a-z_]+)`: ")
	from, to := strings.Index(want, "\n## Native agent logs\n"), strings.Index(want, "\n## Scenario event logs\n")
	if from < 0 || to < from {
		t.Fatalf("%s: no \"## Native agent logs\" section before \"## Scenario event logs\"", docPath)
	}
	section := want[from:to] // as written (the notes come from the readers' doc.go)
	var noted []string
	for _, m := range bullet.FindAllStringSubmatch(section, -1) {
		noted = append(noted, m[1])
	}
	if !reflect.DeepEqual(noted, names) {
		t.Errorf("%s: the notes on native formats name %v, the registry %v", docPath, noted, names)
	}
}

// readerNote is a reader's note on its format for docs/converters.md: the
// list item of its package comment (converters/<reader>/doc.go) that
// names it ("- `name`: ..."), as gofmt lays out a list ("//   - ", then
// "//     "). A package that registers two converters (OpenCode's, with
// Kilo's) holds an item for each; other list items of the comment are
// the package's own.
func readerNote(t *testing.T, c converters.Converter) string {
	t.Helper()
	p := filepath.Join("..", roomDir("..", c), "doc.go")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%s: %v (a reader's doc.go holds its note for docs/converters.md)", c.Name, err)
	}
	var b strings.Builder
	mine := false
	for _, l := range strings.Split(string(src), "\n") {
		switch {
		case strings.HasPrefix(l, "//   - "):
			item := "- " + l[len("//   - "):]
			mine = strings.HasPrefix(item, "- `"+c.Name+"`: ")
			if mine {
				b.WriteString(item + "\n")
			}
		case strings.HasPrefix(l, "//     ") && mine:
			b.WriteString("  " + l[len("//     "):] + "\n")
		default:
			mine = false
		}
	}
	if b.Len() == 0 {
		t.Errorf("%s: no list item \"- `%s`: ...\" in its package comment", p, c.Name)
	}
	return b.String()
}

// TestFolderNames: the folders a reader may name a session by (Env.Folders).
func TestFolderNames(t *testing.T) {
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"/home/u/.kimi/sessions/0f3c/2d9e8c7b-6a5f-4e3d-9c2b-1a0f9e8d7c6b/wire.jsonl", []string{"sessions", "0f3c", "2d9e8c7b-6a5f-4e3d-9c2b-1a0f9e8d7c6b"}},
		{"sessions/7a6b/c4d5/agents/main/wire.jsonl", []string{"c4d5", "agents", "main"}},
		{`C:\Users\ana\.kimi\sessions\0f3c\wire.jsonl`, []string{".kimi", "sessions", "0f3c"}},
		{"wire.jsonl", nil},
		{"/wire.jsonl", nil},
	} {
		if got := converters.FolderNames(tc.path, 3); !slices.Equal(got, tc.want) {
			t.Errorf("FolderNames(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}
