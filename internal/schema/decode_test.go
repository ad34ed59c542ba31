package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/schemas"
)

// stdDecode is how schemas and receipt lines were decoded before decodeDoc.
func stdDecode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// TestDecodeDocIsEncodingJSON: decodeDoc returns what encoding/json with
// UseNumber returns, value and error, for every embedded schema, every
// golden receipt line and documents at the edges of what it takes itself.
func TestDecodeDocIsEncodingJSON(t *testing.T) {
	docs := map[string][]byte{}
	err := fs.WalkDir(schemas.FS, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := fs.ReadFile(schemas.FS, p)
		docs[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) < 10 {
		t.Fatalf("only %d embedded schemas", len(docs))
	}
	for _, d := range []string{
		`{}`, `[]`, ` {"a" : [ 1 , -0.5e+3, 0, 1E9, true, false, null, {} , [] ] } `,
		`{"a":1,"a":2}`, `"x"`, `{"k\"q":"v\u00e9\n","\ud83d\ude00":"\/"}`, `{"é":"ü"}`, "{\"a\":\"\xff\"}",
		`{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":.5}`, `{"a":1e}`, `{"a":tru}`, `{"a":nul}`, `{"a":1,}`, `[1,]`,
		`{"a" 1}`, `{"a":1} x`, `{"a":1}{}`, `{"a":"unterminated}`, "{\"a\":\"tab\there\"}", `{1:2}`, ``, ` `, `[`,
		`{"a":"\x"}`, `{"a":"\u12"}`, `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
	} {
		docs[d] = []byte(d)
	}
	lines, fast := goldenLines(t), 0
	for i, l := range lines {
		docs[fmt.Sprintf("golden receipt line %d", i)] = l
		if _, ok := fastDecode(l); ok {
			fast++
		}
	}
	// Receipt lines are what decodeDoc is for on the hot path: nearly all
	// must take the fast one (a line with an escaped string does not).
	if len(lines) < 300 || fast < len(lines)*9/10 {
		t.Errorf("%d of %d golden receipt lines decoded without encoding/json", fast, len(lines))
	}
	for name, b := range docs {
		got, gotErr := decodeDoc(b)
		want, wantErr := stdDecode(b)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Errorf("%.60q: error %v, encoding/json says %v", name, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%.60q: %#v, encoding/json says %#v", name, got, want)
		}
	}
}

// goldenLines returns every line of the golden receipts.
func goldenLines(t *testing.T) [][]byte {
	t.Helper()
	var lines [][]byte
	err := filepath.WalkDir("../../golden", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".receipt.ndjson") {
			return err
		}
		b, err := os.ReadFile(p)
		for _, l := range bytes.Split(b, []byte("\n")) {
			if len(l) > 0 {
				lines = append(lines, l)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// FuzzDecodeDoc: whatever the document, decodeDoc returns what
// encoding/json with UseNumber returns.
func FuzzDecodeDoc(f *testing.F) {
	f.Add([]byte(`{"a":[1,-0.5e+3,true,null,{"b":"c\u00e9"}]}`))
	f.Add([]byte(`{"a":01}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gotErr := decodeDoc(b)
		want, wantErr := stdDecode(b)
		if (gotErr == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: %#v %v, encoding/json says %#v %v", b, got, gotErr, want, wantErr)
		}
	})
}

// BenchmarkDecodeDoc: the embedded schemas a convert.summary line needs,
// decoded by decodeDoc and by encoding/json.
func BenchmarkDecodeDoc(b *testing.B) {
	var docs [][]byte
	for _, p := range []string{"receipt.schema.json", "defs.schema.json", "events/convert.summary.schema.json"} {
		d, err := fs.ReadFile(schemas.FS, p)
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, d)
	}
	for _, bc := range []struct {
		name string
		fn   func([]byte) (any, error)
	}{{"decodeDoc", decodeDoc}, {"encoding_json", stdDecode}} {
		b.Run(bc.name, func(b *testing.B) {
			for range b.N {
				for _, d := range docs {
					if _, err := bc.fn(d); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
