package converters

import (
	"strings"

	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
)

// Small helpers the readers (and scenario hooks) share.

// pathBase is the last element of a slash path (SourceFile.Rel).
func pathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// splitMCP splits an mcp__server__tool name into its server and tool.
func splitMCP(name string) (server, tool string) {
	rest := strings.TrimPrefix(name, "mcp__")
	if i := strings.Index(rest, "__"); i >= 0 {
		return rest[:i], rest[i+2:]
	}
	return rest, ""
}

// joinStrings is a string, or the values of an array joined by newlines.
func joinStrings(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.Str
	}
	var parts []string
	forEach(v, func(_, e gjson.Result) bool {
		parts = append(parts, e.String())
		return true
	})
	return strings.Join(parts, "\n")
}

// firstString is the first non-empty string among vs, "" if none.
func firstString(vs ...gjson.Result) string {
	for _, v := range vs {
		if v.Type == gjson.String && v.Str != "" {
			return v.Str
		}
	}
	return ""
}

// attrStr is the string value of key in a, "" when it is not set.
func attrStr(a *receipt.Attrs, key string) string {
	v, ok := a.Get(key)
	if !ok {
		return ""
	}
	return v.Str
}

// fieldValues holds what fields found, in the order of its keys.
type fieldValues [6]gjson.Result

// fields reads several keys of an object in one scan: a content block holds
// megabytes of text, and each Get would scan past it again. The values come
// back in an array, not a new slice: fields runs on most records' content
// blocks, and those slices were a fifth of a long session's allocations.
func fields(obj gjson.Result, keys ...string) (out fieldValues) {
	if len(keys) > len(out) {
		panic("converters: fields: more keys than fieldValues holds")
	}
	if !obj.IsObject() {
		return out
	}
	raw := obj.Raw
	jsonscan.Children(raw, func(m jsonscan.Member) bool {
		key := memberKey(raw, m)
		for i, k := range keys {
			if k == key && !out[i].Exists() {
				out[i] = scannedValue(raw[m.ValStart:m.ValEnd], m.ValEscaped) // only the values asked for are parsed
			}
		}
		return true
	})
	return out
}

// count reads a count of a native log (tokens, calls, hooks, durations,
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
func (c *native) count(v gjson.Result) int64 {
	if n := v.Int(); n >= 0 && n <= leak.MaxCount {
		return n
	}
	c.invalidCounts++
	return 0
}

// InvalidCounts is how many counts count has read as 0 because they were
// out of range, in the whole input so far.
func (c *native) InvalidCounts() int64 { return c.invalidCounts }
