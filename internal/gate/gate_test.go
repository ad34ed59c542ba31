package gate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestWhereString(t *testing.T) {
	tests := []struct {
		w    Where
		want string
	}{
		{Where{Kind: Line, File: "basic.receipt.ndjson", Index: 3}, "basic.receipt.ndjson line 3"},
		{Where{Kind: Trace, File: "basic.otel.json"}, "basic.otel.json"},
		{Where{Kind: Document, File: "recall effort"}, "recall effort"},
		{Where{Kind: Stderr, Index: 2}, "stderr message 2"},
		{Where{Kind: Message, Index: 1}, "error message 1"},
	}
	for _, tt := range tests {
		if got := tt.w.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.w, got, tt.want)
		}
	}
}

// TestFindingsAreTyped: each finding carries the Where its string was added
// with, whatever the kind, and an output the program's words make up is none.
func TestFindingsAreTyped(t *testing.T) {
	const raw = "CANARY-prompt-7c1f secret words of the user"
	tests := []struct {
		name string
		add  func(o *Outputs)
		want []Where
	}{
		{"receipt line", func(o *Outputs) {
			o.AddJSON(gjson.Parse(`{"name":"convert.summary"}`), Where{Kind: Line, File: "r.receipt.ndjson", Index: 1}, DerivedFields)
			o.AddJSON(gjson.Parse(`{"x":"`+raw+`"}`), Where{Kind: Line, File: "r.receipt.ndjson", Index: 2}, DerivedFields)
		}, []Where{{Kind: Line, File: "r.receipt.ndjson", Index: 2}}},
		{"stderr message", func(o *Outputs) {
			o.AddMessage("skipped line: malformed_json", Where{Kind: Stderr, Index: 1})
			o.AddMessage("skipped line: "+raw, Where{Kind: Stderr, Index: 2})
		}, []Where{{Kind: Stderr, Index: 2}}},
		{"document as text lines", func(o *Outputs) {
			o.AddDocument("diagnostic", []byte("receipt omitted\n"+raw))
		}, []Where{{Kind: Line, File: "diagnostic", Index: 2}}},
		{"derived fields are not indexed", func(o *Outputs) {
			o.AddDocument("trace", []byte(`{"traceId":"`+raw+`","name":"context.prepare.stage.recall"}`))
		}, nil},
		{"a counted list's name is checked", func(o *Outputs) {
			o.AddJSON(gjson.Parse(`{"convert.input.record_types":["assistant=124749","`+raw+`=3"]}`), Where{Kind: Line, File: "r.receipt.ndjson", Index: 1}, DerivedFields)
		}, []Where{{Kind: Line, File: "r.receipt.ndjson", Index: 1}}},
		{"a counted list's count is ours", func(o *Outputs) {
			o.AddJSON(gjson.Parse(`{"convert.input.record_types":["assistant=124749","user=1"]}`), Where{Kind: Line, File: "r.receipt.ndjson", Index: 1}, DerivedFields)
		}, nil},
		{"nothing raw", func(o *Outputs) {
			o.AddMessage("record rejected", Where{Kind: Message, Index: 1})
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := NewOutputs()
			tt.add(o)
			c := o.Check(nil)
			c.Raw(raw, 7)
			got := c.Findings()
			if len(got) != len(tt.want) {
				t.Fatalf("findings %+v, want in %v", got, tt.want)
			}
			for i, f := range got {
				if f.Where != tt.want[i] || f.Line != 7 {
					t.Errorf("finding %d: %+v, want in %v from line 7", i, f, tt.want[i])
				}
			}
		})
	}
}

func TestErrors(t *testing.T) {
	f := []Finding{{Where: Where{Kind: Stderr, Index: 1}, Line: 4, What: "raw input run of 20 bytes"}, {What: "x"}}
	tests := []struct {
		err  error
		want string
	}{
		{&LeakError{Path: "in.jsonl", Findings: f}, "in.jsonl: leak check failed, nothing written: raw input run of 20 bytes in stderr message 1 (from input line 4) and 1 more"},
		{&LeakError{Findings: f[:1]}, "leak check failed, nothing written: raw input run of 20 bytes in stderr message 1 (from input line 4)"},
		{&SchemaError{Path: "x.receipt.ndjson", Line: 2, Msg: "/a: bad"}, "x.receipt.ndjson:2: schema: /a: bad"},
		{&SchemaError{Path: "trace", Msg: "bad"}, "trace: schema: bad"},
		{&SchemaError{Msg: "/ (#/required)"}, "schema: / (#/required)"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%q, want %q", got, tt.want)
		}
	}
}

const (
	context_ = `{"schema":"powercontext.prepared-context.v1","status":"empty","content":null,"content_bytes":0}`
	effort   = `{"schema":"powercontext.recall-effort.v1"}`
)

func TestValidateDocument(t *testing.T) {
	tests := []struct {
		name, doc string
		ok        bool
	}{
		{"a PreparedContext", context_, true},
		{"receipt null breaks it", `{"schema":"powercontext.prepared-context.v1","status":"ready","content":"x","content_bytes":1,"receipt":null}`, false},
		{"an incomplete RecallEffort", effort, false},
		{"no known schema", `{"schema":"other"}`, false},
		{"not JSON", `{`, false},
	}
	for _, tt := range tests {
		err := ValidateDocument([]byte(tt.doc))
		if (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.name, err)
		}
		var se *SchemaError
		if err != nil && tt.name != "not JSON" && !errors.As(err, &se) {
			t.Errorf("%s: %T, want a *SchemaError", tt.name, err)
		}
	}
}

// TestValidateFileKnowsDocuments: a prepare document is validated against
// its own schema by its schema field, as a .json file or a line.
func TestValidateFileKnowsDocuments(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		file, body string
		problems   int
		prefix     string // of each problem, after the path
	}{
		{"ctx.json", context_ + "\n", 0, ""},
		{"effort.json", effort, 1, ":1: schema: "},
		{"ctx.ndjson", context_ + "\n", 0, ""},
		{"bad.ndjson", effort + "\n", 1, ":1: schema: "},
		{"trace.json", `{"resourceSpans":[]}`, 1, ": resourceSpans"}, // no schema field: OTLP
	}
	for _, tt := range tests {
		p := filepath.Join(dir, tt.file)
		if err := os.WriteFile(p, []byte(tt.body), 0o644); err != nil {
			t.Fatal(err)
		}
		probs, err := ValidateFile(p)
		if err != nil || len(probs) != tt.problems {
			t.Errorf("%s: %v %v, want %d problems", tt.file, probs, err, tt.problems)
		}
		for _, pr := range probs {
			if !strings.HasPrefix(pr, p+tt.prefix) {
				t.Errorf("%s: %q, want it to start %q", tt.file, pr, tt.prefix)
			}
		}
	}
}

func TestCheckedPart(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`{"schema":"powercontext.prepared-context.v1","content":"body","receipt":{"a":1}}`, `{"a":1}`},
		{`{"schema":"powercontext.prepared-context.v1","content":"body"}`, `{}`},
		{`{"schema":"powercontext.recall-effort.v1","policy":"p"}`, `{"schema":"powercontext.recall-effort.v1","policy":"p"}`},
		{`not json`, `not json`},
	}
	for _, tt := range tests {
		if got := string(CheckedPart([]byte(tt.doc))); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.doc, got, tt.want)
		}
	}
}

// TestPreparedContextID: the id CheckedPart and prepare use is the one the
// schema file declares, and every document schema compiles (each is
// compiled on its first use; this test uses them all).
func TestPreparedContextID(t *testing.T) {
	d, err := documentSchemas()
	if err != nil {
		t.Fatal(err)
	}
	if !d.has(PreparedContext) || len(d.files) != 3 {
		t.Fatalf("document schemas %v", d.files)
	}
	for id := range d.files {
		if s, err := d.schema(id); s == nil || err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}

// TestDocumentSchemasMeetTheMetaSchema: the prepare schemas, compiled
// without the meta-schema check at run time, pass it (a schema the
// meta-schema rejects, such as a negative minLength, fails here).
func TestDocumentSchemasMeetTheMetaSchema(t *testing.T) {
	d, err := loadDocs(false)
	if err != nil {
		t.Fatal(err)
	}
	for id := range d.files {
		if _, err := d.schema(id); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}

// A count of six digits or more in a counted list leaves no string untyped
// (so the input is not read again); under any other key it does.
func TestCountedListIsTyped(t *testing.T) {
	for key, untyped := range map[string]int{"convert.input.record_types": 0, "convert.input.agent_versions": 1} {
		o := NewOutputs()
		o.AddJSON(gjson.Parse(`{"`+key+`":["assistant=124749","user=12"]}`), Where{Kind: Line, File: "r.receipt.ndjson", Index: 1}, DerivedFields)
		if got := o.Check(nil).Untyped(); len(got) != untyped {
			t.Errorf("%s: untyped %q, want %d", key, got, untyped)
		}
	}
}
