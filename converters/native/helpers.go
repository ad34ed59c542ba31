package native

import (
	"path/filepath"
	"strings"

	"github.com/contextreceipts/convert/converters"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
)

// Small helpers the readers (and scenario hooks) share.

// PathBase is the last element of a slash path (SourceFile.Rel).
func PathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// SplitMCP splits an mcp__server__tool name into its server and tool
// (leak.SplitMCP: the leak check derives the same parts from an admitted
// name, see leak.Shape.Parts).
func SplitMCP(name string) (server, tool string) { return leak.SplitMCP(name) }

// JoinStrings is a string, or the values of an array joined by newlines:
// the string itself (borrowed) or a text of its own.
func JoinStrings(v view.Value) view.Text {
	if v.IsString() {
		return v.Str()
	}
	var parts []view.Text
	v.ForEach(func(_, e view.Value) bool {
		parts = append(parts, e.String())
		return true
	})
	return view.Join(parts, "\n")
}

// FirstString is the first non-empty string among vs, empty if none.
func FirstString(vs ...view.Value) view.Text {
	for _, v := range vs {
		if v.IsString() && !v.Str().Empty() {
			return v.Str()
		}
	}
	return view.Text{}
}

// Count reads a count of a native log (tokens, calls, hooks, durations,
// depths: every number a reader writes, buckets or steers by) as gjson's
// Int does, but only from 0 to leak.MaxCount, the range in which the leak
// check admits a count field's value. Copied, a junk value there (a card
// or phone number, 12345678901234) would be a raw input number in the
// receipt and the whole session would be refused. So it reads as 0, and is
// counted (InvalidCounts): the pipeline keeps the record and names the gap,
// as it does for a time that does not parse. What is not a number (null, a
// word) reads as 0, as in gjson, and is not counted.
//
//	12345            12345
//	-3, 1<<41, 1e300 0, counted
//	null, "n/a"      0
func (c *Base) Count(v view.Value) int64 {
	if n := v.Int(); n >= 0 && n <= leak.MaxCount {
		return n
	}
	c.invalidCounts++
	return 0
}

// Cumulative reads a running total (leak.Cumulative: below
// leak.MaxCumulative), 0 when it is out of range (counted as Count
// counts). A total is for subtraction only: write its growth (Growth).
func (c *Base) Cumulative(v view.Value) int64 {
	if n := v.Int(); n >= 0 && n <= leak.MaxCumulative {
		return n
	}
	c.invalidCounts++
	return 0
}

// Growth is d, the growth of a running total since its last reading,
// when it is a count a request may add (leak.CumulativeGrowth), and 0
// otherwise (counted as an invalid count): a total is never written
// itself, and a first total of a phone number's size is no growth.
func (c *Base) Growth(d int64) int64 {
	if leak.CumulativeGrowth(d) {
		return d
	}
	c.invalidCounts++
	return 0
}

// InvalidCounts is how many counts count has read as 0 because they were
// out of range, in the whole input so far.
func (c *Base) InvalidCounts() int64 { return c.invalidCounts }

// Place is where a record stands (line, file, time), kept to write an
// event there later: a Record itself is a view of its line.
type Place struct {
	line, file int
	Time       string
	NS         int64
}

func PlaceOf(r converters.Record) Place { return Place{r.Line, r.File, r.Time, r.NS} }

// Record is an event's Record at p, with no line to read.
func (p Place) Record() converters.Record {
	return converters.Record{Line: p.line, File: p.file, Time: p.Time, NS: p.NS}
}

// SessionFileID returns the session id of a file named <session-uuid>.jsonl
// (^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.jsonl$,
// written out: every claude_code run asks, and compiling the pattern was
// half a percent of a one-line run).
func SessionFileID(p string) (string, bool) {
	base := filepath.Base(p)
	id, ok := strings.CutSuffix(base, ".jsonl")
	if !ok || !leak.UUID.Admit(id) { // any hex case, dashes at 8, 13, 18, 23
		return "", false
	}
	return id, true
}

// ArrayLen is len(v.Array()) as gjson counts it: 0 for null or nothing,
// an array's elements, and 1 for any other value (view.Value.Array counts
// an object's members and a JSON null as one).
func ArrayLen(v view.Value) int {
	switch {
	case v.Type() == view.Null:
		return 0
	case v.IsArray():
		return v.Len()
	}
	return 1
}
