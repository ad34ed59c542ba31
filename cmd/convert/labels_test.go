package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnknownLabelsAreDigested: a label field holding a value of a label's
// syntax that the program does not know (a passphrase, a person's dotted
// name, a canary) is never written in clear, with or without --reveal
// names: the reader writes its digest (or leaves the attribute out), and
// the session still converts (exit 0): an unknown label is no refusal.
// One case per class of reader: Claude Code, Codex, a scenario log. The
// canary and the two values are checked in every output, file name,
// stdout and stderr.
func TestUnknownLabelsAreDigested(t *testing.T) {
	const passphrase, person, canary = "correct-horse-battery-staple-xxxxxx", "alice.kowalczyk.payroll", "CANARY-horse-battery-staple"
	for _, tc := range []struct {
		name, sample string
		replace      []string // old, new pairs, each replaced everywhere
		digested     []string // values whose digest the outputs must hold
	}{
		{"claude_code stop reason", "claude_code/basic", []string{`"stop_reason":"tool_use"`, `"stop_reason":"` + passphrase + `"`,
			`"stop_reason":"end_turn"`, `"stop_reason":"` + canary + `"`}, nil},
		{"codex originator and effort", "codex/basic", []string{`"originator":"codex_cli_rs"`, `"originator":"` + person + `"`,
			`"effort":"medium"`, `"effort":"` + canary + `"`}, []string{person}},
		{"scenario label", "context_input/basic.jsonl", []string{`"scope":"repo"`, `"scope":"` + passphrase + `"`,
			`"activation":"resume"`, `"activation":"` + canary + `"`}, []string{passphrase, canary}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), "in")
			src := filepath.Join("..", "..", "samples", filepath.FromSlash(tc.sample))
			if st, err := os.Stat(src); err == nil && st.IsDir() {
				copyTree(t, src, in)
			} else {
				copyTree(t, filepath.Dir(src), in)
				in = filepath.Join(in, filepath.Base(src))
			}
			replaced := 0
			_ = filepath.WalkDir(in, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, _ := os.ReadFile(p)
				s := string(b)
				for i := 0; i+1 < len(tc.replace); i += 2 {
					replaced += strings.Count(s, tc.replace[i])
					s = strings.ReplaceAll(s, tc.replace[i], tc.replace[i+1])
				}
				return os.WriteFile(p, []byte(s), 0o644)
			})
			if replaced < len(tc.replace)/2 {
				t.Fatalf("%d replacements: the sample changed, the case tests nothing", replaced)
			}
			for _, reveal := range []bool{false, true} {
				out := t.TempDir()
				args := []string{"run", in, "--out", out, "-q"}
				if reveal {
					args = append(args, "--reveal", "names")
				}
				code, so, se := runCLI(t, "", args...)
				if code != 0 {
					t.Fatalf("reveal %v: exit %d: an unknown label refused the session\n%s", reveal, code, se)
				}
				if !reveal {
					assertNoCanaryUnder(t, out) // revealed, the samples' own canary names are written
				}
				all := so + se
				_ = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
					if err == nil && !d.IsDir() {
						b, _ := os.ReadFile(p)
						all += p + "\n" + string(b)
					}
					return err
				})
				for _, v := range []string{passphrase, person, canary} {
					if strings.Contains(all, v) {
						t.Errorf("reveal %v: %q was written in clear", reveal, v)
					}
				}
				for _, v := range tc.digested {
					sum := sha256.Sum256([]byte(v))
					if !strings.Contains(all, "sha256:"+hex.EncodeToString(sum[:])) {
						t.Errorf("reveal %v: no digest of %q in the outputs", reveal, v)
					}
				}
			}
		})
	}
}
