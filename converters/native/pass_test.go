package native

import (
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// TestPassFollowsTheAgentsGrammar: Pass writes an id in clear only when
// the reader's agent writes ids of that family (Env.Know, its Format's
// IDs), a model name when the catalog or the agent knows it; anything
// else as its digest, never a refusal.
func TestPassFollowsTheAgentsGrammar(t *testing.T) {
	var h receipt.Hasher
	claude := leak.Knowledge{IDs: leak.IDs{leak.UUIDs, leak.AnthropicIDs}, Models: []string{"<synthetic>"}}
	cases := []struct {
		shape leak.Shape
		v     string
		know  leak.Knowledge
		clear bool
	}{
		{leak.ID, "toolu_0114R4tT6VPiDksvXghJqa5C", claude, true},
		{leak.ID, "toolu_0114R4tT6VPiDksvXghJqa5C", leak.Knowledge{}, false},
		{leak.ID, "toolu_01Bash", claude, false},
		{leak.ID, "call_01iQZvHRP9UGrkhoUlvcOLXU", claude, false},
		{leak.IDOrUUID, "0822e04b-5551-4de8-a98a-5660c689e49b", claude, true},
		{leak.IDOrUUID, "sess-utf8", claude, false},
		{leak.Model, "<synthetic>", claude, true},
		{leak.Model, "<synthetic>", leak.Knowledge{}, false},
		{leak.Model, "claude-opus-4-5-20251101", leak.Knowledge{}, true},
	}
	for _, tc := range cases {
		c := New(converters.Env{Hash: h, Know: tc.know}, nil)
		got := c.Pass(tc.shape, view.Borrow(tc.v))
		want := h.Text(tc.v)
		if tc.clear {
			want = tc.v
		}
		if got != want {
			t.Errorf("%v %q (ids %d rules): %q, want %q", tc.shape, tc.v, len(tc.know.IDs), got, want)
		}
		if s, ok := c.Admit(tc.shape, view.Borrow(tc.v)); ok != tc.clear || ok && s != tc.v {
			t.Errorf("Admit %v %q: %q %v", tc.shape, tc.v, s, ok)
		}
	}
}
