package convtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/contextreceipts/convert/internal/pipeline"
)

// recorder is a testing.TB that keeps what a check reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestNoCanary: a canary or a raw string given anywhere a user sees it
// fails the check, wherever it is; a clean result passes.
func TestNoCanary(t *testing.T) {
	clean := pipeline.Result{Path: "p", Rel: "a/7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl", Receipt: []byte(`{"name":"x"}`), Trace: []byte(`{}`)}
	for _, tc := range []struct {
		name string
		res  func(pipeline.Result) pipeline.Result
		raw  []string
		errs int
	}{
		{"clean", func(r pipeline.Result) pipeline.Result { return r }, nil, 0},
		{"receipt", func(r pipeline.Result) pipeline.Result { r.Receipt = []byte("CANARY-x"); return r }, nil, 1},
		{"trace", func(r pipeline.Result) pipeline.Result { r.Trace = []byte("xCANARY"); return r }, nil, 1},
		{"warning", func(r pipeline.Result) pipeline.Result { r.Diags = []string{"a", "CANARY"}; return r }, nil, 1},
		{"error", func(r pipeline.Result) pipeline.Result { r.Err = errors.New("bad CANARY"); return r }, nil, 1},
		// A folder no agent's layout names is written as its digest (the
		// naming rule of issue #49), so the canary never reaches the
		// output name: a finding here is that rule broken.
		{"output name", func(r pipeline.Result) pipeline.Result { r.Rel = "CANARY-dir/x.jsonl"; return r }, nil, 0},
		{"raw given", func(r pipeline.Result) pipeline.Result { r.Receipt = []byte("secret-42"); return r }, []string{"secret-42"}, 1},
	} {
		r := &recorder{TB: t}
		NoCanary(r, tc.res(clean), tc.raw...)
		if len(r.errs) != tc.errs {
			t.Errorf("%s: %d findings %q, want %d", tc.name, len(r.errs), r.errs, tc.errs)
		}
	}
}

// TestReadBack: spans chain to their root, events and usage read back.
func TestReadBack(t *testing.T) {
	trace := []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[
{"spanId":"a","name":"invoke_agent x"},
{"spanId":"b","parentSpanId":"a","name":"execute_tool T","status":{"code":2},"events":[{"name":"mcp.tool_call"}],"attributes":[{"key":"k","value":{"intValue":"3"}}]},
{"spanId":"c","parentSpanId":"z","name":"chat m"}]}]}]}`)
	spans := Spans(trace)
	if got := Chain(spans, "b"); got != "execute_tool T < invoke_agent x" {
		t.Errorf("chain %q", got)
	}
	if got := Chain(spans, "c"); got != "chat m < MISSING" {
		t.Errorf("chain of an orphan %q", got)
	}
	if got := WithEvent(spans, "mcp.tool_call"); fmt.Sprint(got) != "[b]" || !spans["b"].Error || spans["b"].Attr("k") != "3" {
		t.Errorf("with event %v, span %+v", got, spans["b"])
	}
	receipt := []byte(`{"name":"gen_ai.token_usage.summarized","attributes":{"gen_ai.request.model":"m","gen_ai.usage.input_tokens":100,"gen_ai.usage.output_tokens":5,"gen_ai.usage.cache_read.input_tokens":60}}
{"name":"gen_ai.token_usage.summarized","attributes":{"gen_ai.request.model":"n","gen_ai.usage.input_tokens":1,"gen_ai.usage.responses":2}}`)
	if u := Usage(receipt); u["m"] != "in=100 out=5 cache_read=60 cache_write=0 responses=0" || u[""] != "in=101 out=5 cache_read=60 cache_write=0 responses=2" {
		t.Errorf("usage %v", u)
	}
	if f := Terms(receipt); f != (Figures{Input: 101, Output: 5, CacheRead: 60}) {
		t.Errorf("terms %+v", f)
	}
}

// TestKeepFinding: a hunt's failing input is kept as the fuzz engine keeps
// a finding (go test fuzz v1, one Go literal per argument), so go test
// replays it; the name is its digest.
func TestKeepFinding(t *testing.T) {
	t.Chdir(t.TempDir())
	keepFinding(t, "FuzzSamples", []byte("{\"a\":\"\xff\"}\n"), uint8(0))
	names, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzSamples", "hunt-*"))
	if err != nil || len(names) != 1 {
		t.Fatalf("kept %v (%v), want one file", names, err)
	}
	got, _ := os.ReadFile(names[0])
	want := "go test fuzz v1\n[]byte(\"{\\\"a\\\":\\\"\\xff\\\"}\\n\")\nbyte('\\x00')\n"
	if string(got) != want {
		t.Errorf("kept\n%s\nwant\n%s", got, want)
	}
	if len(filepath.Base(names[0])) != len("hunt-")+16 {
		t.Errorf("name %s: want hunt- and 16 hex digits", names[0])
	}
}
