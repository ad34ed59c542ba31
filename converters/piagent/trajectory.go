package piagent

import (
	"strconv"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/native"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// OpenClaw records each run of an agent in a trajectory beside the
// session's transcript (openclaw/openclaw, src/trajectory: runtime.ts,
// paths.ts, types.ts): <session>.trajectory.jsonl, one event a line,
//
//	{traceSchema: "openclaw-trajectory", schemaVersion: 1, traceId,
//	 source: "runtime", type, ts (ISO), seq, sessionId, sessionKey, runId,
//	 workspaceDir, provider, modelId, modelApi, data}
//
// of the types session.started, trace.metadata, context.compiled (data:
// systemPrompt, prompt, messages, tools), prompt.submitted (data: prompt,
// systemPrompt, messages, imagesCount), tool.call (data: toolCallId, name,
// arguments), tool.result (data: toolCallId, name, success or isError,
// result), model.completed (data: usage {input, output, cacheRead,
// cacheWrite, total}, aborted, timedOut, promptError, assistantTexts,
// messagesSnapshot), trace.artifacts, session.ended (data: status),
// approval.* and trace.truncated (the file reached its size bound and
// later events were dropped). The trajectory is a trace of the runs, not
// the transcript: it is read as an input of its own, its model.completed
// events as chat spans with their usage, its tool events as execute_tool
// spans, a compiled system prompt as a context load.
//
// Its usage is not counted in the totals: ccusage 20.0.24 reads the file
// (its name ends in .jsonl) but counts only assistant message entries,
// which a trajectory has none of, so it counts nothing from it; the run's
// tokens are the transcript's, counted there. An audit gap says so.

// clawTrajectorySchema is the traceSchema every trajectory event carries:
// the positive evidence piType reads a trajectory line by.
const clawTrajectorySchema = "openclaw-trajectory"

// clawTrajectoryTypes are the event types OpenClaw's runtime records.
var clawTrajectoryTypes = []string{
	"session.started", "trace.metadata", "context.compiled", "prompt.submitted", "tool.call", "tool.result",
	"model.completed", "trace.artifacts", "session.ended", "trace.truncated",
}

// clawTrajectoryType is a trajectory line's type: its event type, when
// the line carries OpenClaw's traceSchema, an event type, a session id
// and its ISO time.
func clawTrajectoryType(r converters.Record) (view.Value, bool) {
	if !r.Top("traceSchema").Str().Is(clawTrajectorySchema) {
		return view.Value{}, false
	}
	t := r.Top("type")
	if !t.IsString() || !r.Top("ts").IsString() || !r.Top("sessionId").IsString() {
		return view.Value{}, true
	}
	return t, true
}

// piTime is a record's time: its timestamp; a trajectory event's ts.
func piTime(r converters.Record) view.Value {
	if t := r.Top("timestamp"); t.Exists() {
		return t
	}
	if r.Top("traceSchema").Str().Is(clawTrajectorySchema) {
		return r.Top("ts")
	}
	return view.Value{}
}

// trajectory reads one trajectory event.
func (c *piState) trajectory(r converters.Record) {
	c.openclaw, c.traj = true, true
	c.counts["trajectory_events"]++
	if id := r.Get("sessionId").Str(); c.Session == "" && !id.Empty() {
		if sid, ok := c.Admit(leak.IDOrUUID, id); ok {
			c.Session = sid
		}
	}
	c.SeeWorkDir(r.Get("workspaceDir").Str())
	if m := r.Get("modelId").Str(); !m.Empty() && !m.Is(c.model) {
		c.model = m.Own()
	}
	d := r.Get("data")
	switch r.Type {
	case "context.compiled":
		if s := d.Get("systemPrompt"); s.IsString() && !s.Str().Empty() {
			c.contextLoaded(r, "system_prompt", "session_start", s.Str())
			c.instr = true
		}
		c.counts["tools_offered"] += int64(native.ArrayLen(d.Get("tools")))
	case "prompt.submitted":
		c.counts["user_prompts"]++
		if r.NS > 0 {
			c.prompted = r.NS
		}
	case "model.completed":
		c.trajectoryChat(r, d)
	case "tool.call":
		id := d.Get("toolCallId").Str()
		key, ok := native.CallKey(&c.Base, id, c.tools, c.counts)
		if !ok {
			return
		}
		call := c.OpenCall(r, key, "", id, d.Get("name").Str(), d.Get("arguments"), piBuiltinTools)
		c.tools[key] = &call
	case "tool.result":
		if r.NS > 0 {
			c.prompted = r.NS
		}
		t := c.tools["tool:"+c.KeyPart(d.Get("toolCallId").Str())]
		if t == nil {
			c.counts["results_without_call"]++
			return
		}
		failed := d.Get("isError").Bool() || d.Get("success").Type() == view.False
		status := c.FinishCall(r, t, failed, d.Get("result"), "pi_agent.tool_call.status", nil)
		if status == "error" {
			c.counts["failed_tool_calls"]++
		}
		if status != "" && t.MCPServer != "" {
			c.counts["mcp_calls"]++
		}
	case "session.ended":
		c.counts["runs_ended"]++
		if s, ok := d.Get("status").Str().Word("success", "error", "aborted", "timeout", "cancelled"); ok && s != "success" {
			c.counts["runs_"+s]++
		}
	case "trace.truncated":
		c.counts["trajectory_truncations"]++
	}
}

// trajectoryChat writes a model.completed event as a chat span: from the
// prompt (or tool result) before it, with its usage, which the totals do
// not count (see above).
func (c *piState) trajectoryChat(r converters.Record, d view.Value) {
	c.counts["model_calls"]++
	start := r.NS
	if c.prompted > 0 && c.prompted < r.NS {
		start = c.prompted
	}
	provider := "openclaw"
	if p := r.Get("provider").Str(); !p.Empty() {
		provider = c.Pass(leak.Label, p)
	}
	attrs := events.ChatSpan(provider)
	name := "chat"
	if c.model != "" {
		model := c.Pass(leak.Model, view.Borrow(c.model)) // owned
		name += " " + model
		attrs = append(attrs, receipt.Attr{Key: "gen_ai.request.model", Value: receipt.S(model)})
	}
	if u := d.Get("usage"); u.IsObject() && (u.Get("input").IsNumber() || u.Get("output").IsNumber()) {
		in, cr, cw := c.Count(u.Get("input")), c.Count(u.Get("cacheRead")), c.Count(u.Get("cacheWrite"))
		attrs = append(attrs, native.ChatUsage(in+cr+cw, c.Count(u.Get("output")), cr, cw)...)
	}
	failed := false
	for _, k := range []string{"aborted", "timedOut"} {
		if d.Get(k).Bool() {
			c.counts["runs_"+k]++
			failed = true
		}
	}
	if d.Get("promptError").IsString() {
		c.counts["prompt_errors"]++
		failed = true
	}
	key := "chat:" + strconv.Itoa(r.File) + ":" + strconv.Itoa(r.Line)
	c.Out.Spans = append(c.Out.Spans, converters.Span{Key: key, Name: name, Kind: 3, Start: start, End: r.NS, Attrs: attrs, Error: failed})
	c.prompted = 0
}

// The audit gap a trajectory writes, in the schema of
// context.audit_gap.recorded (see events/eventschema.go).
var _ = events.DeclareEvent("context.audit_gap.recorded", events.EventDecl{Adds: true, Keys: []events.Attr{
	events.SetsProp("context.audit_gap", events.Enum("token_usage_not_counted")),
	events.SetsProp("context.audit_gap.detail", events.Enum("openclaw_trajectory_usage_is_counted_in_the_session_transcript")),
}})
