package report

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/internal/untrusted"
	"github.com/tidwall/gjson"
)

// Timeline is one session's span waterfall (agent, chat, tool, subagent
// spans from its trace) with its context events as markers on it.
type Timeline struct {
	Session    string   `json:"session"`
	Agent      string   `json:"agent"`
	Start      string   `json:"start,omitempty"`
	DurationMS int64    `json:"duration_ms"`
	Spans      []Span   `json:"spans"`
	MoreSpans  int      `json:"spans_not_shown"`
	Markers    []Marker `json:"markers"`
}

// Span is one bar of the waterfall; times are milliseconds from the start.
type Span struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Depth   int    `json:"depth"`
	StartMS int64  `json:"start_ms"`
	EndMS   int64  `json:"end_ms"`
	Error   bool   `json:"error"`
}

// Marker is one receipt event on the span it belongs to.
type Marker struct {
	Span  string `json:"span"`
	AtMS  int64  `json:"at_ms"`
	Name  string `json:"name"`
	Attrs []Attr `json:"attributes"`
}

// Attr is one receipt attribute, as text.
type Attr struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// maxSpans bounds one waterfall: a long session has thousands of spans.
const maxSpans = 400

type rawSpan struct {
	id, parent, name string
	start, end       int64
	err              bool
}

// readTrace returns the spans of an OTLP/JSON document, or of an OTLP
// file-exporter file (one TracesData per line).
func readTrace(doc []byte) ([]rawSpan, error) {
	var out []rawSpan
	parse := func(d []byte) error {
		if !jsonscan.Valid(d) {
			return fmt.Errorf("not OTLP/JSON")
		}
		gjson.GetBytes(d, "resourceSpans").ForEach(func(_, rs gjson.Result) bool {
			rs.Get("scopeSpans").ForEach(func(_, ss gjson.Result) bool {
				ss.Get("spans").ForEach(func(_, sp gjson.Result) bool {
					out = append(out, rawSpan{id: sp.Get("spanId").Str, parent: sp.Get("parentSpanId").Str, name: sp.Get("name").Str,
						start: sp.Get("startTimeUnixNano").Int(), end: sp.Get("endTimeUnixNano").Int(), err: sp.Get("status.code").Int() == 2})
					return true
				})
				return true
			})
			return true
		})
		return nil
	}
	trimmed := bytes.TrimSpace(doc)
	if jsonscan.Valid(trimmed) {
		return out, parse(trimmed)
	}
	for i, l := range bytes.Split(trimmed, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if err := parse(l); err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
	}
	return out, nil
}

// buildTimeline lays out a session's spans depth first, children by start.
func buildTimeline(s *Session) (Timeline, error) {
	tl := Timeline{Session: s.ID, Agent: s.Agent, Spans: []Span{}, Markers: []Marker{}}
	doc := s.Trace
	if doc == nil && s.TracePath != "" {
		b, err := os.ReadFile(s.TracePath)
		if err != nil {
			return tl, fmt.Errorf("%s: cannot read the trace", s.TracePath)
		}
		doc = b
	}
	var spans []rawSpan
	if doc != nil {
		var err error
		if spans, err = readTrace(doc); err != nil {
			return tl, fmt.Errorf("%s:%v", s.TracePath, err)
		}
	}
	var t0, t1 int64
	for _, sp := range spans {
		if t0 == 0 || sp.start < t0 {
			t0 = sp.start
		}
		t1 = max(t1, sp.end)
	}
	for i := range s.Events {
		if t := s.Events[i].Time; !t.IsZero() {
			if n := t.UnixNano(); t0 == 0 || n < t0 {
				t0 = n
			}
			t1 = max(t1, s.Events[i].Time.UnixNano())
		}
	}
	if t0 > 0 {
		tl.Start = stamp(unixNano(t0))
		tl.DurationMS = (t1 - t0) / 1e6
	}
	ids := map[string]bool{}
	for _, sp := range spans {
		ids[sp.id] = true
	}
	kids := map[string][]rawSpan{}
	for _, sp := range spans {
		p := sp.parent
		if !ids[p] {
			p = ""
		}
		kids[p] = append(kids[p], sp)
	}
	for _, k := range kids {
		sort.SliceStable(k, func(i, j int) bool { return k[i].start < k[j].start })
	}
	var walk func(parent string, depth int)
	walk = func(parent string, depth int) {
		for _, sp := range kids[parent] {
			if len(tl.Spans) >= maxSpans {
				tl.MoreSpans++
			} else {
				// a trace file may come from anywhere: its ids and names are screened
				tl.Spans = append(tl.Spans, Span{ID: showHex(sp.id, 16), Name: spanName(sp.name), Depth: depth, StartMS: (sp.start - t0) / 1e6, EndMS: (sp.end - t0) / 1e6, Error: sp.err})
			}
			walk(sp.id, depth+1)
		}
	}
	walk("", 0)
	for i := range s.Events {
		e := &s.Events[i]
		if e.Time.IsZero() || e.Name == "convert.summary" {
			continue
		}
		m := Marker{Span: e.SpanID, AtMS: (e.Time.UnixNano() - t0) / 1e6, Name: e.Name, Attrs: []Attr{}}
		for _, k := range sortedKeys(e.Attrs) {
			if strings.HasPrefix(k, "privacy.") || k == "session.id" || k == "gen_ai.conversation.id" {
				continue
			}
			m.Attrs = append(m.Attrs, Attr{Key: k, Value: text(e.Attrs[k])})
		}
		tl.Markers = append(tl.Markers, m)
	}
	return tl, nil
}

func text(v gjson.Result) string {
	if v.IsArray() {
		var parts []string
		for _, x := range v.Array() {
			parts = append(parts, x.String())
		}
		return strings.Join(parts, ", ")
	}
	return v.String()
}

// AddTimelines builds the waterfalls of the n most recent sessions in the
// report (all when n < 0), in the report's session order.
func AddTimelines(r *Report, n int) error {
	ss := r.order
	if n >= 0 && len(ss) > n {
		ss = ss[len(ss)-n:]
	}
	r.Timelines = []Timeline{}
	for _, s := range ss {
		tl, err := buildTimeline(s)
		if err != nil {
			return err
		}
		r.Timelines = append(r.Timelines, tl)
	}
	return nil
}

func unixNano(n int64) time.Time { return time.Unix(0, n).UTC() }

// spanName is a span's name as the timeline shows it. A trace file may
// come from anywhere, so each word of the name is screened on its own, as
// the attribute its operation names (GenAI span names are "{operation}
// {model, tool or agent}"), and a digest is shown short, as the tables
// show digests: never the whole name withheld for one word.
//
//	chat claude-opus-4-7                chat claude-opus-4-7
//	execute_tool sha256:afd8…(64 hex)   execute_tool sha256:afd834a1e653…
//	execute_tool alice@example.com      execute_tool sha256:…(withheld: no tool name)
func spanName(n string) string {
	words := strings.Split(n, " ")
	key := spanNameKeys[words[0]]
	for i, w := range words {
		switch {
		case receipt.IsDigest(w):
			words[i] = short(w)
		case i > 0 && key != "":
			words[i] = untrusted.Field(key, w)
		default:
			words[i] = untrusted.Show(w)
		}
	}
	return strings.Join(words, " ")
}

// spanNameKeys is the attribute the word after a GenAI operation in a
// span's name stands for.
var spanNameKeys = map[string]string{"chat": "gen_ai.request.model", "execute_tool": "gen_ai.tool.name", "invoke_agent": "gen_ai.agent.name"}
