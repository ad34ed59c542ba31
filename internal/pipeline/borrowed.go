package pipeline

import (
	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/jsonl"
	"github.com/contextreceipts/convert/internal/receipt"
)

// borrowed checks, before anything of the input is built or written, that
// no string of the converter's output points into a read buffer its lines
// were handed out of (f.spans). Converters get each line as a view of
// those buffers, which hold other lines (of this input, or of another
// input on another goroutine) as soon as the record call returns; what a
// converter keeps must go through an exit of package view (Own, Digest,
// Admit, Word). A string that did not is a converter bug: the input fails
// closed with an internal error, before the stale bytes are validated,
// leak-checked or written. The message names the event or span and the
// attribute key (program vocabulary), never the value.
//
// The check is a comparison of each string's address with a few address
// ranges: cheap enough to run on every conversion.
func (f *file) borrowed() error {
	if len(f.spans) == 0 {
		return nil
	}
	bad := func(s string) bool { return jsonl.Aliases(f.spans, s) }
	fail := func(line int, where string) error {
		return &InputError{Path: f.path, Line: line, Converter: f.conv.Name,
			Msg: "internal error: the converter kept a view of its input past the line (" + where + "); nothing was written", Err: ErrBorrowed}
	}
	o := &f.out
	if bad(o.TraceKey) {
		return fail(0, "trace key")
	}
	if k := attrsBorrowed(o.Span, bad); k != "" {
		return fail(0, "root span attribute "+k)
	}
	if k := attrsBorrowed(o.Summary, bad); k != "" {
		return fail(0, "summary attribute "+k)
	}
	if k := linksBorrowed(o.Links, bad); k != "" {
		return fail(0, "root span link "+k)
	}
	for _, s := range o.Skills {
		if bad(s.Name) {
			return fail(0, "root span skill name")
		}
	}
	for _, ev := range o.Events {
		if bad(ev.Name) || bad(ev.Time) || bad(ev.Span) {
			return fail(ev.Line, "event name, time or span key")
		}
		if k := attrsBorrowed(ev.Attrs, bad); k != "" {
			return fail(ev.Line, ev.Name+" attribute "+k)
		}
	}
	for _, sp := range o.Spans {
		if bad(sp.Key) || bad(sp.Parent) || bad(sp.Name) {
			return fail(0, "span key, parent or name")
		}
		if k := attrsBorrowed(sp.Attrs, bad); k != "" {
			return fail(0, "span attribute "+k)
		}
		if sp.Rare != nil {
			if k := linksBorrowed(sp.Rare.Links, bad); k != "" {
				return fail(0, "span link "+k)
			}
			for _, s := range sp.Rare.Skills {
				if bad(s.Name) {
					return fail(0, "span skill name")
				}
			}
		}
	}
	return nil
}

// attrsBorrowed is the key of the first attribute of a whose key or value
// bad finds, "" when none (a key found bad is named as "key").
func attrsBorrowed(a receipt.Attrs, bad func(string) bool) string {
	for _, x := range a {
		if bad(x.Key) {
			return "key"
		}
		if bad(x.Value.Str) {
			return x.Key
		}
		for _, s := range x.Value.List() {
			if bad(s) {
				return x.Key
			}
		}
	}
	return ""
}

func linksBorrowed(links []converters.Link, bad func(string) bool) string {
	for _, l := range links {
		if bad(l.TraceKey) {
			return "trace key"
		}
		if k := attrsBorrowed(l.Attrs, bad); k != "" {
			return k
		}
	}
	return ""
}
