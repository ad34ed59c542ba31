package converters

import (
	"encoding/json"

	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
)

// native is what the native readers (claude_code, codex, cursor) share:
// the run's settings, where events go, the session they belong to, and
// the few ways they turn input values into attribute values.
type native struct {
	env     Env
	h       receipt.Hasher
	out     *Output
	session string
}

// label passes an id or enum through when it is a token and hashes it
// otherwise.
func (c *native) label(v string) string {
	if receipt.IsToken(v) {
		return v
	}
	return c.h.Text(v)
}

// name writes a private name (MCP server or tool, skill, subagent type): a
// digest unless names are revealed and it is a token.
func (c *native) name(v string) string {
	if c.env.RevealNames && receipt.IsToken(v) {
		return v
	}
	return c.h.Text(v)
}

// nameAttr writes a private name under key+".name_hash", or under
// key+".name" in clear when names are revealed and it is a token.
func (c *native) nameAttr(key, v string) receipt.Attr {
	if c.env.RevealNames && receipt.IsToken(v) {
		return receipt.Attr{Key: key + ".name", Value: receipt.S(v)}
	}
	return receipt.Attr{Key: key + ".name_hash", Value: receipt.S(c.h.Text(v))}
}

// digest hashes a value: text as text, anything else as canonical JSON.
func (c *native) digest(v gjson.Result) string {
	if v.Type == gjson.String {
		return c.h.Text(v.Str)
	}
	if d, err := c.h.JSON([]byte(v.Raw)); err == nil {
		return d
	}
	return c.h.Text(v.Raw)
}

// listDigest hashes a list of names as canonical JSON.
func (c *native) listDigest(items []string) string {
	if items == nil {
		items = []string{}
	}
	doc, _ := json.Marshal(items)
	d, err := c.h.JSON(doc)
	if err != nil {
		return c.h.Bytes(doc)
	}
	return d
}

// emit writes an event on span (an agent or tool span key; "" is the root),
// with the session id.
func (c *native) emit(r Record, span, name string, a receipt.Attrs) {
	if c.session != "" {
		a = append(a, receipt.Attr{Key: "session.id", Value: receipt.S(c.session)})
	}
	c.out.Emit(receipt.Event{Name: name, Time: r.Time, Line: r.Line, File: r.File, Span: span, Attrs: a})
}
