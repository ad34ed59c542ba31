package converters_test

import (
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/pipeline"
)

// Findings of the fuzz targets, minimised by hand to the records that
// matter, each with what was wrong. Every one goes through checkCase (all
// the fuzz properties) and must convert.
func TestFuzzFindings(t *testing.T) {
	for _, tc := range []struct {
		name, conv, why string
		lines           []string
	}{
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			conv, ok := converters.Lookup(tc.conv)
			if !ok {
				t.Fatalf("no converter %s", tc.conv)
			}
			data := []byte(strings.Join(tc.lines, "\n") + "\n")
			c := fuzzCase{conv: conv, files: pipeline.Files{"in.jsonl": data}, in: pipeline.Input{Path: "in.jsonl", Rel: "in.jsonl"}, generated: true}
			if res := c.convert(); res.Err != nil {
				t.Fatalf("%s\n%v", tc.why, res.Err)
			}
			checkCase(t, c, data)
		})
	}
}
