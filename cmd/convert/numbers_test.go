package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/report"
	"github.com/tidwall/gjson"
)

// numbersHistory builds a history of three agents with a resumed Claude Code
// session: the sample session copied under a new session id (same message
// ids, as `claude --resume` writes them), beside the forked sample, and a
// Codex rollout whose input counts its cached tokens. It returns the folder
// and how many responses the resumed copy repeats.
func numbersHistory(t *testing.T) (string, int) {
	t.Helper()
	home := t.TempDir()
	copyTree(t, filepath.Join("..", "..", "samples", "claude_code", "basic"), filepath.Join(home, "claude"))
	copyTree(t, filepath.Join("..", "..", "samples", "claude_code", "v21_2xx_control"), filepath.Join(home, "claude2"))
	copyTree(t, filepath.Join("..", "..", "samples", "codex", "v058_envelope"), filepath.Join(home, "codex"))
	copyTree(t, filepath.Join("..", "..", "samples", "gemini_cli", "basic"), filepath.Join(home, "gemini"))
	const orig, resumed = "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b", "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f0000"
	dir := filepath.Join(home, "claude", "-Users-alice-src-acme-ledger")
	b, err := os.ReadFile(filepath.Join(dir, orig+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if id := gjson.Get(line, "message.id"); gjson.Get(line, "type").Str == "assistant" && id.Str != "" && gjson.Get(line, "message.usage").Exists() {
			ids[id.Str] = true
		}
	}
	if len(ids) == 0 {
		t.Fatal("the sample session has no response with usage")
	}
	if err := os.WriteFile(filepath.Join(dir, resumed+".jsonl"), []byte(strings.ReplaceAll(string(b), orig, resumed)), 0o644); err != nil {
		t.Fatal(err)
	}
	// The forked sample repeats one response of its parent.
	return home, len(ids) + 1
}

// TestRunAndReportAgree: the run summary (--json and its table) and the
// report count the same history with one token model: input without the
// cache for every agent (the Codex rollout's input holds cached tokens),
// the same names, and each response of a resumed or forked session once.
func TestRunAndReportAgree(t *testing.T) {
	home, repeated := numbersHistory(t)
	out := t.TempDir()
	code, so, se := runCLI(t, "", "run", home, "--out", out, "--json", "-q")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, se)
	}
	validateSummary(t, so)
	if strings.Contains(so, "cache_creation") || !strings.Contains(so, `"cache_write"`) {
		t.Errorf("--json must name cache write as the table and the report do:\n%s", so)
	}
	var sum summary
	if err := json.Unmarshal([]byte(so), &sum); err != nil {
		t.Fatal(err)
	}
	code, rj, se := runCLI(t, "", "report", "--format", "json", out)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, se)
	}
	var r report.Report
	if err := json.Unmarshal([]byte(rj), &r); err != nil {
		t.Fatal(err)
	}
	var tot tokenCounts
	var codexIn, geminiIn, geminiCached int64
	for _, m := range r.Total.Tokens {
		if strings.HasPrefix(m.Model, "gemini") {
			geminiIn += m.Input
			geminiCached += m.CacheRead
		}
		tot.Input += m.Input
		tot.Output += m.Output
		tot.CacheRead += m.CacheRead
		tot.CacheWrite += m.CacheWrite
		tot.Reasoning += m.Reasoning
		if strings.HasPrefix(m.Model, "gpt") {
			codexIn += m.Input
		}
	}
	tot.DuplicateResponses = r.Sources.DuplicateResponses
	t.Logf("run %+v; report %+v; codex input %d", sum.Tokens, tot, codexIn)
	if tot != sum.Tokens {
		t.Errorf("run says %+v, report says %+v", sum.Tokens, tot)
	}
	if sum.Tokens.DuplicateResponses != repeated {
		t.Errorf("%d duplicate responses folded, want %d (the resumed copy's and the fork's)", sum.Tokens.DuplicateResponses, repeated)
	}
	// Gemini CLI counts cached tokens inside its prompt count: they are
	// out, as `ccusage gemini session` (20.0.24) counts the sample: input
	// 22,171, cache read 53,576.
	if sum.Converters["gemini_cli"] == 0 || geminiIn != 22171 || geminiCached != 53576 {
		t.Errorf("gemini: %d inputs, input %d, cache read %d; ccusage says 22,171 and 53,576", sum.Converters["gemini_cli"], geminiIn, geminiCached)
	}
	// The Codex rollout: its last cumulative total, cached tokens out.
	rollout := ""
	_ = filepath.WalkDir(filepath.Join(home, "codex"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			rollout = p
		}
		return nil
	})
	b, err := os.ReadFile(rollout)
	if err != nil {
		t.Fatal(err)
	}
	var last gjson.Result
	for _, line := range strings.Split(string(b), "\n") {
		if u := gjson.Get(line, "payload.info.total_token_usage"); u.Exists() {
			last = u
		}
	}
	if want := last.Get("input_tokens").Int() - last.Get("cached_input_tokens").Int(); want <= 0 || codexIn != want {
		t.Errorf("codex input %d, want input_tokens - cached_input_tokens = %d", codexIn, want)
	}
	// The table says the same figures, under the same names.
	code, _, se = runCLI(t, "", "run", home, "--out", t.TempDir())
	if code != 0 || !strings.Contains(se, "cache write "+thousands(sum.Tokens.CacheWrite)) || !strings.Contains(se, "input "+thousands(sum.Tokens.Input)+",") {
		t.Errorf("run table: exit %d, want %+v:\n%s", code, sum.Tokens, se)
	}
	assertNoCanaryUnder(t, out)
}

// assertNoCanaryUnder fails when a file name or file under dir carries a
// sample canary.
func assertNoCanaryUnder(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(strings.ToUpper(p), "CANARY") {
			t.Errorf("a file name carries a canary: %s", p)
		}
		if !d.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(strings.ToUpper(string(b)), "CANARY") {
				t.Errorf("%s carries a canary", p)
			}
		}
		return nil
	})
}

// TestReportFoldsCopies: convert report R R (and a receipt named beside its
// folder) counts each session once and says how many copies it folded, in
// one line.
func TestReportFoldsCopies(t *testing.T) {
	out := t.TempDir()
	if code, _, se := runCLI(t, "", "run", filepath.Join("..", "..", "samples", "codex", "basic"), "--out", out, "-q"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, se)
	}
	one := map[string]any{}
	code, so, se := runCLI(t, "", "report", "--format", "json", out)
	if code != 0 || se != "" || json.Unmarshal([]byte(so), &one) != nil {
		t.Fatalf("report R: exit %d\n%s", code, se)
	}
	var some string
	_ = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".receipt.ndjson") {
			some = p
		}
		return nil
	})
	for _, tc := range []struct {
		name   string
		args   []string
		copies int
	}{
		{"R R", []string{out, out}, 3},
		{"R and a receipt in it", []string{out, some}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, so, se := runCLI(t, "", append([]string{"report", "--format", "json"}, tc.args...)...)
			var two map[string]any
			if code != 0 || json.Unmarshal([]byte(so), &two) != nil {
				t.Fatalf("exit %d\n%s", code, se)
			}
			src1, src2 := one["sources"].(map[string]any), two["sources"].(map[string]any)
			if src2["sessions_in_range"] != src1["sessions_in_range"] || src2["duplicate_receipts"] != float64(tc.copies) {
				t.Errorf("sources %v, want the %v sessions of one copy and %d folded", src2, src1["sessions_in_range"], tc.copies)
			}
			t1, _ := json.Marshal(one["total"])
			t2, _ := json.Marshal(two["total"])
			if string(t1) != string(t2) {
				t.Errorf("totals differ:\n%s\n%s", t1, t2)
			}
			if strings.Count(se, "\n") != 1 || !strings.Contains(se, map[bool]string{true: "1 session", false: fmt.Sprintf("%d sessions", tc.copies)}[tc.copies == 1]+" read more than once") {
				t.Errorf("want one line with the count on stderr, got:\n%s", se)
			}
		})
	}
}

// TestReportDatesAndZones: --since/--until take 20260301 as 2026-03-01,
// --timezone names an IANA zone the JSON repeats, and a bad one is a usage
// error; --by week and month are accepted.
func TestReportDatesAndZones(t *testing.T) {
	golden := filepath.Join("..", "..", "golden", "claude_code")
	get := func(args ...string) map[string]any {
		t.Helper()
		code, so, se := runCLI(t, "", append([]string{"report", "--format", "json"}, append(args, golden)...)...)
		var doc map[string]any
		if code != 0 || json.Unmarshal([]byte(so), &doc) != nil {
			t.Fatalf("%v: exit %d\n%s", args, code, se)
		}
		return doc
	}
	dash := get("--since", "2026-08-01", "--until", "2026-08-31", "--timezone", "UTC")
	compact := get("--since", "20260801", "--until", "20260831", "--timezone", "UTC")
	if fmt.Sprint(dash["total"]) != fmt.Sprint(compact["total"]) || fmt.Sprint(dash["sources"]) != fmt.Sprint(compact["sources"]) {
		t.Errorf("20260801 and 2026-08-01 differ:\n%v\n%v", dash["sources"], compact["sources"])
	}
	if dash["timezone"] != "UTC" {
		t.Errorf("timezone %v", dash["timezone"])
	}
	if src := dash["sources"].(map[string]any); src["sessions_out_of_range"] == float64(0) || src["sessions_in_range"] == float64(0) {
		t.Errorf("the range must leave some sessions in and some out: %v", src)
	}
	for _, by := range []string{"week", "month"} {
		doc := get("--by", by, "--timezone", "Asia/Tokyo")
		if doc["by"] != by || doc["timezone"] != "Asia/Tokyo" || len(doc["groups"].([]any)) == 0 {
			t.Errorf("--by %s: by %v, timezone %v, %d groups", by, doc["by"], doc["timezone"], len(doc["groups"].([]any)))
		}
	}
	if code, _, se := runCLI(t, "", "report", "--timezone", "Nowhere/Zone", golden); code != 2 || !strings.Contains(se, "--timezone") {
		t.Errorf("bad zone: exit %d\n%s", code, se)
	}
	if code, _, se := runCLI(t, "", "report", "--since", "2026081", golden); code != 2 || !strings.Contains(se, "20260701") {
		t.Errorf("bad day: exit %d\n%s", code, se)
	}
}

// TestFoldKeyLikeCcusage: across sessions a response counts once by the
// pair (message id, request id), and only when it has both, as ccusage
// 20.0.24 folds Claude Code rows across files. testdata/fold_history holds
// two sessions: the second repeats msg_01/req_01 (folded), msg_02 under
// another request id and msg_03 without one (both counted again), and adds
// msg_04; the first holds a streamed response (msg_07, the larger row
// kept) and msg_06 logged twice without a request id (once). The figures
// are the rule's, and `ccusage session --json` printed them for this
// folder (tools/ccusage-figures.sh): A input 5, output 77, cache read 500,
// cache write 50; B 3, 90, 300, 30. --since chooses B's day's messages.
func TestFoldKeyLikeCcusage(t *testing.T) {
	history := filepath.Join("testdata", "fold_history", "projects")
	const a, b = "aaaaaaaa-0000-4000-8000-000000000001", "bbbbbbbb-0000-4000-8000-000000000002"
	perSession := map[string]tokenCounts{
		a: {Input: 5, Output: 77, CacheRead: 500, CacheWrite: 50},
		b: {Input: 3, Output: 90, CacheRead: 300, CacheWrite: 30},
	}
	want := tokenCounts{Input: 8, Output: 167, CacheRead: 800, CacheWrite: 80, DuplicateResponses: 1}
	out := t.TempDir()
	code, so, se := runCLI(t, "", "run", history, "--out", out, "--json", "-q")
	if code != 0 || strings.Contains(strings.ToUpper(so+se), "CANARY") {
		t.Fatalf("run: exit %d\n%s\n%s", code, so, se)
	}
	var sum summary
	if err := json.Unmarshal([]byte(so), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Tokens != want {
		t.Errorf("run --json: %+v, want %+v", sum.Tokens, want)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		total tokenCounts
		rows  []string
	}{
		{"every day", nil, want, []string{a, b}},
		{"since the second day", []string{"--since", "20260702", "--timezone", "UTC"}, tokenCounts{Input: 3, Output: 90, CacheRead: 300, CacheWrite: 30}, []string{b}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, rj, se := runCLI(t, "", append(append([]string{"report", "--format", "json"}, tc.args...), out)...)
			if code != 0 || strings.Contains(strings.ToUpper(rj+se), "CANARY") {
				t.Fatalf("report: exit %d\n%s", code, se)
			}
			var r report.Report
			if err := json.Unmarshal([]byte(rj), &r); err != nil {
				t.Fatal(err)
			}
			var got tokenCounts
			for _, m := range r.Total.Tokens {
				got.Input, got.Output, got.CacheRead, got.CacheWrite = got.Input+m.Input, got.Output+m.Output, got.CacheRead+m.CacheRead, got.CacheWrite+m.CacheWrite
			}
			got.DuplicateResponses = r.Sources.DuplicateResponses
			if tc.args == nil && got != tc.total || tc.args != nil && (tokenCounts{Input: got.Input, Output: got.Output, CacheRead: got.CacheRead, CacheWrite: got.CacheWrite}) != tc.total {
				t.Errorf("report total %+v, want %+v", got, tc.total)
			}
			var ids []string
			for _, s := range r.Sessions {
				ids = append(ids, s.ID)
				if row := (tokenCounts{Input: s.InputTokens, Output: s.OutputTokens, CacheRead: s.CacheRead, CacheWrite: s.CacheWrite}); row != perSession[s.ID] {
					t.Errorf("session %s: %+v, want %+v", s.ID, row, perSession[s.ID])
				}
			}
			if fmt.Sprint(ids) != fmt.Sprint(tc.rows) {
				t.Errorf("sessions %v, want %v", ids, tc.rows)
			}
		})
	}
	assertNoCanaryUnder(t, out)
}
