package convtest

import (
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/receipt"
)

// TestReferenceAgrees: inputs on which the reference and the leak check
// once disagreed (CI's fuzzing found each); both must now give the answer
// the rules give.
func TestReferenceAgrees(t *testing.T) {
	loadRefVocab(t)
	for _, tc := range []struct {
		name, conv, input, plant string
		refused                  bool
	}{{
		// The server of an admitted MCP namespace carries its provenance
		// (leak.Shape.Parts), also where a mutated line repeats it raw.
		name:    "part of an admitted name",
		conv:    "codex",
		input:   `{"timestamp":"2026-06-01T07:00:01.000Z","type":"response_item","payload":{"type":"function_call","namespace":"mcp__CANARY-docs","name":"fetch_page","call_id":"call_d1"}}` + "\n" + `{"timestamp":"2026-06-01T07:00:02.000Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"McpToolCall","servxr":"CANARY-docs"}}}` + "\n",
		plant:   "CANARY-docs",
		refused: false,
	}, {
		name:    "raw text, no admitted name",
		conv:    "codex",
		input:   `{"timestamp":"2026-06-01T07:00:02.000Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"McpToolCall","servxr":"CANARY-docs"}}}` + "\n",
		plant:   "CANARY-docs",
		refused: true,
	}, {
		// A number-shaped piece of a longer raw number is another number.
		name:    "piece of a raw number",
		conv:    "droid",
		input:   `{"type":"message","id":"f3c6ef372fe94f82a","tags":[{"name":123456789012345678901234567890}]}` + "\n",
		plant:   "2345678901234567890",
		refused: false,
	}, {
		name:    "the whole raw number",
		conv:    "droid",
		input:   `{"type":"message","id":"f3c6ef372fe94f82a","tags":[{"name":123456789012345678901234567890}]}` + "\n",
		plant:   "123456789012345678901234567890",
		refused: true,
	}, {
		// An id is admitted as its reader writes it: one of its agent's
		// ids (its Format's IDs), else it is raw like any text.
		name:    "an id of the agent's grammar",
		conv:    "claude_code",
		input:   `{"type":"assistant","message":{"id":"msg_0113ezJR3hNQJo51NLnS26HK","role":"assistant"}}` + "\n",
		plant:   "msg_0113ezJR3hNQJo51NLnS26HK",
		refused: false,
	}, {
		name:    "an id-shaped value of no family of the agent's",
		conv:    "claude_code",
		input:   `{"type":"assistant","message":{"id":"msg_01alicekowalczykpayrollQ3","role":"assistant"}}` + "\n",
		plant:   "msg_01alicekowalczykpayrollQ3",
		refused: true,
	}, {
		name:    "a UUID for a reader that declares no ids",
		conv:    "zcode",
		input:   `{"zcode_session":{"id":"0822e04b-5551-4de8-a98a-5660c689e49b"}}` + "\n",
		plant:   "0822e04b-5551-4de8-a98a-5660c689e49b",
		refused: true,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			conv, ok := converters.Lookup(tc.conv)
			if !ok {
				t.Fatalf("no converter %s", tc.conv)
			}
			c := FuzzCase{Conv: conv, Files: pipeline.Files{"in.jsonl": []byte(tc.input)}}
			if got := refRefused(tc.plant, newRefInput(c)); got != tc.refused {
				t.Errorf("reference refuses %v, want %v", got, tc.refused)
			}
			chk, err := pipeline.LeakCheckOutputs(c.Files, tc.conv, map[string][]byte{"ref.ndjson": []byte(`{"p":"` + tc.plant + `"}` + "\n")})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(chk.Findings()) > 0; got != tc.refused {
				t.Errorf("leak check refuses %v (%v), want %v", got, chk.Findings(), tc.refused)
			}
		})
	}
}

// TestReferenceNumberNotes: the reference and the check agree on a raw
// 6-digit number planted with each provenance: computed (not a copy,
// whatever it equals), copied, both at one key, or noted nowhere.
func TestReferenceNumberNotes(t *testing.T) {
	conv, _ := converters.Lookup("claude_code")
	c := FuzzCase{Conv: conv, Files: pipeline.Files{"in.jsonl": []byte(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01A","name":"Bash","input":{"timeout":600000}}]}}` + "\n")}}
	in := newRefInput(c)
	computed := receipt.Attr{Key: "p", Value: receipt.Computed(600000)}
	copied := receipt.Attr{Key: "p", Value: receipt.Copied(600000)}
	for _, tc := range []struct {
		name    string
		notes   receipt.Attrs
		refused bool
	}{
		{"computed", receipt.Attrs{computed}, false},
		{"copied", receipt.Attrs{copied}, true},
		{"computed and copied", receipt.Attrs{computed, copied}, true},
		{"noted nowhere", nil, true},
		{"computed at another key", receipt.Attrs{{Key: "q", Value: receipt.Computed(600000)}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			comp, cop := map[string]bool{}, map[string]bool{}
			for _, n := range tc.notes {
				if n.Key == "p" && n.Value.IsComputed() {
					comp["600000"] = true
				} else if n.Key == "p" {
					cop["600000"] = true
				}
			}
			if got := refNumberLeaks("600000", in, comp, cop); got != tc.refused {
				t.Errorf("reference refuses %v, want %v", got, tc.refused)
			}
			chk, err := pipeline.LeakCheckNoted(c.Files, "claude_code", map[string][]byte{"ref.ndjson": []byte(`{"p":600000}` + "\n")}, tc.notes)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(chk.Findings()) > 0; got != tc.refused {
				t.Errorf("leak check refuses %v (%v), want %v", got, chk.Findings(), tc.refused)
			}
		})
	}
}
