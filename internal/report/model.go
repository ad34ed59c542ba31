package report

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/models"
	"github.com/contextreceipts/convert/internal/usage"
	"github.com/tidwall/gjson"
)

// SchemaID names the JSON document (schemas/report.schema.json).
const SchemaID = "convert.report.v1"

// Report is the whole report; `--format json` writes it as is, the other
// formats render it and nothing else, so checking it checks them all.
type Report struct {
	Schema    string     `json:"schema"`
	By        string     `json:"by"`
	Timezone  string     `json:"timezone"`
	Since     string     `json:"since,omitempty"`
	Until     string     `json:"until,omitempty"`
	Sources   Sources    `json:"sources"`
	Prices    *PriceInfo `json:"prices,omitempty"`
	Total     Sections   `json:"total"`
	Groups    []Group    `json:"groups"`
	Days      []DayRow   `json:"days"`
	Sessions  []SessRow  `json:"sessions"`
	Timelines []Timeline `json:"timelines,omitempty"`

	order     []*Session // the sessions in range, in the order of Sessions
	priceErrs []string   // models priced by an entry that lacks a kind they have tokens of
}

// PriceErrors are the models whose price entry lacks a price for a kind of
// token they have (a partial --prices entry): such a report is refused,
// never priced at 0. Each message names the model and the kind.
func (r *Report) PriceErrors() []string { return r.priceErrs }

// Sources says what the report was made from.
type Sources struct {
	Receipts        int `json:"receipts"`
	Converted       int `json:"converted_inputs"`
	Traces          int `json:"traces"`
	SessionsInRange int `json:"sessions_in_range"`
	OutOfRange      int `json:"sessions_out_of_range"`
	NotSelected     int `json:"sessions_not_selected"` // left out by --session
	Unreadable      int `json:"unreadable_receipts"`
	// DuplicateResponses counts the copies of responses seen in more than
	// one session (resumed and forked sessions), each counted once.
	DuplicateResponses int `json:"duplicate_responses"`
	// DuplicateReceipts counts the sessions read more than once (same
	// session id and input digest), each counted once.
	DuplicateReceipts int `json:"duplicate_receipts"`
}

// PriceInfo says which prices costed the report and which models had no
// price; cost is never guessed.
type PriceInfo struct {
	CostUSD  float64  `json:"cost_usd"`
	Unpriced []string `json:"unpriced_models"`
	// UnpricedTokens are the tokens (input, output, cache read and write)
	// of the unpriced models: the part of the total the cost leaves out.
	UnpricedTokens int64 `json:"unpriced_tokens"`
	// Catalog is the price data's package and version when the model
	// catalog priced the report ("" when only a --prices file did); File
	// is true when a --prices file was given.
	Catalog string `json:"catalog,omitempty"`
	File    bool   `json:"prices_file"`
}

// Sessions64 is the number of sessions, for the page's templates.
func (s Sections) Sessions64() int64 { return int64(s.Sessions) }

// Group is the sections of one --by key.
type Group struct {
	Key string `json:"key"`
	Sections
}

// Count is one labelled number.
type Count struct {
	Key string `json:"key"`
	N   int64  `json:"n"`
}

// Sections is everything the report shows for a set of sessions.
type Sections struct {
	Sessions      int           `json:"sessions"`
	Agents        []Count       `json:"agents"`
	AgentVersions []Count       `json:"agent_versions"`
	First         string        `json:"first,omitempty"`
	Last          string        `json:"last,omitempty"`
	Events        int64         `json:"events"`
	Tokens        []ModelTokens `json:"tokens"`
	ContextInputs []InputRow    `json:"context_inputs"`
	AuditGaps     []GapRow      `json:"audit_gaps"`
	Skills        Skills        `json:"skills"`
	MCP           MCP           `json:"mcp"`
	Memory        Memory        `json:"memory"`
	Compaction    Compaction    `json:"compaction"`
	Subagents     Subagents     `json:"subagents"`
	Health        Health        `json:"health"`
}

// ModelTokens is the token usage of one model, in the one token model
// (internal/usage): input excludes cache read and cache write for every
// agent (Codex, Gemini CLI and Copilot CLI count cached tokens inside input;
// they are taken out), and a response repeated by a resumed or forked
// session counts once, so the figures compare with ccusage's and `convert
// run`'s.
type ModelTokens struct {
	Model      string `json:"model"`
	Sessions   int    `json:"sessions"`
	Input      int64  `json:"input"`
	Output     int64  `json:"output"`
	CacheRead  int64  `json:"cache_read"`
	CacheWrite int64  `json:"cache_write"`
	// CacheWrite1h is the part of CacheWrite written to Anthropic's
	// 1-hour cache, priced apart (2 x input, not 1.25 x).
	CacheWrite1h int64    `json:"cache_write_1h"`
	Reasoning    int64    `json:"reasoning"`
	Total        int64    `json:"total"`
	CostUSD      *float64 `json:"cost_usd,omitempty"`

	// long is the part of these tokens made by requests above the
	// model's long-context threshold (longFrom), as the trace's chat
	// spans tell them: priced at the data's long-context tier.
	long usage.Tokens
}

// InputRow is one instruction file, overlay or other context input: loads
// per conventional path (in clear) or path digest, and how many distinct
// delivered versions it had.
type InputRow struct {
	Kind     string `json:"kind"`
	Source   string `json:"source"` // conventional path, path digest, server or "" (not named)
	Loads    int64  `json:"loads"`
	Sessions int    `json:"sessions"`
	Versions int    `json:"versions"`
}

// GapRow is one kind of audit gap: what a log cannot show.
type GapRow struct {
	Gap      string `json:"gap"`
	Events   int64  `json:"events"`
	Sessions int    `json:"sessions"`
}

// Skills are listings and invocations.
type Skills struct {
	Listings     int64      `json:"listings"`
	ListingSizes []Count    `json:"listing_size_buckets"`
	Invocations  []SkillRow `json:"invocations"`
}

// SkillRow counts the invocations of one skill by one trigger.
type SkillRow struct {
	Skill   string `json:"skill"`
	Trigger string `json:"trigger"`
	Count   int64  `json:"count"`
}

// MCP is the tool-search boundary in numbers.
type MCP struct {
	IndexLoads          int64       `json:"index_loads"`
	ToolsOffered        int64       `json:"tools_offered"`
	DefinitionsOnDemand int64       `json:"definitions_loaded_on_demand"`
	DefinitionsUpfront  int64       `json:"definitions_loaded_at_startup"`
	Searches            int64       `json:"searches"`
	Calls               []Count     `json:"calls_by_status"`
	Servers             []ServerRow `json:"servers"`
}

// ServerRow is one MCP server ("(index)" for an index over every server).
type ServerRow struct {
	Server       string  `json:"server"`
	Sessions     int     `json:"sessions"`
	ToolsOffered int64   `json:"tools_offered"` // the largest index seen in one session
	Definitions  int64   `json:"definitions_loaded"`
	Calls        []Count `json:"calls_by_status"`
}

// Memory is memory-file reads and writes and memory searches.
type Memory struct {
	Reads    int64      `json:"reads"`
	Writes   int64      `json:"writes"`
	Searches int64      `json:"searches"`
	ByKind   []MemoryOp `json:"by_kind"`
}

// MemoryOp counts one operation on one kind of memory file.
type MemoryOp struct {
	Kind      string `json:"kind"`
	Operation string `json:"operation"`
	Count     int64  `json:"count"`
}

// Compaction is how often sessions compacted and the token buckets around it.
type Compaction struct {
	Compactions   int64   `json:"compactions"`
	Sessions      int     `json:"sessions"`
	MaxPerSession int64   `json:"max_per_session"`
	Triggers      []Count `json:"triggers"`
	Before        []Count `json:"before_buckets"`
	After         []Count `json:"after_buckets"`
}

// Subagents is what was spawned and what crossed back.
type Subagents struct {
	Spawned      int64   `json:"spawned"`
	Returned     int64   `json:"returned"`
	Types        []Count `json:"types"`
	Status       []Count `json:"result_status"`
	Boundaries   []Count `json:"result_boundaries"`
	ResultSizes  []Count `json:"result_size_buckets"`
	TokenBuckets []Count `json:"token_buckets"`
}

// Health is conversion health from the summaries.
type Health struct {
	Inputs       int64   `json:"inputs"`
	Bytes        int64   `json:"bytes"`
	Lines        int64   `json:"lines"`
	Records      int64   `json:"records"`
	Skipped      int64   `json:"skipped"`
	SkipReasons  []Count `json:"skipped_by_reason"`
	UnknownTypes []Count `json:"unknown_record_types"` // digest -> sessions
	LeakPassed   int64   `json:"leak_check_passed"`
	RawStrings   int64   `json:"leak_check_raw_strings"`
	RawBytes     int64   `json:"leak_check_raw_bytes"`
	HashModes    []Count `json:"hash_modes"`
	Gaps         []Count `json:"summary_audit_gaps"`
}

// DayRow is the tokens and context of one day, for the charts.
type DayRow struct {
	Day         string  `json:"day"`
	Sessions    int     `json:"sessions"`
	Tokens      []Count `json:"tokens_by_model"` // input+output+cache read+cache write
	Compactions int64   `json:"compactions"`
}

// SessRow is one line of the sessions table.
type SessRow struct {
	ID            string   `json:"id"`
	Agent         string   `json:"agent"`
	Versions      []string `json:"agent_versions"`
	Project       string   `json:"project"`
	Input         string   `json:"input"`
	Start         string   `json:"start,omitempty"`
	End           string   `json:"end,omitempty"`
	DurationMS    int64    `json:"duration_ms"`
	Events        int      `json:"events"`
	Models        []string `json:"models"`
	InputTokens   int64    `json:"input_tokens"`
	OutputTokens  int64    `json:"output_tokens"`
	CacheRead     int64    `json:"cache_read_tokens"`
	CacheWrite    int64    `json:"cache_write_tokens"`
	Reasoning     int64    `json:"reasoning_tokens"`
	CostUSD       *float64 `json:"cost_usd,omitempty"`        // with a price table: the priced models' cost
	Unpriced      bool     `json:"cost_incomplete,omitempty"` // a model of the session has no price: cost is a lower bound
	ContextInputs int64    `json:"context_inputs"`
	Skills        int64    `json:"skill_invocations"`
	MCPCalls      int64    `json:"mcp_calls"`
	Compactions   int64    `json:"compactions"`
	Subagents     int64    `json:"subagents"`
	Skipped       int64    `json:"skipped_lines"`
}

// Options shape a report.
type Options struct {
	By        string         // day, week, month, session, project, agent or model
	Location  *time.Location // the zone days, weeks and months are counted in; nil: UTC
	Since     time.Time
	Until     time.Time // exclusive; zero: no bound
	SinceText string
	UntilText string
	Prices    *Prices  // nil: no cost (--no-cost)
	Sessions  []string // --session: only the sessions whose id starts with one of these
	Catalog   string   // the catalog's source, when it is part of Prices
	PriceFile bool     // a --prices file is part of Prices
	Timelines int      // sessions with a timeline (html); the most recent first
}

// Bys are the --by values.
var Bys = []string{"day", "week", "month", "session", "project", "agent", "model"}

// Build aggregates sessions into a report.
func Build(ss []*Session, opt Options) *Report {
	if opt.By == "" {
		opt.By = "day"
	}
	if opt.Location == nil {
		opt.Location = time.UTC
	}
	r := &Report{Schema: SchemaID, By: opt.By, Timezone: opt.Location.String(), Since: opt.SinceText, Until: opt.UntilText, Groups: []Group{}, Days: []DayRow{}, Sessions: []SessRow{}}
	in := r.sessionsIn(ss, opt)
	total := newAgg()
	groups := map[string]*agg{}
	days := map[string]*dayAgg{}
	for _, s := range in {
		// With --since or --until, a session counts only the responses it
		// made inside the range, and its day is that of its first activity
		// there.
		home := homeTime(s, opt)
		u := clipUsage(s, usageOf(s), opt, home)
		total.add(s, "", u)
		addToGroups(groups, s, u, home, opt)
		addToDays(days, s, u, home, opt)
		r.Sessions = append(r.Sessions, sessRow(s, u, opt.Prices))
	}
	r.Total = total.sections(opt.Prices)
	for _, k := range groupOrder(groups, in, opt.By) {
		r.Groups = append(r.Groups, Group{Key: k, Sections: groups[k].sections(opt.Prices)})
	}
	for _, d := range sortedKeys(days) {
		da := days[d]
		r.Days = append(r.Days, DayRow{Day: d, Sessions: da.sessions, Tokens: counts(da.tokens), Compactions: da.compactions})
	}
	if opt.Prices != nil {
		r.setPrices(opt)
	}
	return r
}

// sessionsIn chooses the sessions the report counts (--session, then
// --since and --until), folds the responses several of them hold, counts
// what it left out in r.Sources, and returns them in the order of their
// last activity.
func (r *Report) sessionsIn(ss []*Session, opt Options) []*Session {
	var sel []*Session
	for _, s := range ss {
		if selected(s, opt.Sessions) {
			sel = append(sel, s)
		} else {
			r.Sources.NotSelected++
		}
	}
	// A response several sessions hold counts with the one that started
	// first (on a tie of counts): the session a resume or fork copied it
	// from. Responses are folded before --since and --until choose
	// messages, as ccusage folds its rows before it filters them by date:
	// a copy is not counted again because its original is out of range.
	sort.SliceStable(sel, func(i, j int) bool {
		if !sel[i].Start.Equal(sel[j].Start) {
			return sel[i].Start.Before(sel[j].Start)
		}
		return sel[i].ID < sel[j].ID
	})
	var fold usage.Fold
	for i, s := range sel {
		fold.Add(i, s.Responses)
	}
	folded := fold.Folded()
	var in []*Session
	for i, s := range sel {
		s.folded = folded[i] // nil when none: a session is built into more than one report
		if !inRange(s, opt) {
			r.Sources.OutOfRange++
			continue
		}
		in = append(in, s)
		r.Sources.DuplicateResponses += len(folded[i])
	}
	// Sessions are listed in the order of their last activity, the most
	// recent last (as ccusage lists them): a resumed old session comes
	// with today's.
	sort.SliceStable(in, func(i, j int) bool {
		return in[i].End.Before(in[j].End)
	})
	r.Sources.SessionsInRange = len(in)
	r.order = in
	return in
}

// groupOf is groups[k], made when absent.
func groupOf(groups map[string]*agg, k string) *agg {
	g := groups[k]
	if g == nil {
		g = newAgg()
		groups[k] = g
	}
	return g
}

// addToGroups adds session s, whose usage is u, to the groups of --by.
func addToGroups(groups map[string]*agg, s *Session, u map[string]*ModelTokens, home time.Time, opt Options) {
	if !timeBys[opt.By] {
		for _, k := range groupKeys(s, opt.By, u) {
			model := ""
			if opt.By == "model" {
				model = k
			}
			groupOf(groups, k).add(s, model, u)
		}
		return
	}
	// Each response's tokens go to the period it was made in; the rest of
	// the session (sessions, inputs, events) to the period it started in.
	start := periodOf(home, opt.By, opt.Location)
	split := splitUsage(s, u, periodKey(opt.By, opt.Location), opt.holds, home)
	for _, k := range sortedKeys(split) {
		if k == start {
			groupOf(groups, k).add(s, "", split[k])
		} else {
			groupOf(groups, k).addTokens(split[k])
		}
	}
	if _, ok := split[start]; !ok {
		groupOf(groups, start).add(s, "", nil)
	}
}

// addToDays adds session s to the daily rows: each response's tokens to
// its day, the session and its compactions to the day it started.
func addToDays(days map[string]*dayAgg, s *Session, u map[string]*ModelTokens, home time.Time, opt Options) {
	dayOf := func(d string) *dayAgg {
		da := days[d]
		if da == nil {
			da = &dayAgg{tokens: map[string]int64{}}
			days[d] = da
		}
		return da
	}
	for d, du := range splitUsage(s, u, periodKey("day", opt.Location), opt.holds, home) {
		da := dayOf(d)
		for m, t := range du {
			da.tokens[m] += t.Input + t.Output + t.CacheRead + t.CacheWrite
		}
	}
	da := dayOf(periodOf(home, "day", opt.Location))
	da.sessions++
	da.compactions += countNamed(s, "context.compaction.started")
}

// setPrices prices the report's total: what it cost, and the models the
// price table has no price for.
func (r *Report) setPrices(opt Options) {
	r.priceErrs = priceErrors(opt.Prices, r.Total.Tokens)
	pi := &PriceInfo{Unpriced: []string{}, Catalog: opt.Catalog, File: opt.PriceFile}
	for _, t := range r.Total.Tokens {
		if t.CostUSD == nil {
			pi.Unpriced = append(pi.Unpriced, t.Model)
			pi.UnpricedTokens += t.Total
		} else {
			pi.CostUSD += *t.CostUSD
		}
	}
	r.Prices = pi
}

// groupOrder is the order of the groups: by key, but --by session lists
// sessions by last activity, as the sessions are (in).
func groupOrder(groups map[string]*agg, in []*Session, by string) []string {
	if by != "session" {
		return sortedKeys(groups)
	}
	var out []string
	seen := map[string]bool{}
	for _, s := range in {
		if !seen[s.ID] {
			seen[s.ID] = true
			out = append(out, s.ID)
		}
	}
	return out
}

// selected reports whether a session's id starts with one of the
// prefixes (--session); no prefix selects every session.
func selected(s *Session, prefixes []string) bool {
	if len(prefixes) == 0 {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(s.ID, p) {
			return true
		}
	}
	return false
}

// bounded reports whether --since or --until was given.
func (opt Options) bounded() bool { return !opt.Since.IsZero() || !opt.Until.IsZero() }

// holds reports whether t is inside the --since/--until range (every time
// is, without one; a zero time is not, with one).
func (opt Options) holds(t time.Time) bool {
	if !opt.bounded() {
		return true
	}
	return !t.IsZero() && (opt.Since.IsZero() || !t.Before(opt.Since)) && (opt.Until.IsZero() || t.Before(opt.Until))
}

// inRange reports whether a session has activity inside the range: a
// response made there, as ccusage filters each message by its time, or,
// for a session whose trace times no response, its start.
func inRange(s *Session, opt Options) bool {
	return !homeTime(s, opt).IsZero() || !opt.bounded()
}

// homeTime is the time a session counts at: its start, or with a range
// that does not hold its start, its first response inside the range (zero
// when none is).
func homeTime(s *Session, opt Options) time.Time {
	if opt.holds(s.Start) {
		return s.Start
	}
	var first time.Time
	for _, x := range s.Responses {
		if opt.holds(x.At) && (first.IsZero() || x.At.Before(first)) {
			first = x.At
		}
	}
	return first
}

// clipUsage keeps, with a range, the part of a session's usage u its
// responses made inside it; what the trace does not time counts only when
// the session started inside it.
func clipUsage(s *Session, u map[string]*ModelTokens, opt Options, home time.Time) map[string]*ModelTokens {
	if !opt.bounded() {
		return u
	}
	const inside, outside = "in", "out"
	key := func(t time.Time) string {
		if opt.holds(t) {
			return inside
		}
		return outside
	}
	parts := splitUsage(s, u, key, nil, s.Start)
	kept := map[string]*ModelTokens{}
	for m, t := range parts[inside] {
		if t.Input != 0 || t.Output != 0 || t.CacheRead != 0 || t.CacheWrite != 0 || t.Reasoning != 0 || home.Equal(s.Start) && u[m].Input+u[m].Output+u[m].CacheRead+u[m].CacheWrite == 0 {
			kept[m] = t
		}
	}
	return kept
}

// periodKey is periodOf for one --by and zone.
func periodKey(by string, loc *time.Location) func(time.Time) string {
	return func(t time.Time) string { return periodOf(t, by, loc) }
}

const noTime, noModel = "(no time)", "(no model)"

// ownWords are labels the report writes itself (the folder a receipt at
// the top of its argument is in is "(top)").
var ownWords = map[string]bool{noTime: true, noModel: true, topFolder: true}

// timeBys are the --by values whose keys the report formats from times.
var timeBys = map[string]bool{"day": true, "week": true, "month": true}

// typed reports whether v, found at path in the report document, is a
// label the report computed rather than a string copied from input: the
// report's own words, the arguments it echoes, a day, week or month it
// formatted from a parsed time, and a model name it admitted (in the fields
// that hold one, with the shape `run` admits model names by). As in
// `convert run`, a typed value is not probed by the leak check.
func (r *Report) typed(path, v string) bool {
	switch path {
	case "schema":
		return v == SchemaID
	case "by":
		return v == r.By
	case "since":
		return v == r.Since
	case "until":
		return v == r.Until
	case "days.day":
		return isDay(v)
	case "groups.key":
		if timeBys[r.By] && isPeriod(v, r.By) || r.By == "model" && leak.Model.Admit(v) {
			return true
		}
	case "timezone":
		return v == r.Timezone
	case "prices.catalog":
		return r.Prices != nil && v == r.Prices.Catalog
	case "total.tokens.model", "groups.tokens.model", "sessions.models", "days.tokens_by_model.key", "prices.unpriced_models":
		// A model name the receipts wrote, in a field that only ever
		// holds one: typed by the shape `run` admits model names by.
		return leak.Model.Admit(v)
	}
	return ownWords[v]
}

// isDay reports whether v is a day label as periodOf writes one.
func isDay(v string) bool { return isPeriod(v, "day") }

// isPeriod reports whether v has the shape of a label periodOf writes.
func isPeriod(v, by string) bool {
	if v == noTime {
		return true
	}
	switch by {
	case "week":
		var y, w int
		n, err := fmt.Sscanf(v, "%04d-W%02d", &y, &w)
		return err == nil && n == 2 && len(v) == len("2026-W01") && w >= 1 && w <= 53
	case "month":
		_, err := time.Parse("2006-01", v)
		return err == nil && len(v) == len("2006-01")
	}
	_, err := time.Parse("2006-01-02", v)
	return err == nil && len(v) == len("2006-01-02")
}

// periodOf is the day (2026-07-01), ISO week (2026-W27) or month
// (2026-07) of t in loc, by by; noTime for a zero time.
func periodOf(t time.Time, by string, loc *time.Location) string {
	if t.IsZero() {
		return noTime
	}
	t = t.In(loc)
	switch by {
	case "week":
		y, w := t.ISOWeek()
		return fmt.Sprintf("%04d-W%02d", y, w)
	case "month":
		return t.Format("2006-01")
	}
	return t.Format("2006-01-02")
}

// splitUsage puts a session's usage (u, folded) in the periods its
// responses were made in (key names a time's period), as the trace's chat
// spans time them; what the spans do not account for (a receipt without
// its trace, an agent whose spans carry no usage) stays in the period of
// home (the session's start, or its first activity in range), so the
// periods always add up to u. Responses made at a time keep rejects (out
// of the range; nil keeps all) are left out: u holds none of them.
func splitUsage(s *Session, u map[string]*ModelTokens, key func(time.Time) string, keep func(time.Time) bool, home time.Time) map[string]map[string]*ModelTokens {
	out := map[string]map[string]*ModelTokens{}
	at := func(k, m string) *ModelTokens {
		if out[k] == nil {
			out[k] = map[string]*ModelTokens{}
		}
		t := out[k][m]
		if t == nil {
			t = &ModelTokens{Model: m}
			out[k][m] = t
		}
		return t
	}
	dropped := droppedResponses(s)
	left := map[string]*ModelTokens{}
	for m, t := range u {
		c := *t
		left[m] = &c
	}
	for i, x := range s.Responses {
		l := left[x.Model]
		if dropped[i] || x.At.IsZero() || l == nil || keep != nil && !keep(x.At) {
			continue
		}
		if x.Tokens.Input > l.Input || x.Tokens.Output > l.Output || x.Tokens.CacheRead > l.CacheRead || x.Tokens.CacheWrite > l.CacheWrite {
			continue // more than the receipt counts: the receipt's figure stands
		}
		p := at(key(x.At), x.Model)
		p.add(x.Tokens, 1)
		l.add(x.Tokens, -1)
		if isLong(s, x) {
			addTokens(&p.long, x.Tokens, 1)
			addTokens(&l.long, x.Tokens, -1)
		}
	}
	start := key(home)
	for m, l := range left {
		if l.Input != 0 || l.Output != 0 || l.CacheRead != 0 || l.CacheWrite != 0 || l.Reasoning != 0 || out[start] == nil || out[start][m] == nil {
			p := at(start, m)
			p.add(usage.Tokens{Input: l.Input, Output: l.Output, CacheRead: l.CacheRead, CacheWrite: l.CacheWrite, Reasoning: l.Reasoning}, 1)
			addTokens(&p.long, l.long, 1)
		}
	}
	for _, ms := range out {
		for _, t := range ms {
			t.capLong()
		}
	}
	// The trace does not say which cache writes went to the 1-hour cache:
	// each period gets the session's share of them in proportion to its
	// cache writes, the rounding left with the last, so they add up.
	for m, t := range u {
		if t.CacheWrite1h == 0 || t.CacheWrite == 0 {
			continue
		}
		var periods []string
		for _, k := range sortedKeys(out) {
			if x := out[k][m]; x != nil && x.CacheWrite > 0 {
				periods = append(periods, k)
			}
		}
		given := int64(0)
		for i, k := range periods {
			x := out[k][m]
			share := t.CacheWrite1h - given
			if i < len(periods)-1 {
				share = t.CacheWrite1h * x.CacheWrite / t.CacheWrite
			}
			x.CacheWrite1h = min(share, x.CacheWrite)
			given += x.CacheWrite1h
		}
	}
	return out
}

func groupKeys(s *Session, by string, u map[string]*ModelTokens) []string {
	switch by {
	case "session":
		return []string{s.ID}
	case "project":
		return []string{s.Project}
	case "agent":
		return []string{s.Agent}
	case "model":
		if len(u) == 0 {
			return []string{noModel}
		}
		return sortedKeys(u)
	}
	return []string{periodOf(s.Start, "day", time.UTC)}
}

func countNamed(s *Session, name string) int64 {
	var n int64
	for i := range s.Events {
		if s.Events[i].Name == name {
			n++
		}
	}
	return n
}

// usageOf sums a session's token usage per model in the one token model
// (usage.Summary: input without the cache, whatever the agent's
// convention), less the copies of responses another session holds too
// (s.folded, set by Build).
func usageOf(s *Session) map[string]*ModelTokens {
	u := map[string]*ModelTokens{}
	get := func(m string) *ModelTokens {
		t := u[m]
		if t == nil {
			t = &ModelTokens{Model: m}
			u[m] = t
		}
		return t
	}
	for i := range s.Events {
		e := &s.Events[i]
		if e.Name != "gen_ai.token_usage.summarized" {
			continue
		}
		m, n := usage.Summary(func(k string) gjson.Result { return e.Attrs[k] })
		t := get(m)
		t.add(n, 1)
		t.CacheWrite1h += e.Attrs["gen_ai.usage.cache_creation.ephemeral_1h_input_tokens"].Int()
	}
	for _, r := range s.folded {
		get(r.Model).add(r.Tokens, -1)
	}
	dropped := droppedResponses(s)
	for i, x := range s.Responses {
		if t := u[x.Model]; t != nil && !dropped[i] && isLong(s, x) {
			addTokens(&t.long, x.Tokens, 1)
		}
	}
	for _, t := range u {
		// A folded copy's cache writes are not told apart by cache: the
		// 1-hour part is at most what is left.
		t.CacheWrite1h = max(0, min(t.CacheWrite1h, t.CacheWrite))
		t.capLong()
	}
	return u
}

// droppedResponses are the indexes in s.Responses of the copies s.folded
// names: each folded copy drops one response of the same ids.
func droppedResponses(s *Session) map[int]bool {
	dropped := map[int]bool{}
	for _, r := range s.folded {
		for i, x := range s.Responses {
			if !dropped[i] && x.ID == r.ID && x.Request == r.Request && x.ID != "" {
				dropped[i] = true
				break
			}
		}
	}
	return dropped
}

// isLong reports whether a response's request passed its model's
// long-context threshold: its input, the cache included, above the first
// tier's start of the catalog's price (as genai-prices prices a request).
// Only where a chat span is one request (requestSpans): a Codex span is a
// turn, the sum of its requests, whose size says nothing of each.
func isLong(s *Session, x usage.Response) bool {
	if !requestSpans[s.Agent] {
		return false
	}
	from := longFrom(x.Model)
	return from > 0 && x.Tokens.Input+x.Tokens.CacheRead+x.Tokens.CacheWrite > from
}

// requestSpans are the agents whose chat spans are one API request each:
// Claude Code's, one per response (message id and request id).
var requestSpans = map[string]bool{"claude_code": true}

// longFrom is the model's long-context threshold in the catalog, 0 for a
// model priced alike at every size.
func longFrom(model string) int64 {
	if p, ok := models.PriceOf(model); ok && len(p.Tiers) > 0 {
		return p.Tiers[0].From
	}
	return 0
}

// capLong keeps the long-context part within the totals (a trace that
// counts more than the receipt: the receipt's figures stand).
func (t *ModelTokens) capLong() {
	t.long.Input = max(0, min(t.long.Input, t.Input))
	t.long.Output = max(0, min(t.long.Output, t.Output))
	t.long.CacheRead = max(0, min(t.long.CacheRead, t.CacheRead))
	t.long.CacheWrite = max(0, min(t.long.CacheWrite, t.CacheWrite))
	t.long.Reasoning = max(0, min(t.long.Reasoning, t.Reasoning))
}

func addTokens(t *usage.Tokens, n usage.Tokens, sign int64) {
	t.Input += sign * n.Input
	t.Output += sign * n.Output
	t.CacheRead += sign * n.CacheRead
	t.CacheWrite += sign * n.CacheWrite
	t.Reasoning += sign * n.Reasoning
}

func (t *ModelTokens) add(n usage.Tokens, sign int64) {
	t.Input += sign * n.Input
	t.Output += sign * n.Output
	t.CacheRead += sign * n.CacheRead
	t.CacheWrite += sign * n.CacheWrite
	t.Reasoning += sign * n.Reasoning
}

func sessRow(s *Session, u map[string]*ModelTokens, prices *Prices) SessRow {
	row := SessRow{ID: s.ID, Agent: s.Agent, Versions: nonNil(s.Versions), Project: s.Project, Input: s.Input, Events: len(s.Events), Models: nonNil(s.Models())}
	if !s.Start.IsZero() {
		row.Start, row.End = stamp(s.Start), stamp(s.End)
		row.DurationMS = s.End.Sub(s.Start).Milliseconds()
	}
	if prices != nil {
		row.CostUSD = new(float64)
	}
	for _, m := range sortedKeys(u) {
		t := u[m]
		row.InputTokens += t.Input
		row.OutputTokens += t.Output
		row.CacheRead += t.CacheRead
		row.CacheWrite += t.CacheWrite
		row.Reasoning += t.Reasoning
		if row.CostUSD == nil {
			continue
		}
		if c, _ := prices.cost(*t); c != nil {
			*row.CostUSD += *c
		} else if t.Input+t.Output+t.CacheRead+t.CacheWrite > 0 {
			row.Unpriced = true // a model without a price: the cost is a lower bound
		}
	}
	if row.CostUSD != nil {
		*row.CostUSD = math.Round(*row.CostUSD*1e6) / 1e6
	}
	for i := range s.Events {
		switch s.Events[i].Name {
		case "context.input.loaded":
			row.ContextInputs++
		case "context.skill.invoked":
			row.Skills++
		case "mcp.tool_call.completed":
			row.MCPCalls++
		case "context.compaction.started":
			row.Compactions++
		case "subagent.spawned":
			row.Subagents++
		}
	}
	row.Skipped = s.Summary.Int("convert.input.lines.skipped")
	return row
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

type dayAgg struct {
	sessions    int
	tokens      map[string]int64
	compactions int64
}

// ParseDate reads a --since/--until value: a day (2026-07-01 or 20260701,
// in loc; nil: UTC) or an RFC 3339 time. A day as --until includes that
// whole day.
func ParseDate(v string, until bool, loc *time.Location) (time.Time, error) {
	if loc == nil {
		loc = time.UTC
	}
	for _, layout := range []string{"2006-01-02", "20060102"} {
		if t, err := time.ParseInLocation(layout, v, loc); err == nil && len(v) == len(layout) {
			if until {
				t = t.AddDate(0, 0, 1)
			}
			return t, nil
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, fmt.Errorf("%q is neither a day (2026-07-01 or 20260701) nor an RFC 3339 time (2026-07-01T10:00:00Z)", v)
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// counts turns a map into rows, largest first, then by key.
func counts(m map[string]int64) []Count {
	out := make([]Count, 0, len(m))
	for k, n := range m {
		out = append(out, Count{k, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].N != out[j].N {
			return out[i].N > out[j].N
		}
		return out[i].Key < out[j].Key
	})
	return out
}

// joinCounts writes rows as "a 3, b 1".
func joinCounts(cs []Count) string {
	if len(cs) == 0 {
		return "-"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s %d", c.Key, c.N)
	}
	return strings.Join(parts, ", ")
}
