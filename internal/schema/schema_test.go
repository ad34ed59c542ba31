package schema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/jsonschema"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/schemas"
)

func TestSchemasCompileAndValidate(t *testing.T) {
	s, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	ok := `{"trace_id":"0123456789abcdef0123456789abcdef","span_id":"0123456789abcdef","name":"mcp.tool_call.completed","attributes":{"mcp.server.name_hash":"sha256:` + strings.Repeat("a", 64) + `","mcp.tool.name_hash":"sha256:` + strings.Repeat("b", 64) + `","mcp.tool_call.status":"success"},"schema":"convert.receipt.v1","converter":"mcp_tool_search","source_line":4}`
	if err := s.ValidateLine([]byte(ok)); err != nil {
		t.Fatalf("valid line rejected: %v", err)
	}
	bad := map[string]string{
		"unknown attribute":  strings.Replace(ok, `"mcp.tool_call.status"`, `"mcp.tool_call.raw_args"`, 1),
		"truncated digest":   strings.Replace(ok, strings.Repeat("a", 64), strings.Repeat("a", 12), 1),
		"unknown event":      strings.Replace(ok, `"name":"mcp.tool_call.completed"`, `"name":"no.such.event"`, 1),
		"bad trace id":       strings.Replace(ok, "0123456789abcdef0123456789abcdef", "demo-trace", 1),
		"extra envelope key": strings.Replace(ok, `"source_line":4`, `"source_line":4,"raw":"x"`, 1),
		"missing required":   strings.Replace(ok, `"mcp.tool.name_hash"`, `"mcp.tool_call.arguments_hash"`, 1),
		"trailing data":      ok + "{}",
	}
	for name, line := range bad {
		if err := s.ValidateLine([]byte(line)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestBucketEnumsMatchLadders keeps defs.schema.json and the Go ladders in
// step: the schema's bucket enum is exactly what the code can write.
func TestBucketEnumsMatchLadders(t *testing.T) {
	raw, err := schemas.FS.ReadFile("defs.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var defs struct {
		Defs map[string]struct {
			Enum []string `json:"enum"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &defs); err != nil {
		t.Fatal(err)
	}
	names := map[string]string{"count": "count_bucket", "tokens": "token_bucket", "bytes": "byte_bucket", "latency_ms": "latency_bucket"}
	for _, l := range receipt.Ladders() {
		want := append([]string{"invalid", "0"}, l.Labels...)
		got := defs.Defs[names[l.Name]].Enum
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("ladder %s: schema enum %v, code writes %v", l.Name, got, want)
		}
	}
}

func TestVocabulary(t *testing.T) {
	v, err := Vocabulary()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"context.input.loaded", "mcp.tool_search.query_hash", "suppress_equal_dedupe_key_within_scope", "convert.summary"} {
		if !v[w] {
			t.Errorf("vocabulary lacks %q", w)
		}
	}
}

// TestSortLists: names listed in a message come out sorted, whatever they
// hold: quotes, backslashes, ", " (a fuzz finding: a key with a quote
// left the list unsorted, so the message changed between runs).
func TestSortLists(t *testing.T) {
	cases := []struct{ in, want string }{
		{`additionalProperties 'b', 'a' not allowed`, `additionalProperties 'a', 'b' not allowed`},
		{`additionalProperties '', 's\'1', '07' not allowed`, `additionalProperties '', '07', 's\'1' not allowed`},
		{`additionalProperties 'z', 'a\', \'b' not allowed`, `additionalProperties 'a\', \'b', 'z' not allowed`},
		{`missing properties: 'y\\', 'x'`, `missing properties: 'x', 'y\\'`},
		{`value must be 'x'`, `value must be 'x'`},
		// jsonschema's quote of a name ending in a backslash drops one:
		// con\\\ (three) is written 'con\\\\\' (five).
		{`additionalProperties 'con\\\\\', '', 'e_', 'sp_i' not allowed`, `additionalProperties '', 'con\\\\\', 'e_', 'sp_i' not allowed`},
		{`missing properties: 'x', 'a\'`, `missing properties: 'a\', 'x'`},
	}
	for _, c := range cases {
		if got := sortLists(c.in); got != c.want {
			t.Errorf("sortLists(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// internal/jsonschema compiles the drafts' meta-schemas on first use
// instead of in init: they must still be there, and still be applied, when
// a schema is compiled (before any other use, as in a fresh process).
func TestMetaSchemasStillApplied(t *testing.T) {
	for _, tc := range []struct {
		schema string
		ok     bool
	}{
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"string","minLength":1}`, true},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":5}`, false},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema","minLength":-1}`, false},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","required":"a"}`, false},
		{`{"type":"object","properties":{"a":{"pattern":7}}}`, false}, // the compiler's Draft (2020-12)
	} {
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		if err := c.AddResource("mem://s.json", strings.NewReader(tc.schema)); err != nil {
			t.Fatal(err)
		}
		_, err := c.Compile("mem://s.json")
		if (err == nil) != tc.ok {
			t.Errorf("%s: compile error %v, want ok=%v", tc.schema, err, tc.ok)
		}
	}
	// The meta-schema itself, by its URL.
	if _, err := jsonschema.NewCompiler().Compile("https://json-schema.org/draft/2020-12/schema"); err != nil {
		t.Errorf("draft 2020-12 meta-schema: %v", err)
	}
}
