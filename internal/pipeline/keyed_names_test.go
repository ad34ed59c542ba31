package pipeline

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/internal/testshared"
)

// A hostile case of the keyed-mode class (issue #40, item 2): a home whose
// working directory is a guessable string. In keyed mode no plain digest of
// an input-derived string may remain in any output, output name, message or
// the manifest: a guess list of user and project names must confirm
// nothing. The plain run of the same home shows the check can fail (its
// folders are plain digests of the encoded working directory). A Codex
// rollout in the same working directory carries that directory's project
// key (convert.input.project): plain it is the plain digest Claude Code's
// folder name is, keyed it is keyed too.
func TestKeyedRunHoldsNoPlainDigest(t *testing.T) {
	const cwd = "/Users/alice/acme-payments"
	encoded := strings.ReplaceAll(cwd, "/", "-")
	cwdSum := sha256.Sum256([]byte(cwd))
	gemDir := hex.EncodeToString(cwdSum[:]) // Gemini CLI names the project folder so
	const endpoint = "https://collector.example:4318/CANARYTOKEN-7f3c2a10/v1/traces"

	run := func(t *testing.T, h receipt.Hasher) (everything string, guesses []string) {
		home := t.TempDir()
		claude := filepath.Join(home, ".claude", "projects")
		gemini := filepath.Join(home, ".gemini", "tmp")
		copyTree(t, repoPath("samples/claude_code/basic/-Users-alice-src-acme-ledger"), filepath.Join(claude, encoded))
		copyTree(t, repoPath(path.Join("samples/gemini_cli/basic", "tmp", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")), filepath.Join(gemini, gemDir))
		codex := filepath.Join(home, ".codex", "sessions")
		const rollout = "rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"
		b, err := os.ReadFile(repoPath("samples/codex/basic/sessions/2026/03/14/" + rollout))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(codex, "2026", "03", "14"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(codex, "2026", "03", "14", rollout), bytes.ReplaceAll(b, []byte("/Users/dana/CANARY-ledger"), []byte(cwd)), 0o644); err != nil {
			t.Fatal(err)
		}
		ins, err := Expand([]string{claude, gemini, codex})
		if err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		var msgs bytes.Buffer
		opt := RunOptions{Options: Options{Hash: h}, Out: out, Jobs: 2, ExportEndpoint: endpoint,
			AfterWrite: func(context.Context, Input, *Result) error { return nil }}
		oc := Run(context.Background(), ins, opt, &msgs)
		if oc.Converted != len(ins) || oc.Failed+oc.Leaks+oc.SchemaErrors != 0 {
			t.Fatalf("converted %d of %d: %v", oc.Converted, len(ins), oc.Failures)
		}
		var all strings.Builder
		all.WriteString(msgs.String())
		all.WriteString(strings.Join(oc.Failures, "\n"))
		manifest := false
		filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(out, p)
			all.WriteString(filepath.ToSlash(rel) + "\n")
			if !d.IsDir() {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				all.Write(b)
				manifest = manifest || d.Name() == ManifestName
			}
			return nil
		})
		if !manifest {
			t.Fatal("no manifest written")
		}
		// Every form a guesser would try: the working directory raw and
		// encoded, the project folders, and every path of every input.
		guesses = []string{cwd, encoded, gemDir, cwd + "/", "projects/" + encoded, "tmp/" + gemDir,
			"/Users/CANARY-alice/src/acme-ledger", "-Users-CANARY-alice-src-acme-ledger"} // the Claude Code sample's records' cwd
		for _, in := range ins {
			guesses = append(guesses, in.Rel, filepath.ToSlash(in.Rel))
			for _, p := range inputPaths(in) {
				abs, _ := filepath.Abs(p)
				rel, _ := filepath.Rel(home, p)
				guesses = append(guesses, p, abs, filepath.ToSlash(rel), filepath.Base(p))
			}
		}
		return all.String(), guesses
	}
	found := func(everything string, guesses []string) []string {
		var hits []string
		for _, g := range guesses {
			sum := sha256.Sum256([]byte(g))
			x := hex.EncodeToString(sum[:])
			if strings.Contains(everything, x[:12]) {
				hits = append(hits, g)
			}
		}
		return hits
	}

	t.Run("keyed", func(t *testing.T) {
		everything, guesses := run(t, testKey(t))
		if hits := found(everything, guesses); len(hits) > 0 {
			t.Errorf("a plain digest of a guess is in an output, a name or the manifest: %q", hits)
		}
		for _, bad := range []string{"CANARY", "canary", "alice", "acme-payments", gemDir} {
			if strings.Contains(everything, bad) {
				t.Errorf("%q reached an output, a name, a message or the manifest", bad)
			}
		}
	})
	t.Run("plain run can fail the check", func(t *testing.T) {
		everything, guesses := run(t, receipt.Hasher{})
		if hits := found(everything, guesses); len(hits) == 0 {
			t.Error("the plain run's project folders are plain digests, yet the check found none")
		}
		sum := sha256.Sum256([]byte(encoded))
		if key := `"convert.input.project":"project-` + hex.EncodeToString(sum[:])[:12] + `"`; strings.Count(everything, key) < 1 {
			t.Errorf("no receipt carries the working directory's plain project key %s", key)
		}
	})
}

// testKey is a fresh random hash key, as `convert keygen --alg hash` makes.
func testKey(t *testing.T) receipt.Hasher {
	t.Helper()
	b := make([]byte, 32)
	if _, err := io.ReadFull(rand.Reader, b); err != nil {
		t.Fatal(err)
	}
	h, err := receipt.NewKeyed([]byte(hex.EncodeToString(b)))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// copyTree copies the files of src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(t, dst, rel, string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The report's project key is the folder run writes (issue #36, item 4):
// for a log and for its receipt, in plain and keyed mode.
func TestProjectOfIsTheOutputFolder(t *testing.T) {
	for _, h := range []receipt.Hasher{{}, testKey(t)} {
		for _, rel := range []string{
			"projects/-home-alice-acme/7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl",
			"tmp/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08/chats/session-2026-03-20T10-00-1b2c3d4e.jsonl",
		} {
			out := OutputNameHashed(h, rel, ".receipt.ndjson")
			p := ProjectOf(h, rel)
			if p == "" || !strings.Contains(out, "/"+p+"/") {
				t.Errorf("%s (%s): project %q is not a folder of %s", rel, h.Mode(), p, out)
			}
			if q := ProjectOf(receipt.Hasher{}, out); q != p {
				t.Errorf("%s (%s): the receipt's project %q, the log's %q", rel, h.Mode(), q, p)
			}
		}
	}
	if p := ProjectOf(receipt.Hasher{}, "sessions/2026/03/14/rollout-x.jsonl"); p != "" {
		t.Errorf("a day folder is a project: %q", p)
	}
}

// A hostile case of the file-name class (issue #40, item 5): a log named
// after its user and subject. Output names, the manifest, the summary's
// convert.input.path and every message carry an id-shaped name or a
// digest, never the name, in plain and keyed mode.
func TestCanaryFileNameNeverWritten(t *testing.T) {
	raw, err := os.ReadFile(repoPath("samples/session/basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []receipt.Hasher{{}, testKey(t)} {
		t.Run(h.Mode(), func(t *testing.T) {
			src := t.TempDir()
			writeFile(t, src, "CANARY-alice-payroll.jsonl", string(raw))
			writeFile(t, src, "canary_bob_notes.jsonl.zst.jsonl", string(raw))
			writeFile(t, src, "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl", string(raw))
			ins, err := Expand([]string{src})
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			var msgs bytes.Buffer
			oc := Run(context.Background(), ins, RunOptions{Options: Options{Hash: h}, Out: out}, &msgs)
			if oc.Converted != 3 {
				t.Fatalf("converted %d of 3: %v", oc.Converted, oc.Failures)
			}
			var all strings.Builder
			all.WriteString(msgs.String())
			ids := 0
			filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					t.Fatal(err)
				}
				rel, _ := filepath.Rel(out, p)
				all.WriteString(rel + "\n")
				ids += strings.Count(d.Name(), "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b")
				if !d.IsDir() {
					b, _ := os.ReadFile(p)
					all.Write(b)
				}
				return nil
			})
			for _, bad := range []string{"CANARY", "canary", "alice", "payroll", "bob_notes"} {
				if strings.Contains(all.String(), bad) {
					t.Errorf("%q reached an output, an output name, the manifest or a message", bad)
				}
			}
			if ids != 2 {
				t.Errorf("an id-shaped name keeps its name: %d outputs named by it, want 2", ids)
			}
		})
	}
}

// TestKeyedNeedsNoSecondPass: the key id a keyed receipt carries is made
// from the key, not from the input, so it is typed: a keyed conversion has
// as many untyped outputs as a plain one (none on this sample), and does
// not read its input a second time to probe the key id against it.
func TestKeyedNeedsNoSecondPass(t *testing.T) {
	p := filepath.Join(testshared.Repo(t, "samples", "claude_code", "basic"), "-Users-alice-src-acme-ledger", "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl")
	for _, h := range []receipt.Hasher{{}, testKey(t)} {
		ins, err := Expand([]string{p})
		if err != nil || len(ins) != 1 {
			t.Fatalf("expand: %v %d", err, len(ins))
		}
		res := Convert(ins[0], Options{Hash: h})
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		if res.Stats.Untyped != 0 {
			t.Errorf("%s mode: %d untyped output strings, want 0", h.Mode(), res.Stats.Untyped)
		}
	}
}

// TestIDShapedName: the file names outputs keep are agents' own session
// names and words naming a log's role; any name a user chose is digested.
func TestIDShapedName(t *testing.T) {
	for stem, want := range map[string]bool{
		"7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b":                             true,
		"rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b": true,
		"2026-11-20T10-00-00-000Z_6b1f2c3d-4e5a-4b6c-8d7e-9f0a1b2c3d4e":    true,
		"ses_4f1e2d3c5ffeA1b2C3d4E5f6G7":                                   true,
		"agent-a52886dc180afb356":                                          true,
		"events":                                                           true, "journal": true, "stdin": true, "in": true, "input": true, "log": true, "transcript": true,
		"input-fbb7b5bf4ca3": true,
		"basic":              false, "alice-payroll-notes": false, "CANARY-alice": false, "inn": false, "login": false,
		"5551234567": false, "4111111111111111": false, "": false,
		// issue #49: the id kind's hex (6 to 24 digits), never an API
		// key's 32 or a token's 40; OpenCode's session id grammar only.
		"a1b2c3d4e5f6": true, "0123456789abcdef0123456789abcdef": false, "da39a3ee5e6b4b0d3255bfef95601890afd80709": false,
		"session-" + strings.Repeat("ab", 32): false, "session-0123456789ab": true,
		"ses_alicepayrollq3notes": false, "ses_PLANTEDpayrollQ3alice": false,
	} {
		if got := IDShapedName(stem); got != want {
			t.Errorf("IDShapedName(%q) = %v, want %v", stem, got, want)
		}
	}
}

// TestInputFileName: an agent's file read as a session's input keeps the
// session's id (an OpenClaw archive whose live transcript is gone, a
// Droid sidecar without its transcript); a name that only looks like one,
// or a user's, is digested.
func TestInputFileName(t *testing.T) {
	const id = "8a9b0c1d-2e3f-4a5b-8c6d-7e8f9a0b1c2d"
	for base, want := range map[string]string{
		id + ".jsonl": id + ".jsonl",
		id + ".jsonl.deleted.2026-11-22T10-00-00.000Z": id,
		id + ".settings.json":                          id + ".json",
		id + ".jsonl.deleted.CANARY-alice":             "input-",
		"CANARY-alice-" + id + ".jsonl":                "input-",
		"alice-payroll-notes.settings.json":            "input-",
	} {
		got := InputFileName(receipt.Hasher{}, base)
		if got != want && !(want == "input-" && strings.HasPrefix(got, want) && !strings.Contains(got, "CANARY")) {
			t.Errorf("InputFileName(%q) = %q, want %q", base, got, want)
		}
	}
}
