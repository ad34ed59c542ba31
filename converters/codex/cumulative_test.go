package codex_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
)

// codexRollout is a rollout of one turn per total: each turn's
// token_count carries the running total_token_usage given (input tokens,
// output a tenth of them), and, when last is set, a last_token_usage of
// that many input tokens. Every prompt is a canary.
func codexRollout(totals []int64, last int64) string {
	const thread = "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
	lines := []string{fmt.Sprintf(`{"timestamp":"2026-03-14T09:00:00.000Z","type":"session_meta","payload":{"id":%q,"timestamp":"2026-03-14T09:00:00.000Z","cwd":"/Users/erin/CANARY-shop","originator":"codex_cli_rs","cli_version":"0.142.4","source":"cli","model_provider":"openai"}}`, thread)}
	for i, tot := range totals {
		ts := func(ms int) string { return fmt.Sprintf("2026-03-14T09:%02d:00.%03dZ", i+1, ms) }
		lines = append(lines,
			fmt.Sprintf(`{"timestamp":%q,"type":"turn_context","payload":{"turn_id":"0199a1b2-0000-7000-8000-00000000000%d","model":"gpt-5.5","effort":"medium","cwd":"/Users/erin/CANARY-shop"}}`, ts(0), i),
			fmt.Sprintf(`{"timestamp":%q,"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"CANARY prompt %d"}]}}`, ts(1), i),
			fmt.Sprintf(`{"timestamp":%q,"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"CANARY answer %d"}]}}`, ts(2), i))
		info := fmt.Sprintf(`"total_token_usage":{"input_tokens":%d,"cached_input_tokens":0,"output_tokens":%d,"reasoning_output_tokens":0,"total_tokens":%d}`, tot, tot/10, tot+tot/10)
		if last > 0 {
			info += fmt.Sprintf(`,"last_token_usage":{"input_tokens":%d,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0,"total_tokens":%d}`, last, last+1)
		}
		lines = append(lines, fmt.Sprintf(`{"timestamp":%q,"type":"event_msg","payload":{"type":"token_count","info":{%s}}}`, ts(3), info))
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestCodexCumulativeTotalsPastCountBound: a heavy session's running
// totals pass 10^9 (a Count's bound): they are read as running totals
// (leak.Cumulative), so every turn keeps its tokens, the session converts
// without an invalid_counts gap and the leak check passes although the
// session total written equals the last running total. A phone number is
// still never written: as a first running total it is no request's growth,
// and in a plain count field it is no count (both read as invalid counts).
func TestCodexCumulativeTotalsPastCountBound(t *testing.T) {
	const phone = 5551234567
	for _, tc := range []struct {
		name     string
		totals   []int64
		last     int64
		turnsIn  []int64 // input tokens of each turn's chat span
		inTotal  int64
		gap      bool
		notThere string
	}{
		{name: "totals past 10^9", totals: []int64{400_000_000, 800_000_000, 999_990_000, 1_000_010_000, 1_250_000_000},
			turnsIn: []int64{400_000_000, 400_000_000, 199_990_000, 20_000, 249_990_000}, inTotal: 1_250_000_000},
		{name: "phone number as the first total", totals: []int64{phone, phone + 5000},
			turnsIn: []int64{0, 5000}, inTotal: 5000, gap: true, notThere: fmt.Sprint(phone)},
		{name: "phone number in a plain count field", totals: []int64{1000, 2000}, last: phone,
			turnsIn: []int64{1000, 1000}, inTotal: 2000, gap: true, notThere: fmt.Sprint(phone)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sessions")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "rollout-2026-03-14T09-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl")
			if err := os.WriteFile(p, []byte(codexRollout(tc.totals, tc.last)), 0o644); err != nil {
				t.Fatal(err)
			}
			res := convtest.Convert(t, dir, pipeline.Options{})
			if len(res) != 1 {
				t.Fatalf("%d results", len(res))
			}
			out := string(res[0].Receipt) + string(res[0].Trace)
			if strings.Contains(strings.ToUpper(out), "CANARY") {
				t.Error("a canary reached the outputs")
			}
			if tc.notThere != "" && strings.Contains(out, tc.notThere) {
				t.Errorf("%s was written", tc.notThere)
			}
			var got []int64
			for _, s := range gjson.GetBytes(res[0].Trace, "resourceSpans.0.scopeSpans.0.spans").Array() {
				if strings.HasPrefix(s.Get("name").Str, "chat ") {
					got = append(got, s.Get(`attributes.#(key=="gen_ai.usage.input_tokens").value.intValue`).Int())
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.turnsIn) {
				t.Errorf("per-turn input tokens %v, want %v", got, tc.turnsIn)
			}
			if in := convtest.Usage(res[0].Receipt)[""]; !strings.HasPrefix(in, fmt.Sprintf("in=%d ", tc.inTotal)) {
				t.Errorf("session usage %s, want input %d", in, tc.inTotal)
			}
			gaps := convtest.Events(res[0].Receipt, "convert.summary")[0].Get(`attributes.convert\.audit_gaps`).Raw
			if strings.Contains(gaps, "invalid_counts") != tc.gap {
				t.Errorf("audit gaps %s, want invalid_counts %v", gaps, tc.gap)
			}
		})
	}
}
