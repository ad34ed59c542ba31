package goose

import (
	"math"
	"strings"
	"time"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/tidwall/gjson"
)

func init() {
	converters.RegisterBuiltin(converters.Converter{
		Name:        "goose",
		Doc:         "Goose sessions (sessions.db): tools as MCP calls, tokens",
		SpanName:    "invoke_agent",
		Types:       gooseTypes,
		OpenTypes:   true,
		PassThrough: goosePass,
		Labels:      gooseLabels,
		Events: []string{
			"context.audit_gap.recorded", "mcp.tool_call.completed", "gen_ai.token_usage.summarized",
		},
		New: func(env converters.Env) converters.State { return newGoose(env) },
		Native: &converters.Format{
			Type:      gooseType,
			Time:      gooseTime,
			Locations: gooseLocations,
			Seeds:     []string{"samples/goose"},
			IDs:       gooseIDs,
			Store:     gooseStore,
		},
	})
}

// gooseTypes are the two shapes the store writes.
var gooseTypes = []string{"session", "message"}

var (
	gooseSessionType = view.Parse(`"session"`)
	gooseMessageType = view.Parse(`"message"`)
)

// gooseType names the store's lines: {goose_session: {id, ...}} and
// {goose_message: {id, role, content, ...}}; anything else is not Goose's.
func gooseType(r converters.Record) view.Value {
	if s := r.Top("goose_session"); s.IsObject() && s.Get("id").IsString() {
		return gooseSessionType
	}
	if m := r.Top("goose_message"); m.IsObject() && m.Get("role").IsString() && m.Get("content").IsArray() {
		return gooseMessageType
	}
	return view.Value{}
}

// gooseTime is a line's time: a session's created_at (SQLite's
// "YYYY-MM-DD HH:MM:SS" in UTC, or RFC 3339), a message's
// created_timestamp (Unix seconds), as an RFC 3339 string.
func gooseTime(r converters.Record) view.Value {
	var t time.Time
	if s := r.Top("goose_session"); s.IsObject() {
		ok := s.Get("created_at").Str().Check(func(v string) bool {
			for _, layout := range []string{"2006-01-02 15:04:05", time.RFC3339Nano, "2006-01-02T15:04:05"} {
				if p, err := time.Parse(layout, strings.TrimSpace(v)); err == nil {
					t = p
					return true
				}
			}
			return false
		})
		if !ok {
			return view.Value{}
		}
	} else if m := r.Top("goose_message"); m.IsObject() {
		sec := m.Get("created_timestamp")
		if !sec.IsNumber() || sec.Float() <= 0 || sec.Float() > 7258118400 || math.IsNaN(sec.Float()) {
			return view.Value{}
		}
		t = time.Unix(sec.Int(), 0)
	} else {
		return view.Value{}
	}
	return view.Of(gjson.Result{Type: gjson.String, Str: t.UTC().Format(time.RFC3339Nano)})
}

// gooseLocations: ccusage's default places, and $GOOSE_PATH_ROOT's
// data/sessions when the variable is set (unset, there is no such place:
// not the home's own data/sessions).
var gooseLocations = []converters.Location{
	{Env: "GOOSE_PATH_ROOT", Below: "data/sessions/sessions.db", EnvOnly: true},
	{Default: ".local/share/goose", Below: "sessions/sessions.db"},
	{Default: ".local/share/Block/goose", Below: "sessions/sessions.db"},
	{Default: "Library/Application Support/goose", Below: "sessions/sessions.db"},
}

// goosePass are the structural fields whose token values may appear in
// output: ids, enums, model names, token counts.
var goosePass = leak.Paths{
	"goose_session.total_tokens": leak.Count, "goose_session.input_tokens": leak.Count, "goose_session.output_tokens": leak.Count,
	"goose_session.accumulated_total_tokens": leak.Count, "goose_session.accumulated_input_tokens": leak.Count,
	"goose_session.accumulated_output_tokens": leak.Count,
	"goose_session.id":                        leak.IDOrUUID, "goose_session.session_type": leak.Label, "goose_session.provider_name": leak.Label,
	"goose_session.created_at": leak.Time, "goose_session.updated_at": leak.Time, "goose_session.model_config.model_name": leak.Model,
	"goose_message.id": leak.Count, "goose_message.role": leak.Label, "goose_message.created_timestamp": leak.Count,
	"goose_message.content.#.type": leak.Label, "goose_message.content.#.id": leak.ID,
	"goose_message.content.#.toolCall.status": leak.Label, "goose_message.content.#.toolResult.status": leak.Label,
	// Names that --reveal names writes in clear; without it they are hashed.
	"goose_message.content.#.toolCall.value.name": leak.Name,
}

// gooseLabels are the values of its label fields the reader knows.
var gooseLabels = []string{
	"user", "assistant", "sub_agent", "scheduled", "hidden", "success", "error",
	"text", "image", "thinking", "redactedThinking", "toolRequest", "toolResponse", "toolConfirmationRequest",
	"frontendToolRequest", "systemNotification", "conversationCompacted", "summarizationRequested",
}
