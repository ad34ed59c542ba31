package otlp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testlines"
)

// sameIndent fails t when indent and json.Indent lay out the compact form
// of doc differently.
func sameIndent(t *testing.T, doc []byte) {
	t.Helper()
	var compact bytes.Buffer
	if json.Compact(&compact, doc) != nil {
		return
	}
	compact.WriteByte('\n') // the writer ends its document with one
	var want bytes.Buffer
	if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	if got := indent(nil, compact.Bytes()); !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("indent(%.120q)\n%.300q\njson.Indent\n%.300q", compact.Bytes(), got, want.Bytes())
	}
}

// TestIndentIsJSONIndent: on every golden trace and receipt line, and on
// shapes the goldens may lack (empty objects and arrays, escapes, nesting),
// indent writes exactly json.Indent's bytes.
func TestIndentIsJSONIndent(t *testing.T) {
	for _, doc := range []string{
		`{}`, `[]`, `{"a":{},"b":[],"c":[{}],"d":[[]]}`, `{"k\"}":"v\\\\","n":[1,-2.5e3,true,null,"]["]}`,
		`"x"`, `12`, `[{"a":[{"b":{"c":"\u00e9\"{"}}]}]`,
	} {
		sameIndent(t, []byte(doc))
	}
	traces := 0
	for _, d := range testlines.Files(t, "../../golden") {
		if strings.HasSuffix(d.Path, ".otel.jsonl") {
			traces++ // a compact TracesData a line, as indent's input is
		}
		for _, l := range bytes.Split(d.Data, []byte{'\n'}) {
			sameIndent(t, l)
		}
	}
	if traces < 30 {
		t.Fatalf("only %d golden traces", traces)
	}
}

func FuzzIndent(f *testing.F) {
	f.Add([]byte(`{"resourceSpans":[{"resource":{"attributes":[]},"scopeSpans":[{"spans":[{"name":"a\"b"}]}]}]}`))
	f.Add([]byte(`[[],{},[{"":""}]]`))
	f.Fuzz(func(t *testing.T, doc []byte) { sameIndent(t, doc) })
}
