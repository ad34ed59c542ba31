package all

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/events"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/schemas"
)

// defMatches reports whether a narrower schema a move declares (Move.Schema)
// accepts only what its definition type allows: a label or id narrowed to
// an enum of strings, a count to a bounded integer, a flag to a constant; a
// ladder's buckets only by reference to its definition, never as a copied
// enum.
func defMatches(m events.Attr, raw json.RawMessage) error {
	var p struct {
		Ref   string            `json:"$ref"`
		Type  string            `json:"type"`
		Const any               `json:"const"`
		Enum  []any             `json:"enum"`
		AnyOf []json.RawMessage `json:"anyOf"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return err
	}
	for _, alt := range p.AnyOf {
		if err := defMatches(m, alt); err != nil {
			return err
		}
	}
	if len(p.AnyOf) > 0 {
		return nil
	}
	ref := strings.TrimPrefix(p.Ref, "../defs.schema.json#/$defs/")
	values := p.Enum
	if p.Const != nil {
		values = append(values, p.Const)
	}
	all := func(kind string) bool {
		for _, v := range values {
			if fmt.Sprintf("%T", v) != kind {
				return false
			}
		}
		return len(values) > 0
	}
	ok := false
	switch m.Def {
	case events.DefLabel, events.DefID:
		ok = ref == events.DefLabel || ref == events.DefID || all("string") || p.Type == "string"
	case events.DefDigest:
		ok = ref == events.DefDigest || all("string")
	case events.DefCount:
		ok = ref == events.DefCount || p.Type == "integer" || all("float64")
	case events.DefBool:
		ok = p.Type == "boolean" || all("bool")
	case events.DefConst, events.DefNever:
		want := events.ValueJSON(*m.Value)
		if m.Value.Kind == receipt.Int {
			want = float64(m.Value.Int)
		}
		ok = (ref == events.DefNever && want == false) || (m.Value.Kind == receipt.String && (ref == events.DefLabel || ref == events.DefID))
		for _, v := range values {
			ok = ok || v == want
		}
	case "":
		return nil // SetsProp: the schema is the declaration
	default: // a ladder's buckets
		if len(values) > 0 {
			return fmt.Errorf("inline enum %v where the ladder definition %s is meant", values, m.Def)
		}
		ok = ref == m.Def
	}
	if !ok {
		return fmt.Errorf("schema says %s, the move writes %s", strings.Join(strings.Fields(string(raw)), " "), m.Def)
	}
	return nil
}

// allMoves lists every move of every scenario table and declaration that
// writes an event attribute, named for messages.
func allMoves() map[string]events.Attr {
	out := map[string]events.Attr{}
	for name, plans := range scenario.ScenarioPlans() {
		for typ, p := range plans {
			for _, m := range scenario.TableAttrs(plans, p) {
				out[fmt.Sprintf("%s: %s: %s", name, typ, m.Key)] = m
			}
		}
	}
	events.Declared(func(ev string, m events.Attr) {
		out[fmt.Sprintf("DeclareEvent %s: %s", ev, m.Key)] = m
	})
	return out
}

// TestMoveSchemasNarrowDefs checks every narrower schema a move declares
// against the move's definition type: Schema may narrow what a move writes,
// never widen or contradict it.
func TestMoveSchemasNarrowDefs(t *testing.T) {
	var bad []string
	for where, m := range allMoves() {
		if m.NarrowSchema() == nil {
			continue
		}
		raw, _ := json.Marshal(m.NarrowSchema())
		if err := defMatches(m, raw); err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", where, err))
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// TestEventSchemasUpToDate fails when a checked-in event schema is not what
// go generate ./converters writes from the declarations.
func TestEventSchemasUpToDate(t *testing.T) {
	gen, err := scenario.EventSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(gen)) {
		got, err := schemas.FS.ReadFile("events/" + name + ".schema.json")
		if err != nil || string(got) != string(gen[name]) {
			t.Errorf("schemas/events/%s.schema.json is stale: run go generate ./converters", name)
		}
	}
}

// TestEveryEventSchemaGenerated fails when an event schema exists that no
// declaration generates (a hand-written schema), unless NotGenerated says
// why, and when every converter's events have no schema.
func TestEveryEventSchemaGenerated(t *testing.T) {
	gen, err := scenario.EventSchemas()
	if err != nil {
		t.Fatal(err)
	}
	files, err := fs.Glob(schemas.FS, "events/*.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(strings.TrimPrefix(f, "events/"), ".schema.json")
		if _, ok := gen[name]; !ok && events.NotGenerated[name] == "" {
			t.Errorf("schemas/%s is written by hand: declare its keys (Rec moves, Sets, DeclareEvent)", f)
		}
	}
	for _, c := range converters.All() {
		for _, ev := range c.Events {
			if _, ok := gen[ev]; !ok {
				t.Errorf("converter %s writes %s, whose schema nothing generates", c.Name, ev)
			}
		}
	}
}

// TestDefsSchemaUpToDate fails when schemas/defs.schema.json is not what
// go generate ./converters writes from the value types and ladders.
func TestDefsSchemaUpToDate(t *testing.T) {
	got, err := schemas.FS.ReadFile("defs.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(events.DefsSchema()) {
		t.Error("schemas/defs.schema.json is stale: run go generate ./converters")
	}
}
