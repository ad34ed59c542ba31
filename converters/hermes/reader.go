package hermes

import (
	"math"
	"time"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/tidwall/gjson"
)

func init() {
	converters.RegisterBuiltin(converters.Converter{
		Name:        "hermes",
		Doc:         "Hermes Agent sessions (state.db): tools, compression, tokens",
		SpanName:    "invoke_agent",
		Types:       hermesTypes,
		OpenTypes:   true,
		PassThrough: hermesPass,
		Labels:      hermesLabels,
		Events: []string{
			"context.audit_gap.recorded", "context.compaction.started", "context.compaction.summary_loaded",
			"gen_ai.token_usage.summarized",
		},
		New: func(env converters.Env) converters.State { return newHermes(env) },
		Native: &converters.Format{
			Type:      hermesType,
			Time:      hermesTime,
			Locations: []converters.Location{{Env: "HERMES_HOME", Default: ".hermes", Below: "state.db"}},
			Seeds:     []string{"samples/hermes"},
			IDs:       hermesIDs,
			Store:     hermesStore,
		},
	})
}

var hermesTypes = []string{"session", "message"}

var (
	hermesSessionType = view.Parse(`"session"`)
	hermesMessageType = view.Parse(`"message"`)
)

// hermesType names the store's lines: {hermes_session: {id, source, ...}}
// and {hermes_message: {id, role, ...}}; anything else is not Hermes's.
func hermesType(r converters.Record) view.Value {
	if s := r.Top("hermes_session"); s.IsObject() && s.Get("id").IsString() && s.Get("source").Exists() {
		return hermesSessionType
	}
	if m := r.Top("hermes_message"); m.IsObject() && m.Get("role").IsString() && m.Get("id").IsNumber() {
		return hermesMessageType
	}
	return view.Value{}
}

// hermesTime is a line's time, Unix seconds (a session's started_at, a
// message's timestamp), as an RFC 3339 string.
func hermesTime(r converters.Record) view.Value {
	var sec view.Value
	if s := r.Top("hermes_session"); s.IsObject() {
		sec = s.Get("started_at")
	} else if m := r.Top("hermes_message"); m.IsObject() {
		sec = m.Get("timestamp")
	}
	if !sec.IsNumber() || sec.Float() <= 0 || sec.Float() > 7258118400 || math.IsNaN(sec.Float()) {
		return view.Value{}
	}
	t := time.Unix(0, int64(math.Round(sec.Float()*1e6))*1e3).UTC()
	return view.Of(gjson.Result{Type: gjson.String, Str: t.Format(time.RFC3339Nano)})
}

var hermesPass = leak.Paths{
	"hermes_session.input_tokens": leak.Count, "hermes_session.output_tokens": leak.Count,
	"hermes_session.cache_read_tokens": leak.Count, "hermes_session.cache_write_tokens": leak.Count,
	"hermes_session.reasoning_tokens": leak.Count, "hermes_session.message_count": leak.Count,
	"hermes_session.tool_call_count": leak.Count, "hermes_session.started_at": leak.Count, "hermes_session.ended_at": leak.Count,
	"hermes_session.id": leak.IDOrUUID, "hermes_session.parent_session_id": leak.IDOrUUID, "hermes_session.source": leak.Label,
	"hermes_session.model": leak.Model, "hermes_session.end_reason": leak.Label, "hermes_session.billing_provider": leak.Label,
	"hermes_message.id": leak.Count, "hermes_message.role": leak.Label, "hermes_message.timestamp": leak.Count,
	"hermes_message.finish_reason": leak.Label, "hermes_message.tool_call_id": leak.ID,
	"hermes_message.tool_calls.#.id": leak.ID, "hermes_message.tool_calls.#.type": leak.Label,
	// Names that --reveal names writes in clear; without it they are hashed.
	"hermes_message.tool_calls.#.function.name": leak.Name, "hermes_message.tool_name": leak.Name,
}

var hermesLabels = []string{
	"cli", "telegram", "discord", "slack", "cron", "tool", "user", "assistant", "system", "function",
	"compression", "stop", "tool_calls", "length",
}

// hermesBuiltinTools are tools Hermes's own toolsets ship (tools/): public,
// so they pass through; any other name is hashed unless --reveal names.
var hermesBuiltinTools = map[string]bool{
	"terminal": true, "process": true, "read_file": true, "write_file": true, "patch": true, "search_files": true,
	"web_search": true, "web_extract": true, "browser_navigate": true, "vision_analyze": true, "image_generate": true,
	"skills_list": true, "skill_view": true, "skill_manage": true, "memory": true, "todo": true, "clarify": true,
	"execute_code": true, "delegate_task": true, "session_search": true, "send_message": true, "cronjob": true,
}
