package untrusted

import (
	"github.com/contextreceipts/convert/internal/leak"
	"strings"
	"testing"
)

// TestPrintable: a value read from a receipt is printed as it is only when
// a receipt convert writes could hold it without its input at hand.
func TestPrintable(t *testing.T) {
	digest := "sha256:" + strings.Repeat("0123456789abcdef", 4)
	tests := []struct {
		v    string
		want bool
	}{
		{"claude_code", true},
		{digest, true},
		{"hmac-sha256:" + strings.Repeat("fedcba9876543210", 4), true},
		{"execute_tool Bash", true},
		{"context.input.source.size_bucket", true},
		{"session.id=" + digest, true},
		{"under_16kib", true},
		{"12", true},
		{"2.1.42", true},
		{"2026-02-03T10:00:00.000Z", true},
		{"claude-opus-4-5-20251101", true},
		{"gpt-5.5", true},
		{"", true},
		{"CANARY-prompt total the invoices", false},
		{"/Users/CANARYUSER/acme", false},
		{"CANARYUSER", false},
		{"claude-CANARY", false},
		{"claude-opus-4111111111111111", false},
		{"4111111111111111", false},
		{"555-123-4567", false},
		{"123-45-6789", false},
		{"10.11.12.13", false},
		{"host 192.168.1.20 up", false},
		{"1.2.3.4.5", false},
		{"AKIAIOSFODNN7EXAMPLE", false},
		{"sha256:CANARY", false},
		{strings.Repeat("a", 600), false},
	}
	for _, tt := range tests {
		if got := Printable(tt.v); got != tt.want {
			t.Errorf("Printable(%q) = %v, want %v", tt.v, got, tt.want)
		}
		shown := Show(tt.v)
		if !tt.want && (strings.Contains(shown, tt.v) || strings.Contains(shown, "CANARY") || !strings.Contains(shown, "withheld")) {
			t.Errorf("Show(%q) = %q", tt.v, shown)
		}
	}
	for in, want := range map[string]string{
		`"claude_code"`:         `"claude_code"`,
		`["2.1.42","2.1.43"]`:   `["2.1.42","2.1.43"]`,
		`12`:                    `12`,
		`"CANARY-x"`:            Withheld(`"CANARY-x"`),
		`["2.1.42","CANARY-y"]`: `["2.1.42",` + Withheld(`"CANARY-y"`) + `]`,
		`{"CANARY":"nested"}`:   Withheld(`{"CANARY":"nested"}`),
		`"a \"CANARY\" quoted"`: Withheld(`"a \"CANARY\" quoted"`),
		`4111111111111111`:      Withheld(`4111111111111111`),
	} {
		if got := ShowJSON(in); got != want {
			t.Errorf("ShowJSON(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestMessage: a validator's message keeps its own words, the schemas'
// words and typed values, and withholds every other word and pointer
// segment.
func TestMessage(t *testing.T) {
	for in, keep := range map[string][]string{
		"/: additionalProperties 'CANARY-top' not allowed":                              {"/:", "additionalProperties", "not allowed"},
		"/attributes/CANARY-key%20~1home~1alice: does not match pattern '^[a-z]+$'":     {"/attributes/", "does not match pattern"},
		"/time: CANARY-time 4111111111111111 is not valid 'date-time'":                  {"/time:", "is not valid", "'date-time'"},
		`event "CANARY.event" has no schema`:                                            {"event", "has no schema"},
		`event "context.input.loaded": /: additionalProperties 'convert.x' not allowed`: {`"context.input.loaded"`},
	} {
		got := Message(in)
		if strings.Contains(got, "CANARY") || strings.Contains(got, "4111111111111111") || strings.Contains(got, "alice") {
			t.Errorf("Message(%q) = %q", in, got)
		}
		for _, k := range keep {
			if !strings.Contains(got, k) {
				t.Errorf("Message(%q) = %q, lost %q", in, got, k)
			}
		}
	}
}

// TestField: in a field of a declared kind, a value the writer writes in
// clear there is printed (a model name the catalog knows, or the agent's
// own; an id of the agent's grammar, or of the id shape when the agent is
// unknown); anything else is withheld.
func TestField(t *testing.T) {
	claude := &leak.Knowledge{IDs: leak.IDs{leak.UUIDs, leak.AnthropicIDs}, Models: []string{"<synthetic>"}}
	for _, tt := range []struct {
		key, v string
		want   bool
		k      *leak.Knowledge
	}{
		{"session.id", "2b6e4d1f-7f3c-4a10-9a8b-5e0c1d2e3f4a", true, nil},
		{"session.id", "2b6e4d1f-7f3c-4a10-9a8b-5e0c1d2e3f4a", true, claude},
		{"session.id", "CANARY /Users/x", false, nil},
		{"gen_ai.tool.call.id", "toolu_0114R4tT6VPiDksvXghJqa5C", true, claude},
		{"gen_ai.tool.call.id", "msg_01alicekowalczykpayrollQ3", true, nil},     // the id shape's
		{"gen_ai.tool.call.id", "msg_01alicekowalczykpayrollQ3", false, claude}, // no Anthropic id: Claude Code wrote its digest
		{"gen_ai.tool.call.id", "call_01iQZvHRP9UGrkhoUlvcOLXU", false, claude}, // another agent's family
		{"gen_ai.request.model", "claude-opus-4-7", true, nil},
		{"gen_ai.request.model", "claude-opus-4-5-20251101", true, claude},
		{"gen_ai.request.model", "alice-kowalczyk-finetune", false, nil}, // no catalog's: written as its digest
		{"gen_ai.request.model", "alice-kowalczyk-finetune", false, claude},
		{"gen_ai.request.model", "claude-alice-kowalczyk", false, nil}, // a known family's shape is not the catalog
		{"gen_ai.request.model", "<synthetic>", true, claude},          // Claude Code's own
		{"gen_ai.request.model", "CANARY/4111111111111111", false, nil},
		{"mcp.server.name", "github", true, nil},
		{"mcp.server.name", "CANARY 10.1.2.3", false, nil},
		// the run writes a stem that is not id-shaped as its digest name
		// (pipeline.InputFileName), so a receipt holding it in clear was
		// not written by convert
		{"convert.input.path", "bad_junk_lines.jsonl", false, nil},
		{"convert.input.path", "rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl", true, nil},
		{"convert.input.path", "CANARY dir/notes.jsonl", false, nil},
		{"convert.input.path", "5551234567.jsonl", false, nil},
		{"convert.input.path", "input-cd6d9626efca.jsonl", true, nil},
		{"convert.input.path", "cc-v2.1.17-entireio-cli-08940314.jsonl", false, nil},
		{"convert.input.path", "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl", true, nil},
		{"convert.input.path", "agent-a52886dc180afb356.jsonl", true, nil},
		{"some.other.key", "CANARY", false, nil},
	} {
		got := FieldFor(tt.k, tt.key, tt.v)
		if (got == tt.v) != tt.want {
			t.Errorf("FieldFor(%v, %q, %q) = %q, want printed %v", tt.k != nil, tt.key, tt.v, got, tt.want)
		}
	}
}

// TestIsWithheld: what Withheld prints is known as such (a leak check
// counts it as derived), and nothing else is.
func TestIsWithheld(t *testing.T) {
	if !IsWithheld(Withheld("CANARY /Users/x")) {
		t.Error("Withheld's output is not IsWithheld")
	}
	for _, s := range []string{"sha256:CANARY" + withheldNote, Withheld("x") + " CANARY", "CANARY", "sha256:" + strings.Repeat("a", 64)} {
		if IsWithheld(s) {
			t.Errorf("IsWithheld(%q)", s)
		}
	}
}
