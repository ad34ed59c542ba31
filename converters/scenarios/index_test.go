package scenarios

import (
	"reflect"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/scenario"
)

// TestScenarioIndex holds the generated index (index_gen.go), which the
// registry reads at start, to the tables it stands for: every defined
// table is registered with the types, hints, pass-through fields and
// events its table gives, and nothing else is registered as a scenario.
// A table edited without make generate fails here.
func TestScenarioIndex(t *testing.T) {
	defined := map[string]bool{}
	for _, name := range scenario.Scenarios() {
		defined[name] = true
		sc, ok := scenario.Def(name)
		if !ok {
			t.Fatalf("%s: listed but not defined", name)
		}
		want := scenario.MetaOf(sc)
		c, ok := converters.Lookup(name)
		if !ok {
			t.Errorf("%s: defined but not in the index (make generate)", name)
			continue
		}
		got := scenario.Meta{Name: c.Name, Doc: c.Doc, SpanName: c.SpanName, Types: c.Types, Hints: c.Hints, Pass: c.PassThrough, Events: c.Events, Labels: c.Labels}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the index differs from the table (make generate):\nindex %+v\ntable %+v", name, got, want)
		}
	}
	for _, c := range converters.All() {
		if c.Native == nil && c.TypeField == "type" && c.TimeField == "time" && !defined[c.Name] {
			t.Errorf("%s: in the index, but no table defines it (make generate)", c.Name)
		}
	}
}
