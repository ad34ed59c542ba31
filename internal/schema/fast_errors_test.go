package schema

import (
	"strings"
	"testing"
)

// The fast compiler's refusals name the keyword and what is wrong with it,
// one wording per keyword shape; a schema it refuses is left to jsonschema.
func TestFastCompilerErrors(t *testing.T) {
	for _, tc := range []struct{ kw, want string }{
		{`"type":["string",1]`, `type: 1`},
		{`"type":"text"`, `type: type "text"`},
		{`"type":7`, `type: type: 7`},
		{`"required":"a"`, `required is not an array`},
		{`"required":["a",2]`, `required: 2`},
		{`"properties":[]`, `properties is not an object`},
		{`"properties":{"a":{"type":"text"}}`, `properties/a: type: type "text"`},
		{`"$ref":3`, `$ref is not a string`},
		{`"$ref":"%zz"`, `$ref "%zz"`},
	} {
		fc := newFastCompiler(nil)
		fc.docs[base+"x.schema.json"] = decodeAny(t, `{`+tc.kw+`}`)
		_, err := fc.compileURL(base + "x.schema.json")
		if err == nil {
			t.Errorf("%s: compiled", tc.kw)
			continue
		}
		if got := err.Error(); !strings.HasSuffix(got, tc.want) {
			t.Errorf("%s: error %q, want it to end in %q", tc.kw, got, tc.want)
		}
	}
}
