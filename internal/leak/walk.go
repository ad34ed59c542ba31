package leak

import (
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
)

// Paths is a set of pass-through field paths: object keys joined by ".",
// with "#" for any array element ("tool_names.#", "message.content.#.type").
type Paths map[string]bool

// Line probes every string value of one input JSON line. A value at a
// pass-through path that is a token (receipt.IsToken) is a pass-through value;
// every other string is raw, however short or harmless it looks.
func (c *Checker) Line(doc []byte, n int, pass Paths) {
	path := make([]byte, 0, 64)
	c.walk(gjson.ParseBytes(doc), path, n, pass)
}

func (c *Checker) walk(v gjson.Result, path []byte, n int, pass Paths) {
	switch {
	case v.Type == gjson.String:
		if pass[string(path)] && receipt.IsToken(v.Str) {
			c.Pass(v.Str)
		} else {
			c.Raw(v.Str, n)
		}
	case v.IsArray():
		p := appendKey(path, "#")
		v.ForEach(func(_, e gjson.Result) bool {
			c.walk(e, p, n, pass)
			return true
		})
	case v.IsObject():
		v.ForEach(func(k, e gjson.Result) bool {
			c.walk(e, appendKey(path, k.Str), n, pass)
			return true
		})
	}
}

func appendKey(path []byte, k string) []byte {
	if len(path) > 0 {
		path = append(path, '.')
	}
	return append(path, k...)
}
