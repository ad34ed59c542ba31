package prepare

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// rec is one artifacts JSONL record.
type rec map[string]any

func mem(scope, id string, rev int, bodies ...string) rec {
	var es []map[string]string
	for i, b := range bodies {
		es = append(es, map[string]string{"entry_id": fmt.Sprintf("e%d", i+1), "entry_version_id": fmt.Sprintf("e%d.v%d", i+1, rev), "body": b})
	}
	return rec{"kind": FamilyMemory, "scope_id": scope, "artifact_id": id, "revision": rev, "entries": es}
}

func art(kind, scope, id string, rev int, body string) rec {
	return rec{"kind": kind, "scope_id": scope, "artifact_id": id, "revision": rev, "body": body}
}

func codeRec(scope, fp, path string, start int, body string) rec {
	return rec{"kind": FamilyCode, "scope_id": scope, "fingerprint": fp, "path": path, "start_line": start, "body": body}
}

func jsonl(recs ...rec) []byte {
	var b bytes.Buffer
	for _, r := range recs {
		j, _ := json.Marshal(r)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func openWith(t *testing.T, recs ...rec) *Store {
	t.Helper()
	st, err := Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Load(bytes.NewReader(jsonl(recs...)), "fixture.jsonl"); err != nil {
		t.Fatal(err)
	}
	return st
}

// fixed gives a deterministic clock (1 ms per reading) and receipt ids.
func fixed(opt Options) Options {
	t0 := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	n := 0
	opt.Clock = func() time.Time { n++; return t0.Add(time.Duration(n) * time.Millisecond) }
	ids := 0
	opt.NewID = func() string { ids++; return fmt.Sprintf("00000000-0000-4000-8000-%012d", ids) }
	return opt
}

func doPrepare(t *testing.T, st *Store, opt Options, req Request) Result {
	t.Helper()
	res, err := NewRuntime(st, fixed(opt)).Prepare(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// body makes a CANARY body of about n bytes holding the given words.
func body(n int, words ...string) string {
	s := "CANARY " + strings.Join(words, " ") + " "
	for len(s) < n {
		s += "filler text "
	}
	return s[:n]
}

// render runs the whole output pipeline and fails on any error; it also
// asserts CANARY never reaches a checked output.
func render(t *testing.T, st *Store, res Result, req Request) Output {
	t.Helper()
	bodies, err := st.Bodies(context.Background(), req.ScopeIDs)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Render(res, req, bodies, true)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	if res.Context.Receipt != nil {
		rb, _ := json.Marshal(res.Context.Receipt)
		if bytes.Contains(rb, []byte("CANARY")) {
			t.Fatal("CANARY in receipt")
		}
	}
	for _, b := range [][]byte{out.Trace, out.Effort, []byte(out.Diagnostic)} {
		if bytes.Contains(b, []byte("CANARY")) {
			t.Fatal("CANARY in trace, effort or diagnostic")
		}
	}
	return out
}

func keys(t *testing.T, doc []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, k := range []string{"schema", "status", "content", "content_bytes", "receipt"} {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	if len(out) != len(m) {
		t.Fatalf("unexpected keys in %s", doc)
	}
	return out
}

func omitted(r *Receipt, fam, reason string) int {
	for _, g := range r.Omitted {
		if g.Family == fam && g.Reason == reason {
			return g.Count
		}
	}
	return 0
}
