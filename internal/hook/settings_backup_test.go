package hook

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestBackupsAreNeverOverwritten: each write keeps the file it replaces as
// a backup of its own, named by the time, with -2, -3 when two writes share
// a second: the original settings survive any number of writes.
func TestBackupsAreNeverOverwritten(t *testing.T) {
	p := filepath.Join(t.TempDir(), "settings.json")
	os.WriteFile(p, []byte("original"), 0o640)
	at := time.Date(2026, 12, 2, 11, 30, 0, 0, time.UTC)
	var backups []string
	for i, data := range []string{"first", "second", "third"} {
		b, err := writeFileAt(p, []byte(data), at)
		if err != nil {
			t.Fatal(err)
		}
		backups = append(backups, b)
		if i == 0 && b != p+".bak-20261202T113000Z" {
			t.Errorf("backup %s", b)
		}
	}
	if backups[1] != backups[0]+"-2" || backups[2] != backups[0]+"-3" {
		t.Errorf("backups %v", backups)
	}
	for i, want := range []string{"original", "first", "second"} {
		got, _ := os.ReadFile(backups[i])
		if string(got) != want {
			t.Errorf("backup %d holds %q, want %q", i, got, want)
		}
		if st, _ := os.Stat(backups[i]); st.Mode().Perm() != 0o640 {
			t.Errorf("backup %d mode %o", i, st.Mode().Perm())
		}
	}
	if now, _ := os.ReadFile(p); string(now) != "third" {
		t.Errorf("file holds %q", now)
	}
}
