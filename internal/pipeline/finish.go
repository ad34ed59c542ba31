package pipeline

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"iter"
	"path"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/gate"
	"github.com/contextreceipts/convert/internal/jsonl"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/otlp"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/internal/usage"
	"github.com/tidwall/gjson"
)

func sha(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// finish builds the outputs, validates them and runs the leak check: the
// summary is built once, and the leak check's figures set on it after.
func (f *file) finish() (rec, trace []byte, err error) {
	if err := f.borrowed(); err != nil {
		return nil, nil, err
	}
	key := f.out.TraceKey
	if key == "" {
		key = receipt.FileDigest(f.sum)
	}
	tid := otlp.NewTraceID(f.conv.Name, key)
	sid := otlp.NewSpanID(tid, "root")
	f.stats.Events = len(f.out.Events)
	index, err := f.spanIndex()
	if err != nil {
		return nil, nil, err
	}
	spanIDs := f.spanIDs(tid, sid)
	summary := f.summary()
	lines, err := f.receiptLines(tid, spanIDs, index, summary)
	if err != nil {
		return nil, nil, err
	}
	nums := f.numbers(summary) // before the trace lets the events go
	f.nums = nums

	if err := f.interrupted(); err != nil {
		return nil, nil, err
	}
	// The trace is the largest thing a long session keeps live. Its spans
	// are made one at a time as they are written, each converter span and
	// its events dropped once written (nothing after this reads f.out's
	// spans or events), and its bytes are spooled (tracebuf.go) until they
	// are complete.
	tr, spans := f.trace(tid, spanIDs, index, summary)
	spans = f.noteResponses(spans)
	var sp spool
	defer sp.close()
	var compact []byte
	if f.opt.OTelFormat == "json" {
		compact, err = otlp.WriteEachCompact(&sp, tr, spans)
	} else {
		err = otlp.WriteLine(&sp, tr, spans)
	}
	if err != nil {
		return nil, nil, err
	}
	f.out.Spans, f.out.Events = nil, nil
	traceBytes, err := sp.bytes()
	if err != nil {
		return nil, nil, err
	}
	// The checks read the trace compact: as written (the file-exporter
	// line), or the same tokens as the indented document written.
	checked := traceBytes
	if compact != nil {
		checked = compact
	}
	if err := f.interrupted(); err != nil {
		return nil, nil, err
	}
	if err := f.validate(lines, checked, traceBytes); err != nil {
		return nil, nil, err
	}
	chk, err := f.leakCheck(lines, checked, nil, nums)
	if err != nil {
		return nil, nil, err
	}
	f.stats.Untyped = len(chk.Untyped())
	// The leak check's own figures are numbers: they cannot carry content.
	summary.Attrs.Set("convert.leak_check.raw_strings", receipt.Computed(f.input.RawCount+chk.RawCount))
	summary.Attrs.Set("convert.leak_check.raw_bytes", receipt.Computed(f.input.RawBytes+chk.RawBytes))
	if lines[len(lines)-1], err = f.receiptLine(tid, sid, summary); err != nil {
		return nil, nil, err
	}
	if err := gate.ValidateLine(lines[len(lines)-1]); err != nil {
		return nil, nil, &SchemaError{Path: f.outName(".receipt.ndjson"), Line: len(lines), Msg: err.Error()}
	}
	return bytes.Join(append(lines, nil), []byte{'\n'}), traceBytes, nil
}

// numbers notes the provenance of every whole number the outputs hold
// (gate.Numbers): the attributes of the root span, of every event and
// span and link, and the summary's. The check judges the numbers of the
// output bytes by these notes: a number noted nowhere is probed.
func (f *file) numbers(summary receipt.Event) *gate.Numbers {
	var n gate.Numbers
	n.Note(f.out.Span)
	n.Note(summary.Attrs)
	for _, ev := range f.out.Events {
		n.Note(ev.Attrs)
	}
	for _, l := range f.out.Links {
		n.Note(l.Attrs)
	}
	for _, sp := range f.out.Spans {
		n.Note(sp.Attrs)
		if sp.Rare != nil {
			for _, l := range sp.Rare.Links {
				n.Note(l.Attrs)
			}
		}
	}
	return &n
}

// receiptLines writes every event as a receipt line, the summary last.
func (f *file) receiptLines(tid otlp.TraceID, spanIDs []otlp.SpanID, index map[string]int32, summary receipt.Event) ([][]byte, error) {
	lines := make([][]byte, 0, len(f.out.Events)+1)
	for _, ev := range f.out.Events {
		b, err := f.receiptLine(tid, spanIDs[index[ev.Span]], ev)
		if err != nil {
			return nil, &InputError{Path: f.path, Line: ev.Line, Converter: f.conv.Name, Msg: err.Error()}
		}
		lines = append(lines, b)
	}
	b, err := f.receiptLine(tid, spanIDs[0], summary)
	if err != nil {
		return nil, err
	}
	return append(lines, b), nil
}

func (f *file) receiptLine(tid otlp.TraceID, sid otlp.SpanID, ev receipt.Event) ([]byte, error) {
	return receipt.Line{TraceID: tid.String(), SpanID: sid.String(), Event: ev, Converter: f.conv.Name}.AppendJSON(nil)
}

// validate checks every receipt line against its schema and the trace
// against the OTLP/JSON rules: checked is the trace as the checks read it
// (compact), written the trace as written, whose lines a problem names.
func (f *file) validate(lines [][]byte, checked, written []byte) error {
	for i, l := range lines {
		if err := gate.ValidateLine(l); err != nil {
			return &SchemaError{Path: f.outName(".receipt.ndjson"), Line: i + 1, Msg: err.Error()}
		}
	}
	if probs := otlp.Validate(checked); len(probs) > 0 {
		if w := otlp.Validate(written); len(w) > 0 {
			probs = w
		}
		return &SchemaError{Path: f.outName(TraceSuffix(f.opt.OTelFormat)), Line: probs[0].Line, Msg: probs[0].Error()}
	}
	return nil
}

// summary accounts for the whole input (docs/design.md, "The summary
// accounts for the whole input"). The leak check's figures are 0 until
// finish sets them.
func (f *file) summary() receipt.Event {
	var a receipt.Attrs
	s := f.stats
	a.Set("convert.converter", receipt.S(f.conv.Name))
	a.Set("convert.version", receipt.S(Version))
	// The file name only: directories often encode private paths (Claude
	// Code's project folders are the encoded working directory).
	// Its name only as an agent's own id-shaped name, else as a digest
	// (InputFileName): the name a user gave a log may be private too.
	a.Set("convert.input.path", receipt.S(InputFileName(f.opt.Hash, path.Base(f.rel))))
	a.Set("convert.input.sha256", receipt.S(receipt.FileDigest(f.sum)))
	if len(f.srcs) > 1 {
		a.Set("convert.input.files", receipt.Computed(int64(len(f.srcs))))
	}
	if len(f.srcs) > 1 || f.srcs[0].metaSum != nil { // a main file's sidecar is of the group
		a.Set("convert.input.group_sha256", receipt.S(f.groupDigest()))
	}
	a.Set("convert.input.bytes", receipt.Computed(s.Bytes))
	if c := f.srcs[0].compression; c != "" {
		a.Set("convert.input.compression", receipt.S(c))
	}
	a.Set("convert.input.lines", receipt.Computed(s.Lines))
	a.Set("convert.input.lines.blank", receipt.Computed(s.Blank))
	a.Set("convert.input.records", receipt.Computed(s.Records))
	if s.InvalidTimes > 0 {
		a.Set("convert.input.records.invalid_time", receipt.Computed(s.InvalidTimes))
	}
	if s.InvalidCounts > 0 {
		a.Set("convert.input.records.invalid_count", receipt.Computed(s.InvalidCounts))
	}
	a.Set("convert.input.lines.skipped", receipt.Computed(s.Skipped))
	reasons := make([]string, 0, len(s.SkipReasons))
	for r := range s.SkipReasons {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		a.Set("convert.input.skipped."+r, receipt.Computed(s.SkipReasons[r]))
	}
	if len(s.UnknownTypes) > 0 {
		var ds []string
		for d := range s.UnknownTypes {
			ds = append(ds, d)
		}
		sort.Strings(ds)
		a.Set("convert.input.unknown_record_type_hashes", receipt.L(ds))
	}
	a.Set("convert.output.events", receipt.Computed(int64(s.Events)))
	a.Set("convert.output.spans", receipt.Computed(int64(1+len(f.out.Spans))))
	for _, x := range f.out.Summary {
		a.Set(x.Key, x.Value)
	}
	if v, ok := f.out.Summary.Get("convert.input.project"); ok && isProjectDir(v.Str) {
		f.input.Pass(v.Str) // the reader's project key (native.WorkDirProject): a digest, ours
	}
	a.Set("convert.hash.mode", receipt.S(f.opt.Hash.Mode()))
	if id := f.opt.Hash.KeyID(); id != "" {
		a.Set("convert.hash.key_id", receipt.S(id))
	}
	a.Set("convert.leak_check.status", receipt.S("passed"))
	a.Set("convert.leak_check.raw_strings", receipt.Computed(0))
	a.Set("convert.leak_check.raw_bytes", receipt.Computed(0))
	var gaps []string
	if f.start == 0 {
		gaps = append(gaps, "no_timestamps")
	}
	if s.InvalidTimes > 0 {
		gaps = append(gaps, "invalid_timestamps")
	}
	if s.InvalidCounts > 0 {
		gaps = append(gaps, "invalid_counts")
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

// spanIndex numbers the spans by key: "" is the root (0), the converter's
// span i is i+1. A duplicate key, a parent that is not an earlier span or
// an event of no span is a converter bug. It is the one map of span keys
// the outputs are built with (a long session has a hundred thousand).
func (f *file) spanIndex() (map[string]int32, error) {
	index := make(map[string]int32, 1+len(f.out.Spans))
	index[""] = 0
	for i, sp := range f.out.Spans {
		if _, dup := index[sp.Key]; dup || sp.Key == "" {
			return nil, &InputError{Path: f.in.Shown(), Converter: f.conv.Name, Msg: "converter bug: duplicate or empty span key"}
		}
		if _, ok := index[sp.Parent]; !ok {
			return nil, &InputError{Path: f.in.Shown(), Converter: f.conv.Name, Msg: "converter bug: span parent is not an earlier span"}
		}
		index[sp.Key] = int32(i + 1)
	}
	for _, ev := range f.out.Events {
		if _, ok := index[ev.Span]; !ok {
			return nil, &InputError{Path: f.in.Shown(), Converter: f.conv.Name, Msg: "converter bug: event names an unknown span"}
		}
	}
	return index, nil
}

// spanIDs derives the id of every span from its key, in spanIndex's order.
func (f *file) spanIDs(tid otlp.TraceID, root otlp.SpanID) []otlp.SpanID {
	ids := make([]otlp.SpanID, 1+len(f.out.Spans))
	ids[0] = root
	for i, sp := range f.out.Spans {
		ids[i+1] = otlp.NewSpanID(tid, sp.Key)
	}
	return ids
}

// groupDigest binds every file of an input group: sha256 over the sorted
// lines "rel sha256:<hex>".
func (f *file) groupDigest() string {
	var lines []string
	for _, s := range f.srcs {
		lines = append(lines, s.rel+" "+receipt.FileDigest(s.sum))
		if s.metaSum != nil {
			lines = append(lines, s.rel+" sidecar "+receipt.FileDigest(s.metaSum))
		}
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
// root) as an event of its span. The spans are made one at a time, in
// order, by the sequence; once a converter span has been made, it and its
// events are zeroed in f.out (their attributes are the span's now), so a
// long session's spans are collected as the trace is written.
func (f *file) trace(tid otlp.TraceID, ids []otlp.SpanID, index map[string]int32, summary receipt.Event) (otlp.Trace, iter.Seq[otlp.Span]) {
	attrs, service, rootName, first, last := f.root()
	// The trace carries the summary without the leak check's figures: they
	// are only known after the check, which covers the trace too.
	summary.Attrs = withoutLeakFigures(summary.Attrs)
	nev := len(f.out.Events) + 1 // event nev-1 is the summary
	event := func(k int) receipt.Event {
		if k == nev-1 {
			return summary
		}
		return f.out.Events[k]
	}
	lay := f.layout(first, last, nev, event, index)
	events := func(i int) []otlp.Event {
		ks := lay.byspan[lay.off[i]:lay.off[i+1]]
		if len(ks) == 0 {
			return nil
		}
		out := make([]otlp.Event, len(ks))
		for j, k := range ks {
			ev := event(int(k))
			out[j] = otlp.Event{Name: ev.Name, Time: lay.evTime[k], Attrs: ev.Attrs}
			if int(k) < nev-1 {
				f.out.Events[k] = receipt.Event{} // written: let it go
			}
		}
		return out
	}
	spans := func(yield func(otlp.Span) bool) {
		root := otlp.Span{TraceID: tid, SpanID: ids[0], Name: rootName, Kind: otlp.KindInternal,
			Start: lay.start[0], End: lay.end[0], Attrs: attrs, Lists: skills(f.out.Skills), Links: f.links(f.out.Links), Events: events(0)}
		if !yield(root) {
			return
		}
		for i := range f.out.Spans {
			sp := &f.out.Spans[i]
			s := otlp.Span{TraceID: tid, SpanID: ids[i+1], Parent: ids[lay.parent[i+1]], Name: sp.Name,
				Kind: int(sp.Kind), Start: lay.start[i+1], End: lay.end[i+1], Error: sp.Error, Attrs: sp.Attrs,
				Events: events(i + 1)}
			if sp.Rare != nil {
				s.Lists, s.Links = skills(sp.Rare.Skills), f.links(sp.Rare.Links)
			}
			if s.End > lay.end[lay.parent[i+1]] {
				s.Attrs = endsAfterParent(s)
			}
			*sp = converters.Span{} // written: let it go
			if !yield(s) {
				return
			}
		}
	}
	return otlp.Trace{
		Resource: receipt.Attrs{{Key: "service.name", Value: receipt.S(service)},
			{Key: "telemetry.sdk.name", Value: receipt.S("convert")}, {Key: "telemetry.sdk.version", Value: receipt.S(Version)},
			{Key: "telemetry.sdk.language", Value: receipt.S("go")}},
		ScopeName:        gate.ScopePrefix + f.conv.Name,
		ScopeVersion:     Version,
		LegacyGenAINames: f.opt.LegacyGenAINames,
	}, spans
}

// root returns the root span's attributes, the service and root span
// names, and the trace's first and last times. The trace is the agent's:
// its service is the agent (claude-code, codex, ...), its root
// "invoke_agent <agent>"; convert is the instrumentation scope and the
// telemetry.sdk that wrote it.
func (f *file) root() (attrs receipt.Attrs, service, rootName string, first, last int64) {
	attrs = append(attrs, f.out.Span...)
	attrs.Set("convert.converter", receipt.S(f.conv.Name))
	attrs.Set("convert.input.sha256", receipt.S(receipt.FileDigest(f.sum)))
	agent := f.conv.Name
	if v, ok := f.out.Span.Get("gen_ai.agent.name"); ok && v.Kind == receipt.String && v.Str != "" {
		agent = v.Str
	}
	service = agent
	if f.opt.ServiceName != "" {
		service = f.opt.ServiceName
	}
	rootName = f.conv.SpanName
	if rootName == "invoke_agent" {
		rootName += " " + agent
	}
	first, last = f.start, f.end
	if f.untimed() { // untimed.go: the record clock
		first, last = f.clockAt(0, 1), f.clockAt(0, 0)
		attrs.Set("convert.trace.time_source", receipt.S("record_order_clock"))
	}
	return attrs, service, rootName, first, last
}

// traceLayout places the converter's spans and events in the trace. Span 0
// is the root, span i+1 the converter's span i: parent[i] is its parent's
// index, start[i] and end[i] its times, stretched to cover its events.
// Event k is at evTime[k]; byspan[off[i]:off[i+1]] lists the events of
// span i, in order.
type traceLayout struct {
	parent      []int32
	start, end  []int64
	evTime      []int64
	byspan, off []int32
}

func (f *file) layout(first, last int64, nev int, event func(int) receipt.Event, index map[string]int32) traceLayout {
	n := 1 + len(f.out.Spans)
	l := traceLayout{parent: make([]int32, n), start: make([]int64, n), end: make([]int64, n)}
	l.start[0], l.end[0] = first, last
	for i, sp := range f.out.Spans {
		s, e := sp.Start, sp.End
		if s == 0 {
			s = first
		}
		if e < s {
			e = s
		}
		l.start[i+1], l.end[i+1], l.parent[i+1] = s, e, index[sp.Parent]
	}
	l.evTime, l.off = make([]int64, nev), make([]int32, n+1)
	evSpan := make([]int32, nev)
	for k := range nev {
		ev := event(k)
		t := first
		if f.untimed() {
			t = f.clockAt(ev.File, ev.Line)
		} else if ev.Time != "" {
			if pt, err := time.Parse(time.RFC3339Nano, ev.Time); err == nil {
				t = pt.UnixNano()
			}
		}
		i := index[ev.Span]
		l.evTime[k], evSpan[k] = t, i
		l.off[i+1]++
		// A span covers its own events, so end >= start holds even when
		// the converter could not time it.
		l.start[i], l.end[i] = min(l.start[i], t), max(l.end[i], t)
	}
	for i := range n {
		l.off[i+1] += l.off[i]
	}
	l.byspan = make([]int32, nev)
	fill := append([]int32(nil), l.off[:n]...)
	for k := range nev {
		i := evSpan[k]
		l.byspan[fill[i]] = int32(k)
		fill[i]++
	}
	return l
}

// endsAfterParent returns the attributes of a child that ends after its
// parent, saying why, so a viewer's warning has an answer: a subagent goes
// on after the call that spawned it returned; anything else was recorded
// after its parent ended.
func endsAfterParent(s otlp.Span) receipt.Attrs {
	why := "recorded_after_parent_ended"
	if strings.HasPrefix(s.Name, "invoke_agent") {
		why = "subagent_runs_after_spawn_call_returned"
	}
	return append(append(receipt.Attrs(nil), s.Attrs...), receipt.Attr{Key: "convert.span.ends_after_parent", Value: receipt.S(why)})
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
func (f *file) leakCheck(lines [][]byte, trace []byte, msgs []string, nums *gate.Numbers) (*gate.Checker, error) {
	outs := gate.NewOutputs()
	outs.WithNumbers(nums)
	recName := f.outName(".receipt.ndjson")
	for i, l := range lines {
		outs.AddJSON(gjson.Parse(bytesView(l)), gate.Where{Kind: gate.Line, File: recName, Index: i + 1}, gate.DerivedFields)
	}
	if trace != nil {
		outs.AddJSON(gjson.Parse(bytesView(trace)), gate.Where{Kind: gate.Trace, File: f.outName(TraceSuffix(f.opt.OTelFormat))}, gate.TraceSkip)
	}
	for i, d := range f.diags {
		outs.AddMessage(f.trimPath(d), gate.Where{Kind: gate.Stderr, Index: i + 1})
	}
	for i, m := range msgs {
		outs.AddMessage(f.trimPath(m), gate.Where{Kind: gate.Message, Index: i + 1})
	}
	chk := outs.Check(f.input)
	if id := f.opt.Hash.KeyID(); id != "" {
		chk.Pass(id) // the key's id is ours, made from the key: nothing of the input's
	}
	if chk.NeedsProbe() {
		for _, src := range f.srcs {
			if err := f.probe(chk.Checker, src); err != nil {
				return nil, err
			}
		}
	}
	var findings []gate.Finding
	for _, fd := range chk.Findings() {
		if fd.Where.Kind == gate.Stderr {
			f.diags[fd.Where.Index-1] = fmt.Sprintf("%s: %s: warning withheld: it would have contained raw input", f.path, f.conv.Name)
			continue
		}
		findings = append(findings, fd)
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
		if strings.HasPrefix(m, s.name) {
			return m[len(s.name):]
		}
	}
	return m
}

// view is a read-only string view of output bytes that are never modified
// afterwards: indexing them needs no copy of a trace of tens of megabytes.
func bytesView(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// screenFailure runs the leak check over the message of a failed input (and
// its warnings) before anything reaches stderr: a converter error that would
// quote raw input is replaced by a generic one.
func (f *file) screenFailure(err error) error {
	var ie *InputError
	if !errors.As(err, &ie) || f.conv.Name == "" {
		return err
	}
	_, lerr := f.leakCheck(nil, nil, []string{ie.Msg}, nil)
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
		chk.Line(src.meta, 0, f.conv.PassThrough, f.know)
	}
	fh, err := openFrom(f.opt.FS, src.path, false)
	if err != nil {
		return &InputError{Path: src.name, Msg: err.Error()}
	}
	defer fh.Close()
	r := jsonl.NewReader(stopping(f.ctx, fh.Reader), f.opt.MaxLine)
	defer r.Release()
	r.Skip = func(n int) bool { return !src.converted.has(n) } // never buffer what pass one skipped
	err = eachLine(r, func(l jsonl.Line) error {
		if src.converted.has(l.N) {
			chk.Line(l.Bytes, l.N, f.conv.PassThrough, f.know)
		}
		return nil
	})
	if errors.Is(err, ErrInterrupted) {
		return &InputError{Path: src.name, Converter: f.conv.Name, Msg: "interrupted", Err: ErrInterrupted}
	}
	if err != nil {
		return &InputError{Path: src.name, Msg: "read error: " + openError(err).Error()}
	}
	// Pass one hashed the file; here its size and mtime must be unchanged.
	if st, err := fh.file.Stat(); src.sum != nil && (err != nil || st.Size() != src.size || st.ModTime().UnixNano() != src.mtime) {
		return &InputError{Path: src.name, Msg: "input changed while it was being converted"}
	}
	return nil
}

// outName is how messages name one of the input's outputs: its file name
// without the folders it mirrors from the input's (an encoded working
// folder, a user name).
func (f *file) outName(suffix string) string {
	return path.Base(OutputNameHashed(f.opt.Hash, f.rel, suffix))
}

// noteResponses passes spans on, keeping the usage of each chat span as it
// goes (Result.Responses).
func (f *file) noteResponses(spans iter.Seq[otlp.Span]) iter.Seq[otlp.Span] {
	return func(yield func(otlp.Span) bool) {
		for s := range spans {
			if r, ok := usage.FromSpan(s.Attrs, s.End); ok {
				f.responses = append(f.responses, r)
			}
			if !yield(s) {
				return
			}
		}
	}
}
