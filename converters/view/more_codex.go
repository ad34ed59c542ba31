package view

import "strings"

// Added for the Codex reader.

// Join is parts joined by sep, borrowed like the parts: the part itself
// when there is one (no copy), else a text of its own. A message's content
// blocks are joined so (an AGENTS.md message is tens of KB, and owning each
// block first would copy it twice).
func Join(parts []Text, sep string) Text {
	switch len(parts) {
	case 0:
		return Text{}
	case 1:
		return parts[0]
	}
	n := len(sep) * (len(parts) - 1)
	for _, p := range parts {
		n += len(p.s)
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range parts {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(p.s)
	}
	return Text{s: b.String()}
}

// Deep is v's value at a gjson path, walked by gjson itself rather than by
// the line scanner Get uses: for a document only gjson reads (a tool output
// that is JSON nested deeper than jsonscan.MaxDepth, where the scanner
// stops and Get would find nothing).
func (v Value) Deep(path string) Value { return Value{r: v.r.Get(path)} }
