package otlp

import (
	"bytes"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/receipt"
)

func sample(t testing.TB) []byte {
	t.Helper()
	tid := NewTraceID("test", "session-1")
	root := NewSpanID(tid, "root")
	var b bytes.Buffer
	err := Write(&b, Trace{
		Resource:  receipt.Attrs{{Key: "service.name", Value: receipt.S("convert")}},
		ScopeName: "convert/test", ScopeVersion: "0.1.0",
		Spans: []Span{
			{TraceID: tid, SpanID: root, Name: "agent.session", Kind: KindInternal, Start: 10, End: 20,
				Attrs:  receipt.Attrs{{Key: "n", Value: receipt.Copied(1 << 62)}, {Key: "f", Value: receipt.F(0.5)}, {Key: "l", Value: receipt.L([]string{"a", "b"})}},
				Events: []Event{{Name: "e", Time: 15, Attrs: receipt.Attrs{{Key: "b", Value: receipt.B(false)}}}}},
			{TraceID: tid, SpanID: NewSpanID(tid, "child"), Parent: root, Name: "execute_tool", Kind: KindInternal, Start: 12, End: 12},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestWriteIsValid(t *testing.T) {
	doc := sample(t)
	if p := Validate(doc); len(p) > 0 {
		t.Fatalf("our own output is invalid: %v", p)
	}
	for _, want := range []string{`"intValue": "4611686018427387904"`, `"kind": 1`, `"startTimeUnixNano": "10"`, `"schemaUrl": "` + SchemaURL + `"`} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("output lacks %s", want)
		}
	}
	if strings.Count(string(doc), "parentSpanId") != 1 {
		t.Errorf("parentSpanId must be written for the child only")
	}
}

func TestValidateRejects(t *testing.T) {
	good := string(sample(t))
	tid := NewTraceID("test", "session-1").String()
	tests := []struct{ name, from, to, want string }{
		{"unknown field", `"kind": 1`, `"kind": 1, "kindd": 2`, "unknown field"},
		{"short trace id", `"traceId": "` + tid + `"`, `"traceId": "` + tid[:30] + `"`, "32 lowercase hex"},
		{"uppercase span id", `"spanId": "`, `"spanId": "ABCDEF0123456789", "x": "`, "unknown field"},
		{"base64-looking id", `"traceId": "` + tid + `"`, `"traceId": "AAAAAAAAAAAAAAAAAAAAAA=="`, "32 lowercase hex"},
		{"zero trace id", `"traceId": "` + tid + `"`, `"traceId": "00000000000000000000000000000000"`, "all zero"},
		{"empty parent", `"spanId": "`, `"parentSpanId": "", "spanId": "`, "16 lowercase hex"},
		{"int as number", `"intValue": "4611686018427387904"`, `"intValue": 5`, "not OTLP/JSON"},
		{"time as number", `"startTimeUnixNano": "10"`, `"startTimeUnixNano": 10`, "not OTLP/JSON"},
		{"end before start", `"endTimeUnixNano": "20"`, `"endTimeUnixNano": "9"`, "before"},
		{"two values in one AnyValue", `"boolValue": false`, `"boolValue": false, "stringValue": "x"`, "exactly one"},
		{"no schemaUrl", `"schemaUrl": "` + SchemaURL + `"`, `"schemaUrl": ""`, "schemaUrl"},
		{"trailing data", "}\n", "}\n{}", "trailing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(good, tt.from) {
				t.Fatalf("test setup: %q not in the sample", tt.from)
			}
			bad := strings.Replace(good, tt.from, tt.to, 1)
			if tt.name == "trailing data" {
				bad = strings.TrimSuffix(good, "\n") + "\n{}"
			}
			probs := Validate([]byte(bad))
			if len(probs) == 0 {
				t.Fatal("accepted")
			}
			var all []string
			for _, p := range probs {
				all = append(all, p.Error())
			}
			if !strings.Contains(strings.Join(all, "; "), tt.want) {
				t.Errorf("problems %q do not mention %q", all, tt.want)
			}
		})
	}
	if p := Validate([]byte(`{"resourceSpans":[]}`)); len(p) == 0 {
		t.Error("a document without spans was accepted")
	}
}

func TestIDsAreDeterministicAndDistinct(t *testing.T) {
	a, b := NewTraceID("c", "s1"), NewTraceID("c", "s1")
	if a != b {
		t.Fatal("same parts, different trace ids")
	}
	if NewTraceID("c", "s1") == NewTraceID("c", "s2") || NewTraceID("c1", "s") == NewTraceID("c", "1s") {
		t.Fatal("different parts, same trace id")
	}
	if NewSpanID(a, "root") == NewSpanID(a, "agent-1") {
		t.Fatal("span ids collide")
	}
}

// TestLegacyGenAINames: a renamed GenAI attribute is written under its
// current name only, and under its old name too when the trace asks for it;
// structured lists and the scope's GenAI revision are valid OTLP/JSON.
func TestLegacyGenAINames(t *testing.T) {
	tid := NewTraceID("test", "legacy")
	for _, legacy := range []bool{false, true} {
		var b bytes.Buffer
		err := Write(&b, Trace{ScopeName: "convert/test", LegacyGenAINames: legacy, Spans: []Span{{
			TraceID: tid, SpanID: NewSpanID(tid, "root"), Name: "chat m", Kind: KindClient, Start: 1, End: 2,
			Attrs: receipt.Attrs{{Key: "gen_ai.usage.cache_write.input_tokens", Value: receipt.Copied(25)}},
			Lists: []List{{Key: "gen_ai.skills", Entries: []receipt.Attrs{{{Key: "name", Value: receipt.S("s")}, {Key: "compacted", Value: receipt.B(true)}}}}},
		}}})
		if err != nil {
			t.Fatal(err)
		}
		doc := b.String()
		if p := Validate(b.Bytes()); len(p) > 0 {
			t.Fatalf("legacy=%v: invalid: %v", legacy, p)
		}
		for cur, old := range LegacyNames {
			if !strings.Contains(doc, `"key": "`+cur+`"`) {
				t.Errorf("legacy=%v: %s missing", legacy, cur)
			}
			if got := strings.Contains(doc, `"key": "`+old+`"`); got != legacy {
				t.Errorf("legacy=%v: old name %s written: %v", legacy, old, got)
			}
		}
		for _, want := range []string{`"kvlistValue"`, `"boolValue": true`, `"key": "` + GenAIConventionsKey + `"`, `"stringValue": "` + GenAIConventions + `"`} {
			if !strings.Contains(doc, want) {
				t.Errorf("legacy=%v: output lacks %s", legacy, want)
			}
		}
	}
}
