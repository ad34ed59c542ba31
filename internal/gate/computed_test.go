package gate

import (
	"testing"

	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
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

// TestNumbersByValue: with the outputs' notes (Numbers), a number is
// skipped where every value noted at its key with its digits was
// computed (receipt.Computed), whatever the key; a number noted nowhere,
// noted as a copy, or noted computed and copied at one key, is probed.
func TestNumbersByValue(t *testing.T) {
	raw := []byte(`{"tool":{"input":{"timeout":600000}}}`)
	rec := func(key, lit string) string { return `{"attributes":{"` + key + `":` + lit + `}}` }
	otlp := func(key, lit string) string {
		return `{"attributes":[{"key":"` + key + `","value":{"intValue":"` + lit + `"}}]}`
	}
	computed := func(k string, n int64) receipt.Attr { return receipt.Attr{Key: k, Value: receipt.Computed(n)} }
	copied := func(k string, n int64) receipt.Attr { return receipt.Attr{Key: k, Value: receipt.Copied(n)} }
	tests := []struct {
		name  string
		notes receipt.Attrs
		doc   string
		leak  bool
	}{
		{"computed responses", receipt.Attrs{computed("gen_ai.usage.responses", 600000)}, rec("gen_ai.usage.responses", "600000"), false},
		{"computed depth, otlp", receipt.Attrs{computed("subagent.depth", 600000)}, otlp("subagent.depth", "600000"), false},
		{"computed negative", receipt.Attrs{computed("x.delta", -600000)}, rec("x.delta", "-600000"), false},
		{"no notes", nil, rec("gen_ai.usage.responses", "600000"), true},
		{"copied", receipt.Attrs{copied("code_search.result.rank", 600000)}, rec("code_search.result.rank", "600000"), true},
		{"computed and copied at one key", receipt.Attrs{computed("x.n", 600000), copied("x.n", 600000)}, otlp("x.n", "600000"), true},
		{"computed at another key", receipt.Attrs{computed("x.count", 600000)}, rec("x.rank", "600000"), true},
		{"computed other digits", receipt.Attrs{computed("x.count", 600001)}, rec("x.count", "600000"), true},
		{"computed, copied elsewhere", receipt.Attrs{computed("x.count", 600000), copied("x.rank", 600000)}, rec("x.count", "600000"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := leak.NewInput()
			in.Line(raw, nil, nil)
			var n Numbers
			n.Note(tt.notes)
			o := NewOutputs()
			o.WithNumbers(&n)
			o.AddJSON(gjson.Parse(tt.doc), Where{Kind: Line, File: "r.receipt.ndjson", Index: 1}, DerivedFields)
			if fs := o.Check(in).Findings(); (len(fs) > 0) != tt.leak {
				t.Fatalf("findings %v, want leak %v", fs, tt.leak)
			}
		})
	}
}
