package jsonschema

import (
	"strings"
	"sync"
	"testing"
)

// Tests of this module's patches to upstream v5.3.1 (PATCHES.md).

var drafts = []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020}

// metasAtInit records whether any draft's meta-schema existed once the
// package's init functions had run (this file's init runs after draft.go's).
var metasAtInit bool

func init() {
	for _, d := range drafts {
		metasAtInit = metasAtInit || d.meta != nil
	}
}

// Patch 1: the meta-schemas are compiled on first use, not in init.
func TestMetaSchemasNotCompiledAtInit(t *testing.T) {
	if metasAtInit {
		t.Fatal("a draft's meta-schema was compiled during init")
	}
}

// Patch 1: the first compilation loads every draft's meta-schema and applies
// the one its schema names, whichever draft it is.
func TestMetaSchemasLoadedAndApplied(t *testing.T) {
	for _, d := range drafts {
		for _, tc := range []struct {
			schema string
			ok     bool
		}{
			{`{"type":"string","minLength":1}`, true},
			{`{"type":5}`, false},
			{`{"minLength":-1}`, false},
			{`{"required":"a"}`, false},
		} {
			c := NewCompiler()
			c.Draft = d
			if err := c.AddResource("mem://s.json", strings.NewReader(tc.schema)); err != nil {
				t.Fatal(err)
			}
			_, err := c.Compile("mem://s.json")
			if (err == nil) != tc.ok {
				t.Errorf("%v %s: compile error %v, want ok=%v", d, tc.schema, err, tc.ok)
			}
		}
		if d.meta == nil || d.meta.meta != d.meta {
			t.Errorf("%v: meta-schema not loaded as upstream's init did", d)
		}
	}
}

// Patch 1: concurrent first compilations load the meta-schemas once, without
// a data race (run with -race, as make test does). The loaded state is
// reset to a fresh process's first.
func TestMetaSchemasConcurrentFirstUse(t *testing.T) {
	metaOnce = sync.Once{}
	for _, d := range drafts {
		d.meta = nil
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := NewCompiler()
			c.Draft = drafts[i%len(drafts)]
			if err := c.AddResource("mem://s.json", strings.NewReader(`{"minLength":-1}`)); err != nil {
				errs[i] = err
				return
			}
			if _, err := c.Compile("mem://s.json"); err == nil {
				errs[i] = errorString("an invalid schema compiled")
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", i, err)
		}
	}
	for _, d := range drafts {
		if d.meta == nil {
			t.Errorf("%v: meta-schema not loaded", d)
		}
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// Patch 2: an enum's message is printed as it is, '%' included (upstream
// printed `value must be "50%!"(MISSING)`).
func TestEnumMessageWithPercent(t *testing.T) {
	for schema, want := range map[string]string{
		`{"enum":["50%"]}`:       `value must be "50%"`,
		`{"enum":["%d", "%s%"]}`: `value must be one of "%d", "%s%"`,
	} {
		c := NewCompiler()
		if err := c.AddResource("mem://s.json", strings.NewReader(schema)); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile("mem://s.json")
		if err != nil {
			t.Fatal(err)
		}
		verr, ok := s.Validate("x").(*ValidationError)
		if !ok || len(verr.Causes) != 1 || verr.Causes[0].Message != want {
			t.Errorf("%s: got %#v, want the message %s", schema, verr, want)
		}
	}
}

// Patch 4: SkipMetaValidation compiles a schema without checking it against
// its meta-schema (one the meta-schema rejects is then accepted as it is),
// and instances are validated as without it.
func TestSkipMetaValidation(t *testing.T) {
	for _, skip := range []bool{false, true} {
		c := NewCompiler()
		c.SkipMetaValidation = skip
		if err := c.AddResource("bad.json", strings.NewReader(`{"minLength":-1}`)); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Compile("bad.json"); (err == nil) != skip {
			t.Errorf("skip %v: compiling a schema the meta-schema rejects: %v", skip, err)
		}
		if err := c.AddResource("ok.json", strings.NewReader(`{"type":"string","minLength":2}`)); err != nil {
			t.Fatal(err)
		}
		s, err := c.Compile("ok.json")
		if err != nil {
			t.Fatal(err)
		}
		if s.Validate("ab") != nil || s.Validate("a") == nil || s.Validate(5) == nil {
			t.Errorf("skip %v: instances not validated as the schema says", skip)
		}
	}
}
