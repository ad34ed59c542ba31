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
	ov.add("receipt events", num(t.Events))
	src := fmt.Sprintf("%d receipts read, %d logs converted in this run, %d traces", r.Sources.Receipts, r.Sources.Converted, r.Sources.Traces)
	if r.Sources.OutOfRange > 0 {
		src += fmt.Sprintf("; %d sessions outside --since/--until", r.Sources.OutOfRange)
	}
	ov.add("made from", src)
	if n := r.Sources.DuplicateReceipts; n > 0 {
		ov.add("repeated receipts", num(int64(n))+" copies of sessions read more than once, counted once")
	}
	if n := r.Sources.DuplicateResponses; n > 0 {
		ov.add("repeated responses", num(int64(n))+" copies of responses in more than one session (resumed or forked), counted once")
	}
	if r.Since != "" || r.Until != "" {
		ov.add("range", or(r.Since, "…")+" to "+or(r.Until, "…"))
	}
	return ov
}

// groupsTable sums each group (--by) over its sessions.
func groupsTable(r *Report) *table {
	priced := r.Prices != nil
	g := &table{ID: "groups", Title: "By " + r.By, Head: []string{r.By, "sessions", "agents", "input", "output", "cache read", "cache write", "reasoning"},
		Num: []bool{false, true, false, true, true, true, true, true}}
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
		row := []string{short(gr.Key), num(int64(gr.Sessions)), keys(gr.Agents), num(tk.Input), num(tk.Output), num(tk.CacheRead), num(tk.CacheWrite), num(tk.Reasoning)}
		if priced {
			row = append(row, usd(cost, unpriced))
		}
		g.add(append(row, num(inputs), num(skills), num(calls), num(gr.Compaction.Compactions), num(gr.Subagents.Spawned))...)
	}
	if priced {
		g.Notes = append(g.Notes, "cost: \"≥\" marks a group with a model that has no price (see Tokens per model)")
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
		Notes: []string{"input excludes cache reads and writes for every agent (Codex and Gemini CLI count them inside input; they are taken out), so the four columns add up to the total; reasoning is what the agent reports apart (OpenAI counts it inside output too) and is not added; a response repeated by a resumed or forked session counts once"}}
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
			tk.Notes = append(tk.Notes, "no price (no cost shown, none guessed; give one with --prices FILE): "+strings.Join(r.Prices.Unpriced, ", "))
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
		Notes: []string{fmt.Sprintf("skill listings loaded: %d (size: %s)", t.Skills.Listings, joinCounts(t.Skills.ListingSizes))}}
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
	co.add("tokens before", joinCounts(t.Compaction.Before))
	co.add("tokens after", joinCounts(t.Compaction.After))
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
	sa.add("result sizes", joinCounts(t.Subagents.ResultSizes))
	sa.add("subagent tokens", joinCounts(t.Subagents.TokenBuckets))
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
	case p.TableDate != "" && p.File:
		from = "the bundled price table of " + p.TableDate + ", with the entries of --prices FILE"
	case p.TableDate != "":
		from = "the bundled price table of " + p.TableDate
	default:
		from = "the --prices FILE table"
	}
	return "cost: US dollars at the standard prices of " + from + " (Anthropic cache writes at the 5-minute price, no long-context surcharge); --no-cost hides it"
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
func WriteTable(w io.Writer, r *Report, color bool) error {
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
		b.WriteString(bold(t.Title) + "\n")
		if len(t.Rows) == 0 {
			b.WriteString("  (none)\n")
		} else {
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
			}
			for _, row := range t.Rows {
				line(row, false)
			}
		}
		for _, n := range t.Notes {
			b.WriteString("  " + n + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
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
