package pipeline_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
	"github.com/contextreceipts/convert/internal/testshared/ocdb"
)

// TestPreferStoresBeside: OpenCode's migration leaves its storage/ tree
// beside opencode.db, each older session in both: the database's copy is
// the one read. A store elsewhere holding the same session ids (Kilo's
// kilo.db in its own folder, OpenCode's schema) shadows nothing: both
// agents' sessions are read.
func TestPreferStoresBeside(t *testing.T) {
	storage := testshared.Repo(t, ocdb.Storage)
	copyDir := func(to string) {
		t.Helper()
		err := filepath.WalkDir(storage, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(storage, p)
			b, err := os.ReadFile(p)
			if err == nil {
				err = os.MkdirAll(filepath.Dir(filepath.Join(to, rel)), 0o755)
			}
			if err == nil {
				err = os.WriteFile(filepath.Join(to, rel), b, 0o644)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		db      string // relative to the run's root
		storage string
		want    func(stored, files int) bool
		what    string
	}{
		{"migrated: the database beside its tree", "opencode/opencode.db", "opencode/storage",
			func(stored, files int) bool { return stored > 0 && files == 0 }, "the database's sessions only"},
		{"another agent's store elsewhere", "kilo/kilo.db", "opencode/storage",
			func(stored, files int) bool { return stored > 0 && files > 0 }, "both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Dir(filepath.Join(root, filepath.FromSlash(tc.db))), 0o755); err != nil {
				t.Fatal(err)
			}
			ocdb.Build(t, filepath.Join(root, filepath.FromSlash(tc.db)), nil)
			copyDir(filepath.Join(root, filepath.FromSlash(tc.storage)))
			ins, err := pipeline.Expand([]string{root})
			if err != nil {
				t.Fatal(err)
			}
			stored, files := 0, 0
			for _, in := range ins {
				if filepath.Ext(in.Path) == ".json" {
					files++
				} else {
					stored++
				}
			}
			if !tc.want(stored, files) {
				t.Errorf("%d sessions from the store, %d from files; want %s", stored, files, tc.what)
			}
		})
	}
}
