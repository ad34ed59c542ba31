package native

import (
	"maps"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/view"
)

// TestCallKey: a tool call is keyed by its id once; a call with no id, or
// one whose key is open already (a log writing a call twice), gets no key
// and is counted apart, never as a second call.
func TestCallKey(t *testing.T) {
	c := New(converters.Env{}, nil)
	calls := map[string]*Call{}
	counts := map[string]int64{}
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{"toolu_0114R4tT6VPiDksvXghJqa5C", true},
		{"", false},
		{"toolu_0114R4tT6VPiDksvXghJqa5C", false},
		{"call_2", true},
	} {
		key, ok := CallKey(&c, view.Borrow(tc.id), calls, counts)
		if ok != tc.want || ok == (key == "") {
			t.Errorf("%q: key %q, ok %v; want ok %v", tc.id, key, ok, tc.want)
		}
		if ok {
			calls[key] = &Call{Key: key}
		}
	}
	want := map[string]int64{"tool_calls": 2, "tool_calls_without_id": 1, "repeated_tool_calls": 1}
	if !maps.Equal(counts, want) {
		t.Errorf("counts %v, want %v", counts, want)
	}
}
