package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
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
	type commit struct {
		at  time.Time
		err error
	}
	done := make(chan commit, 1)
	go func() {
		time.Sleep(500 * time.Millisecond)
		at := time.Now() // the lock is held at least until here
		_, err := conn.ExecContext(ctx, `COMMIT`)
		done <- commit{at, err}
	}()
	code, out, stderr = prep(t, args...)
	end := time.Now()
	c := <-done
	if c.err != nil {
		t.Fatal(c.err)
	}
	if code != 0 || parseCtx(t, out).Status != "ready" {
		t.Fatalf("prepare during a commit: exit %d %s %s", code, out, stderr)
	}
	if end.Before(c.at) {
		t.Fatal("fixture: the prepare ended before the lock was released")
	}
	after, _ := os.ReadFile(db)
	if !bytes.Equal(before, after) {
		t.Fatal("the store changed though the writer wrote nothing")
	}
}

// TestPrepareKeyedRead: every selected item of a keyed receipt is followed
// by prepare read with the same key (artifact, entry and entry version ids
// as the receipt records them), and refused without it with a message that
// names the key (issue #51: only code reads accepted the key).
func TestPrepareKeyedRead(t *testing.T) {
	db, _ := prepStore(t)
	kf := writeTemp(t, "key", "11261636966b9247d3fc7345a64b49307a5c525c962085c12814e2994fccc20d\n")
	code, out, stderr := prep(t, "prepare", "--store", db, "--scope", "project:payments", "--scope", "project:shared", "--query", "sqlite ledger decision",
		"--include-receipt", "--hash-key-file", kf)
	if code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	d := parseCtx(t, out)
	hist := 0
	for _, s := range d.Receipt.Selected {
		a := s.ArtifactAddress
		if a == nil {
			continue
		}
		hist++
		args := []string{"prepare", "read", "--store", db, "--scope", a.ScopeID, "--family", a.Family, "--artifact", a.ArtifactID, "--revision", itoa(a.Revision)}
		if s.EntryID != "" {
			args = append(args, "--entry", s.EntryID, "--entry-version", s.EntryVersionID)
		}
		code, rout, rerr := prep(t, append(args, "--hash-key-file", kf)...)
		if code != 0 {
			t.Fatalf("keyed read of %s: exit %d %s", a.ArtifactID, code, rerr)
		}
		var doc struct {
			Address struct {
				ArtifactID string `json:"artifact_id"`
			} `json:"artifact_address"`
			Entries []struct {
				EntryID        string `json:"entry_id"`
				EntryVersionID string `json:"entry_version_id"`
				Body           string `json:"body"`
			} `json:"entries"`
		}
		if err := json.Unmarshal([]byte(rout), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Address.ArtifactID != a.ArtifactID || len(doc.Entries) == 0 {
			t.Fatalf("keyed read: %s", rout)
		}
		if s.EntryID != "" && (len(doc.Entries) != 1 || doc.Entries[0].EntryID != s.EntryID || doc.Entries[0].EntryVersionID != s.EntryVersionID) {
			t.Fatalf("the read names the entry as the receipt does: %s", rout)
		}
		head := doc.Entries[0].Body[:min(40, len(doc.Entries[0].Body))]
		if !strings.Contains(*d.Content, head) {
			t.Fatalf("the read serves the injected body: %q", head)
		}
		code, _, rerr = prep(t, args...)
		if code != 2 || !strings.Contains(rerr, "--hash-key-file") {
			t.Fatalf("a keyed id without the key: want exit 2 naming the key, got %d %s", code, rerr)
		}
		other := writeTemp(t, "other", "99261636966b9247d3fc7345a64b49307a5c525c962085c12814e2994fccc20d\n")
		if code, _, rerr := prep(t, append(args, "--hash-key-file", other)...); code != 1 || !strings.Contains(rerr, "no such revision") {
			t.Fatalf("another key: want no such revision, got %d %s", code, rerr)
		}
	}
	if hist == 0 {
		t.Fatal("fixture: want historical items")
	}
	for _, s := range d.Receipt.Selected {
		if c := s.CodeEvidence; c != nil {
			args := []string{"prepare", "read", "--store", db, "--scope", c.ScopeID, "--family", "code", "--fingerprint", c.Fingerprint, "--path", c.Path,
				"--file-sha256", c.FileSHA256, "--start-line", itoa(c.StartLine), "--end-line", itoa(c.EndLine), "--snippet-sha256", c.SnippetSHA256}
			if code, _, rerr := prep(t, args...); code != 2 || !strings.Contains(rerr, "--hash-key-file") {
				t.Fatalf("keyed code evidence without the key: %d %s", code, rerr)
			}
			if code, _, rerr := prep(t, append(args, "--hash-key-file", kf)...); code != 0 {
				t.Fatalf("keyed code read: %d %s", code, rerr)
			}
		}
	}
}
