package pipeline

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/converters"
)

const untimedSID = "5d0c1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f"

// A record whose time does not parse is kept: its tool call is evidence.
// The summary counts it and names the gap; --strict still fails the input.
func TestInvalidTimeKeepsTheRecord(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, untimedSID+".jsonl", strings.Join([]string{
		`{"type":"user","uuid":"00000000-0000-4000-8000-000000000001","sessionId":"` + untimedSID + `","timestamp":"2026-07-01T10:00:00Z","message":{"role":"user","content":"CANARY list files"}}`,
		`{"type":"assistant","uuid":"00000000-0000-4000-8000-000000000002","sessionId":"` + untimedSID + `","timestamp":"yesterday CANARY","requestId":"req_1","message":{"id":"msg_1","role":"assistant","model":"claude-opus-4-1","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls CANARY"}}],"usage":{"input_tokens":3,"output_tokens":5}}}`,
		`{"type":"user","uuid":"00000000-0000-4000-8000-000000000003","sessionId":"` + untimedSID + `","timestamp":"2026-07-01T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"CANARY a b"}]}}`,
	}, "\n")+"\n")
	res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	a := summaryOf(t, res.Receipt)
	if n := a.Get(`convert\.input\.records\.invalid_time`).Int(); n != 1 {
		t.Errorf("records.invalid_time = %d, want 1", n)
	}
	if n := a.Get(`convert\.input\.records`).Int(); n != 3 {
		t.Errorf("records = %d, want 3 (none skipped)", n)
	}
	if g := a.Get(`convert\.audit_gaps`).Raw; !strings.Contains(g, "invalid_timestamps") {
		t.Errorf("audit gaps %s do not name invalid_timestamps", g)
	}
	if !bytes.Contains(res.Trace, []byte(`"execute_tool Bash"`)) {
		t.Error("the tool call of the record with a bad time is lost")
	}
	if len(res.Diags) != 1 || !strings.Contains(res.Diags[0], ":2: claude_code: record kept without its time: invalid_time") {
		t.Errorf("diags = %q", res.Diags)
	}
	for _, b := range append([][]byte{res.Receipt, res.Trace}, []byte(strings.Join(res.Diags, "\n"))) {
		if bytes.Contains(b, []byte("CANARY")) {
			t.Fatal("raw input in the output")
		}
	}
	if res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{Strict: true}); res.Err == nil || !strings.Contains(res.Err.Error(), ":2: claude_code: invalid_time (--strict)") {
		t.Errorf("--strict: %v", res.Err)
	}
}

// A record with a count out of range (negative, or over leak.MaxCount) is
// kept with that count read as 0: copied, it would be a raw input number in
// the receipt and the session would be refused. The summary counts it and
// names the gap; stderr says where; --strict fails the input. Cursor's
// usage is read at the end of the input, so its warning has no line.
func TestInvalidCountKeepsTheRecord(t *testing.T) {
	const cursorSID = "6c1f0a52-7d3e-4b8a-9e21-0f4d5c6b7a81"
	for _, tc := range []struct {
		conv, name string
		lines      []string
		where      string // in the warning, after the file name
	}{
		{"claude_code", untimedSID + ".jsonl", []string{
			`{"type":"user","uuid":"00000000-0000-4000-8000-000000000001","sessionId":"` + untimedSID + `","timestamp":"2026-07-01T10:00:00Z","message":{"role":"user","content":"CANARY list files"}}`,
			`{"type":"assistant","uuid":"00000000-0000-4000-8000-000000000002","sessionId":"` + untimedSID + `","timestamp":"2026-07-01T10:00:01Z","requestId":"req_1","message":{"id":"msg_1","role":"assistant","model":"claude-opus-4-1","content":[{"type":"text","text":"CANARY ok"}],"usage":{"input_tokens":4111111111111111,"output_tokens":5}}}`,
		}, ":2: claude_code: "},
		{"codex", "rollout-2026-07-01T10-00-00-" + untimedSID + ".jsonl", []string{
			`{"timestamp":"2026-07-01T10:00:00.000Z","type":"session_meta","payload":{"id":"` + untimedSID + `","timestamp":"2026-07-01T10:00:00.000Z","cwd":"/Users/dana/CANARY","originator":"codex_cli_rs","cli_version":"0.146.0"}}`,
			`{"timestamp":"2026-07-01T10:00:01.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":-4111111,"output_tokens":300,"total_tokens":300}}}}`,
		}, ":2: codex: "},
		{"cursor", cursorSID + ".jsonl", []string{
			`{"type":"system","subtype":"init","cwd":"/Users/gus/CANARY-shop","session_id":"` + cursorSID + `","model":"gpt-5.3-codex","timestamp_ms":1786000000000}`,
			`{"type":"result","subtype":"success","is_error":false,"result":"CANARY done","session_id":"` + cursorSID + `","usage":{"inputTokens":4111111111111111,"outputTokens":1502},"timestamp_ms":1786000001000}`,
		}, ": cursor: "},
	} {
		t.Run(tc.conv, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), tc.name, strings.Join(tc.lines, "\n")+"\n")
			res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{Converter: tc.conv})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			a := summaryOf(t, res.Receipt)
			if n := a.Get(`convert\.input\.records\.invalid_count`).Int(); n != 1 {
				t.Errorf("records.invalid_count = %d, want 1", n)
			}
			if n := a.Get(`convert\.input\.records`).Int(); n != int64(len(tc.lines)) {
				t.Errorf("records = %d, want %d (none skipped)", n, len(tc.lines))
			}
			if g := a.Get(`convert\.audit_gaps`).Raw; !strings.Contains(g, `"invalid_counts"`) {
				t.Errorf("audit gaps %s do not name invalid_counts", g)
			}
			if !bytes.Contains(res.Trace, []byte(`"gen_ai.usage.input_tokens"`)) {
				t.Error("the usage of the record with a bad count is lost")
			}
			want := filepath.Base(p) + tc.where + "record kept with a count out of range read as 0: invalid_count"
			if len(res.Diags) != 1 || !strings.HasSuffix(res.Diags[0], want) {
				t.Errorf("diags = %q, want one ending %q", res.Diags, want)
			}
			for _, b := range append([][]byte{res.Receipt, res.Trace}, []byte(strings.Join(res.Diags, "\n"))) {
				if bytes.Contains(b, []byte("CANARY")) || bytes.Contains(b, []byte("4111111")) {
					t.Fatal("raw input in the output")
				}
			}
			res = Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{Converter: tc.conv, Strict: true})
			if res.Err == nil || !strings.HasSuffix(res.Err.Error(), tc.where+"invalid_count (--strict)") || res.Receipt != nil {
				t.Errorf("--strict: %v", res.Err)
			}
		})
	}
}

// An input without any time is written on the record clock: spans and
// events from the documented epoch, in input order, the same every run;
// the receipt carries no times and says so.
func TestUntimedInputOnRecordClock(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, filepath.Join(untimedSID, untimedSID+".jsonl"), strings.Join([]string{
		`{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\nCANARY fix it\n</user_query>"}]}}`,
		`{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Shell","input":{"command":"ls CANARY"}}]}}`,
		`{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"path":"/srv/CANARY"}}]}}`,
		`{"role":"assistant","message":{"content":[{"type":"text","text":"CANARY done"}]}}`,
	}, "\n")+"\n")
	in := Input{Path: p, Rel: filepath.Base(p)}
	res := Convert(in, Options{Converter: "cursor"})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if again := Convert(in, Options{Converter: "cursor"}); !bytes.Equal(again.Trace, res.Trace) {
		t.Error("the same input gave two traces")
	}
	if g := summaryOf(t, res.Receipt).Get(`convert\.audit_gaps`).Raw; !strings.Contains(g, "no_timestamps") {
		t.Errorf("audit gaps %s do not say times are absent", g)
	}
	for _, l := range bytes.Split(bytes.TrimSpace(res.Receipt), []byte{'\n'}) {
		if gjson.GetBytes(l, "time").Exists() {
			t.Errorf("receipt event with a time: %s", l)
		}
	}
	spans := gjson.GetBytes(res.Trace, "resourceSpans.0.scopeSpans.0.spans").Array()
	epoch := converters.RecordClock(0)
	root := spans[0]
	if root.Get(`attributes.#(key=="convert.trace.time_source").value.stringValue`).Str != "record_order_clock" {
		t.Error("root span does not say its times are the record clock")
	}
	if s := root.Get("startTimeUnixNano").Int(); s != converters.RecordClock(1) {
		t.Errorf("root starts at %d, want the record clock's line 1 (%d)", s, converters.RecordClock(1))
	}
	var last int64
	for i, sp := range spans {
		s, e := sp.Get("startTimeUnixNano").Int(), sp.Get("endTimeUnixNano").Int()
		if s < epoch || e < s {
			t.Errorf("span %d %s: start %d end %d", i, sp.Get("name").Str, s, e)
		}
		if i > 1 && s < last {
			t.Errorf("span %d %s starts before the span before it", i, sp.Get("name").Str)
		}
		last = s
	}
	if len(spans) < 4 {
		t.Fatalf("%d spans", len(spans))
	}
	if bytes.Contains(res.Trace, []byte("CANARY")) || bytes.Contains(res.Receipt, []byte("CANARY")) {
		t.Fatal("raw input in the output")
	}
}

// TestMillisUTC: millisUTC writes what time.Format writes, for times
// across its years and at every field's edges, and for the years it
// leaves to Format.
func TestMillisUTC(t *testing.T) {
	times := []time.Time{
		time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 31, 23, 59, 59, 999e6, time.UTC),
		time.Date(1000, 2, 3, 4, 5, 6, 7e6, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(999, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 2, 29, 12, 30, 45, 120e6, time.UTC),
	}
	for i := 0; i < 2000; i++ {
		times = append(times, time.UnixMilli(int64(i)*1_234_567_891_011%253402300799000).UTC())
	}
	for _, tm := range times {
		if got, want := millisUTC(tm), tm.Format("2006-01-02T15:04:05.000Z"); got != want {
			t.Errorf("millisUTC(%v) = %s, want %s", tm, got, want)
		}
	}
}

// TestEveryNativeCountIsRangeChecked: each count a native reader writes,
// buckets or steers by goes through the range check, not only the token
// usage above. A value past 2^40 read raw was written as it stood (a
// hook count, a subagent's depth) and the leak check refused the whole
// session for a number it took for a card's (FuzzNativeLogs found the hook
// count); bucketed, it was a silent top bucket. Each case is an honest
// session with one such count: converted, the record kept, the gap named,
// the digits nowhere in the outputs.
func TestEveryNativeCountIsRangeChecked(t *testing.T) {
	const bad = "12345678901234" // 14 digits, over 2^40
	sid := untimedSID
	user := `{"type":"user","uuid":"00000000-0000-4000-8000-000000000001","sessionId":"` + sid + `","timestamp":"2026-07-01T10:00:00Z","message":{"role":"user","content":"CANARY list files"}}`
	task := `{"type":"assistant","uuid":"00000000-0000-4000-8000-000000000002","parentUuid":"00000000-0000-4000-8000-000000000001","sessionId":"` + sid + `","timestamp":"2026-07-01T10:00:01Z","requestId":"req_1","message":{"id":"msg_1","role":"assistant","model":"claude-opus-4-1","content":[{"type":"tool_use","id":"toolu_01T","name":"Task","input":{"description":"CANARY d","prompt":"CANARY p","subagent_type":"Explore"}}],"usage":{"input_tokens":10,"output_tokens":5}}}`
	system := func(rest string) string {
		return `{"type":"system",` + rest + `,"uuid":"00000000-0000-4000-8000-000000000003","parentUuid":"00000000-0000-4000-8000-000000000001","sessionId":"` + sid + `","timestamp":"2026-07-01T10:00:02Z","isSidechain":false}`
	}
	taskResult := func(total string) string {
		return `{"type":"user","uuid":"00000000-0000-4000-8000-000000000004","parentUuid":"00000000-0000-4000-8000-000000000002","sessionId":"` + sid + `","timestamp":"2026-07-01T10:00:03Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01T","content":[{"type":"text","text":"CANARY found"}]}]},"toolUseResult":{"status":"completed","totalTokens":` + total + `,"totalToolUseCount":3,"content":[{"type":"text","text":"CANARY found"}]}}`
	}
	codexMeta := func(extra string) string {
		return `{"timestamp":"2026-07-01T10:00:00.000Z","type":"session_meta","payload":{"id":"` + sid + `","timestamp":"2026-07-01T10:00:00.000Z","cwd":"/Users/dana/CANARY","originator":"codex_cli_rs","cli_version":"0.146.0"` + extra + `}}`
	}
	codexName := "rollout-2026-07-01T10-00-00-" + sid + ".jsonl"
	cursorSID := "6c1f0a52-7d3e-4b8a-9e21-0f4d5c6b7a81"
	copilotEvent := func(typ, data string, n int) string {
		return fmt.Sprintf(`{"type":%q,"data":%s,"id":"013525e5-0000-4000-8000-0000000000%02d","timestamp":"2026-03-25T09:00:%02d.000Z","parentId":null}`, typ, data, n, n)
	}
	copilotStart := copilotEvent("session.start", `{"sessionId":"5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b","version":1,"producer":"copilot-agent","copilotVersion":"1.0.68","startTime":"2026-03-25T09:00:00.000Z","selectedModel":"claude-sonnet-4.5","context":{"cwd":"/Users/alice/CANARY"}}`, 1)
	copilotDone := func(pre, post string) string { // its pre tokens are the start's, read there
		return copilotEvent("session.compaction_complete", `{"success":true,"preCompactionTokens":`+pre+`,"postCompactionTokens":`+post+`,"messagesRemoved":41,"summaryContent":"CANARY summary"}`, 3)
	}
	for _, tc := range []struct {
		name, conv string
		files      map[string]string // path under the input folder: lines
	}{
		{"claude hookCount", "claude_code", map[string]string{sid + ".jsonl": user + "\n" + system(`"subtype":"stop_hook_summary","hookCount":`+bad+`,"hookInfos":[]`)}},
		{"claude preTokens", "claude_code", map[string]string{sid + ".jsonl": user + "\n" + system(`"subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":`+bad+`}`)}},
		{"claude postTokens", "claude_code", map[string]string{sid + ".jsonl": user + "\n" + system(`"subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":1000,"postTokens":-`+bad+`}`)}},
		{"claude totalTokens", "claude_code", map[string]string{sid + ".jsonl": user + "\n" + task + "\n" + taskResult(bad)}},
		{"claude spawnDepth", "claude_code", map[string]string{
			sid + ".jsonl":                        user + "\n" + task + "\n" + taskResult("900"),
			sid + "/subagents/agent-a1.jsonl":     `{"type":"user","uuid":"00000000-0000-4000-8000-000000000010","sessionId":"` + sid + `","agentId":"a1","isSidechain":true,"timestamp":"2026-07-01T10:00:01.500Z","message":{"role":"user","content":"CANARY explore"}}`,
			sid + "/subagents/agent-a1.meta.json": `{"agentType":"Explore","toolUseId":"toolu_01T","spawnDepth":` + bad + `}`,
		}},
		{"codex depth", "codex", map[string]string{codexName: codexMeta(`,"source":{"subagent":{"thread_spawn":{"parent_thread_id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","depth":` + bad + `}}}`)}},
		{"codex history start", "codex", map[string]string{codexName: codexMeta(`,"subagent_history_start_ordinal":` + bad)}},
		{"codex last input", "codex", map[string]string{codexName: codexMeta("") + "\n" +
			`{"timestamp":"2026-07-01T10:00:01.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":100,"output_tokens":300,"total_tokens":400},"last_token_usage":{"input_tokens":` + bad + `,"output_tokens":300}}}}`}},
		{"cursor duration", "cursor", map[string]string{cursorSID + ".jsonl": `{"type":"system","subtype":"init","cwd":"/Users/gus/CANARY-shop","session_id":"` + cursorSID + `","model":"gpt-5.3-codex","timestamp_ms":1786000000000}` + "\n" +
			`{"type":"result","subtype":"success","is_error":false,"result":"CANARY done","session_id":"` + cursorSID + `","duration_ms":` + bad + `,"timestamp_ms":1786000001000}`}},
		{"copilot pre tokens", "copilot_cli", map[string]string{"session-state/5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b/events.jsonl": copilotStart + "\n" + copilotEvent("session.compaction_start", `{"preCompactionTokens":`+bad+`}`, 2) + "\n" + copilotDone("127000", "8100")}},
		{"copilot post tokens", "copilot_cli", map[string]string{"session-state/5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b/events.jsonl": copilotStart + "\n" + copilotDone("127000", "-"+bad)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for rel, text := range tc.files {
				writeFile(t, dir, rel, text+"\n")
			}
			ins, err := Expand([]string{dir})
			if err != nil || len(ins) != 1 {
				t.Fatalf("inputs %v, %v: want one", ins, err)
			}
			res := Convert(ins[0], Options{Converter: tc.conv})
			if res.Err != nil {
				t.Fatal(res.Err) // a refusal of an honest session is a bug
			}
			a := summaryOf(t, res.Receipt)
			if n := a.Get(`convert\.input\.records\.invalid_count`).Int(); n != 1 {
				t.Errorf("records.invalid_count = %d, want 1", n)
			}
			if g := a.Get(`convert\.audit_gaps`).Raw; !strings.Contains(g, `"invalid_counts"`) {
				t.Errorf("audit gaps %s do not name invalid_counts", g)
			}
			if len(res.Diags) != 1 || !strings.HasSuffix(res.Diags[0], "record kept with a count out of range read as 0: invalid_count") {
				t.Errorf("diags = %q, want one warning of the count", res.Diags)
			}
			for _, b := range append([][]byte{res.Receipt, res.Trace}, []byte(strings.Join(res.Diags, "\n"))) {
				if bytes.Contains(b, []byte("CANARY")) || bytes.Contains(b, []byte(bad[:10])) {
					t.Fatal("raw input in the output")
				}
			}
		})
	}
}
