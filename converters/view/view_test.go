package view

import (
	"testing"

	"github.com/tidwall/gjson"
)

// TestArrayIsGjsonArray: Array has gjson's element counts and values for
// every kind of value, and Len counts an array's or object's children.
func TestArrayIsGjsonArray(t *testing.T) {
	for _, doc := range []string{`[1,"a",{"b":2},[3]]`, `[]`, `{"a":1,"b":2}`, `{}`, `null`, `"s"`, `12`, `true`, ``} {
		want := gjson.Parse(doc).Array()
		got := Parse(doc).Array()
		if len(got) != len(want) {
			t.Fatalf("%q: %d elements, gjson %d", doc, len(got), len(want))
		}
		for i := range got {
			if got[i].r.Raw != want[i].Raw || got[i].r.Type != want[i].Type {
				t.Fatalf("%q element %d: %q, gjson %q", doc, i, got[i].r.Raw, want[i].Raw)
			}
		}
	}
	for doc, n := range map[string]int{`[1,2,3]`: 3, `{"a":1,"b":[2,3]}`: 2, `[]`: 0, `"s"`: 0, ``: 0} {
		if got := Parse(doc).Len(); got != n {
			t.Errorf("Len(%q) = %d, want %d", doc, got, n)
		}
	}
}
