package converters_test

import (
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
)

// Findings of the fuzz targets, minimised by hand to the records that
// matter, each with what was wrong. Every one goes through convtest.Check (all
// the fuzz properties) and must convert.
func TestFuzzFindings(t *testing.T) {
	for _, tc := range []struct {
		name, conv, why string
		file            string // "in.jsonl" when ""
		lines           []string
	}{
		{
			name: "count_above_max_copied_to_receipt", conv: "claude_code",
			why: "FuzzNativeLogs: a token count above leak.MaxCount (12345678901234) was copied into the receipt, where the " +
				"leak check rightly saw a raw input number (a Count field admits only counts under 10^9) and refused the whole session",
			lines: []string{
				`{"type":"user","uuid":"7f3c0002-0002-4002-8002-00005b6e0002","sessionId":"7f3c0001-0001-4001-8001-00005b6e0001","timestamp":"2026-03-14T09:00:00.000Z","message":{"role":"user","content":"CANARY please fix the rounding"}}`,
				`{"type":"assistant","uuid":"7f3c0003-0003-4003-8003-00005b6e0003","parentUuid":"7f3c0002-0002-4002-8002-00005b6e0002","sessionId":"7f3c0001-0001-4001-8001-00005b6e0001","timestamp":"2026-03-14T09:00:05.000Z","requestId":"req_454021de755d453b",` +
					`"message":{"id":"msg_a708a824f612c926","model":"claude-opus-4-7","role":"assistant","type":"message","content":[{"type":"text","text":"CANARY answer"}],"usage":{"input_tokens":12345678901234,"output_tokens":51}}}`,
			},
		},
		{
			name: "model_with_colon_in_span_name", conv: "codex",
			why: "FuzzNativeConverters: a model name with a colon (Ollama's llama3:8b) is admitted as a pass-through, " +
				"but the span name \"chat llama3:8b\" was split at the colon and its pieces had no provenance: an " +
				"untyped output, and a second read of the whole input to probe it",
			lines: []string{
				`{"timestamp":"2026-03-14T10:00:00.010Z","type":"session_meta","payload":{"id":"0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b","timestamp":"2026-03-14T09:12:03.000Z","cwd":"/Users/dana/CANARY-ledger","originator":"codex_cli_rs","cli_version":"0.146.0","source":"cli"}}`,
				`{"timestamp":"2026-03-14T10:00:01.000Z","type":"turn_context","payload":{"turn_id":"t-1","model":"llama3:8b","summary":"auto"}}`,
			},
		},
		{
			name: "cursor_task_agent_id_uuid", conv: "cursor",
			why: "FuzzNativeLogs: a taskToolCall's agentId (a UUID) is written as an id (leak.ID) but was declared " +
				"a Name pass-through, which no UUID fits: every Cursor session with a subagent call was refused as a leak",
			lines: []string{
				`{"type":"system","subtype":"init","cwd":"/Users/gus/CANARY-shop","session_id":"7f3c0001-0001-4001-8001-00005b6e0001","model":"Auto","timestamp_ms":1786000000000}`,
				`{"type":"tool_call","subtype":"started","call_id":"call_1715609f7c746c69\nfc_7f3c0006","session_id":"7f3c0001-0001-4001-8001-00005b6e0001","timestamp_ms":1786000016228,` +
					`"tool_call":{"taskToolCall":{"args":{"agentId":"7f3c0007-0007-4007-8007-00005b6e0007","description":"CANARY desc","prompt":"CANARY prompt","subagentType":{"unspecified":{}}}}}}`,
			},
		},
		{
			name: "cursor_session_id_from_file_name", conv: "cursor", file: "7f3c0001-0001-4001-8001-00005b6e0001.jsonl",
			why: "FuzzNativeLogs: a Cursor transcript's session id comes from its file name, which the leak check did not " +
				"know as the user's words (only the whole base name): the id was an untyped output, and a transcript " +
				"naming it in a raw field was refused",
			lines: []string{
				`{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\nCANARY grep for TODO\n</user_query>"}]}}`,
				`{"role":"user","message":{"content":[{"type":"tool-result","toolCallId":"7f3c0001-0001-4001-8001-00005b6e0001","content":"CANARY 2 matches"}]}}`,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conv, ok := converters.Lookup(tc.conv)
			if !ok {
				t.Fatalf("no converter %s", tc.conv)
			}
			data := []byte(strings.Join(tc.lines, "\n") + "\n")
			name := tc.file
			if name == "" {
				name = "in.jsonl"
			}
			c := convtest.FuzzCase{Conv: conv, Files: pipeline.Files{name: data}, In: pipeline.Input{Path: name, Rel: name}, Generated: true}
			if res := c.Convert(false); res.Err != nil {
				t.Fatalf("%s\n%v", tc.why, res.Err)
			}
			convtest.Check(t, c, data)
		})
	}
}
