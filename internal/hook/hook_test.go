package hook

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contextreceipts/convert/internal/receipt"
)

func TestParseClaude(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Payload
		err      string
	}{
		{"session end", `{"session_id":"7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b","transcript_path":"/Users/CANARY/.claude/projects/-x/7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl","cwd":"/Users/CANARY","hook_event_name":"SessionEnd","reason":"exit"}`,
			Payload{Agent: "claude-code", Event: "SessionEnd", SessionID: "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b", Transcript: "/Users/CANARY/.claude/projects/-x/7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl"}, ""},
		{"an event name that is not a token is dropped", `{"transcript_path":"/a/b.jsonl","hook_event_name":"CANARY secret words"}`,
			Payload{Agent: "claude-code", Transcript: "/a/b.jsonl"}, ""},
		{"garbage", `CANARY not json`, Payload{}, "not a JSON object"},
		{"an array", `[1,2]`, Payload{}, "not a JSON object"},
		{"no transcript", `{"session_id":"x"}`, Payload{}, "no transcript_path"},
		{"relative transcript", `{"transcript_path":"CANARY/a.jsonl"}`, Payload{}, "absolute"},
		{"not a jsonl", `{"transcript_path":"/etc/passwd"}`, Payload{}, "absolute"},
		{"a session id that is no id", `{"session_id":"../../CANARY","transcript_path":"/a/b.jsonl"}`, Payload{}, "not an id"},
		{"a number for the path", `{"transcript_path":5}`, Payload{}, "not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseClaude([]byte(tc.in))
			checkErr(t, err, tc.err)
			if tc.err == "" && got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func checkErr(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" && err != nil {
		t.Fatalf("error %v", err)
	}
	if want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
		t.Fatalf("error %v, want one containing %q", err, want)
	}
	if err != nil && strings.Contains(err.Error(), "CANARY") {
		t.Fatalf("the error quotes the payload: %v", err)
	}
}

func TestParseCodex(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Payload
		err      string
	}{
		{"notify", `{"type":"agent-turn-complete","thread-id":"019a93b9-1111-7222-8333-444455556666","turn-id":"12","cwd":"/CANARY","input-messages":["CANARY"],"last-assistant-message":"CANARY"}`,
			Payload{Agent: "codex", Event: "agent-turn-complete", SessionID: "019a93b9-1111-7222-8333-444455556666"}, ""},
		{"another notification", `{"type":"approval-requested","thread-id":"019a93b9-1111-7222-8333-444455556666"}`, Payload{}, "names no finished turn"},
		{"a type that is no token", `{"type":"CANARY words here"}`, Payload{}, "not an identifier"},
		{"no thread", `{"type":"agent-turn-complete"}`, Payload{}, "no usable thread-id"},
		{"a glob for a thread", `{"type":"agent-turn-complete","thread-id":"*"}`, Payload{}, "no usable thread-id"},
		{"lifecycle with transcript", `{"hook_event_name":"Stop","session_id":"s-1","transcript_path":"/CANARY/rollout-x.jsonl"}`,
			Payload{Agent: "codex", Event: "Stop", SessionID: "s-1", Transcript: "/CANARY/rollout-x.jsonl"}, ""},
		{"lifecycle without transcript", `{"hook_event_name":"Stop","session_id":"019a93b9-1111-7222-8333-444455556666","transcript_path":null}`,
			Payload{Agent: "codex", Event: "Stop", SessionID: "019a93b9-1111-7222-8333-444455556666"}, ""},
		{"garbage", `{CANARY`, Payload{}, "not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCodex([]byte(tc.in))
			checkErr(t, err, tc.err)
			if tc.err == "" && got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestFindRollout(t *testing.T) {
	home := t.TempDir()
	id := "019a93b9-1111-7222-8333-444455556666"
	mk := func(rel string) string {
		p := filepath.Join(home, "sessions", filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("{}\n"), 0o644)
		return p
	}
	mk("2025/11/17/rollout-2025-11-17T20-00-00-" + id + ".jsonl.zst")
	newest := mk("2026/01/02/rollout-2026-01-02T08-00-00-" + id + ".jsonl")
	mk("2026/01/03/rollout-2026-01-03T08-00-00-019a93b9-9999-7222-8333-444455556666.jsonl")
	for _, tc := range []struct {
		id, want, err string
	}{
		{id, newest, ""},
		{"019a93b9-9999-7222-8333-444455556666", filepath.Join(home, "sessions/2026/01/03/rollout-2026-01-03T08-00-00-019a93b9-9999-7222-8333-444455556666.jsonl"), ""},
		{"019a93b9-0000-7222-8333-444455556666", "", "no rollout"},
		{"*", "", "not a thread id"},
	} {
		got, err := FindRollout(home, tc.id)
		checkErr(t, err, tc.err)
		if got != tc.want {
			t.Errorf("FindRollout(%s) = %q, want %q", tc.id, got, tc.want)
		}
	}
	os.RemoveAll(filepath.Join(home, "sessions/2026"))
	if got, _ := FindRollout(home, id); !strings.HasSuffix(got, ".jsonl.zst") {
		t.Errorf("the compressed rollout is not found: %q", got)
	}
}

func TestDataDir(t *testing.T) {
	for _, tc := range []struct {
		env        map[string]string
		goos, want string
	}{
		{map[string]string{"CONVERT_DATA_DIR": "/d"}, "linux", "/d"},
		{map[string]string{"XDG_DATA_HOME": "/x"}, "linux", "/x/convert"},
		{nil, "linux", "/srv/u/.local/share/convert"},
		{nil, "darwin", "/srv/u/Library/Application Support/convert"},
		{map[string]string{"XDG_DATA_HOME": "/x"}, "darwin", "/x/convert"},
		{map[string]string{"LOCALAPPDATA": "/l", "XDG_DATA_HOME": "/x"}, "windows", "/l/convert"},
	} {
		got := DataDir(func(k string) string { return tc.env[k] }, tc.goos, "/srv/u")
		if filepath.ToSlash(got) != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.goos, tc.env, got, tc.want)
		}
	}
}

const cmd = "/opt/bin/convert hook claude-code"

func TestMergeClaude(t *testing.T) {
	other := `{"type":"command","command":"~/bin/notify.sh","timeout":5}`
	for _, tc := range []struct {
		name, in string
		events   []string
		changed  bool
		err      string
	}{
		{"no file", "", []string{"SessionEnd"}, true, ""},
		{"empty object", "{}", []string{"SessionEnd"}, true, ""},
		{"keeps other keys, events and handlers, in order", `{"model":"opus","permissions":{"allow":["Bash(ls)"]},"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[` + other + `]}],"SessionEnd":[{"hooks":[` + other + `]}]},"zeta":1}`,
			[]string{"SessionEnd", "Stop"}, true, ""},
		{"already there", `{"hooks":{"SessionEnd":[{"hooks":[{"type":"command","command":"'/a b/convert' hook claude-code"}]}]}}`, []string{"SessionEnd"}, false, ""},
		{"null hooks", `{"hooks":null}`, []string{"SessionEnd"}, true, ""},
		{"not json", `{"hooks":`, []string{"SessionEnd"}, false, "not a JSON object"},
		{"hooks not an object", `{"hooks":[1]}`, []string{"SessionEnd"}, false, `"hooks" is not a JSON object`},
		{"an event that is not a list", `{"hooks":{"SessionEnd":{}}}`, []string{"SessionEnd"}, false, "not a list"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, changed, err := MergeClaude([]byte(tc.in), cmd, tc.events)
			checkErr(t, err, tc.err)
			if err != nil {
				return
			}
			if changed != tc.changed {
				t.Fatalf("changed = %v, want %v", changed, tc.changed)
			}
			var doc struct {
				Hooks map[string][]struct {
					Matcher string    `json:"matcher"`
					Hooks   []handler `json:"hooks"`
				} `json:"hooks"`
			}
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, out)
			}
			for _, ev := range tc.events {
				if !hasConvertHandler(doc.Hooks[ev]) {
					t.Errorf("%s has no convert handler:\n%s", ev, out)
				}
			}
			// Idempotent: a second merge changes nothing.
			again, changed2, err := MergeClaude(out, cmd, tc.events)
			if err != nil || changed2 || string(again) != string(out) {
				t.Errorf("second merge: changed=%v err=%v\n%s\n---\n%s", changed2, err, out, again)
			}
			// Everything else is kept, in its order.
			if tc.in != "" {
				if orig := keysOf(t, []byte(tc.in)); !slices.Equal(orig, keysOf(t, out)[:len(orig)]) {
					t.Errorf("key order changed: %v -> %v", orig, keysOf(t, out))
				}
				if strings.Contains(tc.in, "notify.sh") && strings.Count(string(out), "notify.sh") != 2 {
					t.Errorf("other handlers lost:\n%s", out)
				}
			}
			// Uninstall gives back what was there (as JSON values).
			back, removed, err := RemoveClaude(out)
			if err != nil || !removed {
				t.Fatalf("remove: changed=%v err=%v", removed, err)
			}
			if tc.changed && !sameJSON(t, back, orEmpty(tc.in)) {
				t.Errorf("uninstall did not restore the settings:\nwas  %s\nnow  %s", tc.in, back)
			}
		})
	}
}

func hasConvertHandler(groups []struct {
	Matcher string    `json:"matcher"`
	Hooks   []handler `json:"hooks"`
}) bool {
	for _, g := range groups {
		for _, h := range g.Hooks {
			if h.Type == "command" && IsConvertCommand(h.Command, "claude-code") {
				return true
			}
		}
	}
	return false
}

func orEmpty(s string) string {
	if s == "" || s == `{"hooks":null}` {
		return "{}"
	}
	return s
}

func keysOf(t *testing.T, b []byte) []string {
	ms, err := parseObject(b)
	if err != nil {
		t.Fatal(err)
	}
	var ks []string
	for _, m := range ms {
		ks = append(ks, m.Key)
	}
	return ks
}

func sameJSON(t *testing.T, a []byte, b string) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func TestIsConvertCommand(t *testing.T) {
	for cmd, want := range map[string]bool{
		"convert hook claude-code":                  true,
		"/usr/local/bin/convert hook claude-code":   true,
		"'/Apps/My Tools/convert' hook claude-code": true,
		"convert hook codex":                        false,
		"other hook claude-code":                    false,
		"convert run x":                             false,
	} {
		if IsConvertCommand(cmd, "claude-code") != want {
			t.Errorf("IsConvertCommand(%q) = %v", cmd, !want)
		}
	}
}

func TestMergeCodex(t *testing.T) {
	argv := []string{"/opt/bin/convert", "hook", "codex"}
	for _, tc := range []struct {
		name, in string
		changed  bool
		err      error
	}{
		{"no file", "", true, nil},
		{"keys and tables", "model = \"o3\" # CANARY comment\napproval_policy = \"never\"\n\n[mcp_servers.x]\ncommand = \"notify\"\nnotify = [\"inside\", \"a table\"]\n", true, nil},
		{"only tables", "[profiles.a]\nmodel = \"x\"\n", true, nil},
		{"no final newline", "model = \"o3\"", true, nil},
		{"ours already", "notify = [\"convert\", \"hook\", \"codex\"]\n[x]\n", false, nil},
		{"another program", "notify = [\"python3\", \"/srv/u/notify.py\"]\n", false, ErrOtherNotify},
		{"another program over lines", "notify = [\n  \"python3\",\n  \"n.py\",\n]\n", false, ErrOtherNotify},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, changed, err := MergeCodex([]byte(tc.in), argv)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			if changed != tc.changed {
				t.Fatalf("changed = %v", changed)
			}
			lines := strings.Split(string(out), "\n")
			first, last := topNotify(lines)
			if first < 0 || !isConvertNotify(strings.Join(lines[first:last+1], " ")) {
				t.Fatalf("no top-level convert notify:\n%s", out)
			}
			if again, ch, _ := MergeCodex(out, argv); ch || string(again) != string(out) {
				t.Errorf("second merge changed it:\n%s", again)
			}
			back, removed := RemoveCodex(out)
			if !removed {
				t.Fatalf("removed = %v", removed)
			}
			if tc.changed && strings.TrimRight(strings.TrimSpace(string(back)), "\n") != strings.TrimSpace(tc.in) {
				t.Errorf("uninstall did not restore the file:\nwas %q\nnow %q", tc.in, back)
			}
		})
	}
}

func TestLog(t *testing.T) {
	dir := t.TempDir()
	l := OpenLog(filepath.Join(dir, "sub", "hook.log"))
	l.now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	l.Replace("/Users/CANARY/proj/", "")
	l.Withhold("/Users/CANARY/proj", "CANARY-cwd", "abc")
	w := l.Writer("hook x: ")
	w.Write([]byte("/Users/CANARY/proj/a.jsonl:3: claude_code: skipped line: malformed_json\nthe cwd is CANARY-cwd\npart"))
	w.Flush()
	l.Printf("abc is too short to withhold")
	b, _ := os.ReadFile(filepath.Join(dir, "sub", "hook.log"))
	want := "2026-01-02T03:04:05Z hook x: a.jsonl:3: claude_code: skipped line: malformed_json\n" +
		"2026-01-02T03:04:05Z a message was withheld: it named a local path or raw value\n" +
		"2026-01-02T03:04:05Z hook x: part\n" +
		"2026-01-02T03:04:05Z abc is too short to withhold\n"
	if string(b) != want {
		t.Fatalf("log:\n%s\nwant:\n%s", b, want)
	}
	// Rotation: past MaxLog the log moves to .1.
	big := strings.Repeat("x", 1000)
	for range MaxLog / 1000 {
		l.Printf("%s", big)
	}
	if st, err := os.Stat(filepath.Join(dir, "sub", "hook.log.1")); err != nil || st.Size() > MaxLog {
		t.Fatalf("no rotation: %v", err)
	}
	var nilLog *Log
	nilLog.Printf("no panic")
}

func TestSessionRef(t *testing.T) {
	for p, want := range map[string]string{
		"/x/CANARY/7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl":                      "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl",
		"/x/rollout-2025-11-17T20-00-00-019a93b9-1111-7222-8333-444455556666.jsonl": "rollout-2025-11-17T20-00-00-019a93b9-1111-7222-8333-444455556666.jsonl",
		"/x/CANARY.jsonl": receipt.Hasher{}.Text("/x/CANARY.jsonl"),
	} {
		if got := SessionRef(receipt.Hasher{}, p); got != want {
			t.Errorf("SessionRef(%s) = %s", p, got)
		}
	}
}

// In keyed mode a raw session file name is named by its keyed digest
// (issue #40): the hook's session-<hex> outputs then confirm no guessed
// path.
func TestSessionRefKeyed(t *testing.T) {
	h, err := receipt.NewKeyed([]byte("45666d976bab316d970ec459afd866d9e9a0681ac510f0911f2ac33e9142e51b"))
	if err != nil {
		t.Fatal(err)
	}
	const p = "/Users/alice/CANARY.jsonl"
	got := SessionRef(h, p)
	if got != h.Text(p) || !IsRef(got) || strings.Contains(got, receipt.Hasher{}.Text(p)[len("sha256:"):][:12]) {
		t.Errorf("keyed SessionRef(%s) = %s", p, got)
	}
	if id := "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl"; SessionRef(h, "/x/"+id) != id {
		t.Error("an agent's own file name is kept")
	}
}

// TestInputName (issue #49): the hook converts a session file the user
// named under a digest of its path, 12 hex digits of SessionRef's (keyed
// when keyed), never under that name or a plain digest in keyed mode.
func TestInputName(t *testing.T) {
	keyed, err := receipt.NewKeyed([]byte("45666d976bab316d970ec459afd866d9e9a0681ac510f0911f2ac33e9142e51b"))
	if err != nil {
		t.Fatal(err)
	}
	const id = "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl"
	for _, h := range []receipt.Hasher{{}, keyed} {
		if got := InputName(h, "/x/"+id); got != id {
			t.Errorf("%s: InputName of an agent's own name = %s", h.Mode(), got)
		}
		const p = "/Users/alice/CANARY-payroll.jsonl"
		got := InputName(h, p)
		_, hx, _ := strings.Cut(h.Text(p), ":")
		if got != "session-"+hx[:12]+".jsonl" || strings.Contains(got, "CANARY") {
			t.Errorf("%s: InputName(%s) = %s", h.Mode(), p, got)
		}
	}
	plain := InputName(receipt.Hasher{}, "/Users/alice/CANARY-payroll.jsonl")
	if InputName(keyed, "/Users/alice/CANARY-payroll.jsonl") == plain {
		t.Error("keyed InputName is the plain one")
	}
}

func TestCodexSubagents(t *testing.T) {
	home := t.TempDir()
	day := filepath.Join(home, "sessions", "2026", "03", "14")
	next := filepath.Join(home, "sessions", "2026", "03", "15")
	os.MkdirAll(day, 0o755)
	os.MkdirAll(next, 0o755)
	src, _ := filepath.Glob("../../samples/codex/basic/sessions/2026/03/14/*.jsonl")
	if len(src) != 3 {
		t.Fatalf("want the 3 rollouts of the codex basic sample, found %d", len(src))
	}
	for _, f := range src {
		b, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(day, filepath.Base(f)), b, 0o644)
	}
	meta := func(id, parent string) string {
		return `{"timestamp":"2026-03-15T00:10:00.000Z","type":"session_meta","payload":{"id":"` + id + `","source":{"subagent":{"thread_spawn":{"parent_thread_id":"` + parent + `","depth":2}}}}}` + "\n"
	}
	// A grandchild the next day (spawned by the sample's subagent), and a
	// stranger's subagent.
	os.WriteFile(filepath.Join(next, "rollout-2026-03-15T00-10-00-0199a1b2-c3d4-7e5f-8a9b-dddddddddddd.jsonl"), []byte(meta("0199a1b2-c3d4-7e5f-8a9b-dddddddddddd", "0199a1b2-c3d4-7e5f-8a9b-cccccccccccc")), 0o644)
	os.WriteFile(filepath.Join(next, "rollout-2026-03-15T00-11-00-0199a1b2-c3d4-7e5f-8a9b-eeeeeeeeeeee.jsonl"), []byte(meta("0199a1b2-c3d4-7e5f-8a9b-eeeeeeeeeeee", "0199a1b2-0000-7e5f-8a9b-000000000000")), 0o644)
	got := CodexSubagents(filepath.Join(day, "rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"))
	var names []string
	for _, g := range got {
		names = append(names, filepath.Base(g))
	}
	want := []string{
		"rollout-2026-03-14T09-12-12-0199a1b2-c3d4-7e5f-8a9b-cccccccccccc.jsonl", // subagent (the fork ffff is not one)
		"rollout-2026-03-15T00-10-00-0199a1b2-c3d4-7e5f-8a9b-dddddddddddd.jsonl", // its subagent, past midnight
	}
	if !slices.Equal(names, want) {
		t.Errorf("got %v, want %v", names, want)
	}
	if got := CodexSubagents(filepath.Join(day, "not-a-rollout.jsonl")); got != nil {
		t.Errorf("got %v for a file that is no rollout", got)
	}
}

func TestLock(t *testing.T) {
	dir := t.TempDir()
	unlock, err := Lock(context.Background(), dir, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	// Held: a second one waits, and gives up with its context.
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	if _, err := Lock(ctx, dir, time.Minute); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second lock: %v, want a deadline", err)
	}
	// Released: the waiting one gets it.
	got := make(chan error, 1)
	go func() {
		u, err := Lock(context.Background(), dir, time.Minute)
		if err == nil {
			u()
		}
		got <- err
	}()
	time.Sleep(100 * time.Millisecond)
	unlock()
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting lock never got it")
	}
	// Stale: a lock left by a dead worker is taken over.
	os.WriteFile(filepath.Join(dir, ".hook.lock"), []byte("1\n"), 0o600)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, ".hook.lock"), old, old)
	ctx2, cancel2 := context.WithTimeout(context.Background(), time.Second)
	defer cancel2()
	u, err := Lock(ctx2, dir, time.Minute)
	if err != nil {
		t.Fatalf("stale lock not taken over: %v", err)
	}
	u()
}

// TestClaudeWorkflows: a session's workflow runs, by journal, or by first
// agent transcript where a run has none; nothing for a session without.
func TestClaudeWorkflows(t *testing.T) {
	dir := t.TempDir()
	const sid = "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b"
	main := filepath.Join(dir, sid+".jsonl")
	wf := filepath.Join(dir, sid, "subagents", "workflows")
	for _, p := range []string{main, filepath.Join(dir, sid, "subagents", "agent-a1.jsonl"),
		filepath.Join(wf, "wf_1", "agent-b.jsonl"), filepath.Join(wf, "wf_1", "journal.jsonl"),
		filepath.Join(wf, "wf_2", "agent-d.jsonl"), filepath.Join(wf, "wf_2", "agent-c.jsonl")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := ClaudeWorkflows(main)
	want := []string{filepath.Join(wf, "wf_1", "journal.jsonl"), filepath.Join(wf, "wf_2", "agent-c.jsonl")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := ClaudeWorkflows(filepath.Join(dir, "9e8d7c6b-2222-4333-8444-555566667777.jsonl")); len(got) != 0 {
		t.Errorf("a session without workflows: %v", got)
	}
}
