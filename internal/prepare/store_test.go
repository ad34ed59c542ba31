package prepare

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadErrors(t *testing.T) {
	good := `{"kind":"topic-memory","scope_id":"s","artifact_id":"t","revision":1,"body":"CANARY a"}`
	tests := []struct {
		name, line, want string
	}{
		{"malformed", `{"kind":"topic-memory", CANARY`, "x.jsonl:2: not an artifact record: malformed JSON"},
		{"unknown field", `{"kind":"topic-memory","scope_id":"s","artifact_id":"t2","revision":1,"body":"CANARY","secret":"CANARY"}`, "x.jsonl:2: not an artifact record: unknown field"},
		{"bad kind", `{"kind":"CANARY","scope_id":"s"}`, "x.jsonl:2: kind must be"},
		{"id not a token", `{"kind":"experience","scope_id":"s","artifact_id":"a b CANARY","revision":1,"body":"CANARY"}`, "x.jsonl:2: artifact_id must be a token"},
		{"revision", `{"kind":"experience","scope_id":"s","artifact_id":"a","revision":0,"body":"CANARY"}`, "x.jsonl:2: revision must be >= 1"},
		{"memory without entries", `{"kind":"atomic-memory","scope_id":"s","artifact_id":"a","revision":1,"body":"CANARY"}`, "x.jsonl:2: atomic-memory needs entries"},
		{"duplicate revision", good, "x.jsonl:2: duplicate artifact revision"},
		{"absolute code path", `{"kind":"code","scope_id":"s","fingerprint":"f","path":"/etc/CANARY","start_line":1,"body":"CANARY"}`, "x.jsonl:2: code path must be repository-relative"},
		{"unknown lifecycle target", `{"kind":"lifecycle","scope_id":"s","family":"topic-memory","artifact_id":"zz","action":"forget"}`, "x.jsonl:2: lifecycle names an artifact"},
		{"bad lifecycle action", `{"kind":"lifecycle","scope_id":"s","family":"topic-memory","artifact_id":"t","action":"CANARY"}`, "x.jsonl:2: lifecycle action must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, _ := Open(":memory:")
			defer st.Close()
			_, err := st.Load(strings.NewReader(good+"\n"+tt.line+"\n"), "x.jsonl")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || strings.Contains(err.Error(), "CANARY") {
				t.Fatalf("got %v, want prefix %q", err, tt.want)
			}
			bodies, _ := st.Bodies(context.Background(), []string{"s"})
			if len(bodies) != 0 {
				t.Fatal("a bad line must import nothing of its file")
			}
		})
	}
}

var update = flag.Bool("update", false, "rewrite testdata golden files")

// TestGoldenDemo pins the demo receipt, recall effort and trace:
// the injected clock and id source make them byte-stable.
func TestGoldenDemo(t *testing.T) {
	data, err := os.ReadFile("../../samples/prepare/artifacts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	st, _ := Open(":memory:")
	defer st.Close()
	if _, err := st.Load(bytes.NewReader(data), "artifacts.jsonl"); err != nil {
		t.Fatal(err)
	}
	g := DefaultGatePolicy()
	req := Request{ScopeIDs: []string{"project:payments", "project:shared"}, Query: "Why did we choose SQLite for the payments ledger? CANARYQ", IncludeReceipt: true}
	res := doPrepare(t, st, Options{Gate: &g, Reranker: LexicalReranker{}}, req)
	out := render(t, st, res, req)
	// The receipt only: the content is the injection (raw by design); the
	// receipt's content_digest pins it.
	rb, _ := json.MarshalIndent(res.Context.Receipt, "", "  ")
	for name, got := range map[string][]byte{"demo.receipt.json": append(rb, '\n'), "demo.otel.json": out.Trace, "demo.effort.json": out.Effort} {
		path := filepath.Join("testdata", name)
		if *update {
			os.MkdirAll("testdata", 0o755)
			os.WriteFile(path, got, 0o644)
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./internal/prepare -run TestGoldenDemo -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the golden file", name)
		}
	}
	if res.Start != time.Date(2026, 11, 30, 8, 0, 0, 1e6, time.UTC) {
		t.Fatal("the injected clock must drive the timings")
	}
}

// TestLoadDuplicateCode: a code snippet loaded twice is the store's UNIQUE
// constraint, told by the driver's result code, not by its message.
func TestLoadDuplicateCode(t *testing.T) {
	code := `{"kind":"code","scope_id":"s","fingerprint":"f","path":"a.go","start_line":1,"body":"CANARY body"}`
	st, _ := Open(":memory:")
	defer st.Close()
	_, err := st.Load(strings.NewReader(code+"\n"+code+"\n"), "x.jsonl")
	if err == nil || !strings.HasPrefix(err.Error(), "x.jsonl:2: duplicate code snippet") || strings.Contains(err.Error(), "CANARY") {
		t.Fatalf("got %v", err)
	}
}
