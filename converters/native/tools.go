package native

import (
	"strings"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// toolKind is what a tool call names, as each format tells it.
type toolKind int

const (
	ToolUnnamed toolKind = iota // the log names no tool
	ToolOther                   // a tool the agent does not ship: its name is private
	ToolBuiltin                 // one of the agent's own tools: its name passes through
	ToolMCP                     // an MCP server's tool
)

// DescribeTool appends what an execute_tool span says of its tool, as the
// GenAI conventions name it (gen_ai.tool.name: a built-in's own name, else
// the name as native.name writes it; for MCP also the extension type, the
// MCP method and the server) and returns the span's name. What a tool is
// described by is made once per tool and shared by its calls (a long
// session makes tens of thousands of calls to a few tools; each described
// afresh was two digests and a span name).
func (c *Base) DescribeTool(attrs receipt.Attrs, kind toolKind, name, server, tool string) (receipt.Attrs, string) {
	k := toolIdentity{kind, name, server, tool}
	d, ok := c.tools[k]
	if !ok {
		d = c.toolDescription(kind, name, server, tool)
		if c.tools == nil {
			c.tools = map[toolIdentity]toolDescription{}
		}
		k.name, k.server, k.tool = strings.Clone(name), strings.Clone(server), strings.Clone(tool)
		c.tools[k] = d
	}
	return append(attrs, d.attrs...), d.span
}

// toolIdentity is what DescribeTool describes a tool by.
type toolIdentity struct {
	kind               toolKind
	name, server, tool string
}

type toolDescription struct {
	attrs receipt.Attrs
	span  string
}

func (c *Base) toolDescription(kind toolKind, name, server, tool string) toolDescription {
	switch kind {
	case ToolBuiltin:
		name = strings.Clone(name)
		return toolDescription{receipt.Attrs{{Key: "gen_ai.tool.name", Value: receipt.S(name)}}, "execute_tool " + name}
	case ToolMCP:
		t := c.Name(view.Borrow(tool))
		return toolDescription{receipt.Attrs{
			{Key: "gen_ai.tool.name", Value: receipt.S(t)},
			{Key: "gen_ai.tool.type", Value: receipt.S("extension")},
			{Key: "mcp.method.name", Value: receipt.S("tools/call")},
			c.NameAttr("convert.mcp.server", view.Borrow(server))}, "execute_tool " + t}
	case ToolOther:
		t := c.Name(view.Borrow(name))
		return toolDescription{receipt.Attrs{{Key: "gen_ai.tool.name", Value: receipt.S(t)}}, "execute_tool " + t}
	}
	return toolDescription{span: "execute_tool"}
}

// ToolCall is what OpenToolSpan made of one tool call.
type ToolCall struct {
	Kind               toolKind
	Name               string // the tool's name, owned
	MCPServer, MCPTool string // the halves of an MCP tool's name (SplitMCP)
	Span               int    // the execute_tool span's index in c.Out.Spans
}

// OpenToolSpan opens the execute_tool span of a call under parent, keyed
// key, for a format whose tools are called by name: one of builtins is
// the agent's own (its name and call id pass through), mcp__server__tool
// an MCP server's (its halves split by SplitMCP), any other name a tool
// the agent does not ship, no name an unnamed one. The span carries the
// call id (a digest unless built in) and the arguments' digest.
func (c *Base) OpenToolSpan(r converters.Record, key, parent string, id, name view.Text, argsHash string, builtins map[string]bool) ToolCall {
	t := ToolCall{Kind: ToolUnnamed, Name: name.Own(), Span: len(c.Out.Spans)}
	builtin, _ := view.Lookup(builtins, name)
	switch {
	case builtin:
		t.Kind = ToolBuiltin
	case name.HasPrefix("mcp__"):
		t.Kind = ToolMCP
		t.MCPServer, t.MCPTool = c.SplitMCP(t.Name)
	case !name.Empty():
		t.Kind = ToolOther
	}
	callID := id.Digest(c.Hasher)
	if builtin {
		callID = c.Pass(leak.ID, id)
	}
	attrs := receipt.Attrs{{Key: "gen_ai.operation.name", Value: receipt.S("execute_tool")}, {Key: "gen_ai.tool.call.id", Value: receipt.S(callID)}}
	attrs, spanName := c.DescribeTool(attrs, t.Kind, t.Name, t.MCPServer, t.MCPTool)
	attrs = append(attrs, receipt.Attr{Key: "convert.tool.call.arguments_hash", Value: receipt.S(argsHash)})
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Parent: parent, Name: spanName, Kind: 1, Start: r.NS, End: r.NS, Attrs: attrs})
	return t
}

// Call is a tool call a reader keeps until its result comes: the span
// OpenToolSpan opened and what the call's events will say.
type Call struct {
	Key, Name          string // owned copies, as every string it keeps
	Span               int
	MCPServer, MCPTool string // raw names, for hashing only
	ArgsHash           string
	ArgsSize           int
	Subagent           bool // its result is what a subagent returned to its parent
	Done               bool
}

// FinishCall closes t with its result res: its span is stretched to r,
// marked failed when isError, and given the status under statusKey; then
// runs (when not nil) with the status; a subagent call writes
// subagent.result.returned and an MCP call mcp.tool_call.completed. It
// returns the status, "" when t was finished before.
func (c *Base) FinishCall(r converters.Record, t *Call, isError bool, res view.Value, statusKey string, then func(status string)) string {
	if t.Done {
		return ""
	}
	t.Done = true
	sp := &c.Out.Spans[t.Span]
	sp.Cover(r.NS)
	status := "success"
	if isError {
		status = "error"
		sp.Error = true
	}
	sp.Attrs = append(sp.Attrs, receipt.Attr{Key: statusKey, Value: receipt.S(status)})
	if then != nil {
		then(status)
	}
	if t.Subagent {
		a := append(events.SubagentReturned(c.Digest(res), res.RawLen(), status, "final_text_returned_to_parent"), events.RawSummaryNotRecorded)
		c.Emit(r, t.Key, "subagent.result.returned", a)
	}
	if t.MCPServer != "" {
		a := events.MCPCall{Server: c.NameAttr("mcp.server", view.Borrow(t.MCPServer)), Tool: c.NameAttr("mcp.tool", view.Borrow(t.MCPTool)),
			Status: status, ArgsHash: t.ArgsHash, ResultHash: c.Digest(res), ArgsSize: t.ArgsSize, ResultSize: res.RawLen()}.Attrs()
		c.Emit(r, t.Key, "mcp.tool_call.completed", c.Conversation(a))
	}
	return status
}

// CallKey is the span key of a tool call the log names by id, counted in
// counts as one of tool_calls; ok is false, and the call counted as
// tool_calls_without_id or repeated_tool_calls, when it has no id or its
// key is among calls already (a log that writes a call twice: the first
// is the call). calls are the reader's calls by key.
func CallKey[T any](c *Base, id view.Text, calls map[string]T, counts map[string]int64) (key string, ok bool) {
	if id.Empty() {
		counts["tool_calls_without_id"]++
		return "", false
	}
	key = "tool:" + c.KeyPart(id)
	if _, seen := calls[key]; seen {
		counts["repeated_tool_calls"]++
		return "", false
	}
	counts["tool_calls"]++
	return key, true
}

// OpenCall opens a named call's execute_tool span (OpenToolSpan, with the
// arguments' digest) and returns the call to keep until its result.
func (c *Base) OpenCall(r converters.Record, key, parent string, id, name view.Text, args view.Value, builtins map[string]bool) Call {
	argsHash := c.Digest(args)
	t := c.OpenToolSpan(r, key, parent, id, name, argsHash, builtins)
	return Call{Key: key, Name: t.Name, Span: t.Span, ArgsHash: argsHash, ArgsSize: args.RawLen(), MCPServer: t.MCPServer, MCPTool: t.MCPTool}
}
