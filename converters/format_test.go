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
	home, x := tempHome(t)
	cases := []struct {
		conv string
		env  map[string]string
		want string
	}{
		{"claude_code", nil, "~/.claude/projects"},
		{"claude_code", map[string]string{"CLAUDE_CONFIG_DIR": "$SRV/claude"}, "$SRV/claude/projects"},
		{"claude_code", map[string]string{"CODEX_HOME": "$SRV/codex"}, "~/.claude/projects"},
		{"codex", nil, "~/.codex/sessions"},
		{"codex", map[string]string{"CODEX_HOME": "$SRV/codex"}, "$SRV/codex/sessions"},
		{"codex", map[string]string{"CODEX_HOME": ""}, "~/.codex/sessions"},
		{"cursor", nil, "~/.cursor/projects/*/agent-transcripts"},
		{"cursor", map[string]string{"CLAUDE_CONFIG_DIR": "$SRV/claude"}, "~/.cursor/projects/*/agent-transcripts"},
		{"gemini_cli", nil, "~/.gemini/tmp"},
		{"gemini_cli", map[string]string{"GEMINI_CLI_HOME": "~/profiles/work"}, "~/profiles/work/.gemini/tmp"},
		{"copilot_cli", nil, "~/.copilot/session-state"},
		{"copilot_cli", map[string]string{"COPILOT_HOME": "$SRV/copilot"}, "$SRV/copilot/session-state"},
		{"opencode", nil, "~/.local/share/opencode/storage"},
		{"opencode", map[string]string{"XDG_DATA_HOME": "$SRV/data"}, "$SRV/data/opencode/storage"},
		// OpenCode's database: beside storage/, or in OPENCODE_DATA_DIR.
		{"opencode", nil, "~/.local/share/opencode/opencode*.db"},
		{"opencode", map[string]string{"XDG_DATA_HOME": "$SRV/data"}, "$SRV/data/opencode/opencode*.db"},
		{"opencode", nil, "~/.local/share/opencode/opencode*.db"},
		{"opencode", map[string]string{"OPENCODE_DATA_DIR": "$SRV/oc"}, "$SRV/oc/opencode*.db"},
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
		got := c.Native.Locations[i].Path(func(k string) string { return x(tc.env[k]) }, home)
		if got != x(tc.want) {
			t.Errorf("%s with %v: %s, want %s", tc.conv, tc.env, got, tc.want)
		}
	}
}

// TestLocationEnvOnly: a place only its variable names (Goose's
// GOOSE_PATH_ROOT/data/sessions) is no place when the variable is unset or
// empty, never one built under the home directory itself; a place with a
// default falls back to it.
func TestLocationEnvOnly(t *testing.T) {
	home, x := tempHome(t)
	only := converters.Location{Env: "GOOSE_PATH_ROOT", Below: "data/sessions/sessions.db", EnvOnly: true}
	home0 := converters.Location{Env: "GEMINI_CLI_HOME", Below: ".gemini/tmp"} // unset: the home itself
	for _, tc := range []struct {
		l    converters.Location
		env  string
		want string
	}{
		{only, "", ""},
		{only, "$SRV/goose", "$SRV/goose/data/sessions/sessions.db"},
		{home0, "", "~/.gemini/tmp"},
		{home0, "$SRV/g", "$SRV/g/.gemini/tmp"},
	} {
		got := tc.l.Path(func(k string) string {
			if k == tc.l.Env {
				return x(tc.env)
			}
			return ""
		}, home)
		if got != x(tc.want) {
			t.Errorf("%+v with %q: %q, want %q", tc.l, tc.env, got, tc.want)
		}
	}
}

// TestLayouts: which file names are sessions, which directories they own,
// which siblings they claim and which sidecars they read, per format.
func TestLayouts(t *testing.T) {
	const sid = "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b"
	_, p := tempHome(t)
	peek := func(v string) func(string) string {
		return func(field string) string {
			if field == "sessionId" {
				return v
			}
			return ""
		}
	}
	const chats = "~/.gemini/tmp/9f2c/chats/"
	dirs := []struct {
		path    string
		session string // the sessionId the file's lines hold
		want    []string
	}{
		{"~/.claude/projects/-Users-a-app/" + sid + ".jsonl", "", []string{"~/.claude/projects/-Users-a-app/" + sid}},
		{"~/.cursor/projects/app/agent-transcripts/" + sid + "/" + sid + ".jsonl", "", []string{
			"~/.cursor/projects/app/agent-transcripts/" + sid + "/" + sid, // the Claude Code shape matches too
			"~/.cursor/projects/app/agent-transcripts/" + sid,
		}},
		{"~/.claude/projects/-Users-a-app/agent-a52886dc.jsonl", "", nil},
		{"~/.codex/sessions/2026/07/01/rollout-2026-07-01T10-00-00-" + sid + ".jsonl", "", nil},
		{"~/notes/" + sid + ".jsonl.gz", "", nil},
		{chats + "session-2026-07-01T10-00-7f3c2a10.jsonl", sid, []string{chats + sid}},
		{chats + "session-2026-07-01T10-00-7f3c2a10.jsonl", "", nil},
		{chats + "session-2026-07-01T10-00-7f3c2a10.jsonl", "../../../etc", nil},
		{chats + "session-2026-07-01T10-00-7f3c2a10.json", sid, nil},
		// OpenCode's storage tree: a session file owns its message folder
		// (and the part folders its messages name, none here).
		{"~/.local/share/opencode/storage/session/9f86/ses_4f1eA.json", "", []string{"~/.local/share/opencode/storage/message/ses_4f1eA"}},
		{"~/exports/ses_4f1eA.json", "", nil},
		{"~/.local/share/opencode/storage/message/ses_4f1eA/msg_01.json", "", nil},
		// OpenClaw: a live transcript in a sessions folder keys its
		// archives; an archive with no live transcript (none exists
		// here) is its session's input.
		{"~/.openclaw/agents/main/sessions/" + sid + ".jsonl", "", []string{
			"~/.openclaw/agents/main/sessions/" + sid, // the Claude Code shape matches too
			"~/.openclaw/agents/main/sessions/" + sid + ".jsonl.archives",
		}},
		{"~/.openclaw/agents/main/sessions/" + sid + ".jsonl.reset.2026-11-21T07-59-00.000Z", "", []string{"~/.openclaw/agents/main/sessions/" + sid + ".jsonl.archives"}},
		{"~/.openclaw/agents/main/sessions/notes.jsonl.reset.2026-11-21T07-59-00.000Z", "", nil},
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
		{"~/p/agent-a1.jsonl", sid, "~/p/" + sid},
		{"~/p/agent-a1.jsonl", "", ""},
		{"~/p/notes.jsonl", sid, ""},
		{"~/storage/todo/ses_4f1eA.json", "", "~/storage/message/ses_4f1eA"},
		{"~/storage/session_diff/ses_4f1eA.json", "", "~/storage/message/ses_4f1eA"},
		{"~/exports/ses_4f1eA.json", "", ""},
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
	if got := converters.Sidecars(p("~/p/" + sid + "/subagents/agent-a1.jsonl")); !reflect.DeepEqual(got, []string{p("~/p/" + sid + "/subagents/agent-a1.meta.json")}) {
		t.Errorf("Sidecars = %q", got)
	}
}

// tempHome is a home folder for path tests (t.TempDir) and x, which
// writes a slash path of a table in the OS's form with "~" as that home
// and "$SRV" as another folder ("" stays "").
func tempHome(t *testing.T) (home string, x func(string) string) {
	home, srv := t.TempDir(), t.TempDir()
	r := strings.NewReplacer("~", filepath.ToSlash(home), "$SRV", filepath.ToSlash(srv))
	return home, func(s string) string {
		if s == "" {
			return ""
		}
		return filepath.FromSlash(r.Replace(s))
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
	_, x := tempHome(t)
	for _, tc := range []struct {
		path string
		want []string
	}{
		{filepath.ToSlash(x("~/.kimi/sessions/0f3c/2d9e8c7b-6a5f-4e3d-9c2b-1a0f9e8d7c6b/wire.jsonl")), []string{"sessions", "0f3c", "2d9e8c7b-6a5f-4e3d-9c2b-1a0f9e8d7c6b"}},
		{"sessions/7a6b/c4d5/agents/main/wire.jsonl", []string{"c4d5", "agents", "main"}},
		{`.kimi\sessions\0f3c\wire.jsonl`, []string{".kimi", "sessions", "0f3c"}}, // as Windows writes it
		{"wire.jsonl", nil},
		{"/wire.jsonl", nil},
	} {
		if got := converters.FolderNames(tc.path, 3); !slices.Equal(got, tc.want) {
			t.Errorf("FolderNames(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}
