package prepare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/otlp"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/schemas"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

const schemaBase = "https://schemas.contextreceipts.dev/convert/v1/"

type schemaSet struct {
	context, receipt, effort *jsonschema.Schema
	vocab                    map[string]bool
}

var (
	schemaOnce sync.Once
	loaded     *schemaSet
	loadErr    error
)

// loadSchemas compiles the embedded prepare schemas once.
func loadSchemas() (*schemaSet, error) {
	schemaOnce.Do(func() {
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		s := &schemaSet{vocab: map[string]bool{}}
		files, err := fs.Glob(schemas.FS, "prepare/*.schema.json")
		if err != nil || len(files) == 0 {
			loadErr = errors.New("prepare schemas missing")
			return
		}
		for _, f := range files {
			b, _ := fs.ReadFile(schemas.FS, f)
			var doc any
			if err := json.Unmarshal(b, &doc); err != nil {
				loadErr = fmt.Errorf("schemas/%s: %w", f, err)
				return
			}
			vocab(doc, s.vocab)
			if err := c.AddResource(schemaBase+f, bytes.NewReader(b)); err != nil {
				loadErr = fmt.Errorf("schemas/%s: %w", f, err)
				return
			}
		}
		programVocab(s.vocab)
		if s.context, loadErr = c.Compile(schemaBase + "prepare/prepared-context.schema.json"); loadErr != nil {
			return
		}
		if s.receipt, loadErr = c.Compile(schemaBase + "prepare/receipt.schema.json"); loadErr != nil {
			return
		}
		s.effort, loadErr = c.Compile(schemaBase + "prepare/recall-effort.schema.json")
		loaded = s
	})
	return loaded, loadErr
}

// vocab gathers property names and const/enum strings of a schema.
func vocab(v any, out map[string]bool) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			if k == "properties" {
				if m, ok := e.(map[string]any); ok {
					for name := range m {
						out[name] = true
					}
				}
			}
			if s, ok := e.(string); ok && k == "const" {
				out[s] = true
			}
			if l, ok := e.([]any); ok && k == "enum" {
				for _, x := range l {
					if s, ok := x.(string); ok {
						out[s] = true
					}
				}
			}
			vocab(e, out)
		}
	case []any:
		for _, e := range t {
			vocab(e, out)
		}
	}
}

// programVocab adds every constant prepare writes outside its schemas: the
// built-in reranker's configuration, the schema and default policy ids, the
// hash modes, and the trace's field names, span, event and attribute names
// (gathered from a trace of a synthetic result, keys and names only, never
// values). A query that quotes them is not leaked by an output holding them.
func programVocab(out map[string]bool) {
	for _, s := range []string{LexicalPolicyID, LexicalAlgorithm, GatePolicyID, EffortSchema, ContextSchema, ReceiptSchema, "hmac-sha256", "sha256"} {
		out[s] = true
	}
	keyed, _ := receipt.NewKeyed([]byte("vocabulary-only-never-used-key"))
	res := Result{Effort: &RecallEffort{}, Searches: []SearchGroup{{}}, Context: PreparedContext{Status: StatusReady}, Hash: keyed}
	for name := range stageOrder {
		res.Stages = append(res.Stages, StageTiming{Stage: name})
	}
	var b bytes.Buffer
	if otlp.Write(&b, Trace(res, Request{})) != nil {
		return
	}
	var doc any
	if json.Unmarshal(b.Bytes(), &doc) != nil {
		return
	}
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				out[k] = true
				if s, ok := e.(string); ok && (k == "key" || k == "name" || k == "schemaUrl") {
					out[s] = true
				}
				walk(e)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(doc)
}

// Kind names which prepare schema a document is checked against.
type Kind int

// Document kinds.
const (
	KindContext Kind = iota // a PreparedContext (with or without receipt)
	KindReceipt             // a bare Receipt
	KindEffort              // a RecallEffort
)

// Validate checks a JSON document against its prepare schema.
func Validate(doc []byte, k Kind) error {
	s, err := loadSchemas()
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return errors.New("not JSON")
	}
	sch := map[Kind]*jsonschema.Schema{KindContext: s.context, KindReceipt: s.receipt, KindEffort: s.effort}[k]
	if err := sch.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return fmt.Errorf("schema: %s", leaf(ve))
		}
		return err
	}
	return nil
}

// leaf names the first deepest failing location (content-free: locations
// and schema messages only, never instance values).
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

// LeakCheck checks every output document (receipt JSON, trace JSON,
// diagnostics) against the raw strings: the query and every artifact body.
// Identity tokens (scope, artifact, entry ids, fingerprints, paths) are
// pass-through. It returns the findings; none means no leak.
func LeakCheck(outputs map[string][]byte, query string, bodies, pass []string) ([]leak.Finding, error) {
	s, err := loadSchemas()
	if err != nil {
		return nil, err
	}
	o := leak.NewOutputs(s.vocab)
	for name, doc := range outputs {
		var v any
		if json.Unmarshal(doc, &v) == nil {
			addStrings(o, v, name)
		} else {
			for i, l := range strings.Split(string(doc), "\n") {
				o.Add(l, fmt.Sprintf("%s line %d", name, i+1))
			}
		}
	}
	c := o.NewChecker()
	for _, p := range pass {
		c.Pass(p)
	}
	c.Raw(query, 1)
	c.Raw(NormalizeQuery(query), 1)
	for i, b := range bodies {
		c.Raw(b, i+1)
	}
	return c.Findings(), nil
}

// derived are fields whose values the runtime makes itself (trace and span
// ids from digests, unix-nanosecond times from the clock): they cannot carry
// the query or a body, and a query of digits must not collide with them.
var derived = map[string]bool{
	"traceId": true, "spanId": true, "parentSpanId": true,
	"timeUnixNano": true, "startTimeUnixNano": true, "endTimeUnixNano": true,
}

func addStrings(o *leak.Outputs, v any, where string) {
	switch t := v.(type) {
	case string:
		o.Add(t, where)
	case map[string]any:
		for k, e := range t {
			o.Add(k, where)
			if !derived[k] {
				addStrings(o, e, where)
			}
		}
	case []any:
		for _, e := range t {
			addStrings(o, e, where)
		}
	}
}

// PassThrough lists the identity values of a receipt (copied in clear) and
// its generated id.
func PassThrough(r *Receipt) []string {
	if r == nil {
		return nil
	}
	out := []string{r.ReceiptID} // generated by the id source, not taken from input
	for _, s := range r.Selected {
		if a := s.ArtifactAddress; a != nil {
			out = append(out, a.ScopeID, a.ArtifactID, s.EntryID, s.EntryVersionID)
		}
		if c := s.CodeEvidence; c != nil {
			out = append(out, c.ScopeID, c.Fingerprint, c.Path)
		}
	}
	return out
}

// Trace builds the OTLP trace of one prepare: a root span context.prepare
// with one event per stage and per recall round, counts only.
func Trace(res Result, req Request) otlp.Trace {
	key := res.QueryDigest
	if res.Context.Receipt != nil {
		key = res.Context.Receipt.ReceiptID
	}
	tid := otlp.NewTraceID("prepare", key, res.Start.UTC().String())
	sp := otlp.Span{TraceID: tid, SpanID: otlp.NewSpanID(tid, "context.prepare"), Name: "context.prepare", Kind: otlp.KindInternal,
		Start: res.Start.UnixNano(), End: res.End.UnixNano()}
	sp.Attrs.Set("context.prepare.status", receipt.S(res.Context.Status))
	sp.Attrs.Set("context.prepare.content_bytes", receipt.I(int64(res.Context.ContentBytes)))
	sp.Attrs.Set("context.prepare.max_bytes", receipt.I(int64(res.MaxBytes)))
	sp.Attrs.Set("context.prepare.query_digest", receipt.S(res.QueryDigest))
	sp.Attrs.Set("context.prepare.receipt", receipt.B(res.Context.Receipt != nil))
	sp.Attrs.Set("context.prepare.hash.mode", receipt.S(res.Hash.Mode()))
	if id := res.Hash.KeyID(); id != "" {
		sp.Attrs.Set("context.prepare.hash.key_id", receipt.S(id))
	}
	if res.Effort != nil {
		sp.Attrs.Set("recall.policy", receipt.S(res.Effort.Policy))
		sp.Attrs.Set("recall.rounds", receipt.I(int64(res.Effort.Rounds)))
		sp.Attrs.Set("recall.assessment", receipt.S(res.Effort.Assessment))
		sp.Attrs.Set("recall.truncated_items", receipt.I(int64(res.Effort.TruncatedItems)))
		sp.Attrs.Set("recall.dropped_items", receipt.I(int64(res.Effort.DroppedItems)))
	}
	t := res.Start.UnixNano()
	for _, st := range res.Stages {
		var a receipt.Attrs
		a.Set("stage.count", receipt.I(int64(st.Count)))
		a.Set("stage.duration_ms", receipt.I(st.DurationMS))
		sp.Events = append(sp.Events, otlp.Event{Name: "context.prepare.stage." + st.Stage, Time: t, Attrs: a})
	}
	for _, g := range res.Searches {
		var a receipt.Attrs
		a.Set("recall.round", receipt.I(int64(g.Round)))
		a.Set("recall.family", receipt.S(g.Family))
		a.Set("recall.mode", receipt.S(g.Mode))
		a.Set("recall.outcome", receipt.S(g.Outcome))
		a.Set("recall.fallback_reason", receipt.S(g.FallbackReason))
		a.Set("recall.count", receipt.I(int64(g.Count)))
		sp.Events = append(sp.Events, otlp.Event{Name: "context.prepare.search", Time: t, Attrs: a})
	}
	var res0 receipt.Attrs
	res0.Set("service.name", receipt.S("convert"))
	return otlp.Trace{Resource: res0, ScopeName: "convert/prepare", ScopeVersion: "v1", Spans: []otlp.Span{sp}}
}

// ArtifactBodies reads the raw strings of an artifacts JSONL stream (every
// body; every other field is an identity) and the identity values, which
// pass through.
func ArtifactBodies(data []byte, name string) (bodies, pass []string, err error) {
	for n, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec record
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: not an artifact record: %s", name, n+1, jsonErr(err))
		}
		if rec.Body != nil {
			bodies = append(bodies, *rec.Body)
		}
		for _, e := range rec.Entries {
			bodies = append(bodies, e.Body)
			pass = append(pass, e.EntryID, e.EntryVersionID)
		}
		pass = append(pass, rec.ScopeID, rec.ArtifactID, rec.Fingerprint, rec.Path, rec.Caller)
	}
	return bodies, pass, nil
}

// CheckedPart returns what of an output file the leak check covers: the
// receipt of a PreparedContext (its content is the injection, raw by
// design), or the whole document otherwise.
func CheckedPart(doc []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(doc, &m) == nil {
		if s, ok := m["schema"]; ok && string(s) == `"`+ContextSchema+`"` {
			if r, ok := m["receipt"]; ok {
				return r
			}
			return []byte("{}")
		}
	}
	return doc
}
