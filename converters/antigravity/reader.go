package antigravity

import (
	"time"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/tidwall/gjson"
)

func init() {
	converters.RegisterBuiltin(converters.Converter{
		Name:        "antigravity",
		Doc:         "Google Antigravity conversations (conversations/<id>.db): model responses, tokens",
		SpanName:    "invoke_agent",
		Types:       antigravityTypes,
		OpenTypes:   true,
		PassThrough: antigravityPass,
		Events: []string{
			"context.audit_gap.recorded", "gen_ai.token_usage.summarized",
		},
		New: func(env converters.Env) converters.State { return newAntigravity(env) },
		Native: &converters.Format{
			Type:      antigravityType,
			Time:      antigravityTime,
			Locations: antigravityLocations,
			Seeds:     []string{"samples/antigravity"},
			IDs:       antigravityIDs,
			Store:     antigravityStore,
		},
	})
}

// antigravityTypes are the three shapes the store writes.
var antigravityTypes = []string{"conversation", "step", "generation"}

var (
	conversationType = view.Parse(`"conversation"`)
	stepType         = view.Parse(`"step"`)
	generationType   = view.Parse(`"generation"`)
)

// antigravityType names the store's lines: {antigravity_conversation:
// {id}}, {antigravity_step: {idx}} and {antigravity_generation: {idx}};
// anything else is not Antigravity's.
func antigravityType(r converters.Record) view.Value {
	if c := r.Top("antigravity_conversation"); c.IsObject() && c.Get("id").IsString() {
		return conversationType
	}
	if s := r.Top("antigravity_step"); s.IsObject() && s.Get("idx").IsNumber() {
		return stepType
	}
	if g := r.Top("antigravity_generation"); g.IsObject() && g.Get("idx").IsNumber() {
		return generationType
	}
	return view.Value{}
}

// antigravityTime is a line's time: the conversation's creation, a step's
// or a generation's time, RFC 3339 as the store writes it from the
// blobs' timestamps.
func antigravityTime(r converters.Record) view.Value {
	var v view.Value
	if c := r.Top("antigravity_conversation"); c.IsObject() {
		v = c.Get("created")
	} else if s := r.Top("antigravity_step"); s.IsObject() {
		v = s.Get("time")
	} else if g := r.Top("antigravity_generation"); g.IsObject() {
		v = g.Get("time")
	}
	var t time.Time
	if !v.Str().Check(func(s string) bool {
		p, err := time.Parse(time.RFC3339Nano, s)
		t = p
		return err == nil
	}) {
		return view.Value{}
	}
	return view.Of(gjson.Result{Type: gjson.String, Str: t.UTC().Format(time.RFC3339Nano)})
}

// antigravityLocations: ccusage's default places, each root's
// conversations folder; ANTIGRAVITY_DATA_DIR moves the first.
var antigravityLocations = []converters.Location{
	{Env: "ANTIGRAVITY_DATA_DIR", Default: ".gemini/antigravity", Below: "conversations"},
	{Default: ".gemini/antigravity-cli", Below: "conversations"},
	{Default: ".gemini/antigravity-ide", Below: "conversations"},
	{Default: ".gemini/antigravity-backup", Below: "conversations"},
	{Default: ".config/antigravity", Below: "conversations"},
}

// antigravityPass are the structural fields whose values may appear in
// output: the conversation id, indexes, enums, times, model labels, counts.
// The response and message ids are raw: they only tell duplicates apart.
var antigravityPass = func() leak.Paths {
	p := leak.Paths{
		"antigravity_conversation.id": leak.IDOrUUID, "antigravity_conversation.created": leak.Time,
	}
	for _, top := range []string{"antigravity_step", "antigravity_generation"} {
		p[top+".idx"] = leak.Count
		p[top+".time"] = leak.Time
		p[top+".model"] = leak.Model
		p[top+".model_id"] = leak.Count
		p[top+".provider"] = leak.Count
		for _, u := range []string{".usage.", ".retries.#."} {
			for _, k := range []string{"input", "total_output", "cache_creation", "cache_read", "reasoning", "visible_output", "model_id", "provider"} {
				p[top+u+k] = leak.Count
			}
		}
	}
	p["antigravity_step.step_type"] = leak.Count
	p["antigravity_step.status"] = leak.Count
	return p
}()
