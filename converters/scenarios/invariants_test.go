package scenarios

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/converters/view"

	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/tidwall/gjson"
)

// invExample is one invariant kind's own example, as a rule of gitleaks
// carries its own: a table using it, a record sequence it accepts, one it
// refuses and the message it refuses it with. The record types are "a" (the
// earlier record) and "b" (the one checked).
type invExample struct {
	name      string
	b         []scenario.Move // the moves of record type "b"; "a" has Use("id", "ids", "n", "on")
	good, bad []string
	want      string // the refusal of the last bad line, after "<wantType>: "
	wantType  string // the record type refused ("b" unless set)
}

var invExamples = []invExample{
	{name: "after", b: []scenario.Move{scenario.After("id", "a", "id")},
		good: []string{`{"type":"a","id":"x"}`, `{"type":"b","id":"x"}`, `{"type":"b"}`},
		bad:  []string{`{"type":"a","id":"x"}`, `{"type":"b","id":"y"}`},
		want: "id has no a record before it"},
	{name: "after says", b: []scenario.Move{scenario.After("id", "a", "id").Says("b names an id no a had")},
		good: []string{`{"type":"a","id":"x"}`, `{"type":"b","id":"x"}`},
		bad:  []string{`{"type":"b","id":"x"}`},
		want: "b names an id no a had"},
	{name: "after within", b: []scenario.Move{scenario.After("id", "a", "id").Within("scope", "scope")},
		good: []string{`{"type":"a","id":"x","scope":"s"}`, `{"type":"b","id":"x","scope":"s"}`},
		bad:  []string{`{"type":"a","id":"x","scope":"s"}`, `{"type":"b","id":"x","scope":"t"}`},
		want: "id has no a record before it"},
	{name: "after_any", b: []scenario.Move{scenario.AfterAny("a")},
		good: []string{`{"type":"a"}`, `{"type":"b"}`},
		bad:  []string{`{"type":"b"}`},
		want: "record before any a record"},
	{name: "once", b: []scenario.Move{scenario.Once("id")},
		good: []string{`{"type":"b","id":"x"}`, `{"type":"b","id":"y"}`},
		bad:  []string{`{"type":"b","id":"x"}`, `{"type":"b","id":"x"}`},
		want: "id repeats an earlier b record"},
	{name: "once of a number", b: []scenario.Move{scenario.Once("id")},
		bad:  []string{`{"type":"b","id":5}`},
		want: `field "id" must be a string or a list of strings`},
	{name: "after, the earlier record's field a number", b: []scenario.Move{scenario.After("id", "a", "id")},
		bad:  []string{`{"type":"a","id":5}`},
		want: `field "id" must be a string or a list of strings`, wantType: "a"},
	{name: "subset", b: []scenario.Move{scenario.SubsetOf("ids", "a", "ids")},
		good: []string{`{"type":"a","ids":["x","y"]}`, `{"type":"b","ids":["y"]}`, `{"type":"b","ids":[]}`},
		bad:  []string{`{"type":"a","ids":["x"]}`, `{"type":"b","ids":["x","z"]}`},
		want: "ids is not a subset of the ids of earlier a records"},
	{name: "subset of a non-list", b: []scenario.Move{scenario.SubsetOf("ids", "a", "ids")},
		bad:  []string{`{"type":"b","ids":5}`},
		want: `field "ids" must be a string or a list of strings`},
	{name: "subset of a list of numbers", b: []scenario.Move{scenario.SubsetOf("ids", "a", "ids")},
		bad:  []string{`{"type":"b","ids":[5]}`},
		want: `field "ids" must be a list of strings`},
	{name: "disjoint", b: []scenario.Move{scenario.Disjoint("ids", "other")},
		good: []string{`{"type":"b","ids":["x"],"other":["y"]}`, `{"type":"b","ids":["x"]}`},
		bad:  []string{`{"type":"b","ids":["x"],"other":["y","x"]}`},
		want: "ids and other share a value"},
	{name: "disjoint, first not a list", b: []scenario.Move{scenario.Disjoint("ids", "other")},
		bad:  []string{`{"type":"b","ids":1,"other":["x"]}`},
		want: `field "ids" must be a string or a list of strings`},
	{name: "disjoint, second not a list", b: []scenario.Move{scenario.Disjoint("ids", "other")},
		bad:  []string{`{"type":"b","ids":["x"],"other":1}`},
		want: `field "other" must be a string or a list of strings`},
	{name: "len_eq", b: []scenario.Move{scenario.LenEq("n", "ids")},
		good: []string{`{"type":"b","n":2,"ids":["x","y"]}`, `{"type":"b","ids":["x"]}`},
		bad:  []string{`{"type":"b","n":1,"ids":["x","y"]}`},
		want: "n differs from the length of ids"},
	{name: "len_eq without the list", b: []scenario.Move{scenario.LenEq("n", "ids")},
		bad:  []string{`{"type":"b","n":1}`},
		want: `field "ids" must be a list`},
	{name: "len_eq with a fraction", b: []scenario.Move{scenario.LenEq("n", "ids")},
		bad:  []string{`{"type":"b","n":1.5,"ids":["x"]}`},
		want: `field "n" must be a whole number`},
	{name: "length_of", b: []scenario.Move{scenario.LengthOf("n", "a", "ids").Within("scope", "scope")},
		good: []string{`{"type":"a","ids":["x","y"],"scope":"s"}`, `{"type":"b","n":2,"scope":"s"}`, `{"type":"b","n":0,"scope":"t"}`},
		bad:  []string{`{"type":"a","ids":["x","y"],"scope":"s"}`, `{"type":"b","n":1,"scope":"s"}`},
		want: "n differs from the length of ids in the a record before it"},
	{name: "sum_eq", b: []scenario.Move{scenario.SumEq("n", "p", "q")},
		good: []string{`{"type":"b","n":3,"p":1,"q":2}`, `{"type":"b","n":1,"p":1}`},
		bad:  []string{`{"type":"b","n":3,"p":1,"q":1}`},
		want: "n is not p + q"},
	{name: "sum_eq with a fractional part", b: []scenario.Move{scenario.SumEq("n", "p", "q")},
		bad:  []string{`{"type":"b","n":3,"p":1.5,"q":1}`},
		want: `field "p" must be a whole number`},
	{name: "sum_of", b: []scenario.Move{scenario.SumOf("n", "a", "m")},
		good: []string{`{"type":"a","m":2}`, `{"type":"a","m":3}`, `{"type":"b","n":5}`},
		bad:  []string{`{"type":"a","m":2}`, `{"type":"b","n":3}`},
		want: "n differs from the sum of m over the a records before it"},
	{name: "sum_of a fraction", b: []scenario.Move{scenario.SumOf("n", "a", "m")},
		bad:  []string{`{"type":"a","m":2.5}`},
		want: `field "m" must be a whole number`, wantType: "a"},
	{name: "count_of", b: []scenario.Move{scenario.CountOf("n", "a")},
		good: []string{`{"type":"a"}`, `{"type":"a"}`, `{"type":"b","n":2}`},
		bad:  []string{`{"type":"a"}`, `{"type":"b","n":2}`},
		want: "n does not match the a records before it"},
	{name: "count_of where", b: []scenario.Move{scenario.CountOf("n", "a").Where("on", true)},
		good: []string{`{"type":"a","on":true}`, `{"type":"a","on":false}`, `{"type":"b","n":1}`},
		bad:  []string{`{"type":"a","on":true}`, `{"type":"a","on":true}`, `{"type":"b","n":1}`},
		want: "n does not match the a records before it"},
	{name: "distinct_of", b: []scenario.Move{scenario.DistinctOf("n", "a", "id", "scope")},
		good: []string{`{"type":"a","id":"x","scope":"s"}`, `{"type":"a","id":"x","scope":"s"}`, `{"type":"a","id":"x","scope":"t"}`, `{"type":"b","n":2}`},
		bad:  []string{`{"type":"a","id":"x","scope":"s"}`, `{"type":"a","id":"y","scope":"s"}`, `{"type":"b","n":1}`},
		want: "n does not match the distinct id, scope of a records before it"},
	{name: "counting a fraction", b: []scenario.Move{scenario.CountOf("n", "a")},
		bad:  []string{`{"type":"b","n":0.5}`},
		want: `field "n" must be a whole number`},
}

func init() {
	// wantType defaults to "b": the record checked.
	for i := range invExamples {
		if invExamples[i].wantType == "" {
			invExamples[i].wantType = "b"
		}
	}
}

// exampleTable is the scenario of an example: "a" records feed "b" records.
func exampleTable(b []scenario.Move) map[string]*scenario.RecPlan {
	return scenario.Compile("example", map[string]scenario.Rec{
		"a": {Moves: []scenario.Move{scenario.Use("id", "ids", "m", "on", "scope")}},
		"b": {Event: "b", Moves: b},
	})
}

// runLines feeds JSON lines to a fresh state of a scenario's plans and
// returns the first error, with the line it came from.
func runLines(sc scenario.Scenario, plans map[string]*scenario.RecPlan, lines []string) (int, error) {
	st := scenario.NewScenarioState(sc, plans, receipt.Hasher{})
	out := &converters.Output{}
	for i, l := range lines {
		j := gjson.Parse(l)
		r := converters.Record{Line: i + 1, Type: j.Get("type").String(), Time: j.Get("time").String(), JSON: view.Of(j)}
		if _, ok := plans[r.Type]; !ok {
			continue
		}
		if err := st.Record(r, out); err != nil {
			return i + 1, err
		}
	}
	return 0, st.End(out)
}

// TestInvariantKindExamples runs each kind's own examples: the good sequence
// passes, the bad one fails on its last line with the kind's message.
func TestInvariantKindExamples(t *testing.T) {
	for _, ex := range invExamples {
		t.Run(ex.name, func(t *testing.T) {
			plans := exampleTable(ex.b)
			if len(ex.good) > 0 {
				if line, err := runLines(scenario.Scenario{}, plans, ex.good); err != nil {
					t.Errorf("good example refused at line %d: %v", line, err)
				}
			}
			line, err := runLines(scenario.Scenario{}, plans, ex.bad)
			want := ex.wantType + ": " + ex.want
			if err == nil || err.Error() != want || line != len(ex.bad) {
				t.Errorf("bad example: got line %d %v, want line %d %q", line, err, len(ex.bad), want)
			}
		})
	}
}

// TestSeenBeforeExample: SeenBefore never refuses; it writes whether the
// value was seen.
func TestSeenBeforeExample(t *testing.T) {
	plans := exampleTable([]scenario.Move{scenario.SeenBefore("b.seen", "id", "a", "id").Within("scope", "scope")})
	st := scenario.NewScenarioState(scenario.Scenario{}, plans, receipt.Hasher{})
	out := &converters.Output{}
	for i, l := range []string{`{"type":"a","id":"x","scope":"s"}`, `{"type":"b","id":"x","scope":"s"}`, `{"type":"b","id":"x","scope":"t"}`, `{"type":"b"}`, `{"type":"b","id":7}`} {
		j := gjson.Parse(l)
		err := st.Record(converters.Record{Line: i + 1, Type: j.Get("type").String(), JSON: view.Of(j)}, out)
		if i == 4 {
			if err == nil {
				t.Error("a number where an id belongs was accepted")
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, ev := range out.Events {
		v, _ := ev.Attrs.Get("b.seen")
		got = append(got, fmt.Sprint(v.Bool))
	}
	if strings.Join(got, ",") != "true,false,false" {
		t.Errorf("b.seen = %v, want true,false,false", got)
	}
}

// TestInvariantDescriptions pins what `convert list -v` says of each kind.
func TestInvariantDescriptions(t *testing.T) {
	for _, c := range []struct {
		m    scenario.Move
		want string
	}{
		{scenario.After("id", "a", "id").Within("scope", "scope"), "after: id only after a a with that id with the same scope"},
		{scenario.AfterAny("a"), "after_any: only after a a record"},
		{scenario.Once("id"), "once: id is new among the  records"},
		{scenario.SubsetOf("ids", "a", "all").Within("s", "t"), "subset: ids within the all of earlier a records whose t is this s"},
		{scenario.SeenBefore("k", "id", "a", "id"), "seen: k says whether id is among the id of earlier a records"},
		{scenario.Disjoint("x", "y"), "disjoint: x and y share no value"},
		{scenario.LenEq("n", "ids"), "len_eq: n is the length of ids"},
		{scenario.LengthOf("n", "a", "ids"), "length_of: n is the length of ids in the latest earlier a"},
		{scenario.SumEq("n", "p", "q"), "sum_eq: n is p + q"},
		{scenario.SumOf("n", "a", "m"), "sum_of: n is the sum of m over earlier a records"},
		{scenario.CountOf("n", "a").Where("on", false), "count_of: n is the number of earlier a records whose on is false"},
		{scenario.DistinctOf("n", "a", "x", "y"), "distinct_of: n is the number of distinct x, y of earlier a records"},
	} {
		if got := c.m.Inv.String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// TestInvariantModifiersNeedAnInvariant: Within, Says and Where on a plain
// move are programming errors, caught at start-up.
func TestInvariantModifiersNeedAnInvariant(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Says on a plain move did not panic")
		}
	}()
	scenario.Hash("x", "y").Says("no")
}

// TestInvariantNamesUnknownRecord: an invariant naming a record type the
// table does not map fails at start-up instead of silently finding nothing.
func TestInvariantNamesUnknownRecord(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), `names record type "nope"`) {
			t.Errorf("got %v, want a panic naming the record type", r)
		}
	}()
	scenario.Compile("example", map[string]scenario.Rec{"b": {Moves: []scenario.Move{scenario.After("id", "nope", "id")}}})
}

// TestScenarioTablesCompile: every registered scenario table compiles (its
// invariants name record types it maps). Tables compile on first use, so
// this is where a typo in one fails, not at start-up.
func TestScenarioTablesCompile(t *testing.T) {
	for _, name := range scenario.Scenarios() {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: %v", name, r)
				}
			}()
			if len(scenario.ScenarioPlan(name)) == 0 {
				t.Errorf("%s: no compiled table", name)
			}
		}()
	}
	if scenario.ScenarioPlan("no_such_scenario") != nil {
		t.Error("a name that is no scenario has a table")
	}
}

// TestEveryTableInvariantHasAFailingExample makes a failing example of every
// invariant of every scenario table from the converter's basic sample: it
// breaks the first record the invariant checks (a value never seen, a
// shared value, a count off by far, a repeated record, the earlier records
// left out) and requires the refusal to come from that record with that
// invariant's message.
func TestEveryTableInvariantHasAFailingExample(t *testing.T) {
	names := make([]string, 0, len(scenario.ScenarioPlans()))
	for n := range scenario.ScenarioPlans() {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		plans := scenario.ScenarioPlans()[name]
		sc := scenarioByName(name)
		lines := readSample(t, name)
		for typ, p := range plans {
			for _, m := range p.Moves {
				if m.Inv == nil || m.Inv.Kind == scenario.InvSeen {
					continue
				}
				inv := m.Inv
				t.Run(name+"/"+typ+"/"+inv.String(), func(t *testing.T) {
					var tried []string
					for _, bad := range breakings(inv, lines) {
						line, err := runLines(sc, plans, bad.lines)
						want := typ + ": " + inv.Message()
						if err != nil && err.Error() == want && line == bad.at {
							return
						}
						tried = append(tried, fmt.Sprintf("%s: line %d %v", bad.how, line, err))
					}
					t.Errorf("no failing example from samples/%s/basic.jsonl trips it with %q; tried:\n%s", name, inv.Message(), strings.Join(tried, "\n"))
				})
			}
		}
	}
}

func scenarioByName(name string) scenario.Scenario { sc, _ := scenario.Def(name); return sc }

// setField returns the JSON object line with a top-level field set to v.
func setField(line, field string, v any) (string, error) {
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(line))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return "", err
	}
	m[field] = v
	b, err := json.Marshal(m)
	return string(b), err
}

// breaking is a changed sample that should trip one invariant at line at.
type breaking struct {
	how   string
	lines []string
	at    int
}

// breakings changes the first record of the invariant's type in ways that
// break it.
func breakings(inv *scenario.Invariant, lines []string) []breaking {
	var out []breaking
	for i, l := range lines {
		if gjson.Get(l, "type").String() != inv.Rec {
			continue
		}
		set := func(how, path string, v any) {
			nl, err := setField(l, path, v)
			if err != nil {
				return
			}
			out = append(out, breaking{how, replaced(lines, i, nl), i + 1})
		}
		moveBefore := func() {
			for j, e := range lines[:i] {
				if gjson.Get(e, "type").String() == inv.Of {
					moved := append(append(append([]string(nil), lines[:j]...), l), lines[j:i]...)
					out = append(out, breaking{"the record moved before the first " + inv.Of, append(moved, lines[i+1:]...), j + 1})
					return
				}
			}
		}
		switch inv.Kind {
		case scenario.InvAfter, scenario.InvSubset:
			set("a value never seen", inv.Path, "never-seen-value")
			set("a list with a value never seen", inv.Path, []string{"never-seen-value"})
			if v := gjson.Get(l, inv.Path); v.IsArray() {
				set("a value never seen added to the list", inv.Path, append(strings.Fields(gjsonStrings(v)), "never-seen-value"))
			}
			moveBefore()
		case scenario.InvAfterAny:
			moveBefore()
		case scenario.InvDisjoint:
			if v := gjson.Get(l, inv.Path); v.Exists() {
				raw := v.Raw
				if !v.IsArray() {
					raw = "[" + raw + "]"
				}
				nl, _ := setField(l, inv.Other, json.RawMessage(raw))
				out = append(out, breaking{"the second list copies the first", replaced(lines, i, nl), i + 1})
			}
		case scenario.InvLenEq, scenario.InvLengthOf, scenario.InvSumEq, scenario.InvSumOf, scenario.InvCountOf, scenario.InvDistinctOf:
			set("a count off by far", inv.Path, 987654)
			for _, p := range inv.Parts {
				set("a part off by far", p, 987654)
			}
		case scenario.InvOnce:
			out = append(out, breaking{"the record repeated", replaced(lines, i, l+"\n"+l), i + 2})
		}
		if len(out) > 0 {
			return out
		}
	}
	return out
}

// gjsonStrings joins a list's strings with spaces.
func gjsonStrings(v gjson.Result) string {
	var out []string
	for _, e := range v.Array() {
		out = append(out, e.String())
	}
	return strings.Join(out, " ")
}

// replaced returns lines with line i replaced by l (which may hold two).
func replaced(lines []string, i int, l string) []string {
	out := append([]string(nil), lines[:i]...)
	out = append(out, strings.Split(l, "\n")...)
	return append(out, lines[i+1:]...)
}

func readSample(t *testing.T, name string) []string {
	t.Helper()
	fh, err := os.Open(testshared.Repo(t, "samples", name, "basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []string
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			out = append(out, sc.Text())
		}
	}
	return out
}

// TestHooksReadDeclaredFields reads the hooks' source: every field a hook
// names in a Values read (v.Get("x"), v.Int("x"), ...) must be declared by a
// move of that converter's table, so that a branch the samples never take
// cannot fail at run time with an undeclared read.
func TestHooksReadDeclaredFields(t *testing.T) {
	reads := map[string]bool{"Get": true, "Has": true, "Str": true, "Int": true, "Bool": true, "Digest": true, "IDs": true, "IDList": true, "Whole": true, "Cents": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		name := strings.TrimSuffix(file, ".go")
		declared := map[string]bool{}
		for conv, plans := range scenario.ScenarioPlans() {
			if conv != name && scenario.ScenarioPlans()[name] != nil {
				continue // a converter's own file: its own table
			}
			for _, p := range plans {
				for _, f := range p.Fields {
					declared[f] = true
				}
			}
		}
		af, err := parser.ParseFile(fset, file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !reads[sel.Sel.Name] {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); !ok || id.Name != "v" {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			field, _ := strconv.Unquote(lit.Value)
			if !declared[field] && scenario.ScenarioPlans()[name] != nil {
				t.Errorf("%s: a hook reads field %q, which no move of %s declares (declare it with Use)", fset.Position(lit.Pos()), field, name)
			}
			return true
		})
	}
}
