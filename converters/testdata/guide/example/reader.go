// Package example is the reader docs/adding-a-format.md builds: a made-up
// agent whose log is one JSON record a line, {"type", "time", ...}. It is
// not linked into convert; tools/guide-check.sh copies it to
// converters/example and follows the guide's steps with it, so the guide
// cannot drift from the code.
package example

import (
	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// Step 1 (records), step 3 (where it lives) and step 5 (seeds).
func init() {
	converters.RegisterBuiltin(converters.Converter{
		Name:        "example_agent",
		Doc:         "Example Agent logs (~/.example-agent/logs/*.jsonl): the contributor guide's reader",
		SpanName:    "invoke_agent",
		TypeField:   "type",
		TimeField:   "time",
		Types:       exampleTypes,
		OpenTypes:   true,
		PassThrough: examplePass,
		Events:      []string{"gen_ai.token_usage.summarized"},
		New:         func(env converters.Env) converters.State { return newExample(env) },
		Native: &converters.Format{
			Locations: []converters.Location{{Env: "EXAMPLE_AGENT_HOME", Default: ".example-agent", Below: "logs"}},
			Seeds:     []string{"samples/example_agent"},
			// The ids its logs carry, each family with its source and
			// examples: any other id is written as its digest.
			IDs: leak.IDs{leak.UUIDs},
		},
	})
}

// exampleTypes are the record types the format defines.
var exampleTypes = []string{"example.session", "example.prompt", "example.reply"}

// examplePass are the fields whose token values may be copied.
var examplePass = leak.Paths{
	"type": leak.Label, "time": leak.Time, "id": leak.IDOrUUID, "version": leak.Version, "model": leak.Model,
	"usage.input": leak.Count, "usage.output": leak.Count, "usage.cache_read": leak.Count,
}

// Step 4: the reader's state embeds native.Base.
type example struct {
	native.Base
	model  string
	tokens events.Tokens
}

func newExample(env converters.Env) *example {
	return &example{Base: native.New(env, exampleTypes)}
}

// Record maps one record; a prompt's text is content and is never read.
func (c *example) Record(r converters.Record, out *converters.Output) error {
	c.CountType(r)
	switch r.Type {
	case "example.session":
		c.Session = c.Pass(leak.IDOrUUID, r.Get("id").String())
		c.SeeVersion(r.Get("version").String())
	case "example.reply":
		c.model = c.Pass(leak.Model, r.Get("model").String())
		u := r.Get("usage")
		c.tokens.Input += c.Count(u.Get("input"))
		c.tokens.Output += c.Count(u.Get("output"))
		c.tokens.CacheRead += c.Count(u.Get("cache_read"))
	}
	return nil
}

// End writes the session's token usage and the root span.
func (c *example) End(out *converters.Output) error {
	c.RootIdentity(out, "example_agent")
	if c.model != "" {
		out.Emit(receipt.Event{Name: "gen_ai.token_usage.summarized",
			Attrs: events.UsageSummary(c.model, c.tokens, nil, "assistant_usage_records", "run")})
	}
	c.Summarize(out)
	return nil
}
