// Package otlp writes and checks OTLP/JSON trace documents (TracesData), as
// the OTLP specification defines its JSON encoding: lowercase hex ids, 64-bit
// integers as decimal strings, kind as an integer, no parentSpanId on roots.
package otlp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"iter"
	"slices"
	"strconv"

	"github.com/contextreceipts/convert/internal/receipt"
)

// SchemaURL is the core semantic-conventions release the attributes
// follow (GenAIConventions names the GenAI revision; see genai.go).
const SchemaURL = "https://opentelemetry.io/schemas/1.44.0"

// Span kinds, as OTLP numbers them.
const (
	KindInternal = 1
	KindServer   = 2
	KindClient   = 3
)

// Trace is one output document: a resource, a scope and its spans.
type Trace struct {
	Resource     receipt.Attrs
	ScopeName    string
	ScopeVersion string
	Spans        []Span

	// LegacyGenAINames also writes, next to each renamed GenAI attribute,
	// the name it had before (LegacyNames), for dashboards not yet moved.
	LegacyGenAINames bool
}

// Span is one span. A zero Parent marks a root span.
type Span struct {
	TraceID    TraceID
	SpanID     SpanID
	Parent     SpanID
	Name       string
	Kind       int
	Start, End int64 // unix nanoseconds
	Error      bool  // status ERROR (a failed tool call, say); unset otherwise
	Attrs      receipt.Attrs
	Lists      []List // structured attributes, written after Attrs
	Events     []Event
	Links      []Link
}

// List is an attribute whose value is a list of maps (an OTLP arrayValue of
// kvlistValue), the structured form the GenAI conventions give gen_ai.skills.
type List struct {
	Key     string
	Entries []receipt.Attrs
}

// Link points from a span to a span of another trace (a subagent's own
// trace, the parent that spawned it).
type Link struct {
	TraceID TraceID
	SpanID  SpanID
	Attrs   receipt.Attrs
}

// Event is one span event.
type Event struct {
	Name  string
	Time  int64
	Attrs receipt.Attrs
}

// TraceID and SpanID are binary ids, written as lowercase hex.
type (
	TraceID [16]byte
	SpanID  [8]byte
)

func (t TraceID) String() string { return hex.EncodeToString(t[:]) }
func (s SpanID) String() string  { return hex.EncodeToString(s[:]) }

// IsZero reports an unset id.
func (s SpanID) IsZero() bool { return s == SpanID{} }

// NewTraceID derives a trace id from its parts, so the same input always gets
// the same id and different sessions never share one.
func NewTraceID(parts ...string) TraceID {
	var t TraceID
	copy(t[:], derive("convert.trace.v1", parts))
	return t
}

// NewSpanID derives a span id within trace t from its parts.
func NewSpanID(t TraceID, parts ...string) SpanID {
	var s SpanID
	copy(s[:], derive("convert.span.v1", append([]string{t.String()}, parts...)))
	return s
}

func derive(domain string, parts []string) []byte {
	h := sha256.New()
	h.Write([]byte(domain))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(strconv.Itoa(len(p))))
		h.Write([]byte{':'})
		h.Write([]byte(p))
	}
	sum := h.Sum(nil)
	sum[0] |= 1 // an all-zero id is invalid in OTLP; never derive one
	return sum
}

// The JSON shapes below are the OTLP/JSON field names, in the order written.
type jsonTraces struct {
	ResourceSpans []jsonResourceSpans `json:"resourceSpans"`
}

type jsonResourceSpans struct {
	Resource   jsonResource     `json:"resource"`
	ScopeSpans []jsonScopeSpans `json:"scopeSpans"`
	SchemaURL  string           `json:"schemaUrl"`
}

type jsonResource struct {
	Attributes []jsonKeyValue `json:"attributes"`
}

type jsonScopeSpans struct {
	Scope     jsonScope  `json:"scope"`
	Spans     []jsonSpan `json:"spans"`
	SchemaURL string     `json:"schemaUrl"`
}

type jsonScope struct {
	Name       string         `json:"name"`
	Version    string         `json:"version,omitempty"`
	Attributes []jsonKeyValue `json:"attributes,omitempty"`
}

type jsonSpan struct {
	TraceID           string         `json:"traceId"`
	SpanID            string         `json:"spanId"`
	ParentSpanID      *string        `json:"parentSpanId,omitempty"`
	Name              string         `json:"name"`
	Kind              int            `json:"kind"`
	StartTimeUnixNano string         `json:"startTimeUnixNano"`
	EndTimeUnixNano   string         `json:"endTimeUnixNano"`
	Attributes        []jsonKeyValue `json:"attributes,omitempty"`
	Events            []jsonEvent    `json:"events,omitempty"`
	Links             []jsonLink     `json:"links,omitempty"`
	Status            *jsonStatus    `json:"status,omitempty"`
}

type jsonLink struct {
	TraceID    string         `json:"traceId"`
	SpanID     string         `json:"spanId"`
	Attributes []jsonKeyValue `json:"attributes,omitempty"`
}

type jsonStatus struct {
	Code int `json:"code"` // 0 unset, 1 ok, 2 error
}

type jsonEvent struct {
	TimeUnixNano string         `json:"timeUnixNano"`
	Name         string         `json:"name"`
	Attributes   []jsonKeyValue `json:"attributes,omitempty"`
}

type jsonKeyValue struct {
	Key   string       `json:"key"`
	Value jsonAnyValue `json:"value"`
}

type jsonAnyValue struct {
	StringValue *string         `json:"stringValue,omitempty"`
	BoolValue   *bool           `json:"boolValue,omitempty"`
	IntValue    *string         `json:"intValue,omitempty"`
	DoubleValue *float64        `json:"doubleValue,omitempty"`
	ArrayValue  *jsonArrayValue `json:"arrayValue,omitempty"`
	KvlistValue *jsonKvlist     `json:"kvlistValue,omitempty"`
}

type jsonArrayValue struct {
	Values []jsonAnyValue `json:"values"`
}

type jsonKvlist struct {
	Values []jsonKeyValue `json:"values"`
}

// IndentLimit is the largest trace written indented, for people and diffs;
// a larger one (a long native session: tens of MB) is written compact, which
// is a third of the size and of the memory it takes to write and check.
const IndentLimit = 1 << 20

// Write encodes t as one OTLP/JSON document followed by a newline: indented
// up to IndentLimit bytes, compact beyond. It encodes one span at a time
// and, once the document is past IndentLimit, writes each to w as it goes:
// a long session's trace is never held twice, nor as JSON structs whole.
// The bytes are those of encoding the document whole (TestWriteStreams).
func Write(w io.Writer, t Trace) error { return WriteEach(w, t, slices.Values(t.Spans)) }

// WriteEach is Write with the spans made one at a time, in order, by spans
// (t.Spans is not read): a long session's spans need not all exist as
// Spans at once, and what each holds can be dropped once it is written.
// The bytes are Write's for the same spans.
func WriteEach(w io.Writer, t Trace, spans iter.Seq[Span]) error {
	_, err := WriteEachCompact(w, t, spans)
	return err
}

// WriteEachCompact is WriteEach that also returns the document compact,
// newline included, when it wrote it indented, and nil when it wrote it
// compact (a long session's, streamed): checks of the trace (Validate,
// the leak check) read the same tokens in half the bytes. Indenting only
// puts whitespace between tokens (TestIndentIsJSONIndent, FuzzIndent), and
// TestWriteStreams holds the two forms to each other.
func WriteEachCompact(w io.Writer, t Trace, spans iter.Seq[Span]) ([]byte, error) {
	d := docWriter{w: w}
	d.document(t, spans)
	if d.err != nil || d.streaming {
		return nil, d.err
	}
	// Indented, a trace is 2.1-2.3 times its compact size.
	doc := indent(make([]byte, 0, d.buf.Len()*5/2), d.buf.Bytes())
	if o, ok := w.(Owner); ok {
		o.Own(doc)
	} else if _, err := w.Write(doc); err != nil {
		return nil, err
	}
	return d.buf.Bytes(), nil
}

// WriteLine writes t as one line of the OpenTelemetry file-exporter
// layout (a compact TracesData and a newline, as the Collector's
// otlpjsonfile receiver reads), streaming it to w span by span. The bytes
// are WriteEachCompact's compact document.
func WriteLine(w io.Writer, t Trace, spans iter.Seq[Span]) error {
	d := docWriter{w: w, streaming: true}
	d.document(t, spans)
	return d.err
}

// document writes the TracesData of t with spans, one span at a time.
func (d *docWriter) document(t Trace, spans iter.Seq[Span]) {
	d.enc = json.NewEncoder(&d.piece)
	d.enc.SetEscapeHTML(false)
	d.raw(`{"resourceSpans":[{"resource":{"attributes":`)
	d.value(keyValues(t.Resource))
	d.raw(`},"scopeSpans":[{"scope":`)
	d.value(jsonScope{Name: t.ScopeName, Version: t.ScopeVersion, Attributes: keyValues(scopeAttrs)})
	d.raw(`,"spans":[`)
	first := true
	for s := range spans {
		if !first {
			d.raw(",")
		}
		first = false
		if d.span, d.err = appendSpan(d.span[:0], s, t.LegacyGenAINames); d.err != nil {
			break
		}
		d.write(d.span)
	}
	d.raw(`],"schemaUrl":`)
	d.value(SchemaURL)
	d.raw(`}],"schemaUrl":`)
	d.value(SchemaURL)
	d.raw("}]}\n")
}

// An Owner is a writer that may keep a slice it is given: WriteEach hands
// it an indented document whole, which a Write would have to copy.
type Owner interface{ Own(b []byte) }

// docWriter gathers a document in buf while it may still be indented, and
// streams it to w once it is past IndentLimit.
type docWriter struct {
	w         io.Writer
	buf       bytes.Buffer
	piece     bytes.Buffer
	enc       *json.Encoder
	span      []byte // the span being written (appendSpan), reused
	streaming bool
	err       error
}

func (d *docWriter) raw(s string) { d.write([]byte(s)) }

// value writes v as encoding/json encodes it inside a document.
func (d *docWriter) value(v any) {
	if d.err != nil {
		return
	}
	d.piece.Reset()
	if d.err = d.enc.Encode(v); d.err != nil {
		return
	}
	d.write(bytes.TrimSuffix(d.piece.Bytes(), []byte{'\n'}))
}

func (d *docWriter) write(b []byte) {
	if d.err != nil {
		return
	}
	if d.streaming {
		_, d.err = d.w.Write(b)
		return
	}
	d.buf.Write(b)
	if d.buf.Len() > IndentLimit {
		d.streaming = true
		_, d.err = d.w.Write(d.buf.Bytes())
		d.buf = bytes.Buffer{}
	}
}

func keyValues(a receipt.Attrs) []jsonKeyValue {
	out := make([]jsonKeyValue, 0, len(a))
	for _, at := range a {
		out = append(out, jsonKeyValue{Key: at.Key, Value: anyValue(at.Value)})
	}
	return out
}

func anyValue(v receipt.Value) jsonAnyValue {
	switch v.Kind {
	case receipt.Bool:
		b := v.Bool
		return jsonAnyValue{BoolValue: &b}
	case receipt.Int:
		s := strconv.FormatInt(v.Int, 10)
		return jsonAnyValue{IntValue: &s}
	case receipt.Float:
		f := v.Float()
		return jsonAnyValue{DoubleValue: &f}
	case receipt.Strings:
		arr := &jsonArrayValue{Values: make([]jsonAnyValue, 0, len(v.List()))}
		for _, s := range v.List() {
			s := s
			arr.Values = append(arr.Values, jsonAnyValue{StringValue: &s})
		}
		return jsonAnyValue{ArrayValue: arr}
	}
	s := v.Str
	return jsonAnyValue{StringValue: &s}
}
