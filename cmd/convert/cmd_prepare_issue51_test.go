package main

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPrepareStoreRefusals: prepare and read only read a store. A missing
// file, an empty one and one that is not a store are refused with a message
// that says so, and the file is left byte-identical (issue #51: an empty
// file used to get a 45 KB schema and the answer "empty").
func TestPrepareStoreRefusals(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE notes(body TEXT); INSERT INTO notes VALUES('CANARY note')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	tests := []struct {
		name, content, want string
	}{
		{"missing", "", "no store there"},
		{"empty", "", "an empty file, not a store"},
		{"text", "CANARY not a database\n", "not a prepare store"},
		{"another database", "", "not a prepare store"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.name+".db")
			switch tt.name {
			case "missing":
			case "another database":
				path = other
			default:
				if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := os.ReadFile(path)
			for _, args := range [][]string{
				{"prepare", "--store", path, "--scope", "s", "--query", "CANARY ledger", "--include-receipt"},
				{"prepare", "read", "--store", path, "--scope", "s", "--family", "topic-memory", "--artifact", "a", "--revision", "1"},
			} {
				code, out, stderr := prep(t, args...)
				if code != 2 || out != "" || !strings.Contains(stderr, tt.want) {
					t.Fatalf("%s: want exit 2 and %q, got %d %q %q", args[1], tt.want, code, out, stderr)
				}
			}
			after, err := os.ReadFile(path)
			if tt.name == "missing" {
				if err == nil {
					t.Fatal("prepare created the store")
				}
			} else if !bytes.Equal(before, after) {
				t.Fatal("prepare changed the file")
			}
			if entries, _ := filepath.Glob(path + "-*"); len(entries) > 0 {
				t.Fatalf("prepare left files beside the store: %v", entries)
			}
		})
	}
}

// TestPrepareDuringLoad: a load running meanwhile never fails a prepare; it
// reads the last committed state (issue #51: "database is locked", exit 1).
// A writer holding an open write transaction is read around; a writer
// holding the exclusive lock of its commit is waited for.
func TestPrepareDuringLoad(t *testing.T) {
	db, _ := prepStore(t)
	args := []string{"prepare", "--store", db, "--scope", "project:payments", "--query", "sqlite ledger", "--include-receipt", "--vector", "--recall-gate"}
	_, want, _ := prep(t, args...)
	if parseCtx(t, want).Status != "ready" {
		t.Fatalf("fixture: %s", want)
	}
	before, _ := os.ReadFile(db)
	w, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx := context.Background()
	conn, err := w.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// An open write transaction (what a load holds while it imports).
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO grants VALUES('mallory', 'project:payments')`); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := prep(t, args...)
	if code != 0 || parseCtx(t, out).Status != "ready" {
		t.Fatalf("prepare during an open write transaction: exit %d %s %s", code, out, stderr)
	}
	if _, err := conn.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	// The exclusive lock of a commit, held for a while: the busy timeout
	// waits it out, and the prepare reads what was committed.
	if _, err := conn.ExecContext(ctx, `BEGIN EXCLUSIVE`); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		time.Sleep(400 * time.Millisecond)
		_, err := conn.ExecContext(ctx, `COMMIT`)
		done <- err
	}()
	t0 := time.Now()
	code, out, stderr = prep(t, args...)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if code != 0 || parseCtx(t, out).Status != "ready" {
		t.Fatalf("prepare during a commit: exit %d %s %s", code, out, stderr)
	}
	if time.Since(t0) < 300*time.Millisecond {
		t.Fatal("fixture: the prepare did not meet the lock")
	}
	after, _ := os.ReadFile(db)
	if !bytes.Equal(before, after) {
		t.Fatal("the store changed though the writer wrote nothing")
	}
}
