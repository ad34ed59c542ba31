package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestHookInstall(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(dir, "claude"))
	t.Setenv("CODEX_HOME", filepath.Join(dir, "codex"))
	claude := filepath.Join(dir, "claude", "settings.json")
	codex := filepath.Join(dir, "codex", "config.toml")
	os.MkdirAll(filepath.Dir(claude), 0o755)
	os.MkdirAll(filepath.Dir(codex), 0o755)
	claudeOld := `{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"~/notify.sh"}]}]}}`
	codexOld := "model = \"o3\"\n\n[tui]\nnotifications = true\n"
	for _, tc := range []struct {
		name, file, old string
		args            []string
		exit            int
		stdout, stderr  string
		changed         bool // the file differs from old afterwards
	}{
		{"claude print only", claude, claudeOld, []string{"hook", "install", "claude-code"}, 0, `"command": "convert hook claude-code"`, "run again with --write", false},
		{"claude write", claude, claudeOld, []string{"hook", "install", "claude-code", "--write", "--event", "SessionEnd", "--event", "PreCompact"}, 0, `"PreCompact"`, "updated (the previous file is", true},
		{"claude bad event", claude, claudeOld, []string{"hook", "install", "claude-code", "--event", "Nope"}, 2, "", "--event takes", false},
		{"claude bad scope", claude, claudeOld, []string{"hook", "install", "claude-code", "--scope", "team"}, 2, "", "--scope takes user or project", false},
		{"claude not json", claude, "{oops", []string{"hook", "install", "claude-code", "--write"}, 1, "", "not a JSON object", false},
		{"codex write", codex, codexOld, []string{"hook", "install", "codex", "--write"}, 0, `notify = ["convert","hook","codex"]`, "updated", true},
		{"codex keeps another notify", codex, "notify = [\"terminal-notifier\"]\n", []string{"hook", "install", "codex", "--write"}, 1, "", "Codex runs only one", false},
		{"no agent", "", "", []string{"hook", "install"}, 2, "", "takes one agent", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.file != "" {
				os.WriteFile(tc.file, []byte(tc.old), 0o644)
				baks, _ := filepath.Glob(tc.file + ".bak-*")
				for _, b := range baks {
					os.Remove(b)
				}
			}
			code, stdout, stderr := runHook(t, strings.NewReader(""), append(tc.args, "--command", "convert")...)
			if tc.name == "no agent" {
				code, stdout, stderr = runHook(t, strings.NewReader(""), tc.args...)
			}
			if code != tc.exit || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
				t.Fatalf("exit %d (want %d)\nstdout %s\nstderr %s", code, tc.exit, stdout, stderr)
			}
			if tc.file == "" {
				return
			}
			now, _ := os.ReadFile(tc.file)
			if (string(now) != tc.old) != tc.changed {
				t.Fatalf("file changed = %v, want %v:\n%s", string(now) != tc.old, tc.changed, now)
			}
			if !tc.changed {
				return
			}
			baks, _ := filepath.Glob(tc.file + ".bak-*")
			if len(baks) != 1 {
				t.Fatalf("backups %v, want one", baks)
			}
			if bak, _ := os.ReadFile(baks[0]); string(bak) != tc.old {
				t.Errorf("backup %q, want the old file", bak)
			}
			if !strings.Contains(stdout, "# wrote into "+tc.file) {
				t.Errorf("--write does not say what it wrote:\n%s", stdout)
			}
			// Idempotent, and uninstall gives the old settings back.
			if code, _, stderr := runHook(t, strings.NewReader(""), append(tc.args, "--command", "convert")...); code != 0 || !strings.Contains(stderr, "nothing to change") {
				t.Errorf("second install: exit %d, %s", code, stderr)
			}
			agent := tc.args[2]
			if code, _, stderr := runHook(t, strings.NewReader(""), "hook", "uninstall", agent, "--write"); code != 0 || !strings.Contains(stderr, "updated") {
				t.Fatalf("uninstall: exit %d, %s", code, stderr)
			}
			back, _ := os.ReadFile(tc.file)
			if agent == "codex" && string(back) != tc.old {
				t.Errorf("uninstall left %q, want %q", back, tc.old)
			}
			if agent == "claude-code" {
				var a, b any
				json.Unmarshal(back, &a)
				json.Unmarshal([]byte(tc.old), &b)
				if !reflect.DeepEqual(a, b) {
					t.Errorf("uninstall left %s, want %s", back, tc.old)
				}
			}
		})
	}
}

// TestHookProgram: the program a hook runs. A project's settings name the
// bare convert only when PATH finds this convert (not ImageMagick's, not
// nothing); the user's name this binary's absolute path; --command is
// taken as given, with a warning when PATH finds another program.
func TestHookProgram(t *testing.T) {
	fake := func(version string) string {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "convert"), []byte("#!/bin/sh\necho '"+version+"'\n"), 0o755)
		return dir
	}
	for _, tc := range []struct {
		name, path, given, scope string
		want, err, warn          string
	}{
		{"project, ImageMagick first", fake("Version: ImageMagick 6.9"), "", "project", "", "which is not this convert", ""},
		{"project, ours first", fake("convert 0.1.0 (commit x, go1.26)"), "", "project", "convert", "", ""},
		{"project, none", t.TempDir(), "", "project", "", "no convert on PATH", ""},
		{"given bare, ImageMagick first", fake("Version: ImageMagick 6.9"), "convert", "project", "convert", "", "which is not this convert"},
		{"given a path", fake("Version: ImageMagick 6.9"), "/opt/convert/bin/convert", "user", "/opt/convert/bin/convert", "", ""},
		{"user", fake("Version: ImageMagick 6.9"), "", "user", selfPath(), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", tc.path)
			var warn strings.Builder
			got, err := hookProgram(tc.given, tc.scope, &warn)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
			if tc.warn != "" && !strings.Contains(warn.String(), tc.warn) || tc.warn == "" && warn.Len() > 0 {
				t.Errorf("warning %q, want %q", warn.String(), tc.warn)
			}
		})
	}
	clone := t.TempDir()
	os.WriteFile(filepath.Join(clone, "go.mod"), []byte("module github.com/contextreceipts/convert\n\ngo 1.26\n"), 0o644)
	if got := cloneOf(filepath.Join(clone, "bin", "convert")); got != clone {
		t.Errorf("cloneOf = %q, want %q", got, clone)
	}
	if got := cloneOf(filepath.Join(t.TempDir(), "bin", "convert")); got != "" {
		t.Errorf("cloneOf outside a clone = %q", got)
	}
}
