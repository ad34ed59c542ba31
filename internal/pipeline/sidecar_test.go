package pipeline

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/receipt"
)

// copiesSidecar is a reader that copies its main file's sidecar title to
// its outputs: what a reader must never do, for the leak check to catch.
type copiesSidecar struct{ title string }

func (c *copiesSidecar) StartFile(f converters.SourceFile, _ *converters.Output) error {
	c.title = f.Meta.Get("sessionTitle").Str().Own()
	return nil
}
func (c *copiesSidecar) Record(converters.Record, *converters.Output) error { return nil }
func (c *copiesSidecar) End(out *converters.Output) error {
	out.Span.Set("gen_ai.request.model", receipt.S(c.title))
	return nil
}

func init() {
	converters.Register(converters.Converter{
		Name: "test_copies_sidecar", Doc: "test only: copies its sidecar's title", SpanName: "invoke_agent",
		TypeField: "type", Types: []string{"sc.record"},
		New: func(converters.Env) converters.State { return &copiesSidecar{} },
	})
}

// TestMainSidecar: a session file whose format declares a sidecar of its
// own (Factory Droid's <id>.settings.json) is read with it, whether the
// folder or the file is given: the sidecar's figures reach the receipt,
// its raw strings never reach an output or a message, its digest is in the
// group digest, and an edit to the sidecar alone converts the session
// again on a rerun into the same --out.
func TestMainSidecar(t *testing.T) {
	dir := t.TempDir()
	sess := filepath.Join(dir, "sessions", "-proj")
	if err := os.MkdirAll(sess, 0o755); err != nil {
		t.Fatal(err)
	}
	const id = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
	log := `{"type":"session_start","id":"` + id + `","title":"CANARY-title","owner":"CANARY-owner","version":2,"cwd":"/CANARY/proj"}
{"type":"message","id":"m1","timestamp":"2026-11-24T14:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"CANARY-prompt"}]}}
{"type":"message","id":"m2","timestamp":"2026-11-24T14:00:02.000Z","parentId":"m1","message":{"role":"assistant","content":[{"type":"text","text":"CANARY-answer"}]}}
`
	main := filepath.Join(sess, id+".jsonl")
	side := filepath.Join(sess, id+".settings.json")
	settings := func(output int) string {
		return `{"model":"claude-sonnet-4-5-20250929","sessionTitle":"CANARY-sidecar-title","cwdHint":"/CANARY/sidecar",
 "tokenUsage":{"inputTokens":100,"outputTokens":` + itoa(output) + `,"cacheCreationTokens":3,"cacheReadTokens":4,"thinkingTokens":5}}`
	}
	if err := os.WriteFile(main, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(side, []byte(settings(7)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{dir, main} {
		ins, err := Expand([]string{arg})
		if err != nil || len(ins) != 1 || ins[0].Meta != side {
			t.Fatalf("%s: inputs %+v, %v", arg, ins, err)
		}
		if paths := inputPaths(ins[0]); len(paths) != 2 || paths[1] != side {
			t.Errorf("%s: the manifest records %v", arg, paths)
		}
	}
	ins, _ := Expand([]string{dir})
	res := Convert(ins[0], Options{Converter: "auto"})
	if res.Err != nil || res.Converter != "droid" {
		t.Fatalf("converted as %q: %v", res.Converter, res.Err)
	}
	if !bytes.Contains(res.Receipt, []byte(`"gen_ai.usage.output_tokens":7`)) {
		t.Errorf("the sidecar's figures are not in the receipt:\n%s", res.Receipt)
	}
	if bytes.Contains(res.Receipt, []byte("CANARY")) || bytes.Contains(res.Trace, []byte("CANARY")) {
		t.Error("canary in the outputs")
	}
	alone := Convert(Input{Path: main, Rel: filepath.Base(main)}, Options{Converter: "droid"})
	if alone.Err != nil || groupSHA(t, alone.Receipt) == groupSHA(t, res.Receipt) {
		t.Errorf("the group digest does not bind the sidecar (%v)", alone.Err)
	}
	// The sidecar's strings are input the leak check holds the outputs
	// against: a reader that copies one fails closed, nothing written.
	kv := filepath.Join(t.TempDir(), "kv.jsonl")
	if err := os.WriteFile(kv, []byte(`{"type":"sc.record","n":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	leaked := Convert(Input{Path: kv, Rel: "kv.jsonl", Meta: side}, Options{Converter: "test_copies_sidecar"})
	var le *LeakError
	if !errors.As(leaked.Err, &le) || leaked.Receipt != nil || leaked.Trace != nil || strings.Contains(leaked.Err.Error(), "CANARY") {
		t.Errorf("a sidecar string copied to the outputs: %v", leaked.Err)
	}

	// A sidecar whose raw strings would reach an output fails closed.
	out := t.TempDir()
	var stderr bytes.Buffer
	if oc := Run(context.Background(), ins, RunOptions{Out: out}, &stderr); oc.Converted != 1 {
		t.Fatalf("first run: %+v\n%s", oc, stderr.String())
	}
	if oc := Run(context.Background(), ins, RunOptions{Out: out}, &stderr); oc.Unchanged != 1 {
		t.Fatalf("rerun, nothing edited: %+v", oc)
	}
	if err := os.WriteFile(side, []byte(settings(9)), 0o644); err != nil {
		t.Fatal(err)
	}
	if oc := Run(context.Background(), ins, RunOptions{Out: out}, &stderr); oc.Converted != 1 || oc.Unchanged != 0 {
		t.Fatalf("rerun after a sidecar edit: %+v", oc)
	}
	filepath.WalkDir(out, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte("CANARY")) && !strings.HasSuffix(p, ManifestName) {
				t.Errorf("canary in %s", p)
			}
			if strings.Contains(p, "CANARY") {
				t.Errorf("canary in the name %s", p)
			}
		}
		return nil
	})
	if strings.Contains(stderr.String(), "CANARY") {
		t.Errorf("canary on stderr: %s", stderr.String())
	}
	// A sidecar that is not one JSON document fails the input, naming it.
	if err := os.WriteFile(side, []byte(`{"tokenUsage": CANARY`), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := Convert(ins[0], Options{Converter: "auto"})
	if bad.Err == nil || !strings.Contains(bad.Err.Error(), "sidecar is not a JSON document") || strings.Contains(bad.Err.Error(), "CANARY-") {
		t.Errorf("a broken sidecar: %v", bad.Err)
	}
}

func groupSHA(t *testing.T, receipt []byte) string {
	t.Helper()
	const key = `"convert.input.group_sha256":"`
	i := bytes.Index(receipt, []byte(key))
	if i < 0 {
		return ""
	}
	rest := receipt[i+len(key):]
	return string(rest[:bytes.IndexByte(rest, '"')])
}

func itoa(n int) string { return string(rune('0' + n)) }
