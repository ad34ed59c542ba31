package receipt

import (
	"bytes"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/contextreceipts/convert/internal/testlines"
	"github.com/gowebpki/jcs"
	"github.com/tidwall/gjson"
)

// sameAsJCS: where canonical takes a valid document, its bytes are jcs's.
func sameAsJCS(t *testing.T, doc []byte) (took bool) {
	t.Helper()
	if !jsonscan.Valid(doc) {
		return false
	}
	got, ok := canonical(nil, doc)
	if !ok {
		return false
	}
	want, err := jcs.Transform(doc)
	if err != nil {
		t.Fatalf("canonical took %.200q, which jcs refuses: %v", doc, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("canonical(%.200q) = %.200q, jcs %.200q", doc, got, want)
	}
	return true
}

// TestCanonicalMatchesJCS: hand-made edges, and every object and array in
// the goldens' and samples' lines (tool inputs among them).
func TestCanonicalMatchesJCS(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		took bool
	}{
		{`{"b":1,"a":[true,false,null,-12,0],"c":{"z":"x\/y","y":"q\"\\\n\t\b\f\r"}}`, true},
		{" \n[ 1 , \"é€\" , {} , [] ]\t", true},
		{`{"é":1,"e":2,"z":3,"Z":4,"_":5,"":6}`, true},
		{"\"\x7f\"", true},
		{`{"a":1.5}`, false}, {`{"a":1e3}`, false}, {`{"a":-0}`, false}, {`{"a":1234567890123456}`, false},
		{`{"a":"\u00e9"}`, false}, {`{"a\"b":1}`, false}, {`{"😀":1}`, false}, {`{"a":1,"a":2}`, false},
		{`{"a":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`, false},
		{"\"\xff\"", false}, {`{"a":}`, false},
	} {
		if took := sameAsJCS(t, []byte(tc.doc)); took != tc.took {
			t.Errorf("%.60q: canonical took it %v, want %v", tc.doc, took, tc.took)
		}
	}
	took, docs := 0, 0
	for _, d := range testlines.Files(t, "../../golden", "../../samples") {
		for _, l := range strings.Split(string(d.Data), "\n") {
			if !gjson.Valid(l) {
				continue
			}
			var walk func(v gjson.Result)
			walk = func(v gjson.Result) {
				if v.IsObject() || v.IsArray() {
					docs++
					if sameAsJCS(t, []byte(v.Raw)) {
						took++
					}
					v.ForEach(func(_, e gjson.Result) bool { walk(e); return true })
				}
			}
			walk(gjson.Parse(l))
		}
	}
	if docs == 0 || took == 0 {
		t.Fatalf("%d of %d documents taken: the corpus did not reach canonical", took, docs)
	}
	t.Logf("%d of %d objects and arrays canonicalized without jcs, all as jcs does", took, docs)
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":[1,"x\/"],"a":{"c":null}}`, `[]`, `{"a":"\n","a ":-3}`, `"s"`, `12`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) { sameAsJCS(t, doc) })
}
