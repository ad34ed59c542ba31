package zcode

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
		Name:        "zcode",
		Doc:         "ZCode's usage ledger (cli/db/db.sqlite, model_usage): model calls, tokens",
		SpanName:    "invoke_agent",
		Types:       zcodeTypes,
		OpenTypes:   true,
		PassThrough: zcodePass,
		Labels:      zcodeLabels,
		Events:      []string{"context.audit_gap.recorded", "gen_ai.token_usage.summarized"},
		New:         func(env converters.Env) converters.State { return newZcode(env) },
		Native: &converters.Format{
			Type:      zcodeType,
			Time:      zcodeTime,
			Locations: zcodeLocations,
			Seeds:     []string{"samples/zcode"},
			IDs:       zcodeIDs,
			Store:     zcodeStore,
		},
	})
}

// zcodeTypes are the two shapes the store writes.
var zcodeTypes = []string{"session", "model_usage"}

var (
	zcodeSessionType = view.Parse(`"session"`)
	zcodeUsageType   = view.Parse(`"model_usage"`)
)

// zcodeType names the store's lines: {zcode_session: {id, ...}} and
// {zcode_model_usage: {id, session_id, ...}}; anything else is not ZCode's.
func zcodeType(r converters.Record) view.Value {
	if s := r.Top("zcode_session"); s.IsObject() && s.Get("id").IsString() {
		return zcodeSessionType
	}
	if u := r.Top("zcode_model_usage"); u.IsObject() && u.Get("id").Exists() && u.Get("session_id").IsString() {
		return zcodeUsageType
	}
	return view.Value{}
}

// zcodeTime is a model call's time: started_at, Unix milliseconds, as an
// RFC 3339 string; the session row has none.
func zcodeTime(r converters.Record) view.Value {
	u := r.Top("zcode_model_usage")
	ms := u.Get("started_at")
	if !u.IsObject() || !ms.IsNumber() {
		return view.Value{}
	}
	v := ms.Float()
	if v <= 0 || v > 7258118400000 || math.IsNaN(v) { // after 2200: not a time
		return view.Value{}
	}
	t := time.UnixMilli(ms.Int()).UTC()
	// A document of its own: the formatted time is no view of the line.
	return view.Of(gjson.Result{Type: gjson.String, Str: t.Format(time.RFC3339Nano)})
}

// zcodeLocations: ccusage's place, cli/db/db.sqlite under ~/.zcode, which
// ZCODE_HOME moves.
var zcodeLocations = []converters.Location{{Env: "ZCODE_HOME", Default: ".zcode", Below: "cli/db/db.sqlite"}}

// zcodePass are the structural fields whose values may appear in output:
// ids, enums, model names, times, token counts.
var zcodePass = leak.Paths{
	"zcode_session.id": leak.IDOrUUID, "zcode_session.version": leak.Count,
	"zcode_model_usage.id": leak.IDOrUUID, "zcode_model_usage.session_id": leak.IDOrUUID,
	"zcode_model_usage.turn_id": leak.IDOrUUID, "zcode_model_usage.attempt_index": leak.Count,
	"zcode_model_usage.query_source": leak.Label, "zcode_model_usage.status": leak.Label,
	"zcode_model_usage.provider_id": leak.Label, "zcode_model_usage.model_id": leak.Model,
	"zcode_model_usage.started_at": leak.EpochMs, "zcode_model_usage.completed_at": leak.EpochMs,
	"zcode_model_usage.duration_ms": leak.Count, "zcode_model_usage.time_to_first_token_ms": leak.Count,
	"zcode_model_usage.input_tokens": leak.Count, "zcode_model_usage.output_tokens": leak.Count,
	"zcode_model_usage.reasoning_tokens": leak.Count, "zcode_model_usage.cache_creation_input_tokens": leak.Count,
	"zcode_model_usage.cache_read_input_tokens": leak.Count, "zcode_model_usage.computed_total_tokens": leak.Count,
}

// zcodeLabels are the values of its label fields the reader knows.
var zcodeLabels = []string{
	"completed", "error", "cancelled", "main_turn", "title",
	"builtin:zai-coding-plan", "builtin:bigmodel-coding-plan", "zai", "zai-coding-plan",
}
