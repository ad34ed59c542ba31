package converters

import (
	"fmt"
	"sort"

	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
)

// Scenario is a converter for the per-scenario event logs of the reference
// suite: one JSON object per line with "type" and "time". Most of it is a
// table: for each record type, the event it becomes and the moves that fill
// it. session.start and session.end are understood by every scenario.
type Scenario struct {
	Name, Doc, SpanName string
	Records             map[string]Rec
	// Extra lists event names that Then hooks emit besides the table's.
	Extra []string
	// End runs after the last record: final invariants and span attributes.
	End func(s *Session) error
	// Hints: see Converter.Hints.
	Hints []string
}

// Rec maps one record type.
type Rec struct {
	Event string // event written for the record; "" to only feed state
	Moves []Move
	// Then runs after the moves: stateful attributes and invariants.
	Then func(s *Session, r Record, a *receipt.Attrs) error
}

// Session is the per-file state every scenario shares.
type Session struct {
	Hash                    receipt.Hasher
	ID, Conversation, Agent string
	Span                    receipt.Attrs // root span attributes
	counts                  map[string]int64
	sets                    map[string]map[string]bool
	notes                   map[string]string
	out                     *Output
}

// Label returns v when it has the shape of a label (leak.Label: an enum-like
// word, not free text, a path or a random-looking token) and its digest
// otherwise (see Label).
func (s *Session) Label(v string) string {
	if leak.Label.Admit(v) {
		return v
	}
	return s.Hash.Text(v)
}

// Digest hashes a value: text as text, anything else as canonical JSON.
func (s *Session) Digest(v gjson.Result) (string, error) {
	if v.Type == gjson.String {
		return s.Hash.Text(v.Str), nil
	}
	return s.Hash.JSON([]byte(v.Raw))
}

// Add adds n to a named counter; Count reads it.
func (s *Session) Add(name string, n int64) { s.counts[name] += n }

// Count returns a named counter.
func (s *Session) Count(name string) int64 { return s.counts[name] }

// Mark adds v to a named set; Has tests membership; Len counts it.
func (s *Session) Mark(set, v string) {
	if s.sets[set] == nil {
		s.sets[set] = map[string]bool{}
	}
	s.sets[set][v] = true
}

// Has reports whether v was marked in set.
func (s *Session) Has(set, v string) bool { return s.sets[set][v] }

// Len returns the size of a named set.
func (s *Session) Len(set string) int { return len(s.sets[set]) }

// Note remembers one string per key for later records; Recall reads it back
// ("" when nothing was noted). A note may hold raw input (a result list kept
// for a later record): it stays in memory and must never be put in an error.
func (s *Session) Note(key, v string) { s.notes[key] = v }

// Recall returns the string noted under key.
func (s *Session) Recall(key string) string { return s.notes[key] }

// Emit writes an extra event (declared in Scenario.Extra) from a hook.
func (s *Session) Emit(ev receipt.Event) { s.out.Emit(ev) }

// identify takes the session identity from the first record that carries
// it, for logs without a session.start record.
func (s *Session) identify(r Record) {
	if v := r.JSON.Get("session_id"); s.ID == "" && v.Type == gjson.String {
		s.ID = s.Label(v.Str)
	}
	if v := r.JSON.Get("conversation_id"); s.Conversation == "" && v.Type == gjson.String {
		s.Conversation = s.Label(v.Str)
	}
	if v := r.JSON.Get("agent"); s.Agent == "" && v.Type == gjson.String {
		s.Agent = s.Label(v.Str)
	}
}

// sessionStart is the shared mapping of session.start: identity for every
// event, and what the root span says about the run. Workspace and repository
// names are private, so only their digests are written.
var sessionStart = Rec{Moves: []Move{
	{Path: "session_id", Pass: true, apply: func(s *Session, v gjson.Result, _ *receipt.Attrs) error {
		s.ID = s.Label(v.String())
		return nil
	}},
	{Path: "conversation_id", Pass: true, apply: func(s *Session, v gjson.Result, _ *receipt.Attrs) error {
		s.Conversation = s.Label(v.String())
		return nil
	}},
	{Path: "agent", Pass: true, apply: func(s *Session, v gjson.Result, _ *receipt.Attrs) error {
		s.Agent = s.Label(v.String())
		return nil
	}},
	spanMove(Label("model", "gen_ai.request.model")),
	spanMove(Hash("workspace", "workspace.name_hash")),
	spanMove(Hash("repo", "code.repository.name_hash")),
}}

var sessionEnd = Rec{Moves: []Move{spanMove(Label("status", "session.status"))}}

// spanMove redirects a move's attribute to the root span.
func spanMove(m Move) Move {
	inner := m.apply
	m.apply = func(s *Session, v gjson.Result, _ *receipt.Attrs) error { return inner(s, v, &s.Span) }
	return m
}

// scenarios lists the registered scenario converters, in registration order.
var scenarios []string

// Scenarios returns the names of the registered scenario converters, sorted.
func Scenarios() []string {
	out := append([]string(nil), scenarios...)
	sort.Strings(out)
	return out
}

// registerScenario turns a scenario table into a registered Converter.
func registerScenario(sc Scenario) {
	scenarios = append(scenarios, sc.Name)
	recs := map[string]Rec{"session.start": sessionStart, "session.end": sessionEnd}
	for t, r := range sc.Records {
		recs[t] = r
	}
	pass := leak.Paths{"type": leak.Label, "time": leak.Time, "session_id": leak.Label, "conversation_id": leak.Label, "agent": leak.Label}
	events := map[string]bool{}
	var types []string
	for t, r := range recs {
		types = append(types, t)
		if r.Event != "" {
			events[r.Event] = true
		}
		for _, m := range r.Moves {
			if m.Pass && m.Path != "" {
				pass[m.Path] = leak.Label
				if m.Shape != leak.None {
					pass[m.Path] = m.Shape
				}
			}
		}
	}
	for _, e := range sc.Extra {
		events[e] = true
	}
	sort.Strings(types)
	register(Converter{
		Name: sc.Name, Doc: sc.Doc, SpanName: sc.SpanName,
		TypeField: "type", TimeField: "time", Types: types, Hints: sc.Hints,
		PassThrough: pass, Events: sortedKeys(events),
		New: func(env Env) State {
			return &scenarioState{sc: sc, recs: recs, s: &Session{Hash: env.Hash, counts: map[string]int64{}, sets: map[string]map[string]bool{}, notes: map[string]string{}}}
		},
	})
}

type scenarioState struct {
	sc   Scenario
	recs map[string]Rec
	s    *Session
}

func (st *scenarioState) Record(r Record, out *Output) error {
	rec := st.recs[r.Type]
	st.s.out = out
	st.s.identify(r)
	var attrs receipt.Attrs
	for _, m := range rec.Moves {
		var v gjson.Result
		if m.Path != "" {
			v = r.JSON.Get(m.Path)
			if !v.Exists() || v.Type == gjson.Null {
				if m.Required {
					return fmt.Errorf("%s: missing field %q", r.Type, m.Path)
				}
				continue
			}
		}
		if err := m.apply(st.s, v, &attrs); err != nil {
			return fmt.Errorf("%s: %w", r.Type, err)
		}
	}
	if rec.Then != nil {
		if err := rec.Then(st.s, r, &attrs); err != nil {
			return fmt.Errorf("%s: %w", r.Type, err)
		}
	}
	if rec.Event != "" {
		out.Emit(receipt.Event{Name: rec.Event, Time: r.Time, Line: r.Line, Attrs: attrs})
	}
	return nil
}

func (st *scenarioState) End(out *Output) error {
	st.s.out = out
	if st.sc.End != nil {
		if err := st.sc.End(st.s); err != nil {
			return err
		}
	}
	var span receipt.Attrs
	if st.s.ID != "" {
		span.Set("session.id", receipt.S(st.s.ID))
	}
	if st.s.Conversation != "" {
		span.Set("gen_ai.conversation.id", receipt.S(st.s.Conversation))
	}
	if st.s.Agent != "" {
		span.Set("gen_ai.agent.name", receipt.S(st.s.Agent))
	}
	span.Set("gen_ai.operation.name", receipt.S("invoke_agent"))
	for _, a := range st.s.Span {
		span.Set(a.Key, a.Value)
	}
	out.Span = span
	out.TraceKey = st.s.ID
	return nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
