package events

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/contextreceipts/convert/internal/receipt"
)

// The event schemas (schemas/events/<name>.schema.json) are generated from
// what the converters declare, by go generate ./converters; nothing in them
// is written by hand. An event's schema is the union of:
//
//   - the moves of every scenario record that writes the event (Rec.Event,
//     Rec.Emits): their keys and definition types, Req for required, a
//     narrower schema where the move says one (Move.Schema, Move.Doc);
//   - the record's Writes: the keys its hook writes (Sets, SetsConst,
//     SetsProp; Req for one it always writes);
//   - the declarations of DeclareEvent, next to the native readers and
//     builders that write the event, and next to the hooks that build an
//     event of their own.
//
// A key several writers declare differently accepts what any of them
// writes (merge). Each event has one title, said once (Rec.Title or
// EventDecl.Title; a table two scenarios share says it once for both).
// TestEventSchemasUpToDate fails when a checked-in schema is stale,
// TestEveryEventSchemaGenerated when one is not generated at all,
// TestDeclaredKeysWritten when a declared key is written by nothing, and
// TestSchemaDiff compares the schemas with an older tree.

// A Prop is the JSON Schema of one attribute's value.
type Prop map[string]any

// Ref is the schema of a definition of schemas/defs.schema.json.
func Ref(def string) Prop { return Prop{"$ref": "../defs.schema.json#/$defs/" + def} }

// Enum is the schema of a fixed set of values.
func Enum(values ...any) Prop { return Prop{"enum": values} }

// AnyOf is the schema of a value any of alts accepts.
func AnyOf(alts ...Prop) Prop { return Prop{"anyOf": alts} }

// Doc returns p with a description, for people reading the schema.
func (p Prop) Doc(description string) Prop {
	q := Prop{"description": description}
	for k, v := range p {
		q[k] = v
	}
	return q
}

// An Attr declares one attribute an event carries: its key and the JSON
// type of its value, the name of a definition in schemas/defs.schema.json
// (DefDigest, a ladder's LadderDef, ...), DefBool, or DefConst with Value;
// a narrower schema where one is given (Schema, Doc); and whether every
// writer writes it (Required). The event schemas are generated from the
// Attrs the tables' moves carry and those declared with Sets, SetsProp and
// SetsConst.
type Attr struct {
	Key, Def string
	Value    *receipt.Value // DefConst: the value written
	Required bool
	schema   Prop // narrower than Def (see Schema); nil: what Def says
}

// Schema narrows what an attribute holds: p replaces the schema its
// definition type would give (an enum of the labels it can write, a
// bounded integer). TestMoveSchemasNarrowDefs checks that p accepts
// nothing the definition rejects.
func (a Attr) Schema(p Prop) Attr { a.schema = p; return a }

// Doc describes the attribute, in its schema.
func (a Attr) Doc(description string) Attr { a.schema = a.Prop().Doc(description); return a }

// NarrowSchema is the schema Schema or Doc gave the attribute; nil when
// its definition type says it.
func (a Attr) NarrowSchema() Prop { return a.schema }

// Sets declares a key a record's hook (or a builder it calls) writes, and
// its definition type.
func Sets(key, def string) Attr { return Attr{Key: key, Def: def} }

// SetsProp declares a key a hook writes, with its schema.
func SetsProp(key string, p Prop) Attr { return Attr{Key: key, schema: p} }

// SetsConst declares a key always written with the value v: its schema is
// the constant (DefNever for false, a privacy flag).
func SetsConst(key string, v receipt.Value) Attr {
	def := DefConst
	if v.Kind == receipt.Bool && !v.Bool {
		def = DefNever
	}
	return Attr{Key: key, Def: def, Value: &v}
}

// ReqAttr marks an attribute as always written: required in the event's
// schema.
func ReqAttr(a Attr) Attr { a.Required = true; return a }

// Prop returns the schema of the attribute.
func (a Attr) Prop() Prop {
	if a.schema != nil {
		return a.schema
	}
	switch a.Def {
	case DefBool:
		return Prop{"type": "boolean"}
	case DefConst:
		return Prop{"const": ValueJSON(*a.Value)}
	}
	return Ref(a.Def)
}

func ValueJSON(v receipt.Value) any {
	switch v.Kind {
	case receipt.Bool:
		return v.Bool
	case receipt.Int:
		return v.Int
	}
	return v.Str
}

// An EventDecl declares, next to the code that writes an event outside the
// scenario tables, what that code writes: the keys (Sets, SetsProp; Req for
// a key always written), the event's title when no table gives it, and
// groups of keys of which one is required (a name in clear or its digest).
//
// Each declaration is one writer of the event, and a key is required only
// when every writer requires it, unless Adds: then the declaration adds
// keys to what a scenario record writes into the event (a hook's keys for
// one of the record's Emits) and requires nothing of other writers.
type EventDecl struct {
	Title, Description string
	Keys               []Attr
	OneOf              [][]string
	Adds               bool
	// Narrow replaces, in this event, the schema every writer gives a key
	// (what the hook that builds this event enforces, e.g. a constant).
	Narrow []Attr
}

// eventDecls holds the declarations of DeclareEvent, in declaration order.
var eventDecls = map[string][]EventDecl{}

// DeclareEvent adds a declaration of an event's schema; it returns true so
// it can stand at package level: var _ = DeclareEvent(...).
func DeclareEvent(name string, d EventDecl) bool {
	eventDecls[name] = append(eventDecls[name], d)
	return true
}

// eventSpec is an event schema as the declarations say it.
type eventSpec struct {
	titles      []string
	description string
	props       map[string][]Prop // each key's distinct schemas, in declaration order
	required    map[string]bool   // the keys every writer so far requires
	writers     int
	oneOf       [][]string
	narrow      map[string]Prop
}

// title adds a title; tables two scenarios share say theirs twice.
func (e *eventSpec) title(t string) {
	if t != "" && !slices.Contains(e.titles, t) {
		e.titles = append(e.titles, t)
	}
}

// write adds one writer's keys; each writer narrows the required keys to
// those it requires too.
func (e *eventSpec) write(keys []Attr, writer bool) {
	req := map[string]bool{}
	for _, m := range keys {
		p := m.Prop()
		if !slices.ContainsFunc(e.props[m.Key], func(q Prop) bool { return sameProp(p, q) }) {
			e.props[m.Key] = append(e.props[m.Key], p)
		}
		if m.Required {
			req[m.Key] = true
		}
	}
	if !writer {
		return
	}
	if e.writers == 0 {
		e.required = req
	}
	for k := range e.required {
		if !req[k] {
			delete(e.required, k)
		}
	}
	e.writers++
}

func sameProp(p, q Prop) bool {
	a, _ := json.Marshal(p)
	b, _ := json.Marshal(q)
	return bytes.Equal(a, b)
}

// Specs gathers every event's declarations: what the scenario tables
// write (Table), then the DeclareEvent calls (Render adds them).
type Specs struct{ m map[string]*eventSpec }

// NewSpecs returns an empty set of declarations.
func NewSpecs() *Specs { return &Specs{m: map[string]*eventSpec{}} }

func (s *Specs) spec(name string) *eventSpec {
	if s.m[name] == nil {
		s.m[name] = &eventSpec{props: map[string][]Prop{}, required: map[string]bool{}}
	}
	return s.m[name]
}

// Table adds one writer of event: a scenario record with its title and
// the attributes it writes there.
func (s *Specs) Table(event, title string, keys []Attr) {
	e := s.spec(event)
	e.title(title)
	e.write(keys, true)
}

// Render adds the DeclareEvent declarations, in event-name order, and
// renders every event schema, by event name; the error lists the events
// whose declarations are incomplete (the map holds the others).
func (s *Specs) Render() (map[string][]byte, error) {
	for _, ev := range slices.Sorted(maps.Keys(eventDecls)) {
		e := s.spec(ev)
		for _, d := range eventDecls[ev] {
			e.title(d.Title)
			if d.Description != "" {
				e.description = d.Description
			}
			e.write(d.Keys, !d.Adds)
			e.oneOf = append(e.oneOf, d.OneOf...)
			for _, m := range d.Narrow {
				if e.narrow == nil {
					e.narrow = map[string]Prop{}
				}
				e.narrow[m.Key] = m.Prop()
			}
		}
	}
	out := map[string][]byte{}
	var errs []string
	for name, e := range s.m {
		b, err := e.render(name)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		out[name] = b
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return out, fmt.Errorf("event schemas: %s", strings.Join(errs, "; "))
	}
	return out, nil
}

// Declared calls fn with every attribute DeclareEvent declares, by event.
func Declared(fn func(event string, a Attr)) {
	for ev, ds := range eventDecls {
		for _, d := range ds {
			for _, a := range d.Keys {
				fn(ev, a)
			}
		}
	}
}

func (e *eventSpec) render(name string) ([]byte, error) {
	if len(e.titles) != 1 {
		return nil, fmt.Errorf("%d titles (want one, said by Rec.Title or EventDecl.Title): %q", len(e.titles), e.titles)
	}
	props := map[string]Prop{}
	for k, ps := range e.props {
		props[k] = merge(ps)
	}
	for k, p := range e.narrow {
		props[k] = p
	}
	alt := map[string]bool{}
	var groups []Prop
	for _, g := range e.oneOf {
		var any []Prop
		for _, k := range g {
			if props[k] == nil {
				return nil, fmt.Errorf("one-of key %q is not declared", k)
			}
			alt[k] = true
			any = append(any, Prop{"required": []string{k}})
		}
		groups = append(groups, AnyOf(any...))
	}
	required := []string{}
	for k := range e.required {
		if !alt[k] {
			required = append(required, k)
		}
	}
	sort.Strings(required)
	doc := struct {
		Schema      string          `json:"$schema"`
		ID          string          `json:"$id"`
		Title       string          `json:"title"`
		Description string          `json:"description,omitempty"`
		Type        string          `json:"type"`
		Additional  bool            `json:"additionalProperties"`
		Required    []string        `json:"required"`
		Properties  map[string]Prop `json:"properties"`
		AllOf       []Prop          `json:"allOf,omitempty"`
	}{
		"https://json-schema.org/draft/2020-12/schema",
		"https://schemas.contextreceipts.dev/convert/v1/events/" + name + ".schema.json",
		e.titles[0], e.description, "object", false, required, props, groups,
	}
	return encodeJSON(doc), nil
}

// merge is the schema of a key several writers declare: any of their
// schemas, the fixed values of all of them in one enum, a description
// (the first) on the whole.
func merge(ps []Prop) Prop {
	if len(ps) == 1 {
		return ps[0]
	}
	var alts []Prop
	var values []any
	description := ""
	var add func(p Prop)
	add = func(p Prop) {
		q := Prop{}
		for k, v := range p {
			q[k] = v
		}
		if d, ok := q["description"].(string); ok {
			description = cmp.Or(description, d)
			delete(q, "description")
		}
		switch {
		case len(q) == 1 && q["anyOf"] != nil:
			for _, alt := range q["anyOf"].([]Prop) {
				add(alt)
			}
		case len(q) == 1 && q["const"] != nil:
			values = appendNew(values, q["const"])
		case len(q) == 1 && q["enum"] != nil:
			for _, v := range q["enum"].([]any) {
				values = appendNew(values, v)
			}
		default:
			if !slices.ContainsFunc(alts, func(a Prop) bool { return sameProp(a, q) }) {
				alts = append(alts, q)
			}
		}
	}
	for _, p := range ps {
		add(p)
	}
	if len(values) > 0 {
		alts = append(alts, Enum(values...))
	}
	out := alts[0]
	if len(alts) > 1 {
		out = AnyOf(alts...)
	}
	if description != "" {
		out = out.Doc(description)
	}
	return out
}

func appendNew(values []any, v any) []any {
	for _, w := range values {
		if w == v {
			return values
		}
	}
	return append(values, v)
}

// encodeJSON is the stable form of every generated schema: two-space
// indent, keys sorted, no HTML escaping, a final newline.
func encodeJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic(err) // static data
	}
	return b.Bytes()
}

// NotGenerated names the event schemas no converter declaration generates,
// and why: they are written by hand.
var NotGenerated = map[string]string{
	"convert.summary": "written by the pipeline (internal/pipeline/finish.go) after every converter, not by a converter",
}
