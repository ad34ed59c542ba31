package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
)

// clearLocationEnv unsets every variable that moves an agent's default log
// folder (CLAUDE_CONFIG_DIR, CODEX_HOME, ...) for the test.
func clearLocationEnv(t *testing.T) {
	for _, c := range converters.Natives() {
		for _, l := range c.Native.Locations {
			if l.Env != "" {
				t.Setenv(l.Env, "")
			}
		}
	}
}

// TestRunDefaultLocations: convert run with no PATH and a terminal on
// standard input reads every known agent's default log folders that exist
// under a fake home, honouring CLAUDE_CONFIG_DIR and CODEX_HOME, says which
// it read (~/... relative to HOME), and exits 2 when there are none.
func TestRunDefaultLocations(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	samples := filepath.Join(repo, "samples")
	elsewhere := t.TempDir() // a CLAUDE_CONFIG_DIR outside the home directory
	copyTree(t, filepath.Join(samples, "claude_code", "basic"), filepath.Join(elsewhere, "projects"))
	tests := []struct {
		name   string
		home   map[string]string // sample folder -> where it goes under HOME
		env    map[string]string
		exit   int
		stderr []string
		absent []string
		files  int // receipts written
	}{
		{name: "nothing there", exit: 2, stderr: []string{
			"run needs at least one PATH", "no agent's logs are in their default locations",
			"~/.claude/projects", "~/.codex/sessions", "~/.cursor/projects/*/agent-transcripts"},
			// GOOSE_PATH_ROOT unset: no place under the home itself.
			absent: []string{"~/data/sessions"}},
		{name: "claude code and codex in their default folders",
			home: map[string]string{"claude_code/basic": ".claude/projects", "codex/basic/sessions": ".codex/sessions"},
			exit: 0, files: 4, stderr: []string{
				"convert: no PATH given: reading the agents' default locations: claude_code ~/.claude/projects; codex ~/.codex/sessions",
				"4 of 4 inputs converted", "claude_code 1, codex 3"},
			absent: []string{"cursor ~/"}},
		{name: "cursor projects match a pattern",
			home: map[string]string{"cursor/transcripts/projects": ".cursor/projects"},
			exit: 0, files: 2, stderr: []string{"reading the agents' default locations: cursor ~/.cursor/projects/*/agent-transcripts", "cursor 2"}},
		{name: "pi and OpenClaw sessions, one reader",
			home: map[string]string{"pi_agent/basic/sessions": ".pi/agent/sessions", "pi_agent/openclaw/agents": ".openclaw/agents"},
			exit: 0, files: 2, stderr: []string{"pi_agent ~/.pi/agent/sessions", "~/.openclaw/agents/*/sessions", "pi_agent 2"}},
		{name: "PI_CODING_AGENT_DIR moves pi's",
			home: map[string]string{"pi_agent/basic/sessions": "alt-pi/sessions"},
			env:  map[string]string{"PI_CODING_AGENT_DIR": "HOME/alt-pi"},
			exit: 0, files: 1, stderr: []string{"pi_agent ~/alt-pi/sessions"}, absent: []string{"~/.pi/agent"}},
		{name: "an OpenClaw trajectory under an earlier name of OpenClaw's folder",
			home: map[string]string{"pi_agent/openclaw_trajectory/agents": ".clawdbot/agents"},
			exit: 0, files: 1, stderr: []string{"pi_agent ~/.clawdbot/agents/*/sessions", "pi_agent 1"}},
		{name: "Kimi Code's wires under ~/.kimi-code",
			home: map[string]string{"kimi_cli/code/sessions": ".kimi-code/sessions"},
			exit: 0, files: 2, stderr: []string{"kimi_cli ~/.kimi-code/sessions", "kimi_cli 2"}},
		{name: "Factory Droid sessions, read with their settings sidecars",
			home: map[string]string{"droid/basic/sessions": ".factory/sessions"},
			exit: 0, files: 2, stderr: []string{"droid ~/.factory/sessions", "droid 2", "output 2,955"}},
		{name: "DROID_SESSIONS_DIR moves Droid's",
			home: map[string]string{"droid/basic/sessions": "alt-droid"},
			env:  map[string]string{"DROID_SESSIONS_DIR": "HOME/alt-droid"},
			exit: 0, files: 2, stderr: []string{"droid ~/alt-droid"}, absent: []string{"~/.factory"}},
		{name: "Claude Code's XDG folder, beside ~/.claude",
			home: map[string]string{"claude_code/basic": ".config/claude/projects", "claude_code/v20_siblings": ".claude/projects"},
			exit: 0, files: 2, stderr: []string{"claude_code ~/.claude/projects; claude_code ~/.config/claude/projects", "claude_code 2"}},
		{name: "a variable lists several folders (commas) as ccusage reads it",
			home: map[string]string{"claude_code/basic": "a/projects", "claude_code/v20_siblings": "b/projects", "codex/basic/sessions": "c1/sessions"},
			env:  map[string]string{"CLAUDE_CONFIG_DIR": "HOME/a, HOME/b", "CODEX_HOME": "HOME/c0,HOME/c1"},
			exit: 0, files: 5, stderr: []string{"claude_code ~/a/projects; claude_code ~/b/projects", "codex ~/c1/sessions", "claude_code 2, codex 3"},
			absent: []string{"~/.claude", "c0"}},
		{name: "CLAUDE_CONFIG_DIR and CODEX_HOME move them",
			home: map[string]string{"claude_code/basic": ".claude/projects", "codex/basic/sessions": "alt-codex/sessions"},
			env:  map[string]string{"CLAUDE_CONFIG_DIR": elsewhere, "CODEX_HOME": "HOME/alt-codex"},
			exit: 0, files: 4, stderr: []string{"claude_code " + filepath.ToSlash(filepath.Join(elsewhere, "projects")), "codex ~/alt-codex/sessions"},
			absent: []string{"~/.claude/projects"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("USERPROFILE", home)
			clearLocationEnv(t)
			for k, v := range tt.env {
				t.Setenv(k, strings.ReplaceAll(v, "HOME", home))
			}
			for from, to := range tt.home {
				copyTree(t, filepath.Join(samples, filepath.FromSlash(from)), filepath.Join(home, filepath.FromSlash(to)))
			}
			old := stdinPiped
			stdinPiped = func() bool { return false }
			defer func() { stdinPiped = old }()
			out := t.TempDir()
			code, so, se := runCLI(t, "", "run", "--out", out)
			if code != tt.exit {
				t.Errorf("exit %d, want %d\n%s", code, tt.exit, se)
			}
			if so != "" {
				t.Errorf("stdout: %q", so)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(se, s) {
					t.Errorf("stderr lacks %q:\n%s", s, se)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(se, s) {
					t.Errorf("stderr has %q:\n%s", s, se)
				}
			}
			if strings.Contains(se, home) {
				t.Errorf("stderr shows the home directory instead of ~:\n%s", se)
			}
			all := 0
			filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
				if err == nil && strings.HasSuffix(p, ".receipt.ndjson") {
					all++
				}
				return nil
			})
			if all != tt.files {
				t.Errorf("%d receipts written, want %d", all, tt.files)
			}
		})
	}
}

// TestRunEmptyStdinReadsDefaults: with no PATH and an empty pipe or file on
// standard input (CI, ssh or docker exec without a terminal), convert run
// reads the default folders as with a terminal, and says why; a non-empty
// one is still converted as standard input.
func TestRunEmptyStdinReadsDefaults(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	clearLocationEnv(t)
	copyTree(t, filepath.Join(repo, "samples", "claude_code", "basic"), filepath.Join(home, ".claude", "projects"))
	old := stdinPiped
	stdinPiped = func() bool { return true }
	defer func() { stdinPiped = old }()

	out := t.TempDir()
	code, _, se := runCLI(t, "", "run", "--out", out)
	if code != 0 || !strings.Contains(se, "standard input is empty: reading the agents' default locations instead") ||
		!strings.Contains(se, "claude_code ~/.claude/projects") {
		t.Fatalf("empty stdin: exit %d\n%s", code, se)
	}
	if n := countFiles(t, out, ".receipt.ndjson"); n != 1 {
		t.Errorf("empty stdin: %d receipts, want the default folder's 1", n)
	}

	log, err := os.ReadFile(filepath.Join(repo, "samples", "session", "basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	out = t.TempDir()
	code, _, se = runCLI(t, string(log), "run", "--out", out)
	if code != 0 || strings.Contains(se, "default locations") {
		t.Fatalf("a log on stdin: exit %d\n%s", code, se)
	}
	if _, err := os.Stat(filepath.Join(out, "stdin.receipt.ndjson")); err != nil {
		t.Errorf("a log on stdin was not converted as stdin: %v", err)
	}
}

// countFiles counts the files under dir whose names end in suffix.
func countFiles(t *testing.T, dir, suffix string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, suffix) {
			n++
		}
		return nil
	})
	return n
}

// receiptsUnder lists the receipts under dir, relative to it.
func receiptsUnder(t *testing.T, dir string) []string {
	t.Helper()
	var rels []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".receipt.ndjson") {
			rel, _ := filepath.Rel(dir, p)
			rels = append(rels, filepath.ToSlash(rel))
		}
		return nil
	})
	return rels
}

// TestRunDefaultLayoutIsStable: a run with no PATH names each subtree after
// its agent whatever else is installed, so installing a second agent
// neither converts the first one's sessions again nor moves them; outputs
// an earlier run wrote in the old layouts (out/project-<hex>/… with one
// agent, out/projects/… and out/sessions/… with two) move into the agent's
// folder, and a copy that cannot move is reported, never left silently
// beside the new one.
func TestRunDefaultLayoutIsStable(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	samples := filepath.Join(repo, "samples")
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	clearLocationEnv(t)
	old := stdinPiped
	stdinPiped = func() bool { return false }
	defer func() { stdinPiped = old }()
	claude, codex := filepath.Join(home, ".claude", "projects"), filepath.Join(home, ".codex", "sessions")
	copyTree(t, filepath.Join(samples, "claude_code", "basic"), claude)

	// One agent, then a second one installed: the first one's outputs stay.
	out := t.TempDir()
	if code, _, se := runCLI(t, "", "run", "--out", out); code != 0 {
		t.Fatalf("claude only: exit %d\n%s", code, se)
	}
	first := receiptsUnder(t, out)
	if len(first) != 1 || !strings.HasPrefix(first[0], "claude-code/project-") {
		t.Fatalf("claude only: %v, want claude-code/project-<hex>/…", first)
	}
	copyTree(t, filepath.Join(samples, "codex", "basic", "sessions"), codex)
	code, _, se := runCLI(t, "", "run", "--out", out)
	if code != 0 || !strings.Contains(se, "unchanged      1") {
		t.Fatalf("codex installed: exit %d, want the claude session unchanged\n%s", code, se)
	}
	both := receiptsUnder(t, out)
	if len(both) != 4 || !slicesContain(both, first[0]) || countPrefix(both, "codex/2026/") != 3 {
		t.Errorf("codex installed: %v, want the claude receipt where it was and 3 under codex/", both)
	}

	// The layouts earlier runs wrote: moved, then converted in place.
	for _, tc := range []struct {
		name  string
		paths []string // the PATHs that give the old layout
		old   []string // its top folders
	}{
		{"one agent: out/project-<hex>", []string{claude}, []string{"project-"}},
		{"two agents: out/projects, out/sessions", []string{claude, codex}, []string{"projects/", "sessions/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			if code, _, se := runCLI(t, "", append([]string{"run", "--out", out}, tc.paths...)...); code != 0 {
				t.Fatalf("old layout: exit %d\n%s", code, se)
			}
			before := receiptsUnder(t, out)
			for _, p := range tc.old {
				if countPrefix(before, p) == 0 {
					t.Fatalf("old layout %v has nothing under %s", before, p)
				}
			}
			code, _, se := runCLI(t, "", "run", "--out", out)
			if code != 0 || !strings.Contains(se, "outputs of an earlier run from") {
				t.Fatalf("no PATH: exit %d\n%s", code, se)
			}
			after := receiptsUnder(t, out)
			if len(after) != len(both) || countPrefix(after, "claude-code/")+countPrefix(after, "codex/") != len(after) {
				t.Errorf("after the move: %v, want the %d receipts of the new layout only", after, len(both))
			}
			// A copy left behind (a backup put back) is reported with a count.
			for _, r := range before {
				copyFile(t, filepath.Join(out, filepath.FromSlash(pathInNew(r))), filepath.Join(out, filepath.FromSlash(r)))
			}
			_, _, se = runCLI(t, "", "run", "--out", out)
			if !strings.Contains(se, "outputs of an earlier run stay in") {
				t.Errorf("copies left behind are not reported:\n%s", se)
			}
			code, so, se := runCLI(t, "", "report", "--format", "json", out)
			if code != 0 || !strings.Contains(se, "read more than once") || !strings.Contains(so, `"sessions_in_range": 4`) {
				t.Errorf("report over the copies: exit %d, want 4 sessions and a warning\n%s", code, se)
			}
		})
	}
}

// pathInNew is where the old-layout receipt rel now lives.
func pathInNew(rel string) string {
	switch {
	case strings.HasPrefix(rel, "projects/"):
		return "claude-code/" + strings.TrimPrefix(rel, "projects/")
	case strings.HasPrefix(rel, "sessions/"):
		return "codex/" + strings.TrimPrefix(rel, "sessions/")
	case strings.HasPrefix(rel, "project-"):
		return "claude-code/" + rel
	}
	return "codex/" + rel
}

func slicesContain(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func countPrefix(s []string, p string) int {
	n := 0
	for _, x := range s {
		if strings.HasPrefix(x, p) {
			n++
		}
	}
	return n
}
