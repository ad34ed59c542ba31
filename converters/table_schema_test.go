package converters

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/schemas"
)

// eventSchema is the part of an event schema the tables are checked against.
type eventSchema struct {
	Required   []string                   `json:"required"`
	Properties map[string]json.RawMessage `json:"properties"`
}

func readEventSchema(t *testing.T, event string) eventSchema {
	t.Helper()
	b, err := schemas.FS.ReadFile("events/" + event + ".schema.json")
	if err != nil {
		t.Fatalf("event %s: %v", event, err)
	}
	var s eventSchema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("events/%s.schema.json: %v", event, err)
	}
	return s
}

// tableAttr is one attribute a table says a record's event carries.
type tableAttr struct {
	key, def string
	value    *receipt.Value
	req      bool
}

// tableAttrs lists the attributes the moves of a record write on its event,
// the keys they copy from the root span typed by the moves that wrote them.
func tableAttrs(plans map[string]*recPlan, p *recPlan) []tableAttr {
	onSpan := map[string]Move{}
	for _, q := range plans {
		for _, m := range q.Moves {
			if m.spanKey != "" {
				onSpan[m.spanKey] = m
			}
			if m.Key != "" {
				if _, ok := onSpan[m.Key]; !ok && len(m.fromSpan) == 0 {
					onSpan[m.Key] = m // Noting: noted under its own key
				}
			}
		}
	}
	var out []tableAttr
	for _, m := range p.Moves {
		if m.Key != "" {
			out = append(out, tableAttr{m.Key, m.Def, m.Value, m.Required})
		}
		for _, a := range m.also {
			out = append(out, tableAttr{a.Key, a.Def, a.Value, false})
		}
		for _, k := range m.fromSpan {
			src := onSpan[k]
			out = append(out, tableAttr{k, src.Def, src.Value, false})
		}
	}
	return out
}

// defMatches reports whether a schema property accepts what a move writes:
// the move's definition, or a narrower one (an enum of labels, a bounded
// integer, a constant flag); a ladder's buckets only by reference to its
// definition, never as a copied enum.
func defMatches(a tableAttr, raw json.RawMessage) error {
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
		if defMatches(a, alt) == nil {
			return nil
		}
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
	switch a.def {
	case DefLabel, DefID:
		ok = ref == DefLabel || ref == DefID || all("string")
	case DefDigest:
		ok = ref == DefDigest
	case DefCount:
		ok = ref == DefCount || p.Type == "integer"
	case DefBool:
		ok = p.Type == "boolean" || all("bool")
	case DefConst, DefNever:
		want := any(a.value.Str)
		if a.value.Kind == receipt.Bool {
			want = a.value.Bool
		}
		ok = (ref == DefNever && want == false) || (a.value.Kind == receipt.String && (ref == DefLabel || ref == DefID))
		for _, v := range values {
			ok = ok || v == want
		}
	case "":
		return fmt.Errorf("the move declares no type")
	default: // a ladder's buckets
		if len(values) > 0 {
			return fmt.Errorf("inline enum %v where the ladder definition %s is meant", values, a.def)
		}
		ok = ref == a.def
	}
	if !ok {
		return fmt.Errorf("schema says %s, the move writes %s", strings.Join(strings.Fields(string(raw)), " "), a.def)
	}
	return nil
}

// TestTablesMatchSchemas checks every attribute every scenario table writes
// against the event's schema: the key is a property, of the move's type.
func TestTablesMatchSchemas(t *testing.T) {
	var bad []string
	for name, plans := range scenarioPlans {
		for typ, p := range plans {
			if p.Event == "" {
				continue
			}
			s := readEventSchema(t, p.Event)
			for _, a := range tableAttrs(plans, p) {
				raw, ok := s.Properties[a.key]
				if !ok {
					bad = append(bad, fmt.Sprintf("%s: %s -> %s: %s is not in the schema", name, typ, p.Event, a.key))
					continue
				}
				if err := defMatches(a, raw); err != nil {
					bad = append(bad, fmt.Sprintf("%s: %s -> %s: %s: %v", name, typ, p.Event, a.key, err))
				}
			}
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// TestDefsSchemaUpToDate fails when schemas/defs.schema.json is not what
// go generate ./converters writes from the value types and ladders.
func TestDefsSchemaUpToDate(t *testing.T) {
	got, err := schemas.FS.ReadFile("defs.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(DefsSchema()) {
		t.Error("schemas/defs.schema.json is stale: run go generate ./converters")
	}
}
