package native

import (
	"testing"

	"github.com/contextreceipts/convert/converters/view"
)

// TestCount: a count is copied only inside the range a Count field's value
// is admitted in (leak.MaxCount, under 10^9); outside it, it reads as 0 and is
// counted as invalid; what is not a number reads as 0 and is not.
func TestCount(t *testing.T) {
	for _, tc := range []struct {
		json    string
		want    int64
		invalid bool
	}{
		{`12345`, 12345, false},
		{`0`, 0, false},
		{`999999999`, 999999999, false},
		{`1000000000`, 0, true},
		{`5558675309`, 0, true}, // a phone number
		{`12345678901234`, 0, true},
		{`-3`, 0, true},
		{`1e300`, 0, true},
		{`"12345678901234"`, 0, true}, // gjson reads a number in a string
		{`null`, 0, false},
		{`"n/a"`, 0, false},
		{`{}`, 0, false},
	} {
		var c Base
		if got := c.Count(view.Parse(tc.json)); got != tc.want {
			t.Errorf("count(%s) = %d, want %d", tc.json, got, tc.want)
		}
		if got := c.InvalidCounts() == 1; got != tc.invalid {
			t.Errorf("count(%s): counted invalid %v, want %v", tc.json, got, tc.invalid)
		}
	}
	var absent Base
	absent.Count(view.Parse(`{}`).Get("input_tokens"))
	if n := absent.InvalidCounts(); n != 0 {
		t.Errorf("an absent count was counted invalid (%d)", n)
	}
}
