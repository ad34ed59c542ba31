package pipeline

import (
	"github.com/contextreceipts/convert/converters"
)

// Three rules live here: a record whose time does not parse, an input
// with no time at all, and a record with a count out of range.
//
// A record whose time does not parse is kept, without its time: the rest of
// it (a tool call, an instruction load) is evidence. The pipeline counts it
// (convert.input.records.invalid_time), names the gap in the summary
// (convert.audit_gaps: invalid_timestamps) and warns once per line, as for
// a skipped line; under --strict it fails the input, as before.
//
// An input in which no record has a time (Cursor's agent transcripts) is
// written on the record clock (converters.RecordClock): each line is 1 ms
// after the one before it, from a fixed epoch, so the trace is ordered,
// deterministic for the same input and shown in every viewer at one
// documented date rather than at 0 (1970). The receipt keeps no times at
// all and says so (convert.audit_gaps: no_timestamps); the trace's root
// says where its times came from (convert.trace.time_source).

// keepUntimed handles a record whose time does not parse: it is converted
// without its time, counted and warned about (--strict: the input fails).
func (f *file) keepUntimed(n int) error {
	return f.keepFlawed(n, &f.stats.InvalidTimes, "invalid_time (--strict)", "record kept without its time: invalid_time")
}

// invalidCounts is how many counts the converter has read as 0 so far
// because they were out of range (0 for a converter that reads none).
func (f *file) invalidCounts() int64 {
	if c, ok := f.state.(converters.CountReader); ok {
		return c.InvalidCounts()
	}
	return 0
}

// keepBadCount handles a record (line n; 0: the end of the input) with a
// count out of range: it is kept, counted and warned about (--strict: the
// input fails).
func (f *file) keepBadCount(n int) error {
	return f.keepFlawed(n, &f.stats.InvalidCounts, "invalid_count (--strict)", "record kept with a count out of range read as 0: invalid_count")
}

// keepFlawed is the rule both follow for line n: under --strict the input
// fails with strict; otherwise the record counts in *kept and warning is
// printed with the line. Both messages are whole literals: the stderr leak
// check knows them as the program's own.
func (f *file) keepFlawed(n int, kept *int64, strict, warning string) error {
	if f.opt.Strict {
		return &InputError{Path: f.path, Line: n, Converter: f.conv.Name, Msg: strict}
	}
	*kept++
	f.warn((&InputError{Path: f.path, Line: n, Converter: f.conv.Name, Msg: warning}).Error())
	return nil
}

// warn keeps a warning for stderr, up to MaxDiags per input.
func (f *file) warn(msg string) {
	max := f.opt.MaxDiags
	if max == 0 {
		max = 20
	}
	if len(f.diags) < max {
		f.diags = append(f.diags, msg)
	}
}

// untimed reports whether no record of the input had a time: its trace is
// then written on the record clock.
func (f *file) untimed() bool { return f.start == 0 }

// clockAt is the record clock's time of line n of file i of the group; a
// line 0 (an end-of-input event) is the end of the input.
func (f *file) clockAt(i, n int) int64 {
	if n == 0 || i < 0 || i >= len(f.srcs) {
		return converters.RecordClock(f.stats.Lines + 1)
	}
	return converters.RecordClock(f.srcs[i].seqBase + int64(n))
}
