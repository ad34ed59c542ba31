package view

import (
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/contextreceipts/convert/internal/testlines"
	"github.com/contextreceipts/convert/internal/testshared"
	"github.com/tidwall/gjson"
)

// TestScannedRecordIsForEach: the index the pipeline builds from
// jsonscan's members holds what gjson's ForEach finds, field by field
// (key, type, raw, string, number), on every object line of the samples,
// the fuzz seeds and a few hand-made shapes (escaped keys, duplicates,
// numbers, whitespace).
func TestScannedRecordIsForEach(t *testing.T) {
	lines := []string{
		`{}`, ` { "a" : 1 , "b" : "x\"y" } `, `{"k\u00e9y":true,"k\\":null,"dup":1,"dup":"2"}`,
		`{"n":-12.5e3,"z":0,"o":{"p":[1,{"q":2}]},"s":"\ud83d\ude00"}`,
	}
	for _, l := range testlines.Lines(t, testshared.Repo(t, "samples"), testshared.Repo(t, "converters", "testdata", "fuzz")) {
		lines = append(lines, string(l))
	}
	checked := 0
	for _, l := range lines {
		var members []jsonscan.Member
		object, err := jsonscan.Scan([]byte(l), &members)
		if err != nil || !object {
			continue
		}
		checked++
		got := ScannedRecord(l, members)
		var want []topField
		var vals []gjson.Result
		gjson.Parse(l).ForEach(func(k, v gjson.Result) bool {
			want, vals = append(want, topField{key: k.Str}), append(vals, v)
			return true
		})
		if len(got.top) != len(want) {
			t.Fatalf("%.120q: %d fields, ForEach %d", l, len(got.top), len(want))
		}
		seen := map[string]int{}
		for i, g := range got.top {
			gv, w := g.val(), vals[i]
			if g.key != want[i].key || gv.Type != w.Type || gv.Raw != w.Raw || gv.Str != w.Str || gv.Num != w.Num {
				t.Fatalf("%.120q field %d: %q=%+v, ForEach %q=%+v", l, i, g.key, gv, want[i].key, w)
			}
			if first, ok := seen[g.key]; !ok {
				seen[g.key] = i
			} else if got.Top(g.key).r.Raw != got.top[first].raw {
				t.Fatalf("%.120q: Top(%q) is not the key's first value", l, g.key)
			}
			if _, dup := seen[g.key]; !dup || seen[g.key] == i {
				plain := !strings.ContainsAny(g.key, ".*?#|@\\!")
				if got.Top(g.key).r.Raw != gv.Raw || plain && got.Get(g.key).r.Raw != gv.Raw {
					t.Fatalf("%.120q: Top/Get(%q) is not its value", l, g.key)
				}
			}
		}
		if got.JSON.r.Raw != strings.TrimLeft(l, " \t\r\n") || got.JSON.r.Type != gjson.JSON {
			t.Fatalf("%.120q: record JSON %v", l, got.JSON.r.Type)
		}
	}
	if checked < 300 {
		t.Fatalf("checked only %d object lines", checked)
	}
}

// TestForEachIsGjsonForEach: forEach yields what gjson's ForEach yields
// (keys: type, raw, string, index number; values: type, raw, string,
// number, index), for every object and array at every depth of every
// sample and fuzz-seed line, and for scalars and missing values.
func TestForEachIsGjsonForEach(t *testing.T) {
	type pair struct{ k, v gjson.Result }
	collect := func(v gjson.Result, each func(gjson.Result, func(k, v gjson.Result) bool)) []pair {
		var out []pair
		each(v, func(k, e gjson.Result) bool { out = append(out, pair{k, e}); return true })
		return out
	}
	gj := func(v gjson.Result, fn func(k, v gjson.Result) bool) { v.ForEach(fn) }
	checked := 0
	var walk func(v gjson.Result)
	walk = func(v gjson.Result) {
		got, want := collect(v, forEach), collect(v, gj)
		if len(got) != len(want) {
			t.Fatalf("%.100q: %d children, ForEach %d", v.Raw, len(got), len(want))
		}
		for i, g := range got {
			w := want[i]
			if g.k.Type != w.k.Type || g.k.Str != w.k.Str || g.k.Raw != w.k.Raw || g.k.Num != w.k.Num ||
				g.v.Type != w.v.Type || g.v.Raw != w.v.Raw || g.v.Str != w.v.Str || g.v.Num != w.v.Num || g.v.Index != w.v.Index {
				t.Fatalf("%.100q child %d: %+v=%+v, ForEach %+v=%+v", v.Raw, i, g.k, g.v, w.k, w.v)
			}
			checked++
			if g.v.IsObject() || g.v.IsArray() {
				walk(g.v)
			}
		}
	}
	for _, l := range []string{`{"a":"x\"y","k\u00e9":[1,"b",{"c":null}],"n":-1.5e2,"t":true}`, ` [ 1 , "2" , [ ] , { } ] `, `"s"`, `12`} {
		walk(gjson.Parse(l))
	}
	walk(gjson.Result{})
	for _, l := range testlines.Lines(t, testshared.Repo(t, "samples"), testshared.Repo(t, "converters", "testdata", "fuzz")) {
		if jsonscan.Valid(l) {
			walk(gjson.ParseBytes(l))
		}
	}
	if checked < 10000 {
		t.Fatalf("checked only %d children", checked)
	}
}
