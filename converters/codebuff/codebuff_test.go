package codebuff_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	_ "github.com/contextreceipts/convert/converters/all"
	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
)

// TestTokenTotalsAgainstCcusage: each sample chat's token totals are the
// figures ccusage 20.0.24 printed for it (testdata/ccusage.json).
func TestTokenTotalsAgainstCcusage(t *testing.T) {
	recorded := convtest.RecordedBeside(t)
	testshared.InRepo(t)
	for _, s := range recorded {
		ins, err := pipeline.Expand([]string{s.Sample})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, in := range ins {
			if filepath.Base(filepath.Dir(in.Path)) != s.Input {
				continue
			}
			found = true
			res := pipeline.Convert(in, pipeline.Options{})
			if res.Err != nil || res.Converter != "codebuff" {
				t.Fatalf("%s: %s, %v", in.Path, res.Converter, res.Err)
			}
			if got := convtest.ReceiptTotals(res.Receipt); got != s.Ccusage {
				t.Errorf("%s %s: ours %+v, ccusage %+v", s.Sample, s.Input, got, s.Ccusage)
			}
		}
		if !found {
			t.Errorf("%s: no chat %s", s.Sample, s.Input)
		}
	}
}

// TestUsageAsCcusageReadsIt: the rules of ccusage's parser, one reply
// each: the names it reads, the fallbacks, fractions passed over, the
// last reply of an id counting, replies that are not the assistant's.
func TestUsageAsCcusageReadsIt(t *testing.T) {
	for _, tc := range []struct {
		name  string
		msgs  string
		input int64
		out   int64
		read  int64
		write int64
	}{
		{"camel case", `{"id":"a","variant":"ai","content":"CANARY","metadata":{"usage":{"inputTokens":10,"outputTokens":2,"cacheReadInputTokens":3,"cacheCreationInputTokens":4}}}`, 10, 2, 3, 4},
		{"snake case and details", `{"id":"a","variant":"ai","content":"CANARY","metadata":{"usage":{"prompt_tokens":10,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":3}}}}`, 10, 2, 3, 0},
		{"codebuff usage fills zeros", `{"id":"a","variant":"ai","content":"CANARY","metadata":{"usage":{"inputTokens":10},"codebuff":{"usage":{"inputTokens":99,"outputTokens":5,"cachedTokensCreated":6}}}}`, 10, 5, 0, 6},
		{"a fraction is passed over", `{"id":"a","variant":"ai","content":"CANARY","metadata":{"usage":{"inputTokens":10.9,"input_tokens":7,"outputTokens":3}}}`, 7, 3, 0, 0},
		{"last of an id counts", `{"id":"a","variant":"agent","content":"CANARY","metadata":{"usage":{"inputTokens":1000,"outputTokens":1}}},{"id":"a","variant":"agent","content":"CANARY","metadata":{"usage":{"inputTokens":2000}}}`, 2000, 0, 0, 0},
		{"no id: each counts", `{"variant":"ai","content":"CANARY","metadata":{"usage":{"inputTokens":5}}},{"variant":"ai","content":"CANARY","metadata":{"usage":{"inputTokens":5}}}`, 10, 0, 0, 0},
		{"user and error replies do not count", `{"id":"u","variant":"user","content":"CANARY","metadata":{"usage":{"inputTokens":5}}},{"id":"e","variant":"error","content":"CANARY","metadata":{"usage":{"inputTokens":5}}},{"id":"a","variant":"ai","content":"CANARY","metadata":{"usage":{"inputTokens":1}}}`, 1, 0, 0, 0},
		{"run state, latest first", `{"id":"a","variant":"ai","content":"CANARY","metadata":{"runState":{"sessionState":{"mainAgentState":{"messageHistory":[{"role":"assistant","providerOptions":{"usage":{"inputTokens":1,"outputTokens":9}}},{"role":"assistant","providerOptions":{"codebuff":{"usage":{"inputTokens":2}}}}]}}}}}`, 2, 9, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := chat(t, "["+tc.msgs+"]")
			if res.Err != nil || res.Converter != "codebuff" {
				t.Fatalf("%s, %v", res.Converter, res.Err)
			}
			convtest.NoCanary(t, res)
			got := convtest.ReceiptTotals(res.Receipt)
			if got.Input != tc.input || got.Output != tc.out || got.CacheRead != tc.read || got.CacheWrite != tc.write {
				t.Errorf("got %+v, want input %d output %d cache read %d write %d", got, tc.input, tc.out, tc.read, tc.write)
			}
		})
	}
}

// chat writes doc as a chat's chat-messages.json, laid out as Codebuff
// keeps it, and converts it with detection.
func chat(t *testing.T, doc string) pipeline.Result {
	t.Helper()
	res := convtest.ConvertLines(t, "", "chat-messages.json", doc)
	return res
}

// TestNotClaimed: what only looks like a Codebuff chat is no Codebuff
// chat: a JSON array of {role, content} messages (every chat log's shape),
// and Codebuff-like lines in a JSON Lines file without its variant set.
func TestNotClaimed(t *testing.T) {
	for _, tc := range []struct{ name, file, body string }{
		{"role and content only", "chat-messages.json", `[{"role":"user","content":"CANARY"},{"role":"assistant","content":"CANARY","metadata":{"usage":{"inputTokens":5}}}]`},
		{"another app's chat log", "chat-messages.json", `[{"id":"1","sender":"user","text":"CANARY","timestamp":"2026-01-01T00:00:00Z"}]`},
		{"an odd variant without the shape", "chat-messages.json", `[{"variant":"primary","label":"CANARY"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := convtest.ConvertLines(t, "", tc.file, tc.body)
			if res.Err == nil || !strings.Contains(res.Err.Error(), converters.ErrNoKind.Error()) {
				t.Fatalf("claimed by %q (error %v)", res.Converter, res.Err)
			}
			convtest.NoCanary(t, res)
		})
	}
}

// TestLocations: ~/.config/manicode/projects and the -dev and -staging
// channels' (ccusage's defaults), or CODEBUFF_DATA_DIR's projects.
func TestLocations(t *testing.T) {
	others := []string{"HOME/.config/manicode-dev/projects", "HOME/.config/manicode-staging/projects"}
	convtest.Locations(t, "codebuff", "CODEBUFF_DATA_DIR",
		append([]string{"HOME/.config/manicode/projects"}, others...), append([]string{"ENV/projects"}, others...))
}
