package pipeline

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"github.com/contextreceipts/convert/converters"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/contextreceipts/convert/internal/jsonl"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/otlp"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/internal/schema"
	"github.com/tidwall/gjson"
)

func sha(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// finish builds the outputs, validates them and runs the leak check.
func (f *file) finish() (rec, trace []byte, err error) {
	set, err := schema.Load()
	if err != nil {
		return nil, nil, err
	}
	key := f.out.TraceKey
	if key == "" {
		key = receipt.FileDigest(f.sum)
	}
	tid := otlp.NewTraceID(f.conv.Name, key)
	sid := otlp.NewSpanID(tid, "root")
	f.stats.Events = len(f.out.Events)
	spanIDs, err := f.spanIDs(tid, sid)
	if err != nil {
		return nil, nil, err
	}

	var lines [][]byte
	for _, ev := range f.out.Events {
		b, err := receipt.Line{TraceID: tid.String(), SpanID: spanIDs[ev.Span].String(), Event: ev, Converter: f.conv.Name}.AppendJSON(nil)
		if err != nil {
			return nil, nil, &InputError{Path: f.path, Line: ev.Line, Converter: f.conv.Name, Msg: err.Error()}
		}
		lines = append(lines, b)
	}
	summary := f.summary(0, 0)
	sumLine, err := receipt.Line{TraceID: tid.String(), SpanID: sid.String(), Event: summary, Converter: f.conv.Name}.AppendJSON(nil)
	if err != nil {
		return nil, nil, err
	}
	lines = append(lines, sumLine)

	var tbuf bytes.Buffer
	if err := otlp.Write(&tbuf, f.trace(tid, spanIDs)); err != nil {
		return nil, nil, err
	}
	recName := OutputName(f.rel, ".receipt.ndjson")
	for i, l := range lines {
		if err := set.ValidateLine(l); err != nil {
			return nil, nil, &SchemaError{Path: recName, Line: i + 1, Msg: err.Error()}
		}
	}
	if probs := otlp.Validate(tbuf.Bytes()); len(probs) > 0 {
		return nil, nil, &SchemaError{Path: OutputName(f.rel, ".otel.json"), Line: probs[0].Line, Msg: probs[0].Error()}
	}

	chk, err := f.leakCheck(set, lines, tbuf.Bytes(), nil)
	if err != nil {
		return nil, nil, err
	}
	f.stats.Untyped = len(chk.Untyped())
	// The leak check's own figures are numbers: they cannot carry content.
	lines[len(lines)-1], err = receipt.Line{TraceID: tid.String(), SpanID: sid.String(),
		Event: f.summary(f.input.RawCount+chk.RawCount, f.input.RawBytes+chk.RawBytes), Converter: f.conv.Name}.AppendJSON(nil)
	if err != nil {
		return nil, nil, err
	}
	if err := set.ValidateLine(lines[len(lines)-1]); err != nil {
		return nil, nil, &SchemaError{Path: recName, Line: len(lines), Msg: err.Error()}
	}
	return bytes.Join(append(lines, nil), []byte{'\n'}), tbuf.Bytes(), nil
}

// summary accounts for the whole input (DESIGN 2.1).
func (f *file) summary(rawStrings, rawBytes int64) receipt.Event {
	var a receipt.Attrs
	s := f.stats
	a.Set("convert.converter", receipt.S(f.conv.Name))
	a.Set("convert.version", receipt.S(Version))
	// The file name only: directories often encode private paths (Claude
	// Code's project folders are the encoded working directory).
	a.Set("convert.input.path", receipt.S(path.Base(f.rel)))
	a.Set("convert.input.sha256", receipt.S(receipt.FileDigest(f.sum)))
	if len(f.srcs) > 1 {
		a.Set("convert.input.files", receipt.I(int64(len(f.srcs))))
		a.Set("convert.input.group_sha256", receipt.S(f.groupDigest()))
	}
	a.Set("convert.input.bytes", receipt.I(s.Bytes))
	if c := f.srcs[0].compression; c != "" {
		a.Set("convert.input.compression", receipt.S(c))
	}
	a.Set("convert.input.lines", receipt.I(s.Lines))
	a.Set("convert.input.lines.blank", receipt.I(s.Blank))
	a.Set("convert.input.records", receipt.I(s.Records))
	if s.InvalidTimes > 0 {
		a.Set("convert.input.records.invalid_time", receipt.I(s.InvalidTimes))
	}
	a.Set("convert.input.lines.skipped", receipt.I(s.Skipped))
	reasons := make([]string, 0, len(s.SkipReasons))
	for r := range s.SkipReasons {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		a.Set("convert.input.skipped."+r, receipt.I(s.SkipReasons[r]))
	}
	if len(s.UnknownTypes) > 0 {
		var ds []string
		for d := range s.UnknownTypes {
			ds = append(ds, d)
		}
		sort.Strings(ds)
		a.Set("convert.input.unknown_record_type_hashes", receipt.L(ds))
	}
	a.Set("convert.output.events", receipt.I(int64(s.Events)))
	a.Set("convert.output.spans", receipt.I(int64(1+len(f.out.Spans))))
	for _, x := range f.out.Summary {
		a.Set(x.Key, x.Value)
	}
	a.Set("convert.hash.mode", receipt.S(f.opt.Hash.Mode()))
	if id := f.opt.Hash.KeyID(); id != "" {
		a.Set("convert.hash.key_id", receipt.S(id))
	}
	a.Set("convert.leak_check.status", receipt.S("passed"))
	a.Set("convert.leak_check.raw_strings", receipt.I(rawStrings))
	a.Set("convert.leak_check.raw_bytes", receipt.I(rawBytes))
	var gaps []string
	if f.start == 0 {
		gaps = append(gaps, "no_timestamps")
	}
	if s.InvalidTimes > 0 {
		gaps = append(gaps, "invalid_timestamps")
	}
	if f.out.TraceKey == "" {
		gaps = append(gaps, "no_session_id")
	}
	if len(gaps) > 0 {
		a.Set("convert.audit_gaps", receipt.L(gaps))
	}
	return receipt.Event{Name: "convert.summary", Time: f.lastEventTime(), Attrs: a}
}

func (f *file) lastEventTime() string {
	if f.end == 0 {
		return ""
	}
	return formatTime(time.Unix(0, f.end))
}

// spanIDs derives the id of every span from its key; "" is the root. A
// duplicate key or a parent that is not an earlier span is a converter bug.
func (f *file) spanIDs(tid otlp.TraceID, root otlp.SpanID) (map[string]otlp.SpanID, error) {
	ids := map[string]otlp.SpanID{"": root}
	for _, sp := range f.out.Spans {
		if _, dup := ids[sp.Key]; dup || sp.Key == "" {
			return nil, &InputError{Path: f.in.Path, Converter: f.conv.Name, Msg: "converter bug: duplicate or empty span key"}
		}
		if _, ok := ids[sp.Parent]; !ok {
			return nil, &InputError{Path: f.in.Path, Converter: f.conv.Name, Msg: "converter bug: span parent is not an earlier span"}
		}
		ids[sp.Key] = otlp.NewSpanID(tid, sp.Key)
	}
	for _, ev := range f.out.Events {
		if _, ok := ids[ev.Span]; !ok {
			return nil, &InputError{Path: f.in.Path, Converter: f.conv.Name, Msg: "converter bug: event names an unknown span"}
		}
	}
	return ids, nil
}

// groupDigest binds every file of an input group: sha256 over the sorted
// lines "rel sha256:<hex>".
func (f *file) groupDigest() string {
	var lines []string
	for _, s := range f.srcs {
		lines = append(lines, s.rel+" "+receipt.FileDigest(s.sum))
	}
	sort.Strings(lines)
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return receipt.FileDigest(sha(b.String()))
}

// trace builds the OTLP document: the root span for the run, the
// converter's child spans, and every receipt event (the summary too, on the
// root) as an event of its span.
func (f *file) trace(tid otlp.TraceID, ids map[string]otlp.SpanID) otlp.Trace {
	var attrs receipt.Attrs
	attrs = append(attrs, f.out.Span...)
	attrs.Set("convert.converter", receipt.S(f.conv.Name))
	attrs.Set("convert.input.sha256", receipt.S(receipt.FileDigest(f.sum)))
	// The trace is the agent's: its service is the agent (claude-code,
	// codex, ...), its root "invoke_agent <agent>"; convert is the
	// instrumentation scope and the telemetry.sdk that wrote it.
	agent := f.conv.Name
	if v, ok := f.out.Span.Get("gen_ai.agent.name"); ok && v.Kind == receipt.String && v.Str != "" {
		agent = v.Str
	}
	service := agent
	if f.opt.ServiceName != "" {
		service = f.opt.ServiceName
	}
	rootName := f.conv.SpanName
	if rootName == "invoke_agent" {
		rootName += " " + agent
	}
	first, last := f.start, f.end
	if f.untimed() { // untimed.go: the record clock
		first, last = f.clockAt(0, 1), f.clockAt(0, 0)
		attrs.Set("convert.trace.time_source", receipt.S("record_order_clock"))
	}
	spans := []otlp.Span{{TraceID: tid, SpanID: ids[""], Name: rootName, Kind: otlp.KindInternal,
		Start: first, End: last, Attrs: attrs, Lists: skills(f.out.Skills), Links: f.links(f.out.Links)}}
	index := map[string]int{"": 0}
	for _, sp := range f.out.Spans {
		start, end := sp.Start, sp.End
		if start == 0 {
			start = first
		}
		if end < start {
			end = start
		}
		index[sp.Key] = len(spans)
		spans = append(spans, otlp.Span{TraceID: tid, SpanID: ids[sp.Key], Parent: ids[sp.Parent], Name: sp.Name,
			Kind: sp.Kind, Start: start, End: end, Error: sp.Error, Attrs: sp.Attrs, Lists: skills(sp.Skills), Links: f.links(sp.Links)})
	}
	summary := f.summary(0, 0)
	// The trace carries the summary without the leak check's figures: they
	// are only known after the check, which covers the trace too.
	summary.Attrs = withoutLeakFigures(summary.Attrs)
	for _, ev := range append(f.out.Events, summary) {
		t := first
		if f.untimed() {
			t = f.clockAt(ev.File, ev.Line)
		} else if ev.Time != "" {
			if pt, err := time.Parse(time.RFC3339Nano, ev.Time); err == nil {
				t = pt.UnixNano()
			}
		}
		sp := &spans[index[ev.Span]]
		sp.Events = append(sp.Events, otlp.Event{Name: ev.Name, Time: t, Attrs: ev.Attrs})
	}
	// A span covers its own events, so end >= start holds even when the
	// converter could not time it.
	for i := range spans {
		for _, e := range spans[i].Events {
			spans[i].Start = min(spans[i].Start, e.Time)
			spans[i].End = max(spans[i].End, e.Time)
		}
	}
	// A child that ends after its parent says why, so a viewer's warning
	// has an answer: a subagent goes on after the call that spawned it
	// returned; anything else was recorded after its parent ended.
	for i, sp := range f.out.Spans {
		child, parent := &spans[i+1], &spans[index[sp.Parent]]
		if child.End > parent.End {
			why := "recorded_after_parent_ended"
			if strings.HasPrefix(child.Name, "invoke_agent") {
				why = "subagent_runs_after_spawn_call_returned"
			}
			child.Attrs = append(append(receipt.Attrs(nil), child.Attrs...), receipt.Attr{Key: "convert.span.ends_after_parent", Value: receipt.S(why)})
		}
	}
	return otlp.Trace{
		Resource: receipt.Attrs{{Key: "service.name", Value: receipt.S(service)},
			{Key: "telemetry.sdk.name", Value: receipt.S("convert")}, {Key: "telemetry.sdk.version", Value: receipt.S(Version)},
			{Key: "telemetry.sdk.language", Value: receipt.S("go")}},
		ScopeName:        scopePrefix + f.conv.Name,
		ScopeVersion:     Version,
		Spans:            spans,
		LegacyGenAINames: f.opt.LegacyGenAINames,
	}
}

// skills writes an agent span's skills as the GenAI conventions' structured
// gen_ai.skills: one {name, compacted} map per skill.
func skills(s []converters.Skill) []otlp.List {
	if len(s) == 0 {
		return nil
	}
	l := otlp.List{Key: "gen_ai.skills"}
	for _, sk := range s {
		l.Entries = append(l.Entries, receipt.Attrs{{Key: "name", Value: receipt.S(sk.Name)}, {Key: "compacted", Value: receipt.B(sk.Compacted)}})
	}
	return []otlp.List{l}
}

// links resolves a converter's links: the other trace's id is derived from
// the converter and its key as this one's is, and a link points at its root.
func (f *file) links(ls []converters.Link) []otlp.Link {
	var out []otlp.Link
	for _, l := range ls {
		if l.TraceKey == "" {
			continue
		}
		tid := otlp.NewTraceID(f.conv.Name, l.TraceKey)
		out = append(out, otlp.Link{TraceID: tid, SpanID: otlp.NewSpanID(tid, "root"), Attrs: l.Attrs})
	}
	return out
}

// scopePrefix names the instrumentation scope of each converter's spans.
const scopePrefix = "github.com/contextreceipts/convert/converters/"

func withoutLeakFigures(a receipt.Attrs) receipt.Attrs {
	var out receipt.Attrs
	for _, x := range a {
		if x.Key != "convert.leak_check.raw_strings" && x.Key != "convert.leak_check.raw_bytes" {
			out = append(out, x)
		}
	}
	return out
}

// leakCheck indexes every output string (receipt lines, trace, warnings)
// by provenance and, only when some string is untyped, re-reads the input
// and probes the raw strings of every converted line (pass two). Warnings
// that would leak are withheld; any other finding fails the input.
func (f *file) leakCheck(set *schema.Set, lines [][]byte, trace []byte, msgs []string) (*leak.Checker, error) {
	outs := leak.NewOutputs(vocabulary(set))
	recName := OutputName(f.rel, ".receipt.ndjson")
	for i, l := range lines {
		addJSON(outs, gjson.Parse(view(l)), recName+" line "+strconv.Itoa(i+1), derivedFields)
	}
	if trace != nil {
		addJSON(outs, gjson.Parse(view(trace)), OutputName(f.rel, ".otel.json"), traceSkip)
	}
	outs.Words = messageWords(set)
	for i, d := range f.diags {
		outs.AddMessage(f.trimPath(d), stderrWhere(i))
	}
	for i, m := range msgs {
		outs.AddMessage(f.trimPath(m), "error message "+strconv.Itoa(i+1))
	}
	chk := outs.Check(f.input)
	if chk.NeedsProbe() {
		for _, src := range f.srcs {
			if err := f.probe(chk, src); err != nil {
				return nil, err
			}
		}
	}
	var findings []leak.Finding
	withheld := map[int]bool{}
	for _, fd := range chk.Findings() {
		if n, ok := stderrIndex(fd.Where); ok {
			withheld[n] = true
			continue
		}
		findings = append(findings, fd)
	}
	for i := range f.diags {
		if withheld[i] {
			f.diags[i] = fmt.Sprintf("%s: %s: warning withheld: it would have contained raw input", f.path, f.conv.Name)
		}
	}
	if len(findings) > 0 {
		return nil, &LeakError{Path: f.path, Findings: findings}
	}
	return chk, nil
}

// trimPath drops the input path a message starts with: it is the user's
// own words, and a path may hold any character.
func (f *file) trimPath(m string) string {
	for _, s := range f.srcs {
		if strings.HasPrefix(m, s.path) {
			return m[len(s.path):]
		}
	}
	return m
}

func stderrWhere(i int) string { return "stderr message " + strconv.Itoa(i+1) }

func stderrIndex(where string) (int, bool) {
	const p = "stderr message "
	if len(where) > len(p) && where[:len(p)] == p {
		n, err := strconv.Atoi(where[len(p):])
		return n - 1, err == nil
	}
	return 0, false
}

// addJSON adds every key, string value and number of a JSON document,
// except the values of the keys in skip. OTLP's intValue strings are
// numbers. Numbers under convert.* keys are the pipeline's own measures.
func addJSON(outs *leak.Outputs, v gjson.Result, where string, skip map[string]bool) {
	switch {
	case v.Type == gjson.String:
		outs.Add(v.Str, where)
	case v.Type == gjson.Number:
		outs.AddNumber(v.Raw, where)
	case v.IsArray():
		v.ForEach(func(_, e gjson.Result) bool { addJSON(outs, e, where, skip); return true })
	case v.IsObject():
		v.ForEach(func(k, e gjson.Result) bool {
			outs.Add(k.Str, where)
			switch {
			case skip[k.Str]:
			case strings.HasPrefix(k.Str, "convert.") && e.Type == gjson.Number:
			case k.Str == "intValue" && e.Type == gjson.String:
				outs.AddNumber(e.Str, where)
			default:
				addJSON(outs, e, where, skip)
			}
			return true
		})
	}
}

// derivedFields hold values the pipeline itself derives from digests and
// parsed times (ids, unix nanoseconds): they cannot carry input content, and
// a long session has hundreds of thousands of them, so the outputs it
// writes leave them out of the leak index. Files given to convert leakcheck
// are indexed whole.
var derivedFields = map[string]bool{
	"trace_id": true, "span_id": true, "traceId": true, "spanId": true, "parentSpanId": true,
	"time": true, "source_line": true, // a parsed, re-formatted record time; a line number
	"timeUnixNano": true, "startTimeUnixNano": true, "endTimeUnixNano": true,
}

// traceSkip also leaves out the trace's span events: the OTLP writer builds
// them from the very attributes of the receipt lines, which are indexed
// already, and they are most of a long session's trace.
var traceSkip = func() map[string]bool {
	m := map[string]bool{"events": true}
	for k := range derivedFields {
		m[k] = true
	}
	return m
}()

// view is a read-only string view of output bytes that are never modified
// afterwards: indexing them needs no copy of a trace of tens of megabytes.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// screenFailure runs the leak check over the message of a failed input (and
// its warnings) before anything reaches stderr: a converter error that would
// quote raw input is replaced by a generic one.
func (f *file) screenFailure(err error) error {
	var ie *InputError
	if !errors.As(err, &ie) || f.conv.Name == "" {
		return err
	}
	set, serr := schema.Load()
	if serr != nil {
		return err
	}
	_, lerr := f.leakCheck(set, nil, nil, []string{ie.Msg})
	var le *LeakError
	if errors.As(lerr, &le) {
		ie.Msg = "record rejected (message withheld: it would have contained raw input)"
	}
	return err
}

// probe re-reads one file of the group and probes the raw strings of every
// line the converter saw, and of its sidecar (pass two).
func (f *file) probe(chk *leak.Checker, src source) error {
	if src.meta != nil {
		chk.Line(src.meta, 0, f.conv.PassThrough)
	}
	fh, err := openInput(src.path, false)
	if err != nil {
		return &InputError{Path: src.path, Msg: err.Error()}
	}
	defer fh.Close()
	r := jsonl.NewReader(fh, f.opt.MaxLine)
	r.Skip = func(n int) bool { return !src.converted.has(n) } // never buffer what pass one skipped
	err = eachLine(r, func(l jsonl.Line) error {
		if src.converted.has(l.N) {
			chk.Line(l.Bytes, l.N, f.conv.PassThrough)
		}
		return nil
	})
	if err != nil {
		return &InputError{Path: src.path, Msg: "read error: " + openError(err).Error()}
	}
	// Pass one hashed the file; here its size and mtime must be unchanged.
	if st, err := fh.file.Stat(); src.sum != nil && (err != nil || st.Size() != src.size || st.ModTime().UnixNano() != src.mtime) {
		return &InputError{Path: src.path, Msg: "input changed while it was being converted"}
	}
	return nil
}
