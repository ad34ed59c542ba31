package copilotcli_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/tidwall/gjson"

	_ "github.com/contextreceipts/convert/converters/all"
)

// session is an events.jsonl of a session that writes a usage checkpoint
// (a running total of AI credits in nano units) after each of its turns,
// then shuts down. Every prompt and path is a canary.
func session(nanoAiu []string) string {
	const sid = "6f7a8b9c-0d1e-4f2a-8b3c-4d5e6f7a8b9c"
	n := 0
	line := func(typ, data string) string {
		n++
		parent := "null"
		if n > 1 {
			parent = fmt.Sprintf(`"6f7a8b9c-0000-4000-8000-%012d"`, n-1)
		}
		return fmt.Sprintf(`{"type":%q,"data":%s,"id":"6f7a8b9c-0000-4000-8000-%012d","timestamp":"2026-11-30T10:%02d:%02d.000Z","parentId":%s}`, typ, data, n, n/60, n%60, parent)
	}
	lines := []string{line("session.start", `{"sessionId":"`+sid+`","version":1,"producer":"copilot-agent","copilotVersion":"1.0.92","startTime":"2026-11-30T10:00:00.000Z","selectedModel":"claude-opus-4.6","context":{"cwd":"/Users/CANARY-dev/CANARY-api"}}`)}
	for i, total := range nanoAiu {
		lines = append(lines,
			line("user.message", fmt.Sprintf(`{"content":"CANARY prompt %d","source":"user","attachments":[]}`, i)),
			line("assistant.turn_start", fmt.Sprintf(`{"turnId":"%d"}`, i)),
			line("assistant.message", fmt.Sprintf(`{"messageId":"msg_%d","content":"CANARY answer","toolRequests":[],"outputTokens":40}`, i)),
			line("assistant.turn_end", fmt.Sprintf(`{"turnId":"%d"}`, i)),
			line("session.usage_checkpoint", fmt.Sprintf(`{"totalPremiumRequests":%d,"totalNanoAiu":%s}`, i+1, total)))
	}
	lines = append(lines, line("session.shutdown", `{"shutdownType":"routine","totalPremiumRequests":3,"totalApiDurationMs":9000,"sessionStartTime":1796032800000,`+
		`"codeChanges":{"linesAdded":1,"linesRemoved":0,"filesModified":["/Users/CANARY-dev/CANARY.go"]},`+
		`"modelMetrics":{"claude-opus-4.6":{"requests":{"count":3,"cost":3},"usage":{"inputTokens":90000,"outputTokens":120,"cacheReadTokens":70000,"cacheWriteTokens":8000}}},"currentModel":"claude-opus-4.6"}`))
	return strings.Join(lines, "\n") + "\n"
}

// TestCreditsAreACountOfTheirOwn: totalNanoAiu is a running total of AI
// credits in nano units (10^9 a credit, a cent each), so a healthy session
// passes 10^9, a token count's bound, after about one credit. It is read
// as a count of its own unit: no "count out of range" warning and no
// invalid_counts gap, and the root carries the last total, exact below
// 10^9 and, from there up (where a phone number's digits could hide),
// rounded down to a millionth of a credit. A negative or absurd total
// (above 10^15, ten thousand dollars) is still an invalid count.
func TestCreditsAreACountOfTheirOwn(t *testing.T) {
	for _, tc := range []struct {
		name    string
		totals  []string
		want    int64 // copilot_cli.billing.nano_aiu
		invalid bool
		absent  string // a figure no output may hold
	}{
		{"under a credit", []string{"300000", "520000"}, 520000, false, ""},
		{"a healthy session passing 10^9", []string{"400000000", "1200000000", "25123456789"}, 25123000000, false, "25123456789"},
		{"a heavy run, 1,510.58 credits", []string{"900000000000", "1510581560000"}, 1510581000000, false, "1510581560000"},
		{"a phone number as a total", []string{"5551234567"}, 5551000000, false, "5551234567"},
		{"a negative total", []string{"1000", "-5"}, 0, true, ""},
		{"a card number as a total", []string{"4111111111111111"}, 0, true, "4111111111111111"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "session-state", "6f7a8b9c-0d1e-4f2a-8b3c-4d5e6f7a8b9c")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "events.jsonl")
			if err := os.WriteFile(p, []byte(session(tc.totals)), 0o644); err != nil {
				t.Fatal(err)
			}
			ins, err := pipeline.Expand([]string{p})
			if err != nil || len(ins) != 1 {
				t.Fatalf("%d inputs, %v", len(ins), err)
			}
			res := pipeline.Convert(ins[0], pipeline.Options{})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			diags := strings.Join(res.Diags, "\n")
			for _, out := range [][]byte{res.Receipt, res.Trace, []byte(diags)} {
				if bytes.Contains(bytes.ToUpper(out), []byte("CANARY")) {
					t.Fatal("a canary reached an output")
				}
				if tc.absent != "" && bytes.Contains(out, []byte(tc.absent)) {
					t.Errorf("%s was written", tc.absent)
				}
			}
			if strings.Contains(diags, "out of range") != tc.invalid {
				t.Errorf("warnings %q, want a count out of range: %v", diags, tc.invalid)
			}
			var gaps string
			for _, l := range bytes.Split(res.Receipt, []byte{'\n'}) {
				if g := gjson.GetBytes(l, `attributes.convert\.audit_gaps`); g.Exists() {
					gaps = g.Raw
				}
			}
			if strings.Contains(gaps, "invalid_counts") != tc.invalid {
				t.Errorf("audit gaps %s, want invalid_counts: %v", gaps, tc.invalid)
			}
			var got int64 = -1
			for _, sp := range gjson.GetBytes(res.Trace, "resourceSpans.#.scopeSpans.#.spans|@flatten|@flatten").Array() {
				for _, a := range sp.Get("attributes").Array() {
					if sp.Get("parentSpanId").Str == "" && a.Get("key").Str == "copilot_cli.billing.nano_aiu" {
						got = a.Get("value.intValue").Int()
					}
				}
			}
			if got != tc.want {
				t.Errorf("copilot_cli.billing.nano_aiu %d, want %d", got, tc.want)
			}
		})
	}
}
