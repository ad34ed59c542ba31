package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/receipt"
)

func TestExpandNames(t *testing.T) {
	root := t.TempDir()
	mk := func(rel string) string {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("{}\n"), 0o644)
		return p
	}
	mk("a/claude/x.jsonl")
	mk("b/claude/x.jsonl")
	mk("codex/y/x.jsonl")
	f1, f2 := mk("one/s.jsonl"), mk("two/s.jsonl")
	tests := []struct {
		name string
		args []string
		want []string // Rel of each input
		err  string
	}{
		{"one directory keeps its layout", []string{filepath.Join(root, "codex")}, []string{"y/x.jsonl"}, ""},
		{"several directories: a subtree each", []string{filepath.Join(root, "a"), filepath.Join(root, "codex")}, []string{"a/claude/x.jsonl", "codex/y/x.jsonl"}, ""},
		{"directories of one name: their parents tell them apart", []string{filepath.Join(root, "a", "claude"), filepath.Join(root, "b", "claude")}, []string{"a/claude/x.jsonl", "b/claude/x.jsonl"}, ""},
		{"files of one name", []string{f1, f2}, []string{"one/s.jsonl", "two/s.jsonl"}, ""},
		{"the same file twice", []string{f1, f1}, nil, "would write the same outputs"},
		{"a missing argument", []string{filepath.Join(root, "nope")}, nil, "nope: no such file or directory"},
		{"stdin not spooled", []string{"-"}, nil, "standard input was not read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ins, err := Expand(tt.args)
			if tt.err != "" {
				var ae *ArgError
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.As(err, &ae) {
					t.Fatalf("err %v, want an ArgError with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, in := range ins {
				got = append(got, in.Rel)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStdinAndBlank(t *testing.T) {
	b, err := os.ReadFile(repoPath("samples/session/basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	cleanup, err := SpoolStdin(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	ins, err := Expand([]string{"-"})
	if err != nil || len(ins) != 1 || ins[0].Path != "stdin" || ins[0].Rel != "stdin.jsonl" {
		t.Fatalf("%+v %v", ins, err)
	}
	out := t.TempDir()
	var stderr bytes.Buffer
	oc := Run(context.Background(), ins, RunOptions{Out: out}, &stderr)
	if oc.Converted != 1 {
		t.Fatalf("%+v %s", oc, stderr.String())
	}
	rec, _ := os.ReadFile(filepath.Join(out, "stdin.receipt.ndjson"))
	if bytes.Count(rec, []byte("\n")) < 2 {
		t.Errorf("receipt from stdin has %d lines", bytes.Count(rec, []byte("\n")))
	}
	dir := t.TempDir()
	for name, data := range map[string]string{"empty.jsonl": "", "blank.jsonl": " \n\r\n\t\n", "x.jsonl": "\n\n{}"} {
		os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)
	}
	for name, want := range map[string]bool{"empty.jsonl": true, "blank.jsonl": true, "x.jsonl": false} {
		if got := blank(filepath.Join(dir, name)); got != want {
			t.Errorf("blank(%s) = %v", name, got)
		}
	}
}

// TestManifestBackwardCompatible: a manifest written before exports were
// recorded still spares unchanged inputs, and an export then sends them
// once and records it.
func TestManifestBackwardCompatible(t *testing.T) {
	out := t.TempDir()
	ins := []Input{{Path: repoPath("samples/session/basic.jsonl"), Rel: "basic.jsonl"}}
	var stderr bytes.Buffer
	if oc := Run(context.Background(), ins, RunOptions{Out: out}, &stderr); oc.Converted != 1 {
		t.Fatalf("%+v", oc)
	}
	p := filepath.Join(out, ManifestName)
	var m map[string]any
	b, _ := os.ReadFile(p)
	json.Unmarshal(b, &m)
	for _, e := range m["inputs"].(map[string]any) {
		delete(e.(map[string]any), "trace")
		delete(e.(map[string]any), "exports")
	}
	b, _ = json.Marshal(m)
	os.WriteFile(p, b, 0o644)
	if oc := Run(context.Background(), ins, RunOptions{Out: out}, &stderr); oc.Unchanged != 1 {
		t.Fatalf("old manifest: %+v", oc)
	}
	sent := 0
	exp := RunOptions{Out: out, ExportEndpoint: "http://x/v1/traces", AfterWrite: func(context.Context, Input, *Result) error { sent++; return nil }}
	if oc := Run(context.Background(), ins, exp, &stderr); oc.Exported != 1 || sent != 1 || oc.ExportedSpans == 0 {
		t.Fatalf("export after an old manifest: %+v, sent %d", oc, sent)
	}
	if oc := Run(context.Background(), ins, exp, &stderr); oc.AlreadyExported != 1 || sent != 1 {
		t.Fatalf("rerun: %+v, sent %d", oc, sent)
	}
	b, _ = os.ReadFile(p)
	// The endpoint's path may hold a token: only its digest is kept.
	if !bytes.Contains(b, []byte(`"exports":[{"endpoint":"http://x/`+receipt.Hasher{}.Text("/v1/traces")+`","trace":"sha256:`)) || bytes.Contains(b, []byte("v1/traces")) {
		t.Errorf("manifest: %s", b)
	}
}

// TestFileIDs: the ids a reader may take from a file name are passed
// through as the user's words; a subagent file's agent-<id> was not, so
// its id, written as subagent.id when no record of the file named it,
// was an output string of no provenance (FuzzNativeLogs found it).
func TestFileIDs(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"agent-a2545f4914f6cdd1d.jsonl", "agent-a2545f4914f6cdd1d a2545f4914f6cdd1d"},
		{"rollout-2025-05-07T17-24-21-0196a7c2-3f2b-7c83-9d1e-4b5a6c7d8e9f.jsonl.gz",
			"rollout-2025-05-07T17-24-21-0196a7c2-3f2b-7c83-9d1e-4b5a6c7d8e9f 0196a7c2-3f2b-7c83-9d1e-4b5a6c7d8e9f 2025-05-07T17-24-21-0196a7c2-3f2b-7c83-9d1e-4b5a6c7d8e9f"},
		{"7f3c0001-0001-4001-8001-00005b6e0001.jsonl", "7f3c0001-0001-4001-8001-00005b6e0001 0001-4001-8001-00005b6e0001"},
		{"session.jsonl", "session"},
		{"-x.jsonl", "-x"},
		{"x-.jsonl", "x-"},
	} {
		if got := strings.Join(fileIDs(tt.name), " "); got != tt.want {
			t.Errorf("fileIDs(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	// A path's folders add their UUIDs (Kimi names a session by its folder).
	for _, tt := range []struct{ path, want string }{
		{"sessions/0f3c/2d9e8c7b-6a5f-4e3d-9c2b-1a0f9e8d7c6b/wire.jsonl", "wire 2d9e8c7b-6a5f-4e3d-9c2b-1a0f9e8d7c6b"},
		{"2d9e8c7b-6a5f-4e3d-9c2b-1a0f9e8d7c6b/agents/main/wire.jsonl", "wire 2d9e8c7b-6a5f-4e3d-9c2b-1a0f9e8d7c6b"},
		{"alice/notes/agent-a1.jsonl", "agent-a1 a1"},
	} {
		if got := strings.Join(pathIDs(tt.path), " "); got != tt.want {
			t.Errorf("pathIDs(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

// TestShapeHint: an input no converter claims is told when it is JSON but
// not JSON Lines (an array; an object over many lines) or one object cut
// short (not the hint for many lines), and nothing else,
// its content never quoted.
func TestShapeHint(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, body, want string }{
		{"array.jsonl", `[{"CANARY":1},{"b":2}]`, "it is a JSON array, not JSON Lines"},
		{"spaced.jsonl", "\n  [\n {\"CANARY\":1}\n]\n", "it is a JSON array, not JSON Lines"},
		{"pretty.jsonl", "{\n  \"CANARY\": 1\n}\n", "it looks like JSON written over many lines, not JSON Lines"},
		{"truncated.jsonl", `{"type":"user","message":{"content":"CANARY`, "its one line is not a whole JSON object (cut short?)"},
		{"truncated-nl.jsonl", `{"type":"user","message":{"content":"CANARY` + "\n", "its one line is not a whole JSON object"},
		{"lines.jsonl", `{"CANARY":1}` + "\n" + `{"b":2}` + "\n", ""},
		{"text.jsonl", "CANARY plain words\n", ""},
		{"empty.jsonl", "", ""},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		got := shapeHint(nil, p)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: hint %q, want %q", tc.name, got, tc.want)
		}
		if strings.Contains(got, "CANARY") {
			t.Errorf("%s: the hint quotes the file: %q", tc.name, got)
		}
	}
	res := Convert(Input{Path: filepath.Join(dir, "array.jsonl"), Rel: "array.jsonl"}, Options{Converter: "auto"})
	if res.Err == nil || !strings.Contains(res.Err.Error(), "matches no known kind (convert list names every kind); it is a JSON array") {
		t.Errorf("conversion error: %v", res.Err)
	}
}

// TestWalkSkipsOwnOutputs: a walk never reads what convert wrote: a trace
// (X.otel.jsonl ends in .jsonl) or anything in a folder holding a run's
// manifest (an --out inside the walked folder); a folder named as the
// argument is read whatever it holds.
func TestWalkSkipsOwnOutputs(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.jsonl", "a.otel.jsonl", "sub/c.jsonl", "receipts/" + ManifestName, "receipts/old.jsonl", "receipts/a.otel.jsonl"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		arg  string
		want []string
	}{
		{dir, []string{"a.jsonl", "sub/c.jsonl"}},
		{filepath.Join(dir, "receipts"), []string{"old.jsonl"}},
	} {
		ins, err := Expand([]string{tc.arg})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, in := range ins {
			got = append(got, in.Rel)
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("Expand(%s) = %v, want %v", filepath.Base(tc.arg), got, tc.want)
		}
	}
}
