package gate

import (
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testlines"
	"github.com/tidwall/gjson"
)

// recorder is a sink that keeps every call, in order.
type recorder struct{ calls []string }

func (r *recorder) Add(s, where string)         { r.calls = append(r.calls, "s:"+s+"@"+where) }
func (r *recorder) AddNumber(lit, where string) { r.calls = append(r.calls, "n:"+lit+"@"+where) }

// addJSONTree is the walk addJSON replaced (gjson's ForEach at every
// level): the differential test holds the single pass to it. attr is the
// OTLP attribute key around v (an object's "key" string member), by which
// its intValue is judged (Computed).
func addJSONTree(outs sink, v gjson.Result, where string, skip map[string]bool) {
	addJSONTreeIn(outs, v, where, skip, "")
}

func addJSONTreeIn(outs sink, v gjson.Result, where string, skip map[string]bool, attr string) {
	addJSONTree := func(outs sink, v gjson.Result, where string, skip map[string]bool) {
		addJSONTreeIn(outs, v, where, skip, attr)
	}
	switch {
	case v.Type == gjson.String:
		outs.Add(v.Str, where)
	case v.Type == gjson.Number:
		outs.AddNumber(v.Raw, where)
	case v.IsArray():
		v.ForEach(func(_, e gjson.Result) bool { addJSONTree(outs, e, where, skip); return true })
	case v.IsObject():
		v.ForEach(func(k, e gjson.Result) bool {
			outs.Add(k.Str, where)
			switch {
			case skip[k.Str]:
			case (strings.HasPrefix(k.Str, "convert.") || Computed(k.Str)) && e.Type == gjson.Number:
			case k.Str == "key" && e.Type == gjson.String:
				outs.Add(e.Str, where)
				attr = e.Str
			case k.Str == "intValue" && e.Type == gjson.String:
				if !Computed(attr) {
					outs.AddNumber(e.Str, where)
				}
			case CountedLists[k.Str] && e.IsArray():
				e.ForEach(func(_, x gjson.Result) bool {
					if x.Type == gjson.String {
						outs.Add(WithoutCount(x.Str), where)
					} else {
						addJSONTree(outs, x, where, skip)
					}
					return true
				})
			default:
				addJSONTree(outs, e, where, skip)
			}
			return true
		})
	}
}

func sameWalk(t *testing.T, doc string, skip map[string]bool) {
	t.Helper()
	var got, want recorder
	addJSON(&got, gjson.Parse(doc), "w", skip, nil)
	addJSONTree(&want, gjson.Parse(doc), "w", skip)
	if strings.Join(got.calls, "\x00") != strings.Join(want.calls, "\x00") {
		for i := range min(len(got.calls), len(want.calls)) {
			if got.calls[i] != want.calls[i] {
				t.Fatalf("%.80q: call %d is %q, the tree walk's %q", doc, i, got.calls[i], want.calls[i])
			}
		}
		t.Fatalf("%.80q: %d calls, the tree walk made %d", doc, len(got.calls), len(want.calls))
	}
}

// TestAddJSONIsTheTreeWalk: on every golden receipt line and trace, every
// sample line and a few hand-made shapes (escapes, skipped keys holding
// objects with brackets in strings, convert.* numbers, intValue strings),
// the single pass adds exactly what gjson's tree walk added, in order.
func TestAddJSONIsTheTreeWalk(t *testing.T) {
	for _, doc := range []string{
		`{}`, `[]`, `"x"`, `12`, `true`, `{"a":"b\"c\\u00e9","k\n":[1,-2.5e3,null,false,{"x":{}}]}`,
		`{"convert.input.bytes":12,"convert.label":"lbl","intValue":"123456","n":{"intValue":7}}`,
		`[{"key":"gen_ai.usage.input_tokens","value":{"intValue":"600000"}},{"key":"x","value":{"intValue":"600000"}},{"value":{"intValue":"7"},"key":"gen_ai.usage.output_tokens"}]`,
		`{"gen_ai.usage.input_tokens":600000,"gen_ai.usage.responses":600000,"a":{"key":"gen_ai.usage.input_tokens","n":{"intValue":"1"}},"intValue":"2"}`,
		`{"spanId":{"a":"]}\"{[","b":[1,{"c":"}"}]},"traceId":"abc","name":"n"}`,
		`{"convert.input.record_types":["assistant=124749","x=","=5","a=b=12","sha256:ab=1e3",7,["n=1"]],"record_types":["u=1"]}`,
		" {\n  \"a\" : [ 1 , 2 ] ,\n  \"b\" : \"c\"\n} ",
	} {
		sameWalk(t, doc, TraceSkip)
		sameWalk(t, doc, DerivedFields)
	}
	docs := 0
	for _, d := range testlines.Files(t, "../../golden", "../../samples") {
		if strings.HasSuffix(d.Path, ".json") && gjson.ValidBytes(d.Data) {
			docs++
			sameWalk(t, string(d.Data), TraceSkip)
			continue
		}
		for _, l := range strings.Split(string(d.Data), "\n") {
			if gjson.Valid(l) {
				docs++
				sameWalk(t, l, DerivedFields)
			}
		}
	}
	if docs < 1000 {
		t.Fatalf("walked only %d documents", docs)
	}
}

func FuzzAddJSON(f *testing.F) {
	f.Add(`{"a":["b",{"intValue":"12"}],"spanId":{"x":"]"},"convert.n":3}`)
	f.Add(`[1,"\u00e9\"",{"k\\":null}]`)
	f.Fuzz(func(t *testing.T, doc string) {
		if gjson.Valid(doc) {
			sameWalk(t, doc, TraceSkip)
		}
	})
}

// TestWithoutCount: only a final run of digits after "=" is the count.
func TestWithoutCount(t *testing.T) {
	for in, want := range map[string]string{
		"assistant=124749": "assistant", "x=": "x=", "=5": "", "a=b=12": "a=b", "a=1e3": "a=1e3",
		"plain": "plain", "t=12x": "t=12x", "sha256:" + strings.Repeat("a", 64) + "=3": "sha256:" + strings.Repeat("a", 64),
	} {
		if got := WithoutCount(in); got != want {
			t.Errorf("WithoutCount(%q) = %q, want %q", in, got, want)
		}
	}
}
