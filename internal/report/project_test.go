package report

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/receipt"
)

// TestProjectIsTheOutputFolder (issue #36, item 4): --by project keys a
// session by the project-<hex> folder convert run writes its receipt in,
// for Claude Code and Gemini CLI alike, whether the report reads the logs
// or the receipts written from them, so a row can be found on disk.
func TestProjectIsTheOutputFolder(t *testing.T) {
	logs := []string{filepath.Join(samples, "claude_code", "basic"), filepath.Join(samples, "gemini_cli", "basic")}
	out := t.TempDir()
	fromLogs, _ := load(t, LoadOptions{OutReceipts: out}, logs...)
	fromReceipts, _ := load(t, LoadOptions{}, out)
	if len(fromLogs.Sessions) < 2 || len(fromReceipts.Sessions) != len(fromLogs.Sessions) {
		t.Fatalf("%d sessions from the logs, %d from their receipts", len(fromLogs.Sessions), len(fromReceipts.Sessions))
	}
	projects := map[string]bool{}
	for _, s := range fromLogs.Sessions {
		projects[s.Project] = true
	}
	for _, s := range fromReceipts.Sessions {
		if !projects[s.Project] {
			t.Errorf("%s: project %q from its receipt, not one the logs gave (%v)", s.Agent, s.Project, projects)
		}
		if !strings.HasPrefix(s.Project, "project-") {
			t.Errorf("%s: project %q is not a project folder's name", s.Agent, s.Project)
			continue
		}
		found := false
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == s.Project {
				found = true
			}
			return nil
		})
		if !found {
			t.Errorf("%s: no folder %s under the receipts", s.Agent, s.Project)
		}
	}
}

// TestProjectKeyForEveryAgent (issue #36, item 4): every agent whose log
// names its working directory keys its sessions by that directory's
// project key, the name of Claude Code's output folder for it: a Claude
// Code, Codex, Cursor, Copilot CLI, Droid, OpenCode and pi session in one
// repository are one --by project row, whether the report reads the logs
// or their receipts, and the row is a folder under the receipts.
func TestProjectKeyForEveryAgent(t *testing.T) {
	const cwd = "/Users/CANARY-dev/src/led_ger.v2"    // '_' and '.' are '-' in Claude Code's folder name
	const folder = "-Users-CANARY-dev-src-led-ger-v2" // that folder name
	home := t.TempDir()
	put := func(dst, src, old string) {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(samples, src))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), old) {
			t.Fatalf("%s names no %s", src, old)
		}
		p := filepath.Join(home, filepath.FromSlash(dst))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), old, cwd)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const claudeID = "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b"
	const rollout = "rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"
	put("claude/"+folder+"/"+claudeID+".jsonl", "claude_code/basic/-Users-alice-src-acme-ledger/"+claudeID+".jsonl", "/Users/CANARY-alice/src/acme-ledger")
	put("codex/sessions/2026/03/14/"+rollout, "codex/basic/sessions/2026/03/14/"+rollout, "/Users/dana/CANARY-ledger")
	put("cursor/basic.jsonl", "cursor/basic.jsonl", "/Users/gus/CANARY-shop")
	put("copilot/v0354_no_shutdown.jsonl", "copilot_cli/v0354_no_shutdown.jsonl", "/Users/bob/CANARY-work")
	put("droid/no_settings.jsonl", "droid/no_settings.jsonl", "/Users/dana/src/CANARY-other")
	put("pi/v1_messages.jsonl", "pi_agent/v1_messages.jsonl", "/Users/dave/CANARY-notes")
	put("opencode/ses_4f1e2c8a1ffeH8i9J0k1L2m3N4.json", "opencode/basic/ses_4f1e2c8a1ffeH8i9J0k1L2m3N4.json", "/Users/CANARY-user/projects/CANARY-ledger")
	want := pipeline.ProjectDir(receipt.Hasher{}, folder)
	agents := []string{"claude_code", "codex", "copilot_cli", "cursor", "droid", "opencode", "pi_agent"}

	out := t.TempDir()
	fromLogs, stderr := load(t, LoadOptions{OutReceipts: out}, home)
	fromReceipts, _ := load(t, LoadOptions{}, out)
	if strings.Contains(strings.ToUpper(stderr), "CANARY") {
		t.Errorf("stderr carries a canary:\n%s", stderr)
	}
	// "claude" is a folder of the user's below the one given: a digest (issue #49).
	if st, err := os.Stat(filepath.Join(out, pipeline.FolderDir(receipt.Hasher{}, "claude"), want)); err != nil || !st.IsDir() {
		t.Errorf("no output folder %s for the Claude Code session: %v", want, err)
	}
	for name, l := range map[string]*Loaded{"logs": fromLogs, "receipts": fromReceipts} {
		r := l.Report(Options{By: "project"})
		var row *Group
		for i := range r.Groups {
			if r.Groups[i].Key == want {
				row = &r.Groups[i]
			} else {
				t.Errorf("%s: a row %s (%d sessions) beside %s", name, r.Groups[i].Key, r.Groups[i].Sessions, want)
			}
		}
		if row == nil {
			t.Fatalf("%s: no row %s", name, want)
		}
		var got []string
		for _, a := range row.Agents {
			got = append(got, a.Key)
		}
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(agents, " ") {
			t.Errorf("%s: row %s holds %v, want every agent %v", name, want, got, agents)
		}
		for _, f := range []string{"json", "table", "html"} {
			if s := render(t, r, f); strings.Contains(strings.ToUpper(s), "CANARY") || strings.Contains(s, "led_ger") {
				t.Errorf("%s: the %s report carries the working directory", name, f)
			}
		}
	}
}
