// Package schema compiles the embedded JSON Schemas once and validates
// receipt lines against the envelope and their event's attribute schema.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/contextreceipts/convert/schemas"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

const base = "https://schemas.contextreceipts.dev/convert/v1/"

// Set is the compiled schemas.
type Set struct {
	envelope *jsonschema.Schema
	events   map[string]*jsonschema.Schema
	vocab    map[string]bool
}

var (
	once    sync.Once
	loaded  *Set
	loadErr error
)

// Load compiles the embedded schemas (once per process).
func Load() (*Set, error) {
	once.Do(func() { loaded, loadErr = compile(schemas.FS) })
	return loaded, loadErr
}

func compile(fsys fs.FS) (*Set, error) {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	s := &Set{events: map[string]*jsonschema.Schema{}, vocab: map[string]bool{}}
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
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			return nil, fmt.Errorf("schemas/%s: %w", f, err)
		}
		collectVocab(doc, s.vocab)
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
			s.vocab[name] = true
		}
	}
	return s, nil
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

// Vocabulary returns the strings the schemas define (a fresh copy).
func (s *Set) Vocabulary() map[string]bool {
	out := make(map[string]bool, len(s.vocab))
	for k := range s.vocab {
		out[k] = true
	}
	return out
}

// Events returns the event names that have a schema, sorted.
func (s *Set) Events() []string {
	var out []string
	for k := range s.events {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// HasEvent reports whether event name has a schema.
func (s *Set) HasEvent(name string) bool { return s.events[name] != nil }

// ValidateLine checks one receipt line: the envelope, then the attributes
// against the schema of its event name. The error names the failing field.
func (s *Set) ValidateLine(line []byte) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("not JSON: %v", err)
	}
	if dec.More() {
		return errors.New("trailing data after the JSON object")
	}
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

var quotedList = regexp.MustCompile(`'[^']*'(?:, '[^']*')+`)

// sortLists orders the quoted names a message lists ("additionalProperties
// 'b', 'a' not allowed"): the validator builds them from maps, and messages
// must not change between runs.
func sortLists(msg string) string {
	return quotedList.ReplaceAllStringFunc(msg, func(l string) string {
		items := strings.Split(l, ", ")
		sort.Strings(items)
		return strings.Join(items, ", ")
	})
}
