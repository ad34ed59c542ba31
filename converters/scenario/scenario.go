package scenario

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// Scenario is a converter for the per-scenario event logs of the reference
// suite: one JSON object per line with "type" and "time". Most of it is a
// table: for each record type, the event it becomes and the moves that fill
// it, invariants included (see invariants.go). session.start and
// session.end are understood by every scenario.
type Scenario struct {
	Name, Doc, SpanName string
	Records             map[string]Rec
	// Extra lists event names that hooks build and emit besides the
	// table's and its records' Emits.
	Extra []string
	// NewState makes the typed per-file state the hooks keep (read it with
	// StateOf); nil when the table says everything.
	NewState func() any
	// End runs after the last record: final invariants and span attributes.
	End func(s *Session) error
	// Hints: see Converter.Hints.
	Hints []string
	// Labels: the values of its label fields the scenario knows (see
	// Converter.Labels); any other is written as its digest.
	Labels []string
}

// Rec maps one record type.
type Rec struct {
	Event string // event written for the record; "" to only feed state
	// Title is the event's title in its schema, said by one table (or
	// DeclareEvent) of all that write the event.
	Title string
	// Emits lists the events the hook emits with the record's attributes
	// (its moves' keys are theirs too, see events/eventschema.go).
	Emits []string
	Moves []Move
	// Writes declares the keys the hook writes (Sets, SetsProp; Req for
	// one it always writes): the event schemas are generated from the
	// moves and these.
	Writes []events.Attr
	// Hook runs after the moves, on the values they declared: stateful
	// attributes and the rules no invariant kind says. It may add
	// attributes, never change one a move wrote.
	Hook func(s *Session, v *Values, a *receipt.Attrs) error
	// Then runs after Hook, on the same values, and may rewrite what the
	// moves wrote: context_input's identity split re-derives the role,
	// policy and status a record declares. New tables use Hook.
	Then func(s *Session, v *Values, a *receipt.Attrs) error
}

// Session is the per-file state every scenario shares.
type Session struct {
	Hash                    receipt.Hasher
	ID, Conversation, Agent string
	Span                    receipt.Attrs // root span attributes
	notes                   map[string]string
	Out                     *converters.Output
	State                   any     // Scenario.NewState's value
	tallies                 tallies // what the invariants keep
}

// Label returns v when it is a label the program knows (leak.Label: an
// enum-like word of its vocabulary, never free text, a path or a
// random-looking token) and its digest otherwise (see Label).
func (s *Session) Label(v view.Text) string { return s.Pass(leak.Label, v) }

// Pass returns v when the shape admits it and its digest otherwise.
func (s *Session) Pass(shape leak.Shape, v view.Text) string {
	if l, ok := v.Clear(shape, false); ok { // a model name the program does not know is a digest
		return l
	}
	return v.Digest(s.Hash)
}

// identity is a session or conversation id (leak.IDOrUUID), or an agent (a
// label), as written: in clear when its kind admits it, anything else as
// its digest. A number there (a card or phone number as session_id) is no
// declared count, so it is never copied: it is digested as a string id
// that is not admitted would be.
func (s *Session) identity(shape leak.Shape, v view.Value) (string, error) {
	if v.IsString() {
		return s.Pass(shape, v.Str()), nil
	}
	return s.Digest(v)
}

// Digest hashes a value: text as text, anything else as canonical JSON.
func (s *Session) Digest(v view.Value) (string, error) {
	if v.IsString() {
		return v.Str().Digest(s.Hash), nil
	}
	return s.Hash.JSON([]byte(v.Raw().Own()))
}

// Note remembers one string per key for later records; Recall reads it back
// ("" when nothing was noted). A note may hold raw input (a result list kept
// for a later record): it stays in memory and must never be put in an error.
// The note is a copy: v is borrowed from the line.
func (s *Session) Note(key string, v view.Text) { s.notes[key] = v.Own() }

// Recall returns the string noted under key.
func (s *Session) Recall(key string) string { return s.notes[key] }

// Emit writes an extra event (declared in Scenario.Extra) from a hook.
func (s *Session) Emit(ev receipt.Event) { s.Out.Emit(ev) }

// identify takes the session identity from the first record that carries
// it, for logs without a session.start record.
func (s *Session) identify(r converters.Record) {
	if v := r.Get("session_id"); s.ID == "" && v.Type() == view.String {
		s.ID = s.Pass(leak.IDOrUUID, v.Str())
	}
	if v := r.Get("conversation_id"); s.Conversation == "" && v.Type() == view.String {
		s.Conversation = s.Pass(leak.IDOrUUID, v.Str())
	}
	if v := r.Get("agent"); s.Agent == "" && v.Type() == view.String {
		s.Agent = s.Label(v.Str())
	}
}

// SessionStart is the shared mapping of session.start: identity for every
// event, and what the root span says about the run. Workspace and repository
// names are private, so only their digests are written.
var SessionStart = Rec{Moves: []Move{
	{Path: "session_id", Pass: true, Shape: leak.IDOrUUID, Apply: func(s *Session, v view.Value, _ *receipt.Attrs) (err error) {
		s.ID, err = s.identity(leak.IDOrUUID, v)
		return err
	}},
	{Path: "conversation_id", Pass: true, Shape: leak.IDOrUUID, Apply: func(s *Session, v view.Value, _ *receipt.Attrs) (err error) {
		s.Conversation, err = s.identity(leak.IDOrUUID, v)
		return err
	}},
	{Path: "agent", Pass: true, Apply: func(s *Session, v view.Value, _ *receipt.Attrs) (err error) {
		s.Agent, err = s.identity(leak.Label, v)
		return err
	}},
	SpanMove(Model("model", "gen_ai.request.model")),
	SpanMove(Hash("workspace", "workspace.name_hash")),
	SpanMove(Hash("repo", "code.repository.name_hash")),
}}

var sessionEnd = Rec{Moves: []Move{SpanMove(Label("status", "session.status"))}}

// SpanMove redirects a move's attribute to the root span.
func SpanMove(m Move) Move {
	m.spanKey, m.Key = m.Key, "" // on the root span, not the event
	inner := m.Apply
	m.Apply = func(s *Session, v view.Value, _ *receipt.Attrs) error { return inner(s, v, &s.Span) }
	return m
}

// A scenario table is built, and compiled, the first time a run needs it:
// a run converts with one converter of about thirty, and building every
// table at start was a tenth of a one-line run. Each table's file defines
// it (Define: a name and the function that builds it); what the registry
// must know of every converter from the start (its record types and hints,
// for detection; its pass-through fields; its events) is the index
// generated from the tables (Register, in converters/scenarios'
// index_gen.go: make generate; TestScenarioIndex holds it to the tables).
var (
	builders = map[string]func() Scenario{}
	built    = map[string]func() Scenario{}
	compiled = map[string]func() map[string]*RecPlan{}
)

// Define names the function that builds scenario table name.
func Define(name string, build func() Scenario) {
	if builders[name] != nil {
		panic("converters: scenario " + name + " defined twice")
	}
	builders[name] = build
	built[name] = sync.OnceValue(func() Scenario {
		sc := build()
		if sc.Name != name {
			panic(fmt.Sprintf("converters: scenario %q builds a table named %q", name, sc.Name))
		}
		return sc
	})
	compiled[name] = sync.OnceValue(func() map[string]*RecPlan { return Compile(name, records(built[name]())) })
}

// Def is scenario table name, built on first use; false when no table of
// that name is defined.
func Def(name string) (Scenario, bool) {
	if f := built[name]; f != nil {
		return f(), true
	}
	return Scenario{}, false
}

// ScenarioPlan is the compiled table of scenario converter name (nil when
// there is none).
func ScenarioPlan(name string) map[string]*RecPlan {
	if f := compiled[name]; f != nil {
		return f()
	}
	return nil
}

// ScenarioPlans compiles every scenario table, by converter name: for the
// event schemas and the conformance tests.
var ScenarioPlans = sync.OnceValue(func() map[string]map[string]*RecPlan {
	all := make(map[string]map[string]*RecPlan, len(compiled))
	for name, f := range compiled {
		all[name] = f()
	}
	return all
})

// RecordInfo describes one record type of a scenario table: the event it
// becomes ("" when it only feeds state) and its invariants, as generated
// from the table.
type RecordInfo struct {
	Type, Event string
	Invariants  []string
}

// Scenarios returns the names of the defined scenario tables, sorted.
func Scenarios() []string { return slices.Sorted(maps.Keys(builders)) }

// Table returns a scenario converter's record types, sorted, with their
// events and invariants (what `convert list -v` says of it); false for
// converters that are not scenarios.
func Table(name string) ([]RecordInfo, bool) {
	plans := ScenarioPlan(name)
	if plans == nil {
		return nil, false
	}
	return describe(plans), true
}

// RecPlan is a record type's compiled table entry.
type RecPlan struct {
	Rec
	Fields  []string   // every field the moves declare, each once
	tallies []tallyKey // what invariants of later records keep of this one
}

func (p *RecPlan) declare(paths ...string) {
	for _, f := range paths {
		if f != "" && !slices.Contains(p.Fields, f) {
			p.Fields = append(p.Fields, f)
		}
	}
}

// Compile checks a table's invariants (a record type they name must be in
// the table: a typo panics, not silently finds nothing; the table compiles
// on first use, and TestScenarioTablesCompile compiles every table) and
// works out what each record type keeps for them.
func Compile(name string, recs map[string]Rec) map[string]*RecPlan {
	plans := map[string]*RecPlan{}
	for t, r := range recs {
		r.Moves = slices.Clone(r.Moves)
		plans[t] = &RecPlan{Rec: r}
	}
	for t, p := range plans {
		for i, m := range p.Moves {
			p.declare(m.reading()...)
			if m.Inv == nil {
				continue
			}
			inv := *m.Inv
			inv.Rec = t
			if inv.Kind == InvOnce {
				inv.Of = t
			}
			p.Moves[i].Inv = &inv
			k, ok := inv.tally()
			if !ok {
				continue
			}
			of, ok := plans[inv.Of]
			if !ok {
				panic(fmt.Sprintf("converters: %s: %s: invariant %q names record type %q, which the table does not map", name, t, inv.String(), inv.Of))
			}
			of.declare(k.fields()...)
			if !slices.Contains(of.tallies, k) {
				of.tallies = append(of.tallies, k)
			}
		}
	}
	return plans
}

func describe(plans map[string]*RecPlan) []RecordInfo {
	var out []RecordInfo
	for t, p := range plans {
		ri := RecordInfo{Type: t, Event: p.Event}
		for _, m := range p.Moves {
			switch {
			case m.Inv != nil:
				ri.Invariants = append(ri.Invariants, m.Inv.String())
			case m.rule != "":
				ri.Invariants = append(ri.Invariants, "check: "+m.rule)
			}
		}
		out = append(out, ri)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Type < out[j].Type })
	return out
}

// Meta is what the registry knows of a scenario converter from the start:
// its index entry (index_gen.go), derived from its table by MetaOf.
type Meta struct {
	Name, Doc, SpanName string
	Types, Hints        []string // sorted record types; hint fields
	Pass                leak.Paths
	Events              []string // sorted
	Labels              []string // the label values the table knows (Scenario.Labels)
}

// records are a table's record types with the two every scenario maps.
func records(sc Scenario) map[string]Rec {
	recs := map[string]Rec{"session.start": SessionStart, "session.end": sessionEnd}
	for t, r := range sc.Records {
		recs[t] = r
	}
	return recs
}

// MetaOf derives a table's index entry.
func MetaOf(sc Scenario) Meta {
	recs := records(sc)
	pass := leak.Paths{"type": leak.Label, "time": leak.Time, "session_id": leak.IDOrUUID, "conversation_id": leak.IDOrUUID, "agent": leak.Label}
	events := map[string]bool{}
	var types []string
	for t, r := range recs {
		types = append(types, t)
		if r.Event != "" {
			events[r.Event] = true
		}
		for _, e := range r.Emits {
			events[e] = true
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
	return Meta{Name: sc.Name, Doc: sc.Doc, SpanName: sc.SpanName, Types: types, Hints: sc.Hints, Labels: sc.Labels,
		Pass: pass, Events: slices.Sorted(maps.Keys(events))}
}

// Register registers the scenario converter m describes; its table, which
// Define names, is built when the converter first converts.
func Register(m Meta) {
	name := m.Name
	converters.RegisterBuiltin(converters.Converter{
		Name: name, Doc: m.Doc, SpanName: m.SpanName,
		TypeField: "type", TimeField: "time", Types: m.Types, Hints: m.Hints,
		PassThrough: m.Pass, Events: m.Events, Labels: m.Labels,
		New: func(env converters.Env) converters.State {
			sc, ok := Def(name)
			if !ok {
				panic("converters: scenario " + name + " is in the index but defines no table (make generate)")
			}
			return NewScenarioState(sc, ScenarioPlan(name), env.Hash)
		},
	})
}

func NewScenarioState(sc Scenario, plans map[string]*RecPlan, h receipt.Hasher) *scenarioState {
	s := &Session{Hash: h, notes: map[string]string{}, tallies: tallies{}}
	if sc.NewState != nil {
		s.State = sc.NewState()
	}
	return &scenarioState{sc: sc, plans: plans, s: s}
}

type scenarioState struct {
	sc    Scenario
	plans map[string]*RecPlan
	s     *Session
	v     Values // reused for every record, emptied when its call returns (borrow:scratch)
}

func (st *scenarioState) Record(r converters.Record, out *converters.Output) error {
	p := st.plans[r.Type]
	st.s.Out = out
	st.s.identify(r)
	v := st.values(p, r)
	defer clear(v.fields) // the values are views of this line
	var attrs receipt.Attrs
	for _, m := range p.Moves {
		if err := st.move(m, v, &attrs); err != nil {
			return fmt.Errorf("%s: %w", r.Type, err)
		}
	}
	if p.Hook != nil {
		if err := st.hook(p, v, &attrs); err != nil {
			return fmt.Errorf("%s: %w", r.Type, err)
		}
	}
	if p.Then != nil {
		err := p.Then(st.s, v, &attrs)
		if v.undeclared != "" {
			err = fmt.Errorf("converter bug: Then reads field %q, which no move of the record declares (declare it with Use)", v.undeclared)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", r.Type, err)
		}
	}
	for _, k := range p.tallies {
		if err := st.s.tallies.record(k, v); err != nil {
			return fmt.Errorf("%s: %w", r.Type, err)
		}
	}
	if p.Event != "" {
		out.Emit(receipt.Event{Name: p.Event, Time: r.Time, Line: r.Line, Attrs: attrs})
	}
	return nil
}

// values reads the fields the record type declares, each once.
func (st *scenarioState) values(p *RecPlan, r converters.Record) *Values {
	v := &st.v
	*v = Values{Type: r.Type, Line: r.Line, Time: r.Time, NS: r.NS, hash: st.s.Hash, fields: v.fields}
	clear(v.fields)
	if v.fields == nil {
		v.fields = map[string]view.Value{}
	}
	for _, f := range p.Fields {
		v.fields[f] = r.Get(f)
	}
	return v
}

// move runs one move: a check or an invariant on the values, or a mapping of
// its field (skipped when absent unless required).
func (st *scenarioState) move(m Move, v *Values, a *receipt.Attrs) error {
	switch {
	case m.check != nil:
		return m.check(st.s, v, a)
	case m.Inv != nil:
		return m.Inv.check(st.s, v, a)
	case m.Apply == nil:
		return nil // Use: a declaration only
	}
	var f view.Value
	if m.Path != "" {
		f = v.fields[m.Path]
		if !f.Exists() || f.Type() == view.Null {
			if m.Required {
				return fmt.Errorf("missing field %q", m.Path)
			}
			return nil
		}
	}
	return m.Apply(st.s, f, a)
}

// hook runs a record's Hook and refuses what a hook must not do: read a
// field no move declares, or change an attribute a move wrote.
func (st *scenarioState) hook(p *RecPlan, v *Values, a *receipt.Attrs) error {
	moved := slices.Clone(*a)
	err := p.Hook(st.s, v, a)
	if v.undeclared != "" {
		return fmt.Errorf("converter bug: the hook reads field %q, which no move of the record declares (declare it with Use)", v.undeclared)
	}
	if err != nil {
		return err
	}
	for i, at := range moved {
		if !sameValue((*a)[i].Value, at.Value) {
			return fmt.Errorf("converter bug: the hook changes attribute %q, which a move wrote", at.Key)
		}
	}
	return nil
}

func sameValue(x, y receipt.Value) bool {
	return x.Kind == y.Kind && x.Str == y.Str && x.Bool == y.Bool && x.Int == y.Int && slices.Equal(x.List(), y.List())
}

func (st *scenarioState) End(out *converters.Output) error {
	st.s.Out = out
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
