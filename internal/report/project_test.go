package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
