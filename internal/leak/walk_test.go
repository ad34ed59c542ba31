package leak

import (
	"fmt"
	"testing"

	"github.com/tidwall/gjson"
)

// reference lists (path, string) pairs with gjson, the slow obvious way.
func reference(v gjson.Result, path string, out *[]string) {
	switch {
	case v.Type == gjson.String:
		*out = append(*out, path+"="+v.Str)
	case v.IsArray():
		p := join(path, "#")
		v.ForEach(func(_, e gjson.Result) bool { reference(e, p, out); return true })
	case v.IsObject():
		v.ForEach(func(k, e gjson.Result) bool { reference(e, join(path, k.Str), out); return true })
	}
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// TestWalkerMatchesGJSON: the fast walker sees exactly the strings, decoded,
// at exactly the paths that gjson does.
func TestWalkerMatchesGJSON(t *testing.T) {
	docs := []string{
		`{}`, `[]`, `"top"`, `{"a":"x","b":1,"c":true,"d":null,"e":-1.5e10}`,
		`{"a":{"b":["x",{"c":"y"},["z"]]},"k":"v"}`,
		`{"esc":"q\"uote \\ back\/slash \n\t\r\b\f","u":"\u00e9\u4e2d"}`,
		`{"pair":"\ud83d\ude00","lone":"\ud800x","lone2":"\udc00"}`,
		`{"k\"ey":"v","ke\u0079":"w"}`,
		` { "sp" : [ "a" , "b" ] , "n" : [ 1 , 2 ] } `,
		`{"deep":[[[[[[[[[["z"]]]]]]]]]]}`,
		`{"dup":"a","dup":"b"}`,
		`{"big":123456789012345678901234567890,"e":1E-400}`,
	}
	for _, d := range docs {
		var want []string
		reference(gjson.Parse(d), "", &want)
		var got []string
		w := walker{doc: []byte(d), visit: func(p, v string) { got = append(got, p+"="+v) }}
		w.value(w.ws(0))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s\n got  %q\n want %q", d, got, want)
		}
	}
}
