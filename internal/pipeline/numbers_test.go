package pipeline

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
)

// Numbers by provenance (issue 49): a number the program computed is not
// a copy of the input, whatever it equals; a number copied from the input
// is probed, and is a leak unless its field is a declared count.

// TestComputedNumberEqualToRawConverts: an honest Claude Code session
// whose tool call waits "timeout": 123456 and whose two responses made
// 100000 and 23456 web searches (a declared count field): the session's
// sum, gen_ai.usage.web_search_requests, is computed and converts. The
// key rule alone (gen_ai.usage.*tokens) refused it: exit 3.
func TestComputedNumberEqualToRawConverts(t *testing.T) {
	const n = "123456"
	lines := webSearchSession(n)
	for _, h := range []receipt.Hasher{{}, testKey(t)} {
		p := writeFile(t, t.TempDir(), sid+".jsonl", strings.Join(lines, "\n")+"\n")
		res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{Converter: "claude_code", Hash: h})
		if res.Err != nil {
			t.Fatalf("%s: honest session refused: %v", h.Mode(), res.Err)
		}
		if !strings.Contains(string(res.Receipt), `"gen_ai.usage.web_search_requests":`+n) {
			t.Fatalf("%s: the receipt lacks the computed sum:\n%s", h.Mode(), res.Receipt)
		}
	}
}

// webSearchSession is a Claude Code session whose two responses made
// 100000 and 23456 web searches and whose tool call waits "timeout": n.
func webSearchSession(n string) []string {
	asst := func(uuid, parent, msg, web, content string) string {
		return `{"type":"assistant","uuid":"` + uuid + `","parentUuid":"` + parent + `","sessionId":"` + sid + `","timestamp":"2026-05-01T10:00:02Z","version":"2.1.50",` +
			`"message":{"role":"assistant","model":"claude-opus-4-6","id":"` + msg + `","stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":7,"server_tool_use":{"web_search_requests":` + web + `}},` +
			`"content":` + content + `}}`
	}
	return []string{
		ccLine("user", uuidN(1), "run the tests"),
		asst(uuidN(2), uuidN(1), "msg_01A", "100000", `[{"type":"text","text":"searching"}]`),
		asst(uuidN(3), uuidN(2), "msg_01B", "23456", `[{"type":"tool_use","id":"toolu_01A","name":"Bash","input":{"command":"go test ./...","timeout":`+n+`}}]`),
	}
}

// TestLeakCheckInputByNotes: convert leakcheck OUT reads output bytes,
// which do not say which numbers were computed: LeakCheckFiles alone
// finds the computed sum above, and LeakCheckInput, which converts the
// input again for the notes, admits it as the run did. A raw number
// planted in the receipt is still found.
func TestLeakCheckInputByNotes(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, sid+".jsonl", strings.Join(webSearchSession("123456"), "\n")+"\n")
	in := Input{Path: p, Rel: filepath.Base(p)}
	res := Convert(in, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	rec := writeFile(t, dir, "out.receipt.ndjson", string(res.Receipt))
	trace := writeFile(t, dir, "out.otel.jsonl", string(res.Trace))
	planted := writeFile(t, dir, "planted.receipt.ndjson", string(res.Receipt)+`{"p":123456}`+"\n")
	for _, tc := range []struct {
		name  string
		files []string
		alone bool // LeakCheckFiles finds a number
		noted bool // LeakCheckInput does
	}{
		{"outputs as written", []string{rec, trace}, true, false},
		{"a raw number planted", []string{planted}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs, err := LeakCheckFiles([]string{p}, "", tc.files, false)
			if err != nil || anyNumber(fs) != tc.alone {
				t.Fatalf("LeakCheckFiles: %v %v, want a number finding %v", fs, err, tc.alone)
			}
			fs, err = LeakCheckInput(in, []string{p}, tc.files, false)
			if err != nil || anyNumber(fs) != tc.noted {
				t.Fatalf("LeakCheckInput: %v %v, want a number finding %v", fs, err, tc.noted)
			}
			// convert leakcheck --input LOG: the session found at the path
			// given, as run reads it, is converted again.
			fs, err = LeakCheckArgs([]string{p}, "auto", []string{p}, tc.files, false)
			if err != nil || anyNumber(fs) != tc.noted {
				t.Fatalf("LeakCheckArgs: %v %v, want a number finding %v", fs, err, tc.noted)
			}
		})
	}
}

// TestNumbersByProvenance: a test converter sums the declared count field
// "n" (computed) and copies the undeclared fields "copy" and "same"
// (copied), each equal to a raw number. The sum converts; a copy is
// refused, alone or sharing the sum's key (a place a copy holds is
// probed), unless the number is a declared count's (as before).
func TestNumbersByProvenance(t *testing.T) {
	const sum = `{"type":"num.record","n":100000}` + "\n" // 100000 + 23456 = 123456
	cases := []struct {
		name, rec string
		refused   bool
	}{
		{"computed sum equal to a raw number", sum + `{"type":"num.record","n":23456,"timeout":123456}`, false},
		{"computed sum, no raw number", sum + `{"type":"num.record","n":23456}`, false},
		{"copy of an undeclared raw number", `{"type":"num.record","n":1,"copy":123456,"timeout":123456}`, true},
		{"copy of a raw number at the sum's key", sum + `{"type":"num.record","n":23456,"same":123456}`, true},
		{"copy of a declared count", `{"type":"num.record","n":123456,"same":123456}`, false},
		{"copy of a raw number of 5 digits", `{"type":"num.record","n":1,"copy":12345,"timeout":12345}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "num.jsonl", tc.rec+"\n")
			res := Convert(Input{Path: p, Rel: "num.jsonl"}, Options{Converter: "test_numbers"})
			var le *LeakError
			if got := errors.As(res.Err, &le); got != tc.refused {
				t.Fatalf("refused %v, want %v (err %v)", got, tc.refused, res.Err)
			}
			if !tc.refused && gjson.GetBytes(res.Trace, `resourceSpans.0.scopeSpans.0.spans.0.attributes.#(key=="test.sum").value.intValue`).Str == "" {
				t.Fatalf("no test.sum in the trace: %s", res.Trace)
			}
		})
	}
}

// numbersState sums "n" (receipt.Computed) onto the root span, copies
// "copy" (receipt.Copied) onto a child span, and "same" onto a child span
// under the sum's key.
type numbersState struct {
	sum  int64
	kids []converters.Span
}

func (s *numbersState) Record(r converters.Record, out *converters.Output) error {
	s.sum += r.Get("n").Int()
	for _, f := range []struct{ field, key string }{{"copy", "test.copy"}, {"same", "test.sum"}} {
		if v := r.Get(f.field); v.Exists() {
			s.kids = append(s.kids, converters.Span{Key: f.field, Name: "execute_tool", Attrs: receipt.Attrs{{Key: f.key, Value: receipt.Copied(v.Int())}}})
		}
	}
	return nil
}

func (s *numbersState) End(out *converters.Output) error {
	out.Span.Set("test.sum", receipt.Computed(s.sum))
	out.Spans = append(out.Spans, s.kids...)
	return nil
}

func init() {
	converters.Register(converters.Converter{
		Name: "test_numbers", Doc: "test only: a computed sum and copied numbers", SpanName: "invoke_agent",
		TypeField: "type", Types: []string{"num.record"}, PassThrough: leak.Paths{"n": leak.Count},
		New: func(converters.Env) converters.State { return &numbersState{} },
	})
}
