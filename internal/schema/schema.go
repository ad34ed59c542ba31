// Package schema validates receipt lines against the embedded JSON Schemas:
// the envelope, then their event's attribute schema, each compiled on first
// use. That the schemas themselves are well-formed (jsonschema compiles
// them all, meta-schema included) is checked by the tests, not per run.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/internal/jsonschema"
	"github.com/contextreceipts/convert/schemas"
)

const base = "https://schemas.contextreceipts.dev/convert/v1/"

// Set validates receipt lines against the embedded schemas. Each schema is
// compiled on first use into a small validator (fast.go); jsonschema itself
// is compiled, once, only when a line is rejected, to word the error, so a
// run whose lines are all valid never pays its 80 ms of compilation.
type Set struct {
	fsys  fs.FS
	names map[string]bool // event names that have a schema

	mu   sync.Mutex // guards fc and writes to fast
	fc   *fastCompiler
	fast sync.Map // "" (the envelope) or event name -> *node; nil: jsonschema decides

	slowOnce sync.Once
	slow     *slowSet
	slowErr  error
}

// slowSet is the jsonschema compilation of every schema.
type slowSet struct {
	envelope *jsonschema.Schema
	events   map[string]*jsonschema.Schema
}

var (
	once    sync.Once
	loaded  *Set
	loadErr error
)

// Load returns the embedded schemas' Set (once per process). It reads only
// the list of event schemas and the envelope; each event's schema is
// compiled when a line of that event is first validated.
func Load() (*Set, error) {
	once.Do(func() { loaded, loadErr = newSet(schemas.FS) })
	return loaded, loadErr
}

func newSet(fsys fs.FS) (*Set, error) {
	s := &Set{fsys: fsys, names: map[string]bool{}, fc: newFastCompiler(fsys)}
	// The event schemas are events/*.schema.json, listed without fs.Glob
	// (matching its pattern against each of 85 names was 1% of a one-line
	// run); as with Glob, a directory that cannot be read lists nothing.
	files, _ := fs.ReadDir(fsys, "events")
	for _, f := range files {
		if name, ok := strings.CutSuffix(f.Name(), ".schema.json"); ok {
			s.names[name] = true
		}
	}
	if _, err := s.validator(""); err != nil {
		return nil, err
	}
	return s, nil
}

// validator returns the fast validator of the envelope ("") or of an event:
// nil when the schema uses a keyword fast.go lacks (jsonschema decides).
// The error is for a schema that cannot be read at all.
func (s *Set) validator(name string) (*node, error) {
	if v, ok := s.fast.Load(name); ok {
		return v.(*node), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.fast.Load(name); ok {
		return v.(*node), nil
	}
	file := "receipt.schema.json"
	if name != "" {
		file = "events/" + name + ".schema.json"
	}
	if _, err := fs.Stat(s.fsys, file); err != nil {
		return nil, err
	}
	n, err := s.fc.compileURL(base + file)
	if err != nil {
		n = nil // outside the subset: jsonschema validates this one
	}
	s.fast.Store(name, n)
	return n, nil
}

// slowSchemas compiles every schema with jsonschema (once per Set).
func (s *Set) slowSchemas() (*slowSet, error) {
	s.slowOnce.Do(func() { s.slow, s.slowErr = compile(s.fsys) })
	return s.slow, s.slowErr
}

func compile(fsys fs.FS) (*slowSet, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	s := &slowSet{events: map[string]*jsonschema.Schema{}}
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".schema.json") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, err
		}
		if err := c.AddResource(base+f, bytes.NewReader(b)); err != nil {
			return nil, fmt.Errorf("schemas/%s: %w", f, err)
		}
	}
	if s.envelope, err = c.Compile(base + "receipt.schema.json"); err != nil {
		return nil, err
	}
	for _, f := range files {
		if dir, file := path.Split(f); dir == "events/" {
			name := strings.TrimSuffix(file, ".schema.json")
			if s.events[name], err = c.Compile(base + f); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// validate is jsonschema's verdict on a decoded line, worded for people.
func (s *slowSet) validate(doc any) error {
	if err := s.envelope.Validate(doc); err != nil {
		return describe(err)
	}
	m := doc.(map[string]any)
	name := m["name"].(string)
	ev := s.events[name]
	if ev == nil {
		return fmt.Errorf("event %q has no schema", name)
	}
	if err := ev.Validate(m["attributes"]); err != nil {
		return fmt.Errorf("event %q: %w", name, describe(err))
	}
	return nil
}

// collectVocab gathers the program's own strings from a schema: property
// names and const/enum values. The leak check exempts them when whole.
func collectVocab(v any, out map[string]bool) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			switch k {
			case "properties":
				if m, ok := e.(map[string]any); ok {
					for name := range m {
						out[name] = true
					}
				}
			case "const":
				if s, ok := e.(string); ok {
					out[s] = true
				}
			case "enum":
				if l, ok := e.([]any); ok {
					for _, x := range l {
						if s, ok := x.(string); ok {
							out[s] = true
						}
					}
				}
			}
			collectVocab(e, out)
		}
	case []any:
		for _, e := range t {
			collectVocab(e, out)
		}
	}
}

// Vocabulary returns the strings the embedded schemas define: every
// property name, const and enum string, and every event name. It parses the
// schema files; the program reads the result from the gate's generated
// table (internal/gate/vocabgen), not at run time.
func Vocabulary() (map[string]bool, error) {
	v := map[string]bool{}
	err := fs.WalkDir(schemas.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".schema.json") {
			return err
		}
		b, err := fs.ReadFile(schemas.FS, p)
		if err != nil {
			return err
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		collectVocab(doc, v)
		if dir, file := path.Split(p); dir == "events/" {
			v[strings.TrimSuffix(file, ".schema.json")] = true
		}
		return nil
	})
	return v, err
}

// Events returns the event names that have a schema, sorted.
func (s *Set) Events() []string {
	var out []string
	for k := range s.names {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// HasEvent reports whether event name has a schema.
func (s *Set) HasEvent(name string) bool { return s.names[name] }

// ValidateLine checks one receipt line: the envelope, then the attributes
// against the schema of its event name. The error names the failing field.
func (s *Set) ValidateLine(line []byte) error {
	doc, ok := fastDecode(line)
	if !ok { // encoding/json decides, and words the error
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			return fmt.Errorf("not JSON: %v", err)
		}
		if dec.More() {
			return errors.New("trailing data after the JSON object")
		}
	}
	if s.fastValid(doc) {
		return nil
	}
	slow, err := s.slowSchemas()
	if err != nil {
		return err
	}
	if err := slow.validate(doc); err != nil {
		return err
	}
	// Fail closed: TestDifferential makes this unreachable.
	return errors.New("internal error: the fast validator rejects a line jsonschema accepts")
}

// fastValid reports whether the fast validators accept doc; false also
// when a schema is outside their subset (jsonschema decides then).
func (s *Set) fastValid(doc any) bool {
	env, err := s.validator("")
	if err != nil || env == nil || !env.valid(doc) {
		return false
	}
	m, ok := doc.(map[string]any) // the envelope requires an object with a string name
	if !ok {
		return false
	}
	name, _ := m["name"].(string)
	if !s.names[name] {
		return false
	}
	ev, err := s.validator(name)
	if err != nil || ev == nil {
		return false
	}
	return ev.valid(m["attributes"])
}

// describe reduces a validation error to its deepest causes, one line.
func describe(err error) error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := e.InstanceLocation
			if loc == "" {
				loc = "/"
			}
			leaves = append(leaves, loc+": "+sortLists(e.Message))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(leaves)
	return errors.New(strings.Join(leaves, "; "))
}

// listMessages are jsonschema's messages that list names, each around its
// list.
var listMessages = []struct{ prefix, suffix string }{
	{"additionalProperties ", " not allowed"},
	{"missing properties: ", ""},
}

// sortLists orders the quoted names a message lists ("additionalProperties
// 'b', 'a' not allowed"): the validator builds them from maps, and messages
// must not change between runs. jsonschema quotes a name with \' for a
// quote, and a name ending in a backslash loses one, so an item may end in
// \' (a fuzz finding: 'con\\\\\' was left where the map put it). The
// boundary ', ' cannot fall inside a name, whose quotes are all escaped, so
// the list is split there.
func sortLists(msg string) string {
	for _, m := range listMessages {
		list, ok := strings.CutPrefix(msg, m.prefix)
		if !ok {
			continue
		}
		if list, ok = strings.CutSuffix(list, m.suffix); !ok || len(list) < 2 || list[0] != '\'' || list[len(list)-1] != '\'' {
			continue
		}
		items := strings.Split(list[1:len(list)-1], "', '")
		sort.Slice(items, func(i, j int) bool { return items[i]+"'" < items[j]+"'" }) // as quoted: the order before
		return m.prefix + "'" + strings.Join(items, "', '") + "'" + m.suffix
	}
	return msg
}
