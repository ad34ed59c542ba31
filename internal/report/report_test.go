package report

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata golden files and the README screenshot")

const samples = "../../samples"

// load converts sample logs in process, as `convert report LOGS` does.
func load(t *testing.T, opt LoadOptions, paths ...string) (*Loaded, string) {
	t.Helper()
	var stderr bytes.Buffer
	opt.Stderr = &stderr
	l, err := Load(context.Background(), paths, opt)
	if err != nil {
		t.Fatal(err)
	}
	return l, stderr.String()
}

func render(t *testing.T, r *Report, format string) string {
	t.Helper()
	var b bytes.Buffer
	var err error
	switch format {
	case "json":
		err = WriteJSON(&b, r)
	case "table":
		err = WriteTable(&b, r, true)
	case "markdown":
		err = WriteMarkdown(&b, r)
	case "html":
		err = WriteHTML(&b, r)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestTokenTotalsMatchCcusage pins the per-model totals ccusage@20.0.24
// printed for the bundled Claude Code samples (ccusage session --json
// --offline), and Codex's total_tokens for v0149 (30800 in ccusage too).
func TestTokenTotalsMatchCcusage(t *testing.T) {
	l, _ := load(t, LoadOptions{}, filepath.Join(samples, "claude_code"), filepath.Join(samples, "codex"))
	r := l.Report(Options{})
	got := map[string][4]int64{}
	total := map[string]int64{}
	for _, m := range r.Total.Tokens {
		got[m.Model] = [4]int64{m.Input, m.Output, m.CacheRead, m.CacheWrite}
		total[m.Model] = m.Total
	}
	for model, want := range map[string][4]int64{
		"claude-opus-4-7":            {49, 3011, 174100, 29560},
		"claude-haiku-4-5":           {2740, 490, 3000, 1000},
		"claude-sonnet-4-20250514":   {6200, 155, 300, 300},
		"claude-sonnet-4-5-20250929": {6500, 130, 0, 0},
		"claude-haiku-4-5-20251001":  {800, 70, 0, 0},
	} {
		if got[model] != want {
			t.Errorf("%s: input/output/cache read/cache write = %v, ccusage says %v", model, got[model], want)
		}
	}
	if total["gpt-5.5"] != 30800 {
		t.Errorf("gpt-5.5 total = %d, want Codex's total_tokens 30800", total["gpt-5.5"])
	}
}

// TestNoCanaryInAnyFormat: every sample log (all converters) through the
// report, in every format and on stderr: no canary anywhere.
func TestNoCanaryInAnyFormat(t *testing.T) {
	l, stderr := load(t, LoadOptions{Traces: true}, samples)
	if len(l.Sessions) < 40 {
		t.Fatalf("only %d sessions from the samples", len(l.Sessions))
	}
	for _, by := range Bys {
		r := l.Report(Options{By: by})
		if err := AddTimelines(r, -1); err != nil {
			t.Fatal(err)
		}
		findings, err := l.LeakCheck(r)
		if err != nil || len(findings) > 0 {
			t.Fatalf("by %s: leak check: %v %v", by, err, findings)
		}
		for _, f := range []string{"json", "table", "markdown", "html"} {
			if out := render(t, r, f); strings.Contains(strings.ToUpper(out), "CANARY") {
				t.Errorf("by %s: %s output carries a canary", by, f)
			}
		}
	}
	if strings.Contains(strings.ToUpper(stderr), "CANARY") {
		t.Error("stderr carries a canary")
	}
}

// TestLeakCheckCatchesTheReport: the report's own check fails closed. A
// group key carrying raw input (as a bug copying a log value would) is
// found; the honest report of the same logs, with names revealed, passes.
func TestLeakCheckCatchesTheReport(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tamper func(r *Report)
		leaks  bool
	}{
		{"honest", func(*Report) {}, false},
		{"raw repository name as a group", func(r *Report) { r.Groups[0].Key = "CANARY-repo-acme-ledger-private" }, true},
		{"raw text inside a label", func(r *Report) {
			r.Total.AuditGaps = append(r.Total.AuditGaps, GapRow{Gap: "gap: CANARY-why repository conventions"})
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, _ := load(t, LoadOptions{Reveal: true}, filepath.Join(samples, "session", "basic.jsonl"), filepath.Join(samples, "claude_code", "basic"))
			r := l.Report(Options{By: "project"})
			tc.tamper(r)
			findings, err := l.LeakCheck(r)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(findings) > 0; got != tc.leaks {
				t.Errorf("findings %v, want a leak: %v", findings, tc.leaks)
			}
		})
	}
}

// TestReceiptsAndLogsGiveOneReport: converting logs in the report, and
// reading the receipts --out-receipts wrote, give the same figures.
func TestReceiptsAndLogsGiveOneReport(t *testing.T) {
	out := t.TempDir()
	in := filepath.Join(samples, "claude_code")
	fromLogs, _ := load(t, LoadOptions{OutReceipts: out}, in)
	fromReceipts, _ := load(t, LoadOptions{}, out)
	if fromLogs.Sources.Converted == 0 || fromReceipts.Sources.Receipts != fromLogs.Sources.Converted {
		t.Fatalf("converted %d logs, read %d receipts", fromLogs.Sources.Converted, fromReceipts.Sources.Receipts)
	}
	a, b := fromLogs.Report(Options{By: "project"}), fromReceipts.Report(Options{By: "project"})
	a.Sources, b.Sources = Sources{}, Sources{}
	if x, y := render(t, a, "json"), render(t, b, "json"); x != y {
		t.Error("the report from logs differs from the report from the receipts they wrote")
	}
}

func TestSchema(t *testing.T) {
	l, _ := load(t, LoadOptions{Traces: true}, samples)
	prices := &Prices{Table: map[string]Price{"claude-opus-4-7": {Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25}}}
	for _, by := range Bys {
		r := l.Report(Options{By: by, Prices: prices})
		if err := AddTimelines(r, 3); err != nil {
			t.Fatal(err)
		}
		if err := Validate(r); err != nil {
			t.Fatalf("by %s: %v", by, err)
		}
	}
	for name, doc := range map[string]string{
		"missing total": `{"schema":"convert.report.v1","by":"day","sources":{},"groups":[],"days":[],"sessions":[]}`,
		"unknown by":    strings.Replace(render(t, l.Report(Options{}), "json"), `"by": "day"`, `"by": "year"`, 1),
		"control char":  strings.Replace(render(t, l.Report(Options{}), "json"), `"model": "claude-opus-4-7"`, `"model": "a\nb"`, 1),
	} {
		if err := ValidateJSON([]byte(doc)); err == nil {
			t.Errorf("%s: the schema accepted it", name)
		}
	}
}

func TestGroupsAndRange(t *testing.T) {
	l, _ := load(t, LoadOptions{}, filepath.Join(samples, "claude_code"), filepath.Join(samples, "codex"))
	day := func(s string) time.Time { d, _ := ParseDate(s, false, nil); return d }
	end := func(s string) time.Time { d, _ := ParseDate(s, true, nil); return d }
	for _, tc := range []struct {
		name     string
		opt      Options
		sessions int
		groups   []string
	}{
		{"by agent", Options{By: "agent"}, 25, []string{"claude_code", "codex"}},
		{"by model in March", Options{By: "model", Since: day("2026-03-14"), Until: end("2026-03-14")}, 3, []string{"gpt-5.3-codex", "gpt-5.3-codex-mini"}},
		{"by day since June", Options{By: "day", Since: day("2026-06-01")}, 13, []string{"2026-06-01", "2026-07-01", "2026-08-20", "2026-10-05", "2026-11-02", "2026-11-20", "2026-11-24"}},
		{"until a day is inclusive", Options{By: "agent", Until: end("2025-07-10")}, 1, []string{"codex"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := l.Report(tc.opt)
			var keys []string
			for _, g := range r.Groups {
				keys = append(keys, g.Key)
			}
			if r.Total.Sessions != tc.sessions || strings.Join(keys, ",") != strings.Join(tc.groups, ",") {
				t.Errorf("%d sessions in %v, want %d in %v", r.Total.Sessions, keys, tc.sessions, tc.groups)
			}
		})
	}
}

// TestGolden renders the committed Claude Code and Codex golden receipts
// (read as receipts, not converted) as json and markdown, costed with the
// bundled price table.
func TestGolden(t *testing.T) {
	l, stderr := load(t, LoadOptions{}, "../../golden/claude_code", "../../golden/codex")
	if stderr != "" || l.Sources.Receipts != 25 {
		t.Fatalf("%d receipts; stderr %q", l.Sources.Receipts, stderr)
	}
	prices, catalog := Bundled()
	r := l.Report(Options{By: "agent", Prices: prices, Catalog: catalog})
	for _, f := range []struct{ format, file string }{{"json", "report.json"}, {"markdown", "report.md"}} {
		got := render(t, r, f.format)
		path := filepath.Join("testdata", f.file)
		if *update {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./internal/report -update writes it)", err)
		}
		if got != string(want) {
			t.Errorf("%s differs from %s (go test ./internal/report -update, then review the diff)", f.format, path)
		}
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(render(t, r, "json")), &doc); err != nil {
		t.Fatal(err)
	}
}

func TestBadReceipts(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"junk.receipt.ndjson":       "not json\n",
		"no-summary.receipt.ndjson": `{"trace_id":"00000000000000000000000000000001","span_id":"0000000000000001","name":"context.input.loaded","attributes":{},"schema":"convert.receipt.v1","converter":"session","source_line":1}` + "\n",
		"empty.receipt.ndjson":      "",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, stderr := load(t, LoadOptions{}, dir)
	if l.Sources.Unreadable != 3 || len(l.Sessions) != 0 {
		t.Errorf("%d unreadable, %d sessions", l.Sources.Unreadable, len(l.Sessions))
	}
	for _, want := range []string{"junk.receipt.ndjson:1: not a receipt line", "no-summary.receipt.ndjson:1: not a complete receipt", "empty.receipt.ndjson:1: not a receipt"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

func TestTableColor(t *testing.T) {
	l, _ := load(t, LoadOptions{}, filepath.Join(samples, "claude_code", "basic"))
	r := l.Report(Options{})
	var plain, color bytes.Buffer
	_ = WriteTable(&plain, r, false)
	_ = WriteTable(&color, r, true)
	if strings.Contains(plain.String(), "\x1b[") || !strings.Contains(color.String(), "\x1b[1m") {
		t.Error("colour escapes must appear only when asked for")
	}
	// Numbers are right-aligned under their header.
	var head, row string
	for _, l := range strings.Split(plain.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "model ") && head == "" {
			head = l
		}
		if f := strings.Fields(l); head != "" && row == "" && len(f) == 8 && f[0] == "claude-opus-4-7" {
			row = l
		}
	}
	if strings.Join(strings.Fields(row), " ") != "claude-opus-4-7 1 49 3,011 174,100 29,560 206,720 0" ||
		strings.Index(head, "cache read")+len("cache read") != strings.Index(row, "174,100")+len("174,100") {
		t.Errorf("tokens table not aligned:\n%s\n%s", head, row)
	}
}
