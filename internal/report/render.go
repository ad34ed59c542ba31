package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// table is one titled table; every format but json renders these.
type table struct {
	ID    string // anchor in html
	Title string
	Notes []string
	Head  []string
	Num   []bool // right-aligned (numeric) columns
	Rows  [][]string
	KV    bool // a key/value table: no header line
}

func (t *table) add(cells ...string) { t.Rows = append(t.Rows, cells) }

func kvTable(id, title string) *table {
	return &table{ID: id, Title: title, Head: []string{"", ""}, Num: []bool{false, false}, KV: true}
}

// tables lays out the report; the order is the order of every format.
func tables(r *Report) []*table {
	t := &r.Total
	out := []*table{overviewTable(r), groupsTable(r)}
	out = append(out, tokenTables(r)...)
	return append(out, inputsTable(t), gapsTable(t), skillsTable(t), mcpTable(t),
		memoryTable(t), compactionTable(t), subagentsTable(t), healthTable(t))
}

// overviewTable is what the report covers: sessions, agents, time span and sources.
func overviewTable(r *Report) *table {
	t := &r.Total
	ov := kvTable("overview", "Overview")
	ov.add("sessions", num(int64(t.Sessions)))
	ov.add("agents", joinCounts(t.Agents))
	ov.add("agent versions", joinCounts(t.AgentVersions))
	ov.add("first event", or(t.First, "-"))
	ov.add("last event", or(t.Last, "-"))
	events := num(t.Events)
	if t.Sessions > 0 && t.Events >= int64(t.Sessions) {
		// Each receipt's last line is its summary: convert run's "events"
		// leaves it out, so the two counts differ by one a session.
		events += fmt.Sprintf(" (%s of them the receipts' summary lines, which convert run's event count leaves out)", num(int64(t.Sessions)))
	}
	ov.add("receipt events", events)
	src := fmt.Sprintf("%d receipts read, %d logs converted in this run, %d traces", r.Sources.Receipts, r.Sources.Converted, r.Sources.Traces)
	if r.Sources.OutOfRange > 0 {
		src += fmt.Sprintf("; %d sessions outside --since/--until", r.Sources.OutOfRange)
	}
	if r.Sources.NotSelected > 0 {
		src += fmt.Sprintf("; %d sessions not selected by --session", r.Sources.NotSelected)
	}
	ov.add("made from", src)
	if n := r.Sources.DuplicateReceipts; n > 0 {
		ov.add("repeated receipts", count(n, "session", "sessions")+" read more than once, counted once")
	}
	if n := r.Sources.DuplicateResponses; n > 0 {
		ov.add("repeated responses", count(n, "response", "responses")+" also in another session (resumed or forked), counted once")
	}
	if r.Since != "" || r.Until != "" {
		ov.add("range", or(r.Since, "…")+" to "+or(r.Until, "…"))
	}
	return ov
}

// groupsTable sums each group (--by) over its sessions.
func groupsTable(r *Report) *table {
	priced := r.Prices != nil
	g := &table{ID: "groups", Title: "By " + r.By, Head: []string{r.By, "sessions", "agents"}, Num: []bool{false, true, false}}
	if r.By == "session" {
		// Sessions are listed by last activity: it is shown.
		g.Head, g.Num = append(g.Head, "last activity"), append(g.Num, false)
	}
	g.Head = append(g.Head, "input", "output", "cache read", "cache write", "reasoning")
	g.Num = append(g.Num, true, true, true, true, true)
	anyUnpriced := false
	if priced {
		g.Head, g.Num = append(g.Head, "cost (USD)"), append(g.Num, true)
	}
	g.Head = append(g.Head, "context inputs", "skills", "MCP calls", "compactions", "subagents")
	g.Num = append(g.Num, true, true, true, true, true)
	for _, gr := range r.Groups {
		var tk ModelTokens
		var cost float64
		unpriced := false
		for _, m := range gr.Tokens {
			tk.Input, tk.Output, tk.CacheRead, tk.CacheWrite = tk.Input+m.Input, tk.Output+m.Output, tk.CacheRead+m.CacheRead, tk.CacheWrite+m.CacheWrite
			tk.Reasoning += m.Reasoning
			if m.CostUSD != nil {
				cost += *m.CostUSD
			} else if m.Total > 0 {
				unpriced = true
			}
		}
		var inputs, skills, calls int64
		for _, in := range gr.ContextInputs {
			inputs += in.Loads
		}
		for _, sk := range gr.Skills.Invocations {
			skills += sk.Count
		}
		for _, c := range gr.MCP.Calls {
			calls += c.N
		}
		row := []string{short(gr.Key), num(int64(gr.Sessions)), keys(gr.Agents)}
		if r.By == "session" {
			row = append(row, or(gr.Last, "-"))
		}
		row = append(row, num(tk.Input), num(tk.Output), num(tk.CacheRead), num(tk.CacheWrite), num(tk.Reasoning))
		if priced {
			row = append(row, usd(cost, unpriced))
			anyUnpriced = anyUnpriced || unpriced
		}
		g.add(append(row, num(inputs), num(skills), num(calls), num(gr.Compaction.Compactions), num(gr.Subagents.Spawned))...)
	}
	if anyUnpriced {
		g.Notes = append(g.Notes, "cost: \"≥\" marks a group with a model that has no price (see Tokens per model)")
	}
	if r.By == "day" || r.By == "week" || r.By == "month" {
		g.Notes = append(g.Notes, "sessions are counted in the "+r.By+" they started; tokens, cost and the other counts in the "+r.By+
			" each response or event happened: a session that ran past midnight adds tokens to a row whose sessions may be 0")
	}
	return g
}

// tokenTables are the tokens per model (with their cost when --prices gave
// a table) and, unless the report is grouped by model, per group and model.
func tokenTables(r *Report) []*table {
	t := &r.Total
	priced := r.Prices != nil
	tokHead := []string{"model", "sessions", "input", "output", "cache read", "cache write", "total", "reasoning"}
	tokNum := []bool{false, true, true, true, true, true, true, true}
	if priced {
		tokHead, tokNum = append(tokHead, "cost (USD)"), append(tokNum, true)
	}
	tk := &table{ID: "tokens", Title: "Tokens per model", Head: tokHead, Num: tokNum,
		Notes: []string{"input excludes cache reads and writes for every agent (Codex, Gemini CLI and Copilot CLI count them inside input; they are taken out), so the four columns add up to the total; reasoning is what the agent reports apart (OpenAI counts it inside output too) and is not added; a response repeated by a resumed or forked session counts once"}}
	var sum ModelTokens
	for _, m := range t.Tokens {
		tk.Rows = append(tk.Rows, tokenRow(m, priced))
		sum.Sessions = t.Sessions
		sum.Input, sum.Output, sum.CacheRead, sum.CacheWrite, sum.Total = sum.Input+m.Input, sum.Output+m.Output, sum.CacheRead+m.CacheRead, sum.CacheWrite+m.CacheWrite, sum.Total+m.Total
		sum.Reasoning += m.Reasoning
	}
	if len(t.Tokens) > 1 {
		row := tokenRow(sum, false)
		row[0] = "all models"
		if priced {
			// the models without a price have no cost: the sum is a lower bound
			row = append(row, usd(r.Prices.CostUSD, len(r.Prices.Unpriced) > 0))
		}
		tk.add(row...)
	}
	if priced {
		tk.Notes = append(tk.Notes, priceNote(r.Prices))
		if len(r.Prices.Unpriced) > 0 {
			tk.Notes = append(tk.Notes, unpricedNote(r.Prices, sum.Total))
		}
	} else {
		tk.Notes = append(tk.Notes, "cost hidden (--no-cost)")
	}
	out := []*table{tk}
	if r.By != "model" && len(r.Groups) > 0 {
		bm := &table{ID: "tokens-by", Title: "Tokens by " + r.By + " and model", Head: append([]string{r.By}, tokHead...), Num: append([]bool{false}, tokNum...)}
		for _, gr := range r.Groups {
			for _, m := range gr.Tokens {
				bm.add(append([]string{short(gr.Key)}, tokenRow(m, priced)...)...)
			}
		}
		out = append(out, bm)
	}
	return out
}

// inputsTable lists the instruction files and other context inputs loaded.
func inputsTable(t *Sections) *table {
	ci := &table{ID: "inputs", Title: "Instruction files and other context inputs", Head: []string{"kind", "source", "loads", "sessions", "versions"},
		Num:   []bool{false, false, true, true, true},
		Notes: []string{"source: the conventional path in clear, else a path digest or the MCP server; versions: distinct delivered digests"}}
	for _, in := range t.ContextInputs {
		ci.add(in.Kind, or(short(in.Source), "-"), num(in.Loads), num(int64(in.Sessions)), num(int64(in.Versions)))
	}
	return ci
}

// gapsTable lists the audit gaps (loads the logs cannot show) and the summaries' gaps.
func gapsTable(t *Sections) *table {
	ag := &table{ID: "gaps", Title: "Audit gaps: loads the logs cannot show", Head: []string{"gap", "events", "sessions"}, Num: []bool{false, true, true}}
	for _, gp := range t.AuditGaps {
		ag.add(gp.Gap, num(gp.Events), num(int64(gp.Sessions)))
	}
	for _, gp := range t.Health.Gaps {
		ag.add("summary: "+gp.Key, "-", num(gp.N))
	}
	return ag
}

// skillsTable lists skill invocations by trigger.
func skillsTable(t *Sections) *table {
	sk := &table{ID: "skills", Title: "Skills", Head: []string{"skill", "trigger", "invocations"}, Num: []bool{false, false, true},
		Notes: []string{fmt.Sprintf("skill listings loaded: %d (size: %s)", t.Skills.Listings, bucketCounts(t.Skills.ListingSizes))}}
	for _, s := range t.Skills.Invocations {
		sk.add(short(s.Skill), s.Trigger, num(s.Count))
	}
	return sk
}

// mcpTable lists MCP servers and the tool-search boundary.
func mcpTable(t *Sections) *table {
	mc := &table{ID: "mcp", Title: "MCP servers and the tool-search boundary", Head: []string{"server", "sessions", "tools offered", "definitions loaded", "calls by status"},
		Num: []bool{false, true, true, true, false},
		Notes: []string{fmt.Sprintf("tool indexes loaded %d; tools offered %d (the largest index of each session, summed); definitions loaded on demand %d, at startup %d; tool searches %d; calls: %s",
			t.MCP.IndexLoads, t.MCP.ToolsOffered, t.MCP.DefinitionsOnDemand, t.MCP.DefinitionsUpfront, t.MCP.Searches, joinCounts(t.MCP.Calls))}}
	for _, s := range t.MCP.Servers {
		mc.add(short(s.Server), num(int64(s.Sessions)), num(s.ToolsOffered), num(s.Definitions), joinCounts(s.Calls))
	}
	return mc
}

// memoryTable lists memory operations by kind.
func memoryTable(t *Sections) *table {
	me := &table{ID: "memory", Title: "Memory", Head: []string{"kind", "operation", "count"}, Num: []bool{false, false, true},
		Notes: []string{fmt.Sprintf("memory-file reads %d, writes %d; memory searches %d", t.Memory.Reads, t.Memory.Writes, t.Memory.Searches)}}
	for _, m := range t.Memory.ByKind {
		me.add(m.Kind, m.Operation, num(m.Count))
	}
	return me
}

// compactionTable sums compaction.
func compactionTable(t *Sections) *table {
	co := kvTable("compaction", "Compaction")
	co.add("compactions", num(t.Compaction.Compactions))
	co.add("sessions that compacted", num(int64(t.Compaction.Sessions)))
	co.add("most in one session", num(t.Compaction.MaxPerSession))
	co.add("triggers", joinCounts(t.Compaction.Triggers))
	co.add("tokens before", bucketCounts(t.Compaction.Before))
	co.add("tokens after", bucketCounts(t.Compaction.After))
	return co
}

// subagentsTable sums subagents and what crossed back.
func subagentsTable(t *Sections) *table {
	sa := kvTable("subagents", "Subagents")
	sa.add("spawned", num(t.Subagents.Spawned))
	sa.add("results returned", num(t.Subagents.Returned))
	sa.add("types", shortCounts(t.Subagents.Types))
	sa.add("result status", joinCounts(t.Subagents.Status))
	sa.add("what crossed back", joinCounts(t.Subagents.Boundaries))
	sa.add("result sizes", bucketCounts(t.Subagents.ResultSizes))
	sa.add("subagent tokens", bucketCounts(t.Subagents.TokenBuckets))
	return sa
}

// healthTable is the conversion health: inputs, skipped lines, the leak check.
func healthTable(t *Sections) *table {
	h := kvTable("health", "Conversion health")
	h.add("inputs", num(t.Health.Inputs))
	h.add("bytes read", num(t.Health.Bytes))
	h.add("lines / records", num(t.Health.Lines)+" / "+num(t.Health.Records))
	h.add("lines skipped", num(t.Health.Skipped)+" ("+joinCounts(t.Health.SkipReasons)+")")
	h.add("unknown record types", shortCounts(t.Health.UnknownTypes)+" (digest: sessions)")
	h.add("leak check passed", fmt.Sprintf("%s of %s inputs; %s raw strings, %s raw bytes probed", num(t.Health.LeakPassed), num(t.Health.Inputs), num(t.Health.RawStrings), num(t.Health.RawBytes)))
	h.add("hash modes", joinCounts(t.Health.HashModes))
	return h
}

// priceNote says which prices a report's cost is at.
func priceNote(p *PriceInfo) string {
	var from string
	switch {
	case p.Catalog != "" && p.File:
		from = "the entries of --prices FILE, then pydantic's genai-prices data (" + p.Catalog + ")"
	case p.Catalog != "":
		from = "pydantic's genai-prices data (" + p.Catalog + ")"
	default:
		from = "the --prices FILE table"
	}
	return "cost: US dollars at the standard prices of " + from + ", each model at its newest price, 1-hour cache writes at theirs; long-context prices only for Claude Code's requests, whose size the traces give one by one; --no-cost hides it"
}

// unpricedNote says plainly how much of the total has no cost: the
// models without a price and their share of the tokens.
func unpricedNote(p *PriceInfo, total int64) string {
	models, their := "1 model", "its"
	if len(p.Unpriced) != 1 {
		models, their = fmt.Sprintf("%d models", len(p.Unpriced)), "their"
	}
	return fmt.Sprintf("no price for %s, %s of the tokens (%s of %s): %s; %s cost is not in the total, which is a lower bound (≥); none is guessed: give one with --prices FILE",
		models, share(p.UnpricedTokens, total), num(p.UnpricedTokens), num(total), strings.Join(p.Unpriced, ", "), their)
}

// share writes part of total as a percentage, never rounded to 0% or
// 100% when it is not.
func share(part, total int64) string {
	switch {
	case total <= 0 || part <= 0:
		return "0%"
	case part >= total:
		return "100%"
	}
	v := float64(part) / float64(total) * 100
	switch {
	case v < 0.1:
		return "under 0.1%"
	case v > 99.9:
		return "over 99.9%"
	}
	return fmt.Sprintf("%.1f%%", v)
}

// usd writes a cost in dollars; a lower bound (a model without a price)
// is marked "≥".
func usd(c float64, lower bool) string {
	s := fmt.Sprintf("%.2f", c)
	if lower {
		return "≥" + s
	}
	return s
}

func tokenRow(m ModelTokens, priced bool) []string {
	row := []string{m.Model, num(int64(m.Sessions)), num(m.Input), num(m.Output), num(m.CacheRead), num(m.CacheWrite), num(m.Total), num(m.Reasoning)}
	if priced {
		if m.CostUSD == nil {
			row = append(row, "-")
		} else {
			row = append(row, fmt.Sprintf("%.2f", *m.CostUSD))
		}
	}
	return row
}

// num writes 1234567 as 1,234,567.
func num(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// short writes a digest as its algorithm and first 12 hex digits, for
// reading; the json format keeps every digest whole.
func short(s string) string {
	for _, p := range []string{"sha256:", "hmac-sha256:"} {
		if strings.HasPrefix(s, p) && len(s) == len(p)+64 {
			return s[:len(p)+12] + "…"
		}
	}
	return s
}

// bucketCounts is counts of bucket labels as a table shows them: the
// bucket of nothing, labelled "0" in the receipts, is "none" (a row read
// "0 3" as a bucket named 0).
//
//	[{0 3} {under_50k 2}]  ->  none 3, under_50k 2
func bucketCounts(cs []Count) string {
	out := make([]Count, len(cs))
	for i, c := range cs {
		out[i] = c
		if c.Key == "0" {
			out[i].Key = "none"
		}
	}
	return joinCounts(out)
}

func shortCounts(cs []Count) string {
	out := make([]Count, len(cs))
	for i, c := range cs {
		out[i] = Count{short(c.Key), c.N}
	}
	return joinCounts(out)
}

func keys(cs []Count) string {
	ks := make([]string, len(cs))
	for i, c := range cs {
		ks[i] = c.Key
	}
	return strings.Join(ks, ", ")
}

// WriteJSON writes the report document (schemas/report.schema.json).
func WriteJSON(w io.Writer, r *Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteTable writes aligned columns; color adds bold titles and headers
// (for a terminal without NO_COLOR).
func WriteTable(w io.Writer, r *Report, color bool) error { return WriteTableWidth(w, r, color, 0) }

// WriteTableWidth writes the tables to fit cols columns (0: no limit): a
// table wider than that leaves out columns by dropOrder, least needed
// first, and says which; key/value rows and notes wrap.
func WriteTableWidth(w io.Writer, r *Report, color bool, cols int) error {
	bold := func(s string) string {
		if color {
			return "\x1b[1m" + s + "\x1b[0m"
		}
		return s
	}
	var b strings.Builder
	for i, t := range tables(r) {
		if i > 0 {
			b.WriteByte('\n')
		}
		t = fit(t, cols)
		b.WriteString(bold(t.Title) + "\n")
		if len(t.Rows) == 0 {
			b.WriteString("  (none)\n")
		} else {
			writeRows(&b, t, cols, bold)
		}
		for _, n := range t.Notes {
			for _, l := range wrap(n, cols-2) {
				b.WriteString("  " + l + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeRows writes a table's header and rows, aligned; a key/value table's
// values wrap to cols under their first line.
func writeRows(b *strings.Builder, t *table, cols int, bold func(string) string) {
	width := colWidths(t)
	line := func(cells []string, head bool) {
		var l strings.Builder
		l.WriteString(" ")
		for c, cell := range cells {
			pad := strings.Repeat(" ", width[c]-utf8.RuneCountInString(cell))
			l.WriteString(" ")
			if t.Num[c] {
				l.WriteString(pad + cell)
			} else if c < len(cells)-1 {
				l.WriteString(cell + pad)
			} else {
				l.WriteString(cell)
			}
			if c < len(cells)-1 {
				l.WriteString(" ")
			}
		}
		s := strings.TrimRight(l.String(), " ")
		if head {
			s = bold(s)
		}
		b.WriteString(s + "\n")
	}
	if !t.KV {
		line(t.Head, true)
		for _, row := range t.Rows {
			line(row, false)
		}
		return
	}
	indent := 2 + width[0] + 2 // "  key  value"
	for _, row := range t.Rows {
		vals := wrap(row[1], cols-indent)
		line([]string{row[0], vals[0]}, false)
		for _, v := range vals[1:] {
			b.WriteString(strings.Repeat(" ", indent) + v + "\n")
		}
	}
}

// colWidths are the widths of a table's columns, in runes.
func colWidths(t *table) []int {
	width := make([]int, len(t.Head))
	for c, h := range t.Head {
		if !t.KV {
			width[c] = utf8.RuneCountInString(h)
		}
	}
	for _, row := range t.Rows {
		for c, cell := range row {
			width[c] = max(width[c], utf8.RuneCountInString(cell))
		}
	}
	return width
}

// dropOrder are the columns a table leaves out to fit a narrow terminal,
// the first first; the key column, input, output and cost always stay.
var dropOrder = []string{"agents", "last activity", "subagents", "compactions", "MCP calls", "skills", "context inputs",
	"versions", "calls by status", "definitions loaded", "tools offered", "sessions", "reasoning", "total", "cache write", "cache read"}

// fit returns t without the columns it must leave out to fit cols (0: no
// limit), with a note naming them; t itself is left as it is.
func fit(t *table, cols int) *table {
	if cols <= 0 || t.KV || len(t.Rows) == 0 {
		return t
	}
	keep, dropped, cuts := fitColumns(t, cols)
	if len(dropped) == 0 && len(cuts) == 0 {
		return t
	}
	return narrowed(t, cols, keep, dropped, cuts)
}

// fitColumns decides how t fits cols: the columns kept (dropOrder's go
// first), the names of those dropped, and the widths text columns are cut
// to, by column.
func fitColumns(t *table, cols int) (keep []bool, dropped []string, cuts map[int]int) {
	lineWidth := func(ws []int) int {
		n := 2 * len(ws)
		for _, w := range ws {
			n += w
		}
		return n
	}
	width := colWidths(t)
	keep = make([]bool, len(t.Head))
	for c := range keep {
		keep[c] = true
	}
	for _, name := range dropOrder {
		var ws []int
		for c, w := range width {
			if keep[c] {
				ws = append(ws, w)
			}
		}
		if lineWidth(ws) <= cols {
			break
		}
		for c, h := range t.Head {
			if c > 0 && keep[c] && h == name {
				keep[c] = false
				dropped = append(dropped, h)
			}
		}
	}
	// Still too wide: the widest text columns (a session id, a withheld
	// value) are cut to what fits, at least 12 runes each, their start
	// kept ("…" marks the cut; --session takes the start of an id).
	cuts = map[int]int{}
	for {
		var kept []int
		for c, w := range width {
			if keep[c] {
				kept = append(kept, w)
			}
		}
		over := lineWidth(kept) - cols
		widest := -1
		for c, w := range width {
			if keep[c] && !t.Num[c] && w > 12 && (widest < 0 || w > width[widest]) {
				widest = c
			}
		}
		if over <= 0 || widest < 0 {
			break
		}
		width[widest] = max(12, width[widest]-over)
		cuts[widest] = width[widest]
	}
	return keep, dropped, cuts
}

// narrowed is t with only the kept columns, the cut ones cut, and notes
// saying what was left out or cut.
func narrowed(t *table, cols int, keep []bool, dropped []string, cuts map[int]int) *table {
	out := &table{ID: t.ID, Title: t.Title, KV: t.KV}
	pick := func(cells []string) []string {
		var o []string
		for c, v := range cells {
			if n, ok := cuts[c]; ok && utf8.RuneCountInString(v) > n {
				v = string([]rune(v)[:n-1]) + "…"
			}
			if keep[c] {
				o = append(o, v)
			}
		}
		return o
	}
	out.Head = pick(t.Head)
	for c, n := range t.Num {
		if keep[c] {
			out.Num = append(out.Num, n)
		}
	}
	for _, row := range t.Rows {
		out.Rows = append(out.Rows, pick(row))
	}
	out.Notes = append([]string{}, t.Notes...)
	if len(dropped) > 0 {
		out.Notes = append(out.Notes, fmt.Sprintf("left out to fit %d columns: %s (a wider terminal, COLUMNS, or --format json shows them)", cols, strings.Join(dropped, ", ")))
	}
	for c := range t.Head {
		if n, ok := cuts[c]; ok {
			out.Notes = append(out.Notes, fmt.Sprintf("%s cut to %d characters to fit", t.Head[c], n))
		}
	}
	return out
}

// wrap breaks s into lines of at most n runes at spaces (a word longer
// than n stays whole); n <= 0 is no limit.
func wrap(s string, n int) []string {
	if n <= 0 || utf8.RuneCountInString(s) <= n {
		return []string{s}
	}
	var out []string
	var cur strings.Builder
	curLen := 0
	for _, word := range strings.Fields(s) {
		wl := utf8.RuneCountInString(word)
		if curLen > 0 && curLen+1+wl > n {
			out = append(out, cur.String())
			cur.Reset()
			curLen = 0
		}
		if curLen > 0 {
			cur.WriteByte(' ')
			curLen++
		}
		cur.WriteString(word)
		curLen += wl
	}
	if curLen > 0 || len(out) == 0 {
		out = append(out, cur.String())
	}
	return out
}

// WriteMarkdown writes GitHub-flavoured Markdown, for pasting into an issue.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	b.WriteString("# convert report\n")
	for _, t := range tables(r) {
		b.WriteString("\n## " + t.Title + "\n\n")
		if len(t.Rows) == 0 {
			b.WriteString("(none)\n")
		} else {
			head := t.Head
			if t.KV {
				head = []string{"", ""}
			}
			b.WriteString("| " + strings.Join(mdCells(head), " | ") + " |\n|")
			for c := range head {
				if t.Num[c] {
					b.WriteString("---:|")
				} else {
					b.WriteString("---|")
				}
			}
			b.WriteByte('\n')
			for _, row := range t.Rows {
				b.WriteString("| " + strings.Join(mdCells(row), " | ") + " |\n")
			}
		}
		for _, n := range t.Notes {
			b.WriteString("\n" + mdEscape(n) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = mdEscape(c)
	}
	return out
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ", "<", "&lt;", ">", "&gt;", "*", "\\*", "_", "\\_", "`", "\\`").Replace(s)
}

// count is "1 session", "2 sessions", "1,024 sessions"...
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return num(int64(n)) + " " + many
}
