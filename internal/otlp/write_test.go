package otlp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/receipt"
)

// oldWrite is Write as it was before it streamed: the whole document as
// JSON structs, encoded at once. Write must produce the same bytes.
func oldWrite(w io.Writer, t Trace) error {
	buf, err := oldEncode(t)
	if err != nil {
		return err
	}
	if len(buf) > IndentLimit {
		_, err := w.Write(buf)
		return err
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, buf, "", "  "); err != nil {
		return err
	}
	_, err = w.Write(ind.Bytes())
	return err
}

// oldEncode is the compact document, newline included.
func oldEncode(t Trace) ([]byte, error) {
	spans := make([]jsonSpan, len(t.Spans))
	for i, s := range t.Spans {
		spans[i] = jsonSpanOf(s, t.LegacyGenAINames)
	}
	doc := jsonTraces{ResourceSpans: []jsonResourceSpans{{
		Resource:   jsonResource{Attributes: keyValues(t.Resource)},
		ScopeSpans: []jsonScopeSpans{{Scope: jsonScope{Name: t.ScopeName, Version: t.ScopeVersion, Attributes: keyValues(scopeAttrs)}, Spans: spans, SchemaURL: SchemaURL}},
		SchemaURL:  SchemaURL,
	}}}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(doc)
	return buf.Bytes(), err
}

// testTrace has n spans with every kind of value, event, link and status,
// HTML-ish and non-ASCII text, and a root name of pad bytes.
func testTrace(n, pad int) Trace {
	tid := NewTraceID("test", fmt.Sprint(n))
	tr := Trace{Resource: receipt.Attrs{{Key: "service.name", Value: receipt.S("claude-code")}},
		ScopeName: "convert/test", ScopeVersion: "0.1.0"}
	if n%2 == 1 {
		tr.ScopeVersion = ""
	}
	for i := 0; i < n; i++ {
		s := Span{TraceID: tid, SpanID: NewSpanID(tid, fmt.Sprint(i)), Name: fmt.Sprintf("execute_tool <b>&%d é\u2028", i),
			Kind: i % 4, Start: int64(i) * 1e9, End: int64(i)*1e9 + 5, Error: i%3 == 0,
			Attrs: receipt.Attrs{{Key: "a.s", Value: receipt.S("x\"y\\z\n")}, {Key: "a.i", Value: receipt.Copied(-int64(i) << 40)},
				{Key: "a.f", Value: receipt.F(float64(i) / 7)}, {Key: "a.b", Value: receipt.B(i%2 == 0)},
				{Key: "a.l", Value: receipt.L([]string{"p", "q"})}, {Key: "a.e", Value: receipt.L(nil)}}}
		if i == 0 {
			s.Name = strings.Repeat("r", pad)
		} else {
			s.Parent = NewSpanID(tid, "0")
		}
		if i%5 == 1 {
			s.Events = []Event{{Name: "e", Time: int64(i), Attrs: receipt.Attrs{{Key: "k", Value: receipt.Copied(1)}}}, {Name: "f", Time: 2}}
		}
		if i%7 == 2 {
			s.Links = []Link{{TraceID: NewTraceID("other"), SpanID: NewSpanID(tid, "l"), Attrs: receipt.Attrs{{Key: "k", Value: receipt.S("v")}}}, {TraceID: tid, SpanID: s.SpanID}}
		}
		tr.Spans = append(tr.Spans, s)
	}
	return tr
}

// TestWriteStreams: Write gives the bytes of encoding the document whole,
// small (indented), large (compact) and at the indent limit's edge.
func TestWriteStreams(t *testing.T) {
	size := func(tr Trace) int {
		b, err := oldEncode(tr)
		if err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	cases := []Trace{{ScopeName: "s"}, testTrace(1, 1), testTrace(2, 3), testTrace(40, 10), testTrace(3000, 10)}
	legacy := testTrace(40, 10)
	legacy.LegacyGenAINames = true
	cases = append(cases, legacy)
	// Pad the root's name so the compact document is one byte short of
	// the limit, at it, and one byte past it.
	base := testTrace(1500, 0)
	n := size(base)
	if n >= IndentLimit {
		t.Fatalf("test setup: base trace already %d bytes", n)
	}
	for _, d := range []int{-1, 0, 1} {
		tr := testTrace(1500, IndentLimit-n+d)
		if got := size(tr); got != IndentLimit+d {
			t.Fatalf("test setup: padded trace is %d bytes, want %d", got, IndentLimit+d)
		}
		cases = append(cases, tr)
	}
	for i, tr := range cases {
		var got, want bytes.Buffer
		compact, err := WriteEachCompact(&got, tr, slices.Values(tr.Spans))
		if err != nil {
			t.Fatal(err)
		}
		sameCompact(t, fmt.Sprintf("case %d", i), got.Bytes(), compact)
		if err := oldWrite(&want, tr); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("case %d (%d bytes): Write differs from encoding the document whole", i, want.Len())
		}
		if p := Validate(got.Bytes()); len(tr.Spans) > 0 && len(p) > 0 {
			t.Fatalf("case %d: invalid: %v", i, p)
		}
	}
}

// WriteEach writes Write's bytes, small (indented) and large (streamed)
// documents alike, asking for each span only when it is its turn.
func TestWriteEach(t *testing.T) {
	for _, n := range []int{0, 1, 7, 3000} {
		tr := testTrace(n, 10)
		want := mustWrite(t, tr)
		var got bytes.Buffer
		made := 0
		spans := tr.Spans
		each := func(yield func(Span) bool) {
			for i, s := range spans {
				made++
				if made != i+1 {
					t.Fatalf("span %d made out of turn", i)
				}
				if !yield(s) {
					return
				}
			}
		}
		tr.Spans = nil
		if err := WriteEach(&got, tr, each); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("%d spans: WriteEach wrote other bytes than Write", n)
		}
		if made != len(spans) {
			t.Fatalf("%d spans: %d made", n, made)
		}
	}
	if n := 3000; len(mustWrite(t, testTrace(n, 10))) <= IndentLimit {
		t.Fatalf("test setup: %d spans do not pass IndentLimit", n)
	}
}

// sameCompact fails t unless compact is what the checks of a written
// trace may read in its place: nil when the trace was written compact,
// else the written trace compacted, byte for byte.
func sameCompact(t *testing.T, name string, written, compact []byte) {
	t.Helper()
	var c bytes.Buffer
	if err := json.Compact(&c, written); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c.WriteByte('\n')
	indented := !bytes.Equal(c.Bytes(), written)
	switch {
	case !indented && compact != nil:
		t.Fatalf("%s: written compact, yet a compact form returned", name)
	case indented && !bytes.Equal(compact, c.Bytes()):
		t.Fatalf("%s: the compact form returned is not the written trace compacted", name)
	}
}

func mustWrite(t *testing.T, tr Trace) []byte {
	var b bytes.Buffer
	if err := Write(&b, tr); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// jsonSpanOf is a span as the JSON structs encoding/json writes: the
// reference appendSpan must match byte for byte.
func jsonSpanOf(s Span, legacy bool) jsonSpan {
	js := jsonSpan{
		TraceID: s.TraceID.String(), SpanID: s.SpanID.String(), Name: s.Name, Kind: s.Kind,
		StartTimeUnixNano: strconv.FormatInt(s.Start, 10), EndTimeUnixNano: strconv.FormatInt(s.End, 10),
		Attributes: spanAttributes(s, legacy),
	}
	if s.Error {
		js.Status = &jsonStatus{Code: 2}
	}
	if !s.Parent.IsZero() {
		p := s.Parent.String()
		js.ParentSpanID = &p
	}
	for _, e := range s.Events {
		js.Events = append(js.Events, jsonEvent{TimeUnixNano: strconv.FormatInt(e.Time, 10), Name: e.Name, Attributes: keyValues(e.Attrs)})
	}
	for _, l := range s.Links {
		js.Links = append(js.Links, jsonLink{TraceID: l.TraceID.String(), SpanID: l.SpanID.String(), Attributes: keyValues(l.Attrs)})
	}
	return js
}

// spanAttributes writes a span's attributes, its structured ones after
// them, and with legacy set the old name of each renamed GenAI attribute
// right after its current one.
func spanAttributes(s Span, legacy bool) []jsonKeyValue {
	out := keyValues(s.Attrs)
	if legacy {
		var with []jsonKeyValue
		for _, kv := range out {
			with = append(with, kv)
			if old, ok := LegacyNames[kv.Key]; ok {
				if _, dup := s.Attrs.Get(old); !dup {
					with = append(with, jsonKeyValue{Key: old, Value: kv.Value})
				}
			}
		}
		out = with
	}
	for _, l := range s.Lists {
		arr := &jsonArrayValue{Values: make([]jsonAnyValue, 0, len(l.Entries))}
		for _, e := range l.Entries {
			arr.Values = append(arr.Values, jsonAnyValue{KvlistValue: &jsonKvlist{Values: keyValues(e)}})
		}
		out = append(out, jsonKeyValue{Key: l.Key, Value: jsonAnyValue{ArrayValue: arr}})
	}
	return out
}

// TestAppendSpanMatchesEncodingJSON: appendSpan writes encoding/json's
// bytes for the span's JSON structs, on the strings and numbers where the
// two could part: every control character, DEL, invalid UTF-8, U+2028 and
// U+2029, HTML characters, and floats at the exponent-form edges.
func TestAppendSpanMatchesEncodingJSON(t *testing.T) {
	var texts []string
	for c := 0; c < 0x80; c++ {
		texts = append(texts, "a"+string(rune(c))+"b")
	}
	texts = append(texts, "", "\xff", "ok\xc3", "\xe2\x80\xa8|\xe2\x80\xa9", "<b>&amp;</b>", "é€𝄞", "\xed\xa0\x80")
	floats := []float64{0, math.Copysign(0, -1), 1, -1.5, 1e-6, 9.99e-7, 1e-7, 1.5e-300, 1e20, 1e21, -1e21, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64}
	tid := NewTraceID("append")
	for i, text := range texts {
		f := floats[i%len(floats)]
		s := Span{TraceID: tid, SpanID: NewSpanID(tid, text), Name: text, Kind: i % 4, Start: int64(i), End: -int64(i), Error: i%2 == 0,
			Attrs: receipt.Attrs{{Key: text, Value: receipt.S(text)}, {Key: "f", Value: receipt.F(f)}, {Key: "gen_ai.usage.cache_write.input_tokens", Value: receipt.L([]string{text, ""})},
				{Key: "i", Value: receipt.Copied(math.MinInt64)}, {Key: "b", Value: receipt.B(i%3 == 0)}, {Key: "z", Value: receipt.Value{}}}}
		if i%4 == 1 {
			s.Parent = NewSpanID(tid, "p")
			s.Attrs = nil
		}
		if i%5 == 0 {
			s.Lists = []List{{Key: "gen_ai.skills", Entries: []receipt.Attrs{{{Key: "name", Value: receipt.S(text)}}, nil}}}
		}
		if i%3 == 0 {
			s.Events = []Event{{Name: text, Time: 7, Attrs: receipt.Attrs{{Key: "k", Value: receipt.F(f)}}}, {Name: "e"}}
			s.Links = []Link{{TraceID: tid, SpanID: s.SpanID, Attrs: receipt.Attrs{{Key: text, Value: receipt.Copied(1)}}}, {TraceID: tid}}
		}
		for _, legacy := range []bool{false, true} {
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(jsonSpanOf(s, legacy)); err != nil {
				t.Fatal(err)
			}
			got, err := appendSpan(nil, s, legacy)
			if err != nil {
				t.Fatal(err)
			}
			if w := bytes.TrimSuffix(want.Bytes(), []byte{'\n'}); !bytes.Equal(got, w) {
				t.Errorf("span %d (legacy %v):\n got %s\nwant %s", i, legacy, got, w)
			}
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := appendSpan(nil, Span{Attrs: receipt.Attrs{{Key: "f", Value: receipt.F(f)}}}, false); err == nil {
			t.Errorf("float %v: no error (encoding/json refuses it)", f)
		}
	}
}

// TestWriteLine: the file-exporter line is the document encoded whole,
// compact, one line ending in a newline, whatever its size, and a valid
// trace.
func TestWriteLine(t *testing.T) {
	for i, tr := range []Trace{{ScopeName: "s"}, testTrace(1, 1), testTrace(40, 10), testTrace(3000, 10)} {
		want, err := oldEncode(tr)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WriteLine(&got, tr, slices.Values(tr.Spans)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("case %d: WriteLine differs from the document encoded whole", i)
		}
		if bytes.Count(got.Bytes(), []byte{'\n'}) != 1 || !bytes.HasSuffix(got.Bytes(), []byte{'\n'}) {
			t.Fatalf("case %d: not one line", i)
		}
		if p := Validate(got.Bytes()); len(tr.Spans) > 0 && len(p) > 0 {
			t.Fatalf("case %d: invalid: %v", i, p)
		}
	}
}
