package converters

import (
	"testing"

	"github.com/tidwall/gjson"
)

// TestCount: a count is copied only inside the range a Count field's value
// is admitted in (leak.MaxCount, 2^40); outside it, and for what is not a
// number, it reads as 0.
func TestCount(t *testing.T) {
	for _, tc := range []struct {
		json string
		want int64
	}{
		{`12345`, 12345},
		{`0`, 0},
		{`1099511627776`, 1 << 40},
		{`1099511627777`, 0},
		{`12345678901234`, 0},
		{`-3`, 0},
		{`null`, 0},
	} {
		if got := count(gjson.Parse(tc.json)); got != tc.want {
			t.Errorf("count(%s) = %d, want %d", tc.json, got, tc.want)
		}
	}
}
