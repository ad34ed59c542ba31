package report

import (
	"sort"
	"strings"
)

// agg accumulates the sections of one set of sessions.
type agg struct {
	sessions      int
	agents        map[string]int64
	versions      map[string]int64
	first, last   string
	events        int64
	tokens        map[string]*ModelTokens
	tokenSessions map[string]int
	inputs        map[[2]string]*inputAgg
	gaps          map[string]*gapAgg
	skillListings int64
	listingSizes  map[string]int64
	skills        map[[2]string]int64
	mcp           MCP
	mcpCalls      map[string]int64
	servers       map[string]*serverAgg
	memory        Memory
	memOps        map[[2]string]int64
	comp          Compaction
	compTriggers  map[string]int64
	compBefore    map[string]int64
	compAfter     map[string]int64
	sub           Subagents
	subTypes      map[string]int64
	subStatus     map[string]int64
	subBoundary   map[string]int64
	subSizes      map[string]int64
	subTokens     map[string]int64
	health        Health
	skipReasons   map[string]int64
	unknownTypes  map[string]int64
	hashModes     map[string]int64
	summaryGaps   map[string]int64
}

type inputAgg struct {
	loads    int64
	sessions int
	versions map[string]bool
}

type gapAgg struct {
	events   int64
	sessions int
}

type serverAgg struct {
	sessions int
	offered  int64
	defs     int64
	calls    map[string]int64
}

func newAgg() *agg {
	return &agg{agents: map[string]int64{}, versions: map[string]int64{}, tokens: map[string]*ModelTokens{}, tokenSessions: map[string]int{},
		inputs: map[[2]string]*inputAgg{}, gaps: map[string]*gapAgg{}, listingSizes: map[string]int64{}, skills: map[[2]string]int64{},
		mcpCalls: map[string]int64{}, servers: map[string]*serverAgg{}, memOps: map[[2]string]int64{},
		compTriggers: map[string]int64{}, compBefore: map[string]int64{}, compAfter: map[string]int64{},
		subTypes: map[string]int64{}, subStatus: map[string]int64{}, subBoundary: map[string]int64{}, subSizes: map[string]int64{}, subTokens: map[string]int64{},
		skipReasons: map[string]int64{}, unknownTypes: map[string]int64{}, hashModes: map[string]int64{}, summaryGaps: map[string]int64{}}
}

// addTokens counts the tokens a session spent in this group's period
// without the session itself (it started in another period); it counts
// among the sessions of each model it used there.
func (a *agg) addTokens(u map[string]*ModelTokens) {
	for m, t := range u {
		a.addModel(m, t)
		a.tokenSessions[m]++
	}
}

func (a *agg) addModel(m string, t *ModelTokens) {
	acc := a.tokens[m]
	if acc == nil {
		acc = &ModelTokens{Model: m}
		a.tokens[m] = acc
	}
	acc.Input += t.Input
	acc.Output += t.Output
	acc.CacheRead += t.CacheRead
	acc.CacheWrite += t.CacheWrite
	acc.CacheWrite1h += t.CacheWrite1h
	acc.Reasoning += t.Reasoning
	addTokens(&acc.long, t.long, 1)
}

// indexServer names the server of an index over every server.
const indexServer = "(index of every server)"

// add counts one session with its usage u (its share of the group's
// period, for --by day, week or month); model, when set, keeps only that
// model's tokens (a --by model group).
func (a *agg) add(s *Session, model string, u map[string]*ModelTokens) {
	a.addSessionFacts(s)
	a.addSessionTokens(u, model)
	seen := &sessionSeen{inputs: map[[2]string]bool{}, gaps: map[string]bool{}, servers: map[string]bool{}, offered: map[string]int64{}}
	for i := range s.Events {
		a.addEvent(&s.Events[i], seen)
	}
	a.endSession(seen)
	a.summary(s.Summary)
}

// sessionSeen is what one session's events have shown so far, for the
// figures counted once per session.
type sessionSeen struct {
	inputs      map[[2]string]bool
	gaps        map[string]bool
	servers     map[string]bool
	offered     map[string]int64 // the largest tool index of each server
	compactions int64
}

// addSessionFacts counts the session, its agent and versions, and widens
// the time span to it.
func (a *agg) addSessionFacts(s *Session) {
	a.sessions++
	a.agents[s.Agent]++
	for _, v := range s.Versions {
		a.versions[s.Agent+" "+v]++
	}
	if !s.Start.IsZero() {
		if f := stamp(s.Start); a.first == "" || f < a.first {
			a.first = f
		}
		if l := stamp(s.End); l > a.last {
			a.last = l
		}
	}
	a.events += int64(len(s.Events))
}

// addSessionTokens adds a session's usage u per model (only model's, when
// set), the session counting among each model's sessions.
func (a *agg) addSessionTokens(u map[string]*ModelTokens, model string) {
	for m, t := range u {
		if model != "" && m != model {
			continue
		}
		a.addModel(m, t)
		a.tokenSessions[m]++
	}
}

// addEvent counts one receipt event of the session.
func (a *agg) addEvent(e *Event, seen *sessionSeen) {
	switch e.Name {
	case "context.input.loaded":
		a.addInput(e, seen)
	case "context.audit_gap.recorded":
		a.addGap(e, seen)
	case "context.skill.listing.loaded":
		a.skillListings++
		a.listingSizes[or(e.Str("context.skill.listing.size_bucket"), "unknown")]++
	case "context.skill.invoked":
		skill := or(e.Str("context.skill.name"), e.Str("context.skill.id"), e.Str("context.skill.id_hash"), "(unnamed)")
		a.skills[[2]string{skill, or(e.Str("context.input.activation"), "unknown")}]++
	case "mcp.tool_index.loaded":
		a.mcp.IndexLoads++
		srv := or(e.name("mcp.server"), indexServer)
		a.touchServer(srv, seen.servers)
		if n := e.Int("mcp.tool.count"); n > seen.offered[srv] {
			seen.offered[srv] = n
		}
		a.mcp.DefinitionsUpfront += e.Int("mcp.tool.full_definitions.loaded_at_startup")
	case "mcp.tool_definition.loaded":
		srv := or(e.name("mcp.server"), "(unnamed)")
		a.touchServer(srv, seen.servers).defs++
		if e.Bool("mcp.tool.definition_loaded_on_demand") {
			a.mcp.DefinitionsOnDemand++
		} else {
			a.mcp.DefinitionsUpfront++
		}
	case "mcp.tool_search.performed":
		a.mcp.Searches++
	case "mcp.tool_call.completed":
		st := or(e.Str("mcp.tool_call.status"), "unknown")
		a.mcpCalls[st]++
		a.touchServer(or(e.name("mcp.server"), "(unnamed)"), seen.servers).calls[st]++
	case "context.memory_file.accessed":
		a.addMemoryAccess(e)
	case "memory.search.returned":
		a.memory.Searches++
	case "context.compaction.started":
		seen.compactions++
		a.compTriggers[or(e.Str("context.compaction.trigger"), e.Str("context.compaction.reason"), "unknown")]++
		if b := e.Str("context.compaction.token_count.before_bucket"); b != "" {
			a.compBefore[b]++
		}
	case "context.compaction.summary_loaded", "context.compaction.completed":
		if b := e.Str("context.compaction.token_count.after_bucket"); b != "" {
			a.compAfter[b]++
		}
	case "subagent.spawned":
		a.sub.Spawned++
		a.subTypes[or(e.Str("subagent.type"), "(untyped)")]++
	case "subagent.result.returned", "subagent.summary.returned":
		a.addSubagentResult(e)
	}
}

// addInput counts a context input's load, its session and its delivered
// version.
func (a *agg) addInput(e *Event, seen *sessionSeen) {
	k := [2]string{e.Str("context.input.kind"), inputSource(e)}
	in := a.inputs[k]
	if in == nil {
		in = &inputAgg{versions: map[string]bool{}}
		a.inputs[k] = in
	}
	in.loads++
	if !seen.inputs[k] {
		seen.inputs[k] = true
		in.sessions++
	}
	if d := e.Str("context.input.delivered.hash"); d != "" {
		in.versions[d] = true
	}
}

// addGap counts an audit gap and its session.
func (a *agg) addGap(e *Event, seen *sessionSeen) {
	g := e.Str("context.audit_gap")
	ga := a.gaps[g]
	if ga == nil {
		ga = &gapAgg{}
		a.gaps[g] = ga
	}
	ga.events++
	if !seen.gaps[g] {
		seen.gaps[g] = true
		ga.sessions++
	}
}

// addMemoryAccess counts a memory-file read or write by kind.
func (a *agg) addMemoryAccess(e *Event) {
	op := or(e.Str("context.memory_file.operation"), "unknown")
	switch op {
	case "read":
		a.memory.Reads++
	case "write", "edit":
		a.memory.Writes++
	}
	a.memOps[[2]string{or(e.Str("context.memory_file.kind"), "unknown"), op}]++
}

// addSubagentResult counts what a subagent returned: status, boundary,
// size and tokens.
func (a *agg) addSubagentResult(e *Event) {
	a.sub.Returned++
	a.subStatus[or(e.Str("subagent.result.status"), e.Str("subagent.summary.status"), "unknown")]++
	if b := e.Str("subagent.result.boundary"); b != "" {
		a.subBoundary[b]++
	}
	if b := or(e.Str("subagent.result.size_bucket"), e.Str("subagent.summary.size_bucket")); b != "" {
		a.subSizes[b]++
	}
	if b := e.Str("subagent.total_token_bucket"); b != "" {
		a.subTokens[b]++
	}
}

// endSession adds what is counted once the session's events are all seen:
// each server's largest tool index, and the session's compactions.
func (a *agg) endSession(seen *sessionSeen) {
	for srv, n := range seen.offered {
		a.mcp.ToolsOffered += n
		if sa := a.servers[srv]; n > sa.offered {
			sa.offered = n
		}
	}
	if seen.compactions > 0 {
		a.comp.Compactions += seen.compactions
		a.comp.Sessions++
		a.comp.MaxPerSession = max(a.comp.MaxPerSession, seen.compactions)
	}
}

func (a *agg) touchServer(srv string, seen map[string]bool) *serverAgg {
	sa := a.servers[srv]
	if sa == nil {
		sa = &serverAgg{calls: map[string]int64{}}
		a.servers[srv] = sa
	}
	if !seen[srv] {
		seen[srv] = true
		sa.sessions++
	}
	return sa
}

func (a *agg) summary(e *Event) {
	h := &a.health
	h.Inputs++
	h.Bytes += e.Int("convert.input.bytes")
	h.Lines += e.Int("convert.input.lines")
	h.Records += e.Int("convert.input.records")
	h.Skipped += e.Int("convert.input.lines.skipped")
	for k, v := range e.Attrs {
		if r, ok := strings.CutPrefix(k, "convert.input.skipped."); ok {
			a.skipReasons[r] += v.Int()
		}
	}
	// Unknown record types, by digest: listed apart by scenario converters,
	// inside record_types by native ones. A session counts once per digest.
	unknown := map[string]bool{}
	for _, d := range e.Attrs["convert.input.unknown_record_type_hashes"].Array() {
		unknown[d.Str] = true
	}
	for _, rt := range e.Attrs["convert.input.record_types"].Array() {
		if t, _, ok := strings.Cut(rt.Str, "="); ok && (strings.HasPrefix(t, "sha256:") || strings.HasPrefix(t, "hmac-sha256:")) {
			unknown[t] = true
		}
	}
	for d := range unknown {
		a.unknownTypes[d]++
	}
	if e.Str("convert.leak_check.status") == "passed" {
		h.LeakPassed++
	}
	h.RawStrings += e.Int("convert.leak_check.raw_strings")
	h.RawBytes += e.Int("convert.leak_check.raw_bytes")
	a.hashModes[or(e.Str("convert.hash.mode"), "unknown")]++
	for _, g := range e.Attrs["convert.audit_gaps"].Array() {
		a.summaryGaps[g.Str]++
	}
}

// inputSource names what a context input was: its conventional path in
// clear, else its path digest, else the MCP server it came from.
func inputSource(e *Event) string {
	return or(e.Str("context.input.source.path"), e.Str("context.input.source.path_hash"), e.name("mcp.server"), e.Str("context.input.source.id_hash"))
}

func or(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

func (a *agg) sections(prices *Prices) Sections {
	s := Sections{Sessions: a.sessions, Agents: counts(a.agents), AgentVersions: counts(a.versions), First: a.first, Last: a.last, Events: a.events,
		Tokens: []ModelTokens{}, ContextInputs: []InputRow{}, AuditGaps: []GapRow{}}
	for _, m := range sortedKeys(a.tokens) {
		t := *a.tokens[m]
		t.Sessions = a.tokenSessions[m]
		t.Total = t.Input + t.Output + t.CacheRead + t.CacheWrite
		t.CostUSD, _ = prices.cost(t)
		s.Tokens = append(s.Tokens, t)
	}
	for k, in := range a.inputs {
		s.ContextInputs = append(s.ContextInputs, InputRow{Kind: k[0], Source: k[1], Loads: in.loads, Sessions: in.sessions, Versions: len(in.versions)})
	}
	sort.Slice(s.ContextInputs, func(i, j int) bool {
		x, y := s.ContextInputs[i], s.ContextInputs[j]
		if x.Loads != y.Loads {
			return x.Loads > y.Loads
		}
		if x.Kind != y.Kind {
			return x.Kind < y.Kind
		}
		return x.Source < y.Source
	})
	for _, g := range sortedKeys(a.gaps) {
		s.AuditGaps = append(s.AuditGaps, GapRow{Gap: g, Events: a.gaps[g].events, Sessions: a.gaps[g].sessions})
	}
	s.Skills = Skills{Listings: a.skillListings, ListingSizes: counts(a.listingSizes), Invocations: []SkillRow{}}
	for k, n := range a.skills {
		s.Skills.Invocations = append(s.Skills.Invocations, SkillRow{Skill: k[0], Trigger: k[1], Count: n})
	}
	sort.Slice(s.Skills.Invocations, func(i, j int) bool {
		x, y := s.Skills.Invocations[i], s.Skills.Invocations[j]
		if x.Count != y.Count {
			return x.Count > y.Count
		}
		return x.Skill+"\x00"+x.Trigger < y.Skill+"\x00"+y.Trigger
	})
	s.MCP = a.mcp
	s.MCP.Calls = counts(a.mcpCalls)
	s.MCP.Servers = []ServerRow{}
	for _, k := range sortedKeys(a.servers) {
		sa := a.servers[k]
		s.MCP.Servers = append(s.MCP.Servers, ServerRow{Server: k, Sessions: sa.sessions, ToolsOffered: sa.offered, Definitions: sa.defs, Calls: counts(sa.calls)})
	}
	s.Memory = a.memory
	s.Memory.ByKind = []MemoryOp{}
	for k, n := range a.memOps {
		s.Memory.ByKind = append(s.Memory.ByKind, MemoryOp{Kind: k[0], Operation: k[1], Count: n})
	}
	sort.Slice(s.Memory.ByKind, func(i, j int) bool {
		x, y := s.Memory.ByKind[i], s.Memory.ByKind[j]
		return x.Kind+"\x00"+x.Operation < y.Kind+"\x00"+y.Operation
	})
	s.Compaction = a.comp
	s.Compaction.Triggers, s.Compaction.Before, s.Compaction.After = counts(a.compTriggers), counts(a.compBefore), counts(a.compAfter)
	s.Subagents = a.sub
	s.Subagents.Types, s.Subagents.Status, s.Subagents.Boundaries = counts(a.subTypes), counts(a.subStatus), counts(a.subBoundary)
	s.Subagents.ResultSizes, s.Subagents.TokenBuckets = counts(a.subSizes), counts(a.subTokens)
	s.Health = a.health
	s.Health.SkipReasons, s.Health.UnknownTypes, s.Health.HashModes, s.Health.Gaps = counts(a.skipReasons), counts(a.unknownTypes), counts(a.hashModes), counts(a.summaryGaps)
	return s
}
