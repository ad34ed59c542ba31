package converters_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared"

	"github.com/contextreceipts/convert/internal/pipeline"
)

// TestScenarioCountOutOfRange: a scenario log whose count, copied into the
// receipt as it stands, is out of the leak check's range for a count is
// refused as bad input at its line, not as a leak (FuzzScenarioLogs found
// a truncation_limit_chars of 12345678901234 refused as a raw 14-digit
// number). The declared Int moves checked their range already; these two
// mappings read the count by hand. Each sample converts as bundled; with
// the one value changed it fails with the count's own error.
func TestScenarioCountOutOfRange(t *testing.T) {
	const bad = "12345678901234"
	for _, tc := range []struct {
		conv, sample, old, new string
	}{
		{"context_input", "basic.jsonl", `"truncation_limit_chars":`, `"truncation_limit_chars":` + bad + `0`},
		{"code_search_retrieval", "basic.jsonl", `"rank":4`, `"rank":` + bad},
	} {
		t.Run(tc.conv, func(t *testing.T) {
			data, err := os.ReadFile(testshared.Repo(t, "samples", tc.conv, tc.sample))
			if err != nil {
				t.Fatal(err)
			}
			in := pipeline.Input{Path: "in.jsonl", Rel: "in.jsonl"}
			opt := pipeline.Options{Converter: tc.conv}
			if res := pipeline.ConvertFiles(pipeline.Files{"in.jsonl": data}, in, opt); res.Err != nil {
				t.Fatalf("the sample as bundled: %v", res.Err)
			}
			if !strings.Contains(string(data), tc.old) {
				t.Fatalf("the sample has no %s", tc.old)
			}
			changed := strings.Replace(string(data), tc.old, tc.new, 1)
			res := pipeline.ConvertFiles(pipeline.Files{"in.jsonl": []byte(changed)}, in, opt)
			var le *pipeline.LeakError
			switch {
			case res.Err == nil:
				t.Fatal("converted")
			case errors.As(res.Err, &le):
				t.Fatalf("refused as a leak: %v", res.Err)
			case !strings.Contains(res.Err.Error(), "must be a count from 0 to 999999999") || !strings.HasPrefix(res.Err.Error(), "in.jsonl:"):
				t.Errorf("error %q: want the count's own, at its line", res.Err)
			case strings.Contains(res.Err.Error(), "1234567890") || strings.Contains(strings.ToUpper(res.Err.Error()), "CANARY"):
				t.Errorf("raw input in the error: %q", res.Err)
			}
			if res.Receipt != nil || res.Trace != nil {
				t.Error("a failed input has outputs")
			}
		})
	}
}
