package converters

import (
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters/view"
)

// TestCount: a count is copied only inside the range a Count field's value
// is admitted in (leak.MaxCount, 2^40); outside it, it reads as 0 and is
// counted as invalid; what is not a number reads as 0 and is not.
func TestCount(t *testing.T) {
	for _, tc := range []struct {
		json    string
		want    int64
		invalid bool
	}{
		{`12345`, 12345, false},
		{`0`, 0, false},
		{`1099511627776`, 1 << 40, false},
		{`1099511627777`, 0, true},
		{`12345678901234`, 0, true},
		{`-3`, 0, true},
		{`1e300`, 0, true},
		{`"12345678901234"`, 0, true}, // gjson reads a number in a string
		{`null`, 0, false},
		{`"n/a"`, 0, false},
		{`{}`, 0, false},
	} {
		var c native
		if got := c.count(view.Parse(tc.json)); got != tc.want {
			t.Errorf("count(%s) = %d, want %d", tc.json, got, tc.want)
		}
		if got := c.InvalidCounts() == 1; got != tc.invalid {
			t.Errorf("count(%s): counted invalid %v, want %v", tc.json, got, tc.invalid)
		}
	}
	var absent native
	absent.count(view.Parse(`{}`).Get("input_tokens"))
	if n := absent.InvalidCounts(); n != 0 {
		t.Errorf("an absent count was counted invalid (%d)", n)
	}
}

// TestCountOf: a scenario log's count field is read whole and in the
// leak check's range for a count, or refused as bad input, never copied.
func TestCountOf(t *testing.T) {
	for _, tc := range []struct {
		json, err string
		want      int64
	}{
		{`12345`, "", 12345},
		{`0`, "", 0},
		{`1099511627776`, "", 1 << 40},
		{`1099511627777`, "must be a count from 0 to 2^40", 0},
		{`12345678901234`, "must be a count from 0 to 2^40", 0},
		{`-1`, "must be a count from 0 to 2^40", 0},
		{`1.5`, "must be a whole number", 0},
		{`"7"`, "must be a whole number", 0},
	} {
		n, err := countOf("f", view.Parse(tc.json))
		switch {
		case tc.err == "" && (err != nil || n != tc.want):
			t.Errorf("countOf(%s) = %d, %v; want %d", tc.json, n, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("countOf(%s) error %v; want %q", tc.json, err, tc.err)
		}
	}
}
