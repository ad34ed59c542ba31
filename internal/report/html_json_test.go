package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// htmlMatchesJSON checks that the figures an HTML page shows (dom: the
// page, as written or as a browser's DOM) are the JSON document's of the
// same report: every model's row of the tokens table, the all-models row
// and its cost, every group's tokens and cost, and every session's row of
// the sessions table (tokens, reasoning, cost, duration in ms behind its
// human form, events counted). It returns what differs.
func htmlMatchesJSON(dom string, doc []byte) []string {
	var r Report
	if err := json.Unmarshal(doc, &r); err != nil {
		return []string{err.Error()}
	}
	var bad []string
	differ := func(what, got, want string) {
		if got != want {
			bad = append(bad, fmt.Sprintf("%s: page %q, json %q", what, got, want))
		}
	}
	cells := func(row string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(row, -1) {
			out = append(out, regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m[1], ""))
		}
		return out
	}
	section := func(id string) string { // a table of the page, by its data-table id
		return regexp.MustCompile(`(?s)<table[^>]*data-table="` + id + `"[^>]*>.*?</table>`).FindString(dom)
	}
	rowOf := func(table, first string) []string {
		m := regexp.MustCompile(`(?s)<tr><td[^>]*>` + regexp.QuoteMeta(first) + `</td>.*?</tr>`).FindString(table)
		if m == "" {
			return nil
		}
		return cells(m)
	}
	cost := func(c *float64) string {
		if c == nil {
			return "-"
		}
		return fmt.Sprintf("%.2f", *c)
	}
	tokens := section("tokens")
	var sum ModelTokens
	for _, m := range r.Total.Tokens {
		want := []string{m.Model, num(int64(m.Sessions)), num(m.Input), num(m.Output), num(m.CacheRead), num(m.CacheWrite), num(m.Total), num(m.Reasoning)}
		if r.Prices != nil {
			want = append(want, cost(m.CostUSD))
		}
		differ("tokens row "+m.Model, strings.Join(rowOf(tokens, m.Model), " "), strings.Join(want, " "))
		sum.Input, sum.Output, sum.CacheRead, sum.CacheWrite, sum.Total = sum.Input+m.Input, sum.Output+m.Output, sum.CacheRead+m.CacheRead, sum.CacheWrite+m.CacheWrite, sum.Total+m.Total
	}
	if len(r.Total.Tokens) > 1 {
		all := rowOf(tokens, "all models")
		if len(all) < 7 {
			bad = append(bad, "no all-models row")
		} else {
			differ("all models", strings.Join(all[2:7], " "), strings.Join([]string{num(sum.Input), num(sum.Output), num(sum.CacheRead), num(sum.CacheWrite), num(sum.Total)}, " "))
			if r.Prices != nil {
				differ("all models cost", strings.TrimPrefix(all[len(all)-1], "≥"), fmt.Sprintf("%.2f", r.Prices.CostUSD))
			}
		}
	}
	groups := section("groups")
	for _, g := range r.Groups {
		row := rowOf(groups, short(g.Key))
		var tk ModelTokens
		for _, m := range g.Tokens {
			tk.Input, tk.Output, tk.CacheRead, tk.CacheWrite = tk.Input+m.Input, tk.Output+m.Output, tk.CacheRead+m.CacheRead, tk.CacheWrite+m.CacheWrite
		}
		got := strings.Join(row, " ")
		for _, n := range []int64{tk.Input, tk.Output, tk.CacheRead, tk.CacheWrite} {
			if !strings.Contains(" "+got+" ", " "+num(n)+" ") {
				bad = append(bad, fmt.Sprintf("group %s: %s not on its row %q", g.Key, num(n), got))
			}
		}
	}
	sessions := regexp.MustCompile(`(?s)<table id="sessions"[^>]*>.*?</table>`).FindString(dom)
	for _, s := range r.Sessions {
		m := regexp.MustCompile(`(?s)<tr><td><code>` + regexp.QuoteMeta(s.ID) + `</code></td>.*?</tr>`).FindString(sessions)
		if m == "" {
			bad = append(bad, "no sessions row for "+s.ID)
			continue
		}
		var vs []string
		for _, v := range regexp.MustCompile(`data-v="([^"]*)"`).FindAllStringSubmatch(m, -1) {
			vs = append(vs, v[1])
		}
		want := []string{strconv.FormatInt(s.DurationMS, 10), i64(s.InputTokens), i64(s.OutputTokens), i64(s.CacheRead), i64(s.CacheWrite), i64(s.Reasoning)}
		if s.CostUSD != nil {
			want = append(want, strconv.FormatFloat(*s.CostUSD, 'f', -1, 64))
		}
		want = append(want, i64(s.ContextInputs), i64(s.Skills), i64(s.MCPCalls), i64(s.Compactions), i64(s.Subagents), i64(s.Skipped))
		differ("session "+s.ID, strings.Join(vs, " "), strings.Join(want, " "))
		if !strings.Contains(m, ">"+humanDuration(s.DurationMS)+"<") {
			bad = append(bad, fmt.Sprintf("session %s: duration not shown as %q", s.ID, humanDuration(s.DurationMS)))
		}
	}
	if n := strings.Count(sessions, "<tr>") - 1; n != len(r.Sessions) {
		bad = append(bad, fmt.Sprintf("%d session rows, json %d", n, len(r.Sessions)))
	}
	return bad
}

func i64(n int64) string { return strconv.FormatInt(n, 10) }

// TestHTMLMatchesJSON: the HTML page written for a report shows the JSON
// document's figures, with and without cost, for every --by.
func TestHTMLMatchesJSON(t *testing.T) {
	l, _ := load(t, LoadOptions{Traces: true}, filepath.Join(samples, "claude_code"), filepath.Join(samples, "codex"), filepath.Join(samples, "gemini_cli"))
	prices, catalog := Bundled()
	for _, by := range Bys {
		for _, priced := range []bool{false, true} {
			opt := Options{By: by}
			if priced {
				opt.Prices, opt.Catalog = prices, catalog
			}
			r := l.Report(opt)
			page, doc := render(t, r, "html"), render(t, r, "json")
			if bad := htmlMatchesJSON(page, []byte(doc)); len(bad) > 0 {
				t.Errorf("by %s, cost %v: %d differences, first: %s", by, priced, len(bad), strings.Join(bad[:min(3, len(bad))], "; "))
			}
			// The check can fail: a page whose figure differs is caught.
			if len(r.Sessions) > 0 {
				s := r.Sessions[0]
				tampered := strings.Replace(page, `data-v="`+i64(s.InputTokens)+`">`+num(s.InputTokens)+`<`, `data-v="`+i64(s.InputTokens+1)+`">`+num(s.InputTokens+1)+`<`, 1)
				if tampered == page || len(htmlMatchesJSON(tampered, []byte(doc))) == 0 {
					t.Errorf("by %s: a changed session figure went unnoticed", by)
				}
			}
		}
	}
}
