package native

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/contextreceipts/convert/converters"

	"github.com/contextreceipts/convert/internal/leak"

	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/receipt"
)

// Base is what the native readers (claude_code, codex, cursor) share:
// the run's settings, where events go, the session they belong to, and
// the few ways they turn input values into attribute values.
type Base struct {
	Env     converters.Env
	Hasher  receipt.Hasher
	Out     *converters.Output
	Session string

	known      []string         // record types the format defines
	TypeCounts map[string]int64 // records by type; unknown types by digest
	versions   map[string]bool  // agent versions seen
	opaque     map[string]bool  // halves of names the name shape refused (SplitMCP)

	context []contextChange                  // skill loads and compactions, in input order (see genAISpans)
	tools   map[toolIdentity]toolDescription // DescribeTool's, per tool

	invalidCounts int64 // counts read as 0, out of range (count)

	project string // the working directory's project key (SeeWorkDir)
}

// New starts the shared state of a native reader of the known types.
func New(env converters.Env, known []string) Base {
	return Base{Env: env, Hasher: env.Hash, known: known, TypeCounts: map[string]int64{}, versions: map[string]bool{}}
}

// CountType counts a record by its type: known types by name, others by
// digest (a new record type is normal, but its name is input).
func (c *Base) CountType(r converters.Record) {
	t := r.Type
	if w, ok := r.TypeText.Word(c.known...); ok {
		t = w
	} else if !slices.Contains(c.known, t) {
		t = r.TypeText.Digest(c.Hasher)
	}
	c.TypeCounts[t]++
}

// SeeVersion remembers an agent version that has the shape of one.
func (c *Base) SeeVersion(v view.Text) {
	if s, ok := v.Admit(leak.Version); ok {
		c.versions[s] = true
	}
}

// RootIdentity writes what every native root span says about the run: the
// session (which also keys the trace id), the GenAI operation and agent.
// The provider is the chat spans' (the conventions' invoke_agent span in
// the agent's own process has none).
func (c *Base) RootIdentity(out *converters.Output, agent string) {
	if c.Session != "" {
		out.Span.Set("session.id", receipt.S(c.Session))
		out.Span.Set("gen_ai.conversation.id", receipt.S(c.Session))
	}
	out.Span.Set("gen_ai.operation.name", receipt.S("invoke_agent"))
	out.Span.Set("gen_ai.agent.name", receipt.S(agent))
	out.TraceKey = c.Session
}

// Summarize adds the agent versions and record types seen to the summary,
// and the GenAI attributes derived from the whole run to the spans.
func (c *Base) Summarize(out *converters.Output) {
	c.genAISpans(out)
	versions := make([]string, 0, len(c.versions))
	for v := range c.versions {
		versions = append(versions, v)
	}
	sort.Strings(versions)
	types := make([]string, 0, len(c.TypeCounts))
	for t, n := range c.TypeCounts {
		types = append(types, t+"="+strconv.FormatInt(n, 10))
	}
	sort.Strings(types)
	if len(versions) > 0 {
		out.Summary.Set("convert.input.agent_versions", receipt.L(versions))
	}
	out.Summary.Set("convert.input.record_types", receipt.L(types))
	if c.project != "" {
		out.Summary.Set("convert.input.project", receipt.S(c.project))
	}
}

// SeeWorkDir records the session's working directory, the first one its
// log names, as its project key (WorkDirProject): `convert report --by
// project` puts every agent's sessions of one folder in one row, the row
// Claude Code's output folder of that folder is named by. The directory
// itself is never written.
func (c *Base) SeeWorkDir(cwd view.Text) {
	if c.project == "" && !cwd.Empty() {
		c.project = WorkDirProject(c.Hasher, cwd.Own())
	}
}

// WorkDirSeen reports whether the session's working directory is known.
func (c *Base) WorkDirSeen() bool { return c.project != "" }

// WorkDirProject is the project key of a working directory: "project-" and
// 12 hex digits of the digest under h (keyed in keyed mode) of the folder
// name Claude Code keeps that directory's sessions in (each character but
// an ASCII letter or digit turned into '-', one per UTF-16 unit, as
// Claude Code's replace(/[^a-zA-Z0-9]/g, "-") does). It is the name `convert
// run` gives that folder's output folder (pipeline.ProjectDir), so a row
// of the report is found on disk.
func WorkDirProject(h receipt.Hasher, cwd string) string {
	var b strings.Builder
	b.Grow(len(cwd))
	for _, r := range cwd {
		switch {
		case 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9':
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteByte('-') // a surrogate pair in JavaScript's string: two units
			b.WriteByte('-')
		default:
			b.WriteByte('-')
		}
	}
	_, hx, _ := strings.Cut(h.Text(b.String()), ":")
	return projectPrefix + hx[:12]
}

// projectPrefix begins every project key.
const projectPrefix = "project-"

// Pass copies a value read from a pass-through field of that shape when the
// shape admits it (leak.Shape.Admit: never free text, a path or a
// secret-looking token), and writes its digest otherwise. The field must be
// declared with the same shape in the converter's PassThrough: the leak
// check only accepts copies of values it finds there. A copy it is: outputs
// live until the input ends, and a string read from a line would keep the
// whole line (megabytes of content) alive with it (keyPart, name likewise).
//
// An id is written in clear only when it is one of the agent's (its
// Format's IDs), a model name only when the model catalog or the agent
// knows it, or names are revealed (leak.Shape.ClearFor).
func (c *Base) Pass(shape leak.Shape, v view.Text) string {
	if s, ok := c.Admit(shape, v); ok {
		return s
	}
	return v.Digest(c.Hasher)
}

// Admit returns a copy of v when Pass would write it in clear: for a
// reader that names something by an input value only when it is one.
func (c *Base) Admit(shape leak.Shape, v view.Text) (string, bool) {
	return v.ClearFor(shape, c.Env.RevealNames, c.Env.Know)
}

// KeyPart is a span key's part taken from input: span keys are never
// written (span ids are digests of them), so a token stays as it is and
// anything else is hashed to keep keys short.
func (c *Base) KeyPart(v view.Text) string {
	if v.IsToken() {
		return v.Own()
	}
	return v.Digest(c.Hasher)
}

// Name writes a private name (MCP server or tool, skill, subagent type): a
// digest unless names are revealed and it has the shape of a name.
func (c *Base) Name(v view.Text) string {
	if c.Env.RevealNames && !c.isOpaque(v) {
		if s, ok := v.Admit(leak.Name); ok {
			return s
		}
	}
	return v.Digest(c.Hasher)
}

// SplitMCP splits a server__tool name (mcp__server__tool, or as Codex
// writes some) into its server and tool. The halves carry the name's
// provenance (leak.Shape.Parts): when the whole name is not one the name
// shape admits, they have none, and Name and NameAttr write them as
// digests even with --reveal names (a half of a refused name may be
// anything: the tool "list" of an e-mail-named server).
func (c *Base) SplitMCP(name string) (server, tool string) { return c.SplitName(leak.Name, name) }

// SplitName splits a name read from a field of shape (leak.Name, or
// leak.ServerToolName for <server>_<tool> names) the way the leak check
// derives its parts (leak.Split), so a revealed half is typed in the
// check as it is in the reader; halves of a refused name are opaque.
func (c *Base) SplitName(shape leak.Shape, name string) (server, tool string) {
	server, tool = leak.Split(shape, name)
	if !shape.Admit(name) {
		if c.opaque == nil {
			c.opaque = map[string]bool{}
		}
		c.opaque[strings.Clone(server)], c.opaque[strings.Clone(tool)] = true, true
	}
	return server, tool
}

// isOpaque reports a half of a refused name (SplitMCP): few or none.
func (c *Base) isOpaque(v view.Text) bool {
	for o := range c.opaque {
		if v.Is(o) {
			return true
		}
	}
	return false
}

// NameAttr writes a private name under key+".name_hash", or under
// key+".name" in clear when names are revealed and it has a name's shape.
func (c *Base) NameAttr(key string, v view.Text) receipt.Attr {
	if c.Env.RevealNames && !c.isOpaque(v) {
		if s, ok := v.Admit(leak.Name); ok {
			return receipt.Attr{Key: key + ".name", Value: receipt.S(s)}
		}
	}
	return receipt.Attr{Key: key + ".name_hash", Value: receipt.S(v.Digest(c.Hasher))}
}

// ChatUsage is a chat span's token usage as the GenAI conventions count it:
// input is every input token, cached ones included (callers add the parts
// their provider reports apart), and the cache parts are also written alone.
func ChatUsage(input, output, cacheRead, cacheWrite int64) receipt.Attrs {
	return receipt.Attrs{
		{Key: "gen_ai.usage.input_tokens", Value: receipt.Copied(input)},
		{Key: "gen_ai.usage.output_tokens", Value: receipt.Copied(output)},
		{Key: "gen_ai.usage.cache_read.input_tokens", Value: receipt.Copied(cacheRead)},
		{Key: "gen_ai.usage.cache_write.input_tokens", Value: receipt.Copied(cacheWrite)},
	}
}

// Digest hashes a value: text as text, anything else as canonical JSON.
func (c *Base) Digest(v view.Value) string { return v.Digest(c.Hasher) }

// ListDigest hashes a list of names as canonical JSON.
func (c *Base) ListDigest(items []string) string {
	if items == nil {
		items = []string{}
	}
	doc, _ := json.Marshal(items)
	d, err := c.Hasher.JSON(doc)
	if err != nil {
		return c.Hasher.Bytes(doc)
	}
	return d
}

// Emit writes an event on span (an agent or tool span key; "" is the root),
// with the session id.
func (c *Base) Emit(r converters.Record, span, name string, a receipt.Attrs) {
	c.noteContext(span, name, a)
	if c.Session != "" {
		a = append(a, receipt.Attr{Key: "session.id", Value: receipt.S(c.Session)})
	}
	c.Out.Emit(receipt.Event{Name: name, Time: r.Time, Line: r.Line, File: r.File, Span: span, Attrs: a})
}

// Skill is a skill load's event attributes (events.SkillInvocation) and
// the name in clear under --reveal names when the name shape admits it.
// skills holds the names loaded so far (raw, never written): a name loaded
// before is a duplicate, a new one is added.
func (c *Base) Skill(loadedBy, activation string, name view.Text, skills map[string]bool) receipt.Attrs {
	return c.skill(loadedBy, activation, name, skills, true)
}

// SkillInText is Skill for a name read from free text (a slash command in
// a prompt): no pass-through declares it, so it stays a digest even under
// --reveal names.
func (c *Base) SkillInText(loadedBy, activation string, name view.Text, skills map[string]bool) receipt.Attrs {
	return c.skill(loadedBy, activation, name, skills, false)
}

func (c *Base) skill(loadedBy, activation string, name view.Text, skills map[string]bool, reveal bool) receipt.Attrs {
	seen, _ := view.Lookup(skills, name)
	if !seen {
		skills[name.Own()] = true // a key outlives the line
	}
	a := events.SkillInvocation(c.Hasher, loadedBy, activation, name, seen)
	if reveal && c.Env.RevealNames { // a name in clear is a copy: the event outlives the line
		if s, ok := name.Admit(leak.Name); ok {
			a = append(a, receipt.Attr{Key: "context.skill.name", Value: receipt.S(s)})
		}
	}
	return a
}

// Conversation is a with the session as gen_ai.conversation.id, when the
// session is known.
func (c *Base) Conversation(a receipt.Attrs) receipt.Attrs {
	if c.Session != "" {
		a = append(a, receipt.Attr{Key: "gen_ai.conversation.id", Value: receipt.S(c.Session)})
	}
	return a
}

// Compaction writes the n-th compaction of the session and the summary
// that replaced the context: context.compaction.started (tokensBefore when
// the log gives a number), and context.compaction.summary_loaded, the
// summary's digest and size, when summary is a string. It reports whether
// there was one.
func (c *Base) Compaction(r converters.Record, n int64, reason string, tokensBefore, summary view.Value) bool {
	a := events.CompactionStarted(c.Hasher.Text(c.Session+":compaction:"+strconv.FormatInt(n, 10)), reason)
	if tokensBefore.IsNumber() {
		events.TokensBefore(&a, c.Count(tokensBefore))
	}
	a = append(a, receipt.Attr{Key: "privacy.raw_context_recorded", Value: receipt.B(false)})
	c.Emit(r, "", "context.compaction.started", a)
	if !summary.IsString() {
		return false
	}
	c.Emit(r, "", "context.compaction.summary_loaded", events.CompactionSummary(summary.Str().Digest(c.Hasher), summary.Str().Len()))
	return true
}

// RootTokens writes a session's token totals on the root span under the
// GenAI names: input is every input token, cached ones included (callers
// add the parts their provider reports apart), as ChatUsage counts a chat.
func RootTokens(out *converters.Output, input, output int64) {
	out.Span.Set("gen_ai.usage.input_tokens", receipt.Copied(input))
	out.Span.Set("gen_ai.usage.output_tokens", receipt.Copied(output))
}

// Tally writes a reader's counts on the root span: prefix.<name>.count for
// each of names, and prefix.tool_calls.without_result when open calls never
// got their result.
func Tally(out *converters.Output, prefix string, counts map[string]int64, names []string, open int64) {
	for _, k := range names {
		out.Span.Set(prefix+"."+k+".count", receipt.Computed(counts[k]))
	}
	if open > 0 {
		out.Span.Set(prefix+".tool_calls.without_result", receipt.Computed(open))
	}
}

// Unfinished counts the calls that done says got no result.
func Unfinished[T any](calls map[string]T, done func(T) bool) int64 {
	var n int64
	for _, t := range calls {
		if !done(t) {
			n++
		}
	}
	return n
}
