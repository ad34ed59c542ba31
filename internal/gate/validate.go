package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/internal/jsonl"
	"github.com/contextreceipts/convert/internal/jsonschema"
	"github.com/contextreceipts/convert/internal/otlp"
	"github.com/contextreceipts/convert/internal/schema"
	"github.com/contextreceipts/convert/schemas"
	"github.com/tidwall/gjson"
)

// PreparedContext is the schema id of a PreparedContext document.
const PreparedContext = "powercontext.prepared-context.v1"

const schemaBase = "https://schemas.contextreceipts.dev/convert/v1/"

var (
	docOnce sync.Once
	docs    *docSet
	docErr  error
)

// docSet is the embedded prepare schemas, each compiled on its first use:
// a process validates one or two kinds of document (a prepare without the
// gate never writes a RecallEffort), and compiling a schema, its check
// against the meta-schema included, is most of a prepare's fixed cost.
type docSet struct {
	mu    sync.Mutex
	c     *jsonschema.Compiler
	files map[string]string             // schema id (the documents' "schema" const) -> file
	done  map[string]*jsonschema.Schema // compiled so far
}

// documentSchemas reads the embedded prepare schemas once, each under the
// id its documents carry in their "schema" field. They are compiled
// without their check against the draft 2020-12 meta-schema: they are
// part of the binary, and that check, four fifths of compiling them, is
// run by TestDocumentSchemasMeetTheMetaSchema instead of by every process.
func documentSchemas() (*docSet, error) {
	docOnce.Do(func() { docs, docErr = loadDocs(true) })
	return docs, docErr
}

func loadDocs(skipMeta bool) (*docSet, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.SkipMetaValidation = skipMeta
	files, err := fs.Glob(schemas.FS, "prepare/*.schema.json")
	if err != nil || len(files) == 0 {
		return nil, errors.New("prepare schemas missing")
	}
	ids := map[string]string{}
	for _, f := range files {
		b, _ := fs.ReadFile(schemas.FS, f)
		if !json.Valid(b) {
			return nil, fmt.Errorf("schemas/%s: not JSON", f)
		}
		id := gjson.GetBytes(b, "properties.schema.const").Str
		if id == "" {
			return nil, fmt.Errorf("schemas/%s: no schema const", f)
		}
		ids[id] = f
		if err := c.AddResource(schemaBase+f, bytes.NewReader(b)); err != nil {
			return nil, fmt.Errorf("schemas/%s: %w", f, err)
		}
	}
	return &docSet{c: c, files: ids, done: map[string]*jsonschema.Schema{}}, nil
}

// has reports whether id names a prepare document schema.
func (d *docSet) has(id string) bool { return d.files[id] != "" }

// schema returns id's schema, compiling it on first use (nil for an
// unknown id).
func (d *docSet) schema(id string) (*jsonschema.Schema, error) {
	f := d.files[id]
	if f == "" {
		return nil, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if s := d.done[id]; s != nil {
		return s, nil
	}
	s, err := d.c.Compile(schemaBase + f)
	if err != nil {
		return nil, fmt.Errorf("schemas/%s: %w", f, err)
	}
	d.done[id] = s
	return s, nil
}

// SchemaOf returns the "schema" field of a JSON object document ("" when
// it has none).
func SchemaOf(doc []byte) string {
	v := gjson.GetBytes(doc, "schema")
	if v.Type != gjson.String || !gjson.ValidBytes(doc) {
		return ""
	}
	return v.Str
}

// IsDocument reports whether doc names a schema of the prepare documents
// (PreparedContext, its receipt, RecallEffort) in its "schema" field.
func IsDocument(doc []byte) bool {
	d, err := documentSchemas()
	return err == nil && d.has(SchemaOf(doc))
}

// ValidateDocument checks a prepare document against the schema its
// "schema" field names. A schema violation is a *SchemaError naming the
// first deepest failing location (content-free: locations and schema
// keywords, never instance values).
func ValidateDocument(doc []byte) error {
	d, err := documentSchemas()
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return errors.New("not JSON")
	}
	sch, err := d.schema(SchemaOf(doc))
	if err != nil {
		return err
	}
	if sch == nil {
		return &SchemaError{Msg: "/schema names no known document"}
	}
	if err := sch.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return &SchemaError{Msg: leaf(ve)}
		}
		return err
	}
	return nil
}

func leaf(e *jsonschema.ValidationError) string {
	for len(e.Causes) > 0 {
		e = e.Causes[0]
	}
	loc := e.InstanceLocation
	if loc == "" {
		loc = "/"
	}
	return loc + " (" + e.KeywordLocation + ")"
}

// ValidateLine checks one receipt line against the receipt schemas.
func ValidateLine(line []byte) error {
	set, err := schema.Load()
	if err != nil {
		return err
	}
	return set.ValidateLine(line)
}

// ErrNotOutput is ValidateFile's answer for a file that is no output of
// convert at all (a package.json, a log): not a schema violation of one.
var ErrNotOutput = errors.New("not an output of convert")

// looksLike reports whether doc is a JSON object with a top-level member
// named one of keys (read with gjson: doc may be anything).
func looksLike(doc []byte, keys ...string) bool {
	r := gjson.ParseBytes(doc)
	if !r.IsObject() {
		return false
	}
	for _, k := range keys {
		if r.Get(gjson.Escape(k)).Exists() {
			return true
		}
	}
	return false
}

// ValidateFile checks a written output: *.otel.jsonl as OTLP file-exporter
// lines; *.json as a prepare document when its "schema" field names one,
// else against the OTLP/JSON rules; anything else as receipt NDJSON (a
// line that is a prepare document against its own schema). Each
// problem is returned as "path:line: message".
func ValidateFile(path string) ([]string, error) {
	if strings.HasSuffix(path, ".otel.jsonl") {
		out, _, err := validateLines(path, func(doc []byte) []string {
			var msgs []string
			for _, p := range otlp.Validate(doc) {
				msgs = append(msgs, p.Error())
			}
			return msgs
		})
		return out, err
	}
	if strings.HasSuffix(path, ".json") {
		doc, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, openError(err))
		}
		if IsDocument(doc) {
			if err := ValidateDocument(doc); err != nil {
				return []string{path + ":1: " + err.Error()}, nil
			}
			return nil, nil
		}
		if !looksLike(doc, "resourceSpans") {
			return nil, fmt.Errorf("%s: %w: a JSON document with neither resourceSpans (a trace) nor a prepare schema field", path, ErrNotOutput)
		}
		var out []string
		for _, p := range otlp.Validate(doc) {
			loc := path
			if p.Line > 0 {
				loc += ":" + strconv.Itoa(p.Line)
			}
			out = append(out, loc+": "+p.Error())
		}
		return out, nil
	}
	set, err := schema.Load()
	if err != nil {
		return nil, err
	}
	if first, ok := firstLine(path); ok && !IsDocument(first) && !looksLike(first, "trace_id", "schema", "converter") {
		return nil, fmt.Errorf("%s: %w: its first line is no receipt line (no trace_id, schema or converter) and no prepare document", path, ErrNotOutput)
	}
	out, lines, err := validateLines(path, func(doc []byte) []string {
		if IsDocument(doc) { // a prepare document saved as a line
			if err := ValidateDocument(doc); err != nil {
				return []string{err.Error()}
			}
			return nil
		}
		if err := set.ValidateLine(doc); err != nil {
			return []string{err.Error()}
		}
		return nil
	})
	if err == nil && lines == 0 {
		out = append(out, path+": no receipt lines")
	}
	return out, err
}

// firstLine is the first non-blank line of path, if it can be read (an
// unreadable file is validateLines' to report).
func firstLine(path string) ([]byte, bool) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer fh.Close()
	l, err := jsonl.NewReader(fh, 0).Next()
	if err != nil || l.TooLong {
		return nil, false
	}
	return l.Bytes, true
}

// validateLines runs check on every non-blank line of path and returns its
// problems as "path:line: message", and how many lines it checked.
func validateLines(path string, check func([]byte) []string) ([]string, int, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, openError(err))
	}
	defer fh.Close()
	var out []string
	n := 0
	r := jsonl.NewReader(fh, 0)
	for {
		l, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, n, nil
		}
		if err != nil {
			return out, n, fmt.Errorf("%s: %w", path, err)
		}
		n++
		if l.TooLong {
			out = append(out, fmt.Sprintf("%s:%d: line too long", path, l.N))
			continue
		}
		for _, p := range check(l.Bytes) {
			out = append(out, fmt.Sprintf("%s:%d: %s", path, l.N, p))
		}
	}
}
