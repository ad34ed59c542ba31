package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseDateForms(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip("no zone database: " + err.Error())
	}
	for _, tc := range []struct {
		v     string
		until bool
		loc   *time.Location
		want  string // RFC 3339, UTC
		bad   bool
	}{
		{v: "2026-07-01", want: "2026-07-01T00:00:00Z"},
		{v: "20260701", want: "2026-07-01T00:00:00Z"},
		{v: "20260701", until: true, want: "2026-07-02T00:00:00Z"},
		{v: "2026-07-01", loc: tokyo, want: "2026-06-30T15:00:00Z"},
		{v: "20260701", until: true, loc: tokyo, want: "2026-07-01T15:00:00Z"},
		{v: "2026-07-01T10:00:00+02:00", loc: tokyo, want: "2026-07-01T08:00:00Z"},
		{v: "2026-7-1", bad: true},
		{v: "202607011", bad: true},
		{v: "CANARY", bad: true},
	} {
		got, err := ParseDate(tc.v, tc.until, tc.loc)
		switch {
		case tc.bad && err == nil:
			t.Errorf("%q: accepted as %v", tc.v, got)
		case !tc.bad && (err != nil || got.UTC().Format(time.RFC3339) != tc.want):
			t.Errorf("%q (until %v, %v): %v %v, want %s", tc.v, tc.until, tc.loc, got.UTC(), err, tc.want)
		}
	}
}

// midnightSession writes a Claude Code session with one response at 23:30
// UTC and one at 00:30 UTC the next day (the second one twice, as a
// streamed response is logged), and returns its folder.
func midnightSession(t *testing.T) string {
	t.Helper()
	const sid = "5e5e5e5e-0000-4000-8000-000000000001"
	line := func(n int, ts, kind, body string) string {
		return fmt.Sprintf(`{"type":%q,"uuid":"00000000-0000-4000-8000-00000000000%d","sessionId":%q,"cwd":"/Users/CANARY-user/src","timestamp":%q,%s}`, kind, n, sid, ts, body)
	}
	assistant := func(id, model string, in, out, cr, cw int) string {
		return fmt.Sprintf(`"requestId":"req_%s","message":{"id":"msg_%s","type":"message","role":"assistant","model":%q,"content":[{"type":"text","text":"CANARY reply"}],"usage":{"input_tokens":%d,"output_tokens":%d,"cache_read_input_tokens":%d,"cache_creation_input_tokens":%d}}`, id, id, model, in, out, cr, cw)
	}
	lines := []string{
		line(1, "2026-03-01T23:29:00.000Z", "user", `"message":{"role":"user","content":"CANARY prompt"}`),
		line(2, "2026-03-01T23:30:00.000Z", "assistant", assistant("A1", "claude-opus-4-7", 10, 100, 1000, 50)),
		line(3, "2026-03-02T00:29:00.000Z", "user", `"message":{"role":"user","content":"CANARY again"}`),
		line(4, "2026-03-02T00:30:00.000Z", "assistant", assistant("B2", "claude-opus-4-7", 20, 10, 2000, 0)),
		line(5, "2026-03-02T00:30:01.000Z", "assistant", assistant("B2", "claude-opus-4-7", 20, 200, 2000, 0)),
	}
	dir := filepath.Join(t.TempDir(), "-Users-CANARY-user-src")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTokensByLocalPeriod: each response's tokens count in the day, week
// or month it was made in, in the zone asked for; the session itself in
// the period it started in; the periods add up to the total, and their
// labels pass the report's leak check as typed labels.
func TestTokensByLocalPeriod(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip("no zone database: " + err.Error())
	}
	l, stderr := load(t, LoadOptions{}, midnightSession(t))
	if len(l.Sessions) != 1 || strings.Contains(strings.ToUpper(stderr), "CANARY") {
		t.Fatalf("%d sessions; stderr %q", len(l.Sessions), stderr)
	}
	type want map[string][2]int64 // key -> sessions, tokens (input+output+cache)
	first, second := int64(10+100+1000+50), int64(20+200+2000)
	for _, tc := range []struct {
		name string
		opt  Options
		want want
	}{
		{"days in UTC", Options{By: "day"}, want{"2026-03-01": {1, first}, "2026-03-02": {0, second}}},
		{"days in Tokyo", Options{By: "day", Location: tokyo}, want{"2026-03-02": {1, first + second}}},
		{"ISO weeks in UTC (Sunday, then Monday)", Options{By: "week"}, want{"2026-W09": {1, first}, "2026-W10": {0, second}}},
		{"months", Options{By: "month"}, want{"2026-03": {1, first + second}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := l.Report(tc.opt)
			got := want{}
			for _, g := range r.Groups {
				var n int64
				for _, m := range g.Tokens {
					n += m.Total
					if m.Total > 0 && m.Sessions != 1 {
						t.Errorf("%s: %s spent in 1 session, says %d", g.Key, m.Model, m.Sessions)
					}
				}
				got[g.Key] = [2]int64{int64(g.Sessions), n}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("groups %v, want %v", got, tc.want)
			}
			var total int64
			for _, m := range r.Total.Tokens {
				total += m.Total
			}
			if total != first+second {
				t.Errorf("total %d, want %d", total, first+second)
			}
			if tc.opt.By == "day" {
				days := want{}
				for _, d := range r.Days {
					var n int64
					for _, c := range d.Tokens {
						n += c.N
					}
					days[d.Day] = [2]int64{int64(d.Sessions), n}
				}
				if fmt.Sprint(days) != fmt.Sprint(tc.want) {
					t.Errorf("day rows %v, want %v", days, tc.want)
				}
			}
			findings, err := l.LeakCheck(r)
			if err != nil || len(findings) > 0 {
				t.Errorf("leak check: %v %v", err, findings)
			}
			for _, f := range []string{"json", "table", "markdown", "html"} {
				if out := render(t, r, f); strings.Contains(strings.ToUpper(out), "CANARY") {
					t.Errorf("%s output carries a canary", f)
				}
			}
		})
	}
}

// TestRangeChoosesMessages: --since and --until choose each response by
// the time it was made, not the session by its start, as ccusage filters
// each usage row: a session across midnight cut by the range counts only
// its responses inside it, under the day (in the zone asked for) of its
// first activity there; a session with none is out of range.
func TestRangeChoosesMessages(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip("no zone database: " + err.Error())
	}
	l, stderr := load(t, LoadOptions{}, midnightSession(t))
	if len(l.Sessions) != 1 || strings.Contains(strings.ToUpper(stderr), "CANARY") {
		t.Fatalf("%d sessions; stderr %q", len(l.Sessions), stderr)
	}
	first := [4]int64{10, 100, 1000, 50} // 23:30 UTC on 1 March
	second := [4]int64{20, 200, 2000, 0} // 00:30 UTC on 2 March
	add := func(a, b [4]int64) [4]int64 { return [4]int64{a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]} }
	day := func(v string, until bool, loc *time.Location) time.Time {
		d, err := ParseDate(v, until, loc)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, tc := range []struct {
		name  string
		opt   Options
		in    int                 // sessions in range
		total [4]int64            // input, output, cache read, cache write
		days  map[string][2]int64 // day -> sessions, tokens
	}{
		{"until the first day (UTC)", Options{Until: day("2026-03-01", true, nil)}, 1, first,
			map[string][2]int64{"2026-03-01": {1, 1160}}},
		{"since the second day (UTC)", Options{Since: day("20260302", false, nil)}, 1, second,
			map[string][2]int64{"2026-03-02": {1, 2220}}},
		{"since the second day in Tokyo holds both", Options{Since: day("2026-03-02", false, tokyo), Location: tokyo}, 1, add(first, second),
			map[string][2]int64{"2026-03-02": {1, 3380}}},
		{"until the first day in Tokyo holds none", Options{Until: day("2026-03-01", true, tokyo), Location: tokyo}, 0, [4]int64{},
			map[string][2]int64{}},
		{"a range inside the session between its responses", Options{Since: day("2026-03-01T23:45:00Z", false, nil), Until: day("2026-03-02T00:15:00Z", false, nil)}, 0, [4]int64{},
			map[string][2]int64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.By = "day"
			r := l.Report(tc.opt)
			if r.Sources.SessionsInRange != tc.in || r.Sources.OutOfRange != 1-tc.in {
				t.Errorf("sessions in range %d, out %d; want %d, %d", r.Sources.SessionsInRange, r.Sources.OutOfRange, tc.in, 1-tc.in)
			}
			var got [4]int64
			for _, m := range r.Total.Tokens {
				got = add(got, [4]int64{m.Input, m.Output, m.CacheRead, m.CacheWrite})
			}
			if got != tc.total {
				t.Errorf("total %v, want %v", got, tc.total)
			}
			for _, s := range r.Sessions {
				if row := [4]int64{s.InputTokens, s.OutputTokens, s.CacheRead, s.CacheWrite}; row != tc.total {
					t.Errorf("session row %v, want %v", row, tc.total)
				}
			}
			days := map[string][2]int64{}
			for _, d := range r.Days {
				var n int64
				for _, c := range d.Tokens {
					n += c.N
				}
				days[d.Day] = [2]int64{int64(d.Sessions), n}
			}
			if fmt.Sprint(days) != fmt.Sprint(tc.days) {
				t.Errorf("days %v, want %v", days, tc.days)
			}
			groups := map[string][2]int64{}
			for _, g := range r.Groups {
				var n int64
				for _, m := range g.Tokens {
					n += m.Total
				}
				groups[g.Key] = [2]int64{int64(g.Sessions), n}
			}
			if fmt.Sprint(groups) != fmt.Sprint(tc.days) {
				t.Errorf("day groups %v, want %v", groups, tc.days)
			}
			for _, f := range []string{"json", "table", "html"} {
				if out := render(t, r, f); strings.Contains(strings.ToUpper(out), "CANARY") {
					t.Errorf("%s output carries a canary", f)
				}
			}
		})
	}
}
