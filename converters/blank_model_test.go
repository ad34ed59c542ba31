package converters_test

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
)

// TestModelWithBlanks: a model name with blanks around it (" gpt-5.5") is
// written as read: its digest, since the catalog knows no such name. The
// readers that trimmed it wrote "gpt-5.5", a string that is no input
// value (the fuzz check: "output strings have no provenance"; found by
// the models4 hunt in Antigravity, then in Goose, Hermes and Amp).
func TestModelWithBlanks(t *testing.T) {
	for _, tc := range []struct{ conv, sample, key string }{
		{"antigravity", "samples/antigravity/basic.jsonl", "model"},
		{"goose", "samples/goose/basic.jsonl", "model_name"},
		{"hermes", "samples/hermes/basic.jsonl", "model"},
		{"amp", "samples/amp/basic/threads/T-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.json", "model"},
	} {
		t.Run(tc.conv, func(t *testing.T) {
			conv, ok := converters.Lookup(tc.conv)
			if !ok {
				t.Fatalf("no converter %s", tc.conv)
			}
			b, err := os.ReadFile("../" + tc.sample)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(tc.sample, ".jsonl") { // a document: the one line the pipeline reads
				var line bytes.Buffer
				if err := json.Compact(&line, b); err != nil {
					t.Fatal(err)
				}
				b = append(line.Bytes(), '\n')
			}
			re := regexp.MustCompile(`"` + tc.key + `":"[^"]*"`)
			b = re.ReplaceAll(b, []byte(`"`+tc.key+`":" gpt-5.5 "`))
			if !bytes.Contains(b, []byte(`" gpt-5.5 "`)) {
				t.Fatalf("%s holds no %q to change", tc.sample, tc.key)
			}
			c := convtest.FuzzCase{Conv: conv, Files: pipeline.Files{"in.jsonl": b}, In: pipeline.Input{Path: "in.jsonl", Rel: "in.jsonl"}}
			convtest.Check(t, c, b)
			res := c.Convert(false)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if bytes.Contains(res.Receipt, []byte(`"gpt-5.5"`)) || bytes.Contains(res.Trace, []byte(`"gpt-5.5"`)) {
				t.Error("the trimmed model name was written")
			}
		})
	}
}
