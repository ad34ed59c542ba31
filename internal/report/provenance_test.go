package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared"
)

// datedCodexLog writes the Codex sample rollout with the turn_context field
// Codex 0.140 and later write, current_date: the same ten bytes as the day
// the report labels the session with.
func datedCodexLog(t *testing.T) (string, string) {
	t.Helper()
	src := filepath.Join(samples, "codex", "basic", "sessions", "2026", "03", "14", "rollout-2026-03-14T09-12-03-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	const at = `"type":"turn_context","payload":{`
	if !strings.Contains(string(b), at) {
		t.Fatal("the sample has no turn_context")
	}
	dated := strings.Replace(string(b), at, at+`"current_date":"2026-03-14","timezone":"Europe/CANARY",`, 1)
	p := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.WriteFile(p, []byte(dated), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, "2026-03-14"
}

// TestReportLabelsAreTyped: a label the report computes (the day of a
// session) is typed by its field and its shape, so a log holding the same
// bytes is not refused; the same bytes in a field that copies input are.
// A refusal names the log (no folder) and the field.
func TestReportLabelsAreTyped(t *testing.T) {
	log, day := datedCodexLog(t)
	for _, tc := range []struct {
		name   string
		by     string
		tamper func(r *Report)
		field  string // "": no finding
	}{
		{"day labels", "day", func(*Report) {}, ""},
		{"day labels by session", "session", func(*Report) {}, ""},
		{"a day's bytes as a project", "project", func(r *Report) { r.Groups[0].Key = day }, "groups.key"},
		{"a day's bytes as an audit gap", "day", func(r *Report) {
			r.Total.AuditGaps = append(r.Total.AuditGaps, GapRow{Gap: day})
		}, "total.audit_gaps.gap"},
		{"a model-shaped input string in a model field", "model", func(r *Report) { r.Total.Tokens[0].Model = "Europe/CANARY" }, ""},
		{"the same string as an audit gap", "model", func(r *Report) {
			r.Total.AuditGaps = append(r.Total.AuditGaps, GapRow{Gap: "Europe/CANARY"})
		}, "total.audit_gaps.gap"},
		{"a prompt in a model field", "day", func(r *Report) { r.Total.Tokens[0].Model = "make test-CANARY before" }, "total.tokens.model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, stderr := load(t, LoadOptions{}, log)
			if len(l.Sessions) != 1 || strings.Contains(strings.ToUpper(stderr), "CANARY") {
				t.Fatalf("%d sessions; stderr %q", len(l.Sessions), stderr)
			}
			r := l.Report(Options{By: tc.by})
			if tc.by == "day" && (len(r.Days) != 1 || r.Days[0].Day != day) {
				t.Fatalf("days %+v, want the one day %s", r.Days, day)
			}
			tc.tamper(r)
			findings, err := l.LeakCheck(r)
			if err != nil {
				t.Fatal(err)
			}
			if tc.field == "" {
				if len(findings) > 0 {
					t.Errorf("refused a label the report computed: %v", findings)
				}
				return
			}
			if len(findings) != 1 {
				t.Fatalf("findings %v, want one in %s", findings, tc.field)
			}
			f := findings[0]
			msg := f.String()
			// The message is made of the log's name, the line, the field
			// and the gate's words: nothing of the string itself.
			if f.Log != filepath.Base(log) || f.Field != tc.field || f.Line != 2 || strings.Contains(msg, string(filepath.Separator)) ||
				!strings.HasPrefix(msg, filepath.Base(log)+":2: "+tc.field+" carries a raw input run of ") || !strings.HasSuffix(msg, " bytes") {
				t.Errorf("finding %q (%+v): want the log's name, its line 2 and the field %s, never the string", msg, f, tc.field)
			}
		})
	}
}

// TestReportOverRealCodexSeeds: every real Codex rollout of the shared
// corpus (0.140 to 0.142 write turn_context.current_date) gives a report
// in every format and grouping, none refused.
func TestReportOverRealCodexSeeds(t *testing.T) {
	dir := testshared.Dir(t, "corpus-seed", "codex")
	seeds, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(seeds) == 0 {
		t.Fatalf("no Codex seed in %s: %v", dir, err)
	}
	for _, seed := range seeds {
		t.Run(filepath.Base(seed), func(t *testing.T) {
			l, stderr := load(t, LoadOptions{Traces: true}, seed)
			if len(l.Sessions) != 1 || l.Failed+l.Leaks > 0 {
				t.Fatalf("%d sessions, %d failed, %d leaks: %s", len(l.Sessions), l.Failed, l.Leaks, stderr)
			}
			for _, by := range Bys {
				r := l.Report(Options{By: by})
				if err := AddTimelines(r, -1); err != nil {
					t.Fatal(err)
				}
				findings, err := l.LeakCheck(r)
				if err != nil || len(findings) > 0 {
					t.Errorf("by %s: refused: %v %v", by, err, findings)
				}
			}
		})
	}
}
