package gate

import (
	"testing"

	"github.com/contextreceipts/convert/internal/leak"
	"github.com/tidwall/gjson"
)

// TestComputedNumbersAreNotProbed (issue #49, item 3): a token count the
// program computed is never taken for a copy of a raw input number it
// happens to equal, in a receipt line or as an OTLP attribute's intValue;
// any other output number still is, and so is an intValue whose attribute
// is not a computed count, and a computed key's number in a field of
// another name.
func TestComputedNumbersAreNotProbed(t *testing.T) {
	raw := []byte(`{"tool":{"input":{"timeout":600000,"phone":5551234}}}`)
	tests := []struct {
		name, doc string
		leak      bool
	}{
		{"receipt token total", `{"attributes":{"gen_ai.usage.input_tokens":600000}}`, false},
		{"receipt cache tokens", `{"attributes":{"gen_ai.usage.cache_read.input_tokens":600000}}`, false},
		{"otlp token total", `{"attributes":[{"key":"gen_ai.usage.input_tokens","value":{"intValue":"600000"}}]}`, false},
		{"receipt copied score", `{"attributes":{"brain.doctor.score.before":600000}}`, true},
		{"receipt copied phone", `{"attributes":{"team_memory.entry.sequence":5551234}}`, true},
		{"otlp copied score", `{"attributes":[{"key":"brain.doctor.score.before","value":{"intValue":"600000"}}]}`, true},
		{"otlp attribute after a computed one", `{"attributes":[{"key":"gen_ai.usage.input_tokens","value":{"intValue":"1"}},{"key":"x.count","value":{"intValue":"5551234"}}]}`, true},
		{"responses are not tokens", `{"attributes":{"gen_ai.usage.responses":600000}}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := leak.NewInput()
			in.Line(raw, nil, nil)
			o := NewOutputs()
			o.AddJSON(gjson.Parse(tt.doc), Where{Kind: Line, File: "r.receipt.ndjson", Index: 1}, DerivedFields)
			fs := o.Check(in).Findings()
			if (len(fs) > 0) != tt.leak {
				t.Fatalf("findings %v, want leak %v", fs, tt.leak)
			}
		})
	}
}
