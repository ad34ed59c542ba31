package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/contextreceipts/convert/schemas"
)

// oldValidateLine is ValidateLine as it was before the fast validators:
// decode, then jsonschema. The fast path must agree with it on every line,
// in verdict and in message.
func oldValidateLine(slow *slowSet, line []byte) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if dec.More() {
		return errors.New("trailing data after the JSON object")
	}
	return slow.validate(doc)
}

// corpusLines gathers candidate lines: every golden receipt line, every
// line of every bundled sample (inputs: nearly all rejected) and every
// string of the fuzz corpora.
func corpusLines(t testing.TB) (golden, other [][]byte) {
	root := filepath.Join("..", "..")
	read := func(p string, into *[][]byte) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				*into = append(*into, l)
			}
		}
	}
	walk := func(dir string, keep func(string) bool, into *[][]byte) {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && keep(p) {
				read(p, into)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	walk("golden", func(p string) bool { return strings.HasSuffix(p, ".receipt.ndjson") }, &golden)
	walk("samples", func(p string) bool { return strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".ndjson") }, &other)
	fuzz, _ := filepath.Glob(filepath.Join(root, "*", "*", "testdata", "fuzz", "*", "*"))
	more, _ := filepath.Glob(filepath.Join(root, "*", "testdata", "fuzz", "*", "*"))
	for _, p := range append(fuzz, more...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			for _, pre := range []string{"string(", "[]byte("} {
				if q, ok := strings.CutPrefix(l, pre); ok {
					if s, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
						other = append(other, []byte(s))
						for _, x := range strings.Split(s, "\n") {
							other = append(other, []byte(x))
						}
					}
				}
			}
		}
	}
	if len(golden) < 100 {
		t.Fatalf("only %d golden receipt lines found", len(golden))
	}
	return golden, other
}

func decode(t testing.TB, line []byte) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return m
}

// copyDoc deep-copies a decoded line so a mutation leaves the original.
func copyDoc(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = copyDoc(e)
		}
		return m
	case []any:
		l := make([]any, len(t))
		for i, e := range t {
			l[i] = copyDoc(e)
		}
		return l
	}
	return v
}

// values replace an attribute or envelope field in the mutants: every JSON
// type, the edges of the integer, digest, label and pattern rules.
var values = []any{nil, true, false, "", "x", "invalid", "0", "under_5", "Bad Value", "-x", "claude_code",
	"sha256:" + strings.Repeat("a", 64), "sha256:" + strings.Repeat("a", 63), "hmac-sha256:" + strings.Repeat("0", 64),
	"sha256:" + strings.Repeat("A", 64), strings.Repeat("a", 128), strings.Repeat("a", 129), "0123456789abcdef",
	"0123456789abcdef0123456789abcdef", "2026-05-01T10:00:00Z", "2026-05-01T10:00:00.1234567890Z", "é", "a\nb",
	json.Number("0"), json.Number("1"), json.Number("-1"), json.Number("1.5"), json.Number("1.0"), json.Number("1e2"),
	json.Number("-0"), json.Number("1e400"), json.Number("12345678901234567890123"),
	[]any{}, []any{"a"}, []any{"a", json.Number("1")}, []any{nil}, map[string]any{}, map[string]any{"a": "b"}}

// mutants derives near misses from one valid line: each field dropped or
// replaced by each of values, keys added, the event renamed to every other.
// The envelope is the same schema for every line: envelope fields are
// mutated only when envelope is set.
func mutants(doc map[string]any, events []string, envelope bool) []any {
	var out []any
	add := func(f func(m map[string]any)) {
		m := copyDoc(doc).(map[string]any)
		f(m)
		out = append(out, m)
	}
	for k := range doc {
		if !envelope {
			break
		}
		add(func(m map[string]any) { delete(m, k) })
		for _, v := range values {
			add(func(m map[string]any) { m[k] = v })
		}
	}
	add(func(m map[string]any) { m["extra"] = "x" })
	if attrs, ok := doc["attributes"].(map[string]any); ok {
		for k := range attrs {
			add(func(m map[string]any) { delete(m["attributes"].(map[string]any), k) })
			for _, v := range values {
				add(func(m map[string]any) { m["attributes"].(map[string]any)[k] = v })
			}
		}
		for _, k := range []string{"zz.unknown", "Bad Key", "a..b", "privacy.raw_content_recorded", "session.id"} {
			for _, v := range []any{"x", false, json.Number("3")} {
				add(func(m map[string]any) { m["attributes"].(map[string]any)[k] = v })
			}
		}
		for _, e := range events {
			add(func(m map[string]any) { m["name"] = e })
		}
	}
	return out
}

// TestDifferential proves the fast validators accept and reject exactly
// what jsonschema does: on every golden line, sample line and fuzz corpus
// string, through ValidateLine (verdict and message), and on tens of
// thousands of mutants of the golden lines.
func TestDifferential(t *testing.T) {
	s, err := newSet(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	slow, err := s.slowSchemas()
	if err != nil {
		t.Fatal(err)
	}
	events := s.Events()
	for _, name := range append([]string{""}, events...) {
		if n, err := s.validator(name); err != nil || n == nil {
			t.Errorf("schema %q is not compiled by the fast validator (%v): it would fall back to jsonschema", name, err)
		}
	}
	golden, other := corpusLines(t)
	accepted := 0
	for _, line := range append(append([][]byte(nil), golden...), other...) {
		got, want := s.ValidateLine(line), oldValidateLine(slow, line)
		if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
			t.Errorf("%.200s:\nfast path: %v\njsonschema: %v", line, got, want)
		}
		if want == nil {
			accepted++
		}
	}
	if accepted < len(golden) {
		t.Fatalf("only %d lines accepted, %d golden", accepted, len(golden))
	}

	// Mutants: one golden line per event and attribute-key shape.
	type shapeDoc struct {
		doc      map[string]any
		envelope bool
	}
	seen := map[string]bool{}
	var docs []shapeDoc
	for _, line := range golden {
		doc := decode(t, line)
		attrs, _ := doc["attributes"].(map[string]any)
		var keys []string
		for k := range attrs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		shape := fmt.Sprint(doc["name"], keys)
		if seen[shape] {
			continue
		}
		seen[shape] = true
		if testing.Short() && len(seen)%5 != 1 {
			continue // -short: a fifth of the shapes
		}
		docs = append(docs, shapeDoc{doc, len(seen) <= 8})
	}
	// GOMAXPROCS workers share the shapes, and share s and slow as a
	// run's workers share a Set: under -race this is also their
	// concurrency test. Each mutant is checked exactly once.
	var agreed, rejectedN atomic.Int64
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(docs); i = int(next.Add(1)) - 1 {
				for _, m := range mutants(docs[i].doc, events, docs[i].envelope) {
					fast := s.fastValid(m)
					werr := slow.validate(m)
					if fast != (werr == nil) {
						b, _ := json.Marshal(m)
						t.Errorf("fast says valid=%v, jsonschema says %v, on %.300s", fast, werr, b)
						continue
					}
					agreed.Add(1)
					if !fast {
						rejectedN.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	agree, rejected := int(agreed.Load()), int(rejectedN.Load())
	if rejected == 0 || rejected == agree {
		t.Fatalf("mutants not mixed: %d of %d rejected", rejected, agree)
	}
	t.Logf("%d corpus lines (%d golden) and %d mutants of %d shapes (%d rejected): all agree", len(golden)+len(other), len(golden), agree, len(seen), rejected)
}

// FuzzDifferential mutates golden lines freely: the fast path and
// jsonschema must give the same verdict and message on any bytes.
func FuzzDifferential(f *testing.F) {
	golden, _ := corpusLines(f)
	for _, l := range golden {
		f.Add(l)
	}
	s, err := newSet(schemas.FS)
	if err != nil {
		f.Fatal(err)
	}
	slow, err := s.slowSchemas()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, want := s.ValidateLine(line), oldValidateLine(slow, line)
		if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
			t.Fatalf("%q:\nfast path: %v\njsonschema: %v", line, got, want)
		}
	})
}

// TestFastValidatorRefuses keeps the fallback honest: a schema with a
// keyword outside the subset is not compiled fast, so jsonschema decides.
func TestFastValidatorRefuses(t *testing.T) {
	for _, kw := range []string{`"oneOf":[{"type":"string"}]`, `"format":"email"`, `"maxLength":3`, `"patternProperties":{"a":{}}`, `"requird":["a"]`} {
		fc := newFastCompiler(nil)
		fc.docs[base+"x.schema.json"] = decodeAny(t, `{"type":"object",`+kw+`}`)
		if _, err := fc.compileURL(base + "x.schema.json"); err == nil {
			t.Errorf("%s: compiled", kw)
		}
	}
}

func decodeAny(t testing.TB, s string) any {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// BenchmarkValidateLine measures validation of golden lines (fast path).
func BenchmarkValidateLine(b *testing.B) {
	golden, _ := corpusLines(b)
	s, err := newSet(schemas.FS)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range golden {
			if err := s.ValidateLine(l); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkValidateLineJSONSchema is the same with jsonschema (as before).
func BenchmarkValidateLineJSONSchema(b *testing.B) {
	golden, _ := corpusLines(b)
	slow, err := compile(schemas.FS)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range golden {
			if err := oldValidateLine(slow, l); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkFirstLineJSONSchema is the fixed cost as it was: compile all.
func BenchmarkFirstLineJSONSchema(b *testing.B) {
	golden, _ := corpusLines(b)
	for i := 0; i < b.N; i++ {
		slow, err := compile(schemas.FS)
		if err != nil {
			b.Fatal(err)
		}
		if err := oldValidateLine(slow, golden[0]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFirstLine is the fixed cost: a fresh Set validating one line.
func BenchmarkFirstLine(b *testing.B) {
	golden, _ := corpusLines(b)
	for i := 0; i < b.N; i++ {
		s, err := newSet(schemas.FS)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.ValidateLine(golden[0]); err != nil {
			b.Fatal(err)
		}
	}
}
