package geminicli_test

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
)

// TestSubagentResultsInCallOrder: a session whose calls started several
// subagents writes their result events in the order of the calls, the
// same on every run (they were written in a map's order: the fuzzing
// found two runs on the same bytes that differed). The log is the
// grammar's, from the fuzz seed kept for it.
func TestSubagentResultsInCallOrder(t *testing.T) {
	b, err := os.ReadFile("testdata/fuzz/FuzzLogs/subagent_results_order")
	if err != nil {
		t.Fatal(err)
	}
	lit := strings.TrimSpace(strings.TrimPrefix(string(b), "go test fuzz v1\n"))
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lit, "[]byte("), ")"))
	if err != nil {
		t.Fatal(err)
	}
	c := convtest.LogCase(grammar([]byte(s)[1:]), s[0]&0x80 != 0)
	first := c.Convert(false)
	if first.Err != nil || bytes.Count(first.Receipt, []byte(`"subagent.result.returned"`)) < 2 {
		t.Fatalf("want a session with two subagent results: err %v", first.Err)
	}
	for range 30 {
		if again := c.Convert(false); !bytes.Equal(again.Receipt, first.Receipt) || !bytes.Equal(again.Trace, first.Trace) {
			t.Fatal("two runs on the same bytes differ")
		}
	}
}
