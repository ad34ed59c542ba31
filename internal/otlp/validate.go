package otlp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Problem is one way a document breaks the OTLP/JSON rules we write by.
type Problem struct {
	Line int    // 1-based line in the document, when known (0 otherwise)
	Path string // JSON path of the offending field
	Msg  string
}

func (p Problem) Error() string {
	if p.Path == "" {
		return p.Msg
	}
	return p.Path + ": " + p.Msg
}

// Validate checks one OTLP/JSON TracesData document strictly: no unknown
// fields, no trailing data, lowercase hex ids of the right length and not all
// zero, no empty parentSpanId, 64-bit integers as decimal strings, exactly one
// value per AnyValue, end >= start, schemaUrl set, at least one span.
// A document in the form Write produces is accepted in one allocation-free
// scan (fast.go); any other is decoded with encoding/json, which words the
// problems.
func Validate(doc []byte) []Problem {
	if fastValid(doc) {
		return nil
	}
	return validate(doc)
}

// validate is Validate with encoding/json: it words every problem.
func validate(doc []byte) []Problem {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	var t jsonTraces
	if err := dec.Decode(&t); err != nil {
		return []Problem{{Line: lineOf(doc, dec.InputOffset()), Msg: "not OTLP/JSON TracesData: " + err.Error()}}
	}
	if err := dec.Decode(new(json.RawMessage)); !errors.Is(err, io.EOF) {
		return []Problem{{Line: lineOf(doc, dec.InputOffset()), Msg: "trailing data after the document"}}
	}
	v := &validator{}
	if len(t.ResourceSpans) == 0 {
		v.add("resourceSpans", "no resourceSpans")
	}
	spans := 0
	for i, rs := range t.ResourceSpans {
		p := fmt.Sprintf("resourceSpans[%d]", i)
		if rs.SchemaURL == "" {
			v.add(p+".schemaUrl", "schemaUrl is not set")
		}
		v.attrs(p+".resource.attributes", rs.Resource.Attributes)
		for j, ss := range rs.ScopeSpans {
			q := fmt.Sprintf("%s.scopeSpans[%d]", p, j)
			if ss.SchemaURL == "" {
				v.add(q+".schemaUrl", "schemaUrl is not set")
			}
			if ss.Scope.Name == "" {
				v.add(q+".scope.name", "scope name is empty")
			}
			v.attrs(q+".scope.attributes", ss.Scope.Attributes)
			for k, s := range ss.Spans {
				spans++
				v.span(fmt.Sprintf("%s.spans[%d]", q, k), s)
			}
		}
	}
	if spans == 0 && len(v.probs) == 0 {
		v.add("resourceSpans", "no spans")
	}
	return v.probs
}

type validator struct{ probs []Problem }

func (v *validator) add(path, msg string) { v.probs = append(v.probs, Problem{Path: path, Msg: msg}) }

func (v *validator) span(p string, s jsonSpan) {
	v.hexID(p+".traceId", s.TraceID, 32)
	v.hexID(p+".spanId", s.SpanID, 16)
	if s.ParentSpanID != nil {
		v.hexID(p+".parentSpanId", *s.ParentSpanID, 16)
	}
	if s.Name == "" {
		v.add(p+".name", "span name is empty")
	}
	if s.Kind < 0 || s.Kind > 5 {
		v.add(p+".kind", "kind is not a SpanKind number")
	}
	start, ok1 := v.nanos(p+".startTimeUnixNano", s.StartTimeUnixNano)
	end, ok2 := v.nanos(p+".endTimeUnixNano", s.EndTimeUnixNano)
	if ok1 && ok2 && end < start {
		v.add(p, "endTimeUnixNano is before startTimeUnixNano")
	}
	if s.Status != nil && (s.Status.Code < 0 || s.Status.Code > 2) {
		v.add(p+".status.code", "status code must be 0, 1 or 2")
	}
	v.attrs(p+".attributes", s.Attributes)
	for i, e := range s.Events {
		q := fmt.Sprintf("%s.events[%d]", p, i)
		v.nanos(q+".timeUnixNano", e.TimeUnixNano)
		if e.Name == "" {
			v.add(q+".name", "event name is empty")
		}
		v.attrs(q+".attributes", e.Attributes)
	}
	for i, l := range s.Links {
		q := fmt.Sprintf("%s.links[%d]", p, i)
		v.hexID(q+".traceId", l.TraceID, 32)
		v.hexID(q+".spanId", l.SpanID, 16)
		v.attrs(q+".attributes", l.Attributes)
	}
}

func (v *validator) hexID(path, id string, n int) {
	if len(id) != n {
		v.add(path, fmt.Sprintf("id must be %d lowercase hex characters, has %d characters", n, len(id)))
		return
	}
	zero := true
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			v.add(path, "id must be lowercase hex")
			return
		}
		zero = zero && c == '0'
	}
	if zero {
		v.add(path, "id is all zero")
	}
}

func (v *validator) nanos(path, s string) (uint64, bool) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || (len(s) > 1 && s[0] == '0') {
		v.add(path, "must be a decimal string of unsigned 64-bit nanoseconds")
		return 0, false
	}
	return n, true
}

func (v *validator) attrs(p string, kvs []jsonKeyValue) {
	seen := map[string]bool{}
	for i, kv := range kvs {
		q := fmt.Sprintf("%s[%d]", p, i)
		if kv.Key == "" {
			v.add(q+".key", "attribute key is empty")
		}
		if seen[kv.Key] {
			v.add(q+".key", fmt.Sprintf("duplicate attribute key %q", kv.Key))
		}
		seen[kv.Key] = true
		v.value(q+".value", kv.Value)
	}
}

func (v *validator) value(p string, a jsonAnyValue) {
	set := 0
	for _, b := range []bool{a.StringValue != nil, a.BoolValue != nil, a.IntValue != nil, a.DoubleValue != nil, a.ArrayValue != nil, a.KvlistValue != nil} {
		if b {
			set++
		}
	}
	if set != 1 {
		v.add(p, fmt.Sprintf("AnyValue must hold exactly one value, holds %d", set))
	}
	if a.IntValue != nil {
		if _, err := strconv.ParseInt(*a.IntValue, 10, 64); err != nil {
			v.add(p+".intValue", "must be a decimal string of a signed 64-bit integer")
		}
	}
	if a.ArrayValue != nil {
		for i, e := range a.ArrayValue.Values {
			v.value(fmt.Sprintf("%s.arrayValue.values[%d]", p, i), e)
		}
	}
	if a.KvlistValue != nil {
		v.attrs(p+".kvlistValue.values", a.KvlistValue.Values)
	}
}

func lineOf(doc []byte, off int64) int {
	if off > int64(len(doc)) {
		off = int64(len(doc))
	}
	return 1 + bytes.Count(doc[:off], []byte{'\n'})
}
