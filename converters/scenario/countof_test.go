package scenario

import (
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters/view"
)

// TestCountOf: a scenario log's count field is read whole and in the
// leak check's range for a count, or refused as bad input, never copied.
func TestCountOf(t *testing.T) {
	for _, tc := range []struct {
		json, err string
		want      int64
	}{
		{`12345`, "", 12345},
		{`0`, "", 0},
		{`999999999`, "", 999999999},
		{`1000000000`, "must be a count from 0 to 999999999", 0},
		{`5558675309`, "must be a count from 0 to 999999999", 0}, // a phone number
		{`12345678901234`, "must be a count from 0 to 999999999", 0},
		{`-1`, "must be a count from 0 to 999999999", 0},
		{`1.5`, "must be a whole number", 0},
		{`"7"`, "must be a whole number", 0},
	} {
		n, err := WholeCount("f", view.Parse(tc.json))
		switch {
		case tc.err == "" && (err != nil || n != tc.want):
			t.Errorf("countOf(%s) = %d, %v; want %d", tc.json, n, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("countOf(%s) error %v; want %q", tc.json, err, tc.err)
		}
	}
}
