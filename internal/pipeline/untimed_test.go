package pipeline

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextreceipts/convert/converters"
	"github.com/tidwall/gjson"
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
