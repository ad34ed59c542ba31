package pipeline

import (
	"reflect"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared"
	"github.com/contextreceipts/convert/internal/usage"
)

// TestResponsesAsWritten: the responses kept as the trace is written are
// the ones read back from the trace, for every sample, in both layouts and
// with the legacy GenAI names: the run's totals and report's agree.
func TestResponsesAsWritten(t *testing.T) {
	ins, err := Expand([]string{testshared.Repo(t, "samples")})
	if err != nil {
		t.Fatal(err)
	}
	withUsage := 0
	for _, opt := range []Options{{}, {OTelFormat: "json"}, {LegacyGenAINames: true}} {
		for _, in := range ins {
			res := Convert(in, opt)
			if res.Err != nil {
				continue // bad_* samples
			}
			if got, want := res.Responses, usage.Responses(res.Trace); !reflect.DeepEqual(got, want) {
				t.Errorf("%s (%+v): kept %d responses, the trace holds %d: %v vs %v", in.Rel, opt, len(got), len(want), got, want)
			}
			if len(res.Responses) > 0 {
				withUsage++
			}
		}
	}
	if withUsage < 10 {
		t.Fatalf("only %d conversions with chat usage: the samples were not found", withUsage)
	}
}
