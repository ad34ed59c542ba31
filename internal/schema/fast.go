package schema

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math/big"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// node is one compiled (sub)schema of the small JSON Schema 2020-12 subset
// the embedded schemas use. It answers only "valid or not": when it says
// not, ValidateLine asks jsonschema for the message, so what is reported
// never changes. Keywords outside the subset make the compiler refuse the
// schema, and the event falls back to jsonschema: nothing is ever skipped.
// TestDifferential proves both accept and reject exactly the same lines.
type node struct {
	boolean   *bool // a boolean schema (true or false)
	types     []string
	hasConst  bool
	constant  any
	enum      []any
	pattern   matcher
	minLength int
	minimum   *big.Rat
	minInt    int64 // minimum, when it is an integer that fits (minIntOK)
	minIntOK  bool
	required  []string
	props     map[string]*node
	addl      *node
	propNames *node
	items     *node
	anyOf     []*node
	allOf     []*node
	ref       *node
}

// annotations are keywords that never change whether a value is valid.
var annotations = map[string]bool{"$schema": true, "$id": true, "$defs": true, "$comment": true,
	"title": true, "description": true, "examples": true, "default": true, "deprecated": true}

// fastCompiler builds nodes from the schema files in fsys, loading each
// file once, on first reference.
type fastCompiler struct {
	fsys     fs.FS
	docs     map[string]any   // file URL (no fragment) -> parsed document
	nodes    map[string]*node // absolute URL with fragment -> compiled node
	patterns map[string]matcher
}

func newFastCompiler(fsys fs.FS) *fastCompiler {
	return &fastCompiler{fsys: fsys, docs: map[string]any{}, nodes: map[string]*node{}, patterns: map[string]matcher{}}
}

// compileURL compiles the schema at an absolute URL (base + file path, with
// an optional JSON pointer fragment).
func (c *fastCompiler) compileURL(u string) (*node, error) {
	if n, ok := c.nodes[u]; ok {
		return n, nil
	}
	file, frag, _ := strings.Cut(u, "#")
	doc, err := c.doc(file)
	if err != nil {
		return nil, err
	}
	v, err := pointer(doc, frag)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", u, err)
	}
	n := &node{minLength: -1}
	c.nodes[u] = n // before compiling: a recursive $ref finds it
	if err := c.fill(n, v, file, frag == "" || frag == "/"); err != nil {
		delete(c.nodes, u)
		return nil, fmt.Errorf("%s: %w", u, err)
	}
	return n, nil
}

func (c *fastCompiler) doc(file string) (any, error) {
	if d, ok := c.docs[file]; ok {
		return d, nil
	}
	rel, ok := strings.CutPrefix(file, base)
	if !ok {
		return nil, fmt.Errorf("schema %s is not embedded", file)
	}
	b, err := fs.ReadFile(c.fsys, rel)
	if err != nil {
		return nil, err
	}
	d, err := decodeDoc(b)
	if err != nil {
		return nil, fmt.Errorf("schemas/%s: %w", rel, err)
	}
	if m, ok := d.(map[string]any); ok {
		if id, ok := m["$id"]; ok && id != file {
			return nil, fmt.Errorf("schemas/%s: $id %v is not its URL", rel, id)
		}
	}
	c.docs[file] = d
	return d, nil
}

// pointer resolves a JSON pointer fragment ("" or "/$defs/x") in doc.
func pointer(doc any, frag string) (any, error) {
	if frag == "" {
		return doc, nil
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, fmt.Errorf("fragment %q is not a JSON pointer", frag)
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return nil, err
	}
	v := doc
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch t := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = t[tok]; !ok {
				return nil, fmt.Errorf("no %q", tok)
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(t) {
				return nil, fmt.Errorf("no index %q", tok)
			}
			v = t[i]
		default:
			return nil, fmt.Errorf("no %q", tok)
		}
	}
	return v, nil
}

// fill compiles schema value v (in file) into n.
func (c *fastCompiler) fill(n *node, v any, file string, root bool) error {
	if b, ok := v.(bool); ok {
		n.boolean = &b
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("schema is a %T", v)
	}
	sub := func(v any) (*node, error) {
		s := &node{minLength: -1}
		return s, c.fill(s, v, file, false)
	}
	for k, e := range m {
		var err error
		switch k {
		case "$id":
			if !root {
				err = fmt.Errorf("nested $id is not supported")
			}
		case "type":
			n.types, err = typesKeyword(e)
		case "const":
			n.hasConst, n.constant = true, e
		case "enum":
			l, ok := e.([]any)
			if !ok {
				err = fmt.Errorf("enum is not an array")
			}
			n.enum = l
		case "pattern":
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("pattern is not a string")
			}
			n.pattern, err = c.pattern(s)
		case "minLength":
			if n.minLength, err = minLengthKeyword(e); err != nil {
				return err
			}
		case "minimum":
			if err = n.minimumKeyword(e); err != nil {
				return err
			}
		case "required":
			if n.required, err = requiredKeyword(e); err != nil {
				return err
			}
		case "properties":
			if n.props, err = propertiesKeyword(e, sub); err != nil {
				return err
			}
		case "additionalProperties":
			n.addl, err = sub(e)
		case "propertyNames":
			n.propNames, err = sub(e)
		case "items":
			n.items, err = sub(e)
		case "anyOf":
			n.anyOf, err = subList(e, sub)
		case "allOf":
			n.allOf, err = subList(e, sub)
		case "$ref":
			target, rerr := refTarget(file, e)
			if rerr != nil {
				return rerr
			}
			n.ref, err = c.compileURL(target)
		default:
			if !annotations[k] {
				err = fmt.Errorf("keyword %q is not supported by the fast validator", k)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

// subList compiles a keyword's non-empty array of schemas (anyOf, allOf)
// with sub.
func subList(v any, sub func(any) (*node, error)) ([]*node, error) {
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		return nil, fmt.Errorf("not a non-empty array")
	}
	var out []*node
	for _, e := range l {
		s, err := sub(e)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// pattern is the compiled pattern s, compiled once per compiler.
func (c *fastCompiler) pattern(s string) (matcher, error) {
	if p := c.patterns[s]; p != nil {
		return p, nil
	}
	p, err := compilePattern(s)
	if err == nil {
		c.patterns[s] = p
	}
	return p, err
}

// minLengthKeyword reads a "minLength" keyword: a non-negative integer.
func minLengthKeyword(e any) (int, error) {
	f, ok := e.(json.Number)
	i, err := strconv.Atoi(string(f))
	if !ok || err != nil || i < 0 {
		return 0, fmt.Errorf("minLength %v", e)
	}
	return i, nil
}

// minimumKeyword reads a "minimum" keyword into n: an exact rational, and
// the integer when it is one.
func (n *node) minimumKeyword(e any) error {
	f, ok := e.(json.Number)
	if ok {
		n.minimum, ok = rat(f)
	}
	if !ok {
		return fmt.Errorf("minimum %v", e)
	}
	if n.minimum.IsInt() && n.minimum.Num().IsInt64() {
		n.minInt, n.minIntOK = n.minimum.Num().Int64(), true
	}
	return nil
}

// typesKeyword reads a "type" keyword: one type name or a list of them. An error
// is worded to follow "type: ", as fill prefixes it.
func typesKeyword(e any) ([]string, error) {
	var out []string
	var err error
	switch t := e.(type) {
	case string:
		out = []string{t}
	case []any:
		for _, x := range t {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("%v", x)
			}
			out = append(out, s)
		}
	default:
		err = fmt.Errorf("type: %v", e)
	}
	for _, t := range out {
		switch t {
		case "null", "boolean", "object", "array", "number", "integer", "string":
		default:
			err = fmt.Errorf("type %q", t)
		}
	}
	return out, err
}

// requiredKeyword reads a "required" keyword: present, possibly empty, it is
// never nil.
func requiredKeyword(e any) ([]string, error) {
	l, ok := e.([]any)
	if !ok {
		return nil, fmt.Errorf("required is not an array")
	}
	out := []string{}
	for _, x := range l {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("required: %v", x)
		}
		out = append(out, s)
	}
	return out, nil
}

// propertiesKeyword compiles a "properties" keyword's schemas with sub.
func propertiesKeyword(e any, sub func(any) (*node, error)) (map[string]*node, error) {
	pm, ok := e.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("properties is not an object")
	}
	props := make(map[string]*node, len(pm))
	for name, ps := range pm {
		var err error
		if props[name], err = sub(ps); err != nil {
			return nil, fmt.Errorf("properties/%s: %w", name, err)
		}
	}
	return props, nil
}

// refTarget resolves a "$ref" keyword against the URL of the file it is in.
func refTarget(file string, e any) (string, error) {
	s, ok := e.(string)
	if !ok {
		return "", fmt.Errorf("$ref is not a string")
	}
	bu, perr := url.Parse(file)
	ru, rerr := url.Parse(s)
	if perr != nil || rerr != nil {
		return "", fmt.Errorf("$ref %q", s)
	}
	abs := bu.ResolveReference(ru)
	frag := abs.Fragment
	abs.Fragment = ""
	target := abs.String()
	if frag != "" {
		target += "#" + frag
	}
	return target, nil
}

// valid reports whether v (decoded with UseNumber) satisfies n, with
// jsonschema's semantics for every keyword of the subset.
func (n *node) valid(v any) bool {
	if n.boolean != nil {
		return *n.boolean
	}
	if n.ref != nil && !n.ref.valid(v) {
		return false
	}
	if n.types != nil && !typeOK(n.types, v) {
		return false
	}
	if n.hasConst && !equals(v, n.constant) {
		return false
	}
	if n.enum != nil {
		found := false
		for _, e := range n.enum {
			if equals(v, e) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	switch t := v.(type) {
	case string:
		if n.minLength >= 0 && utf8.RuneCountInString(t) < n.minLength {
			return false
		}
		if n.pattern != nil && !n.pattern(t) {
			return false
		}
	case json.Number:
		if n.minimum != nil {
			if i, ok := smallInt(t); ok && n.minIntOK {
				if i < n.minInt {
					return false
				}
			} else if r, ok := rat(t); !ok || r.Cmp(n.minimum) < 0 {
				return false
			}
		}
	case map[string]any:
		for _, r := range n.required {
			if _, ok := t[r]; !ok {
				return false
			}
		}
		for k, e := range t {
			if n.propNames != nil && !n.propNames.valid(k) {
				return false
			}
			if p, ok := n.props[k]; ok {
				if !p.valid(e) {
					return false
				}
			} else if n.addl != nil && !n.addl.valid(e) {
				return false
			}
		}
	case []any:
		if n.items != nil {
			for _, e := range t {
				if !n.items.valid(e) {
					return false
				}
			}
		}
	}
	for _, s := range n.allOf {
		if !s.valid(v) {
			return false
		}
	}
	if n.anyOf != nil {
		for _, s := range n.anyOf {
			if s.valid(v) {
				return true
			}
		}
		return false
	}
	return true
}

func typeOK(types []string, v any) bool {
	for _, t := range types {
		switch x := v.(type) {
		case nil:
			if t == "null" {
				return true
			}
		case bool:
			if t == "boolean" {
				return true
			}
		case string:
			if t == "string" {
				return true
			}
		case map[string]any:
			if t == "object" {
				return true
			}
		case []any:
			if t == "array" {
				return true
			}
		case json.Number:
			if t == "number" {
				return true
			}
			if t == "integer" {
				if _, ok := smallInt(x); ok {
					return true
				}
				if r, ok := rat(x); ok && r.IsInt() {
					return true
				}
			}
		}
	}
	return false
}

// smallInt is a JSON number written as a plain integer of at most 18
// digits ("-0" is 0), the common case, without big.Rat.
func smallInt(n json.Number) (int64, bool) {
	s := string(n)
	if len(s) == 0 || len(s) > 19 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c == '-' && i == 0) {
			return 0, false
		}
	}
	if len(s) > 18 && s[0] != '-' {
		return 0, false
	}
	i, err := strconv.ParseInt(s, 10, 64)
	return i, err == nil
}

// rat is the exact value of a JSON number, as jsonschema reads it.
func rat(n json.Number) (*big.Rat, bool) {
	return new(big.Rat).SetString(string(n))
}

// equals is JSON equality: numbers by value, objects by key set.
func equals(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		ra, ok1 := rat(x)
		rb, ok2 := rat(y)
		return ok1 && ok2 && ra.Cmp(rb) == 0
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equals(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, e := range x {
			f, ok := y[k]
			if !ok || !equals(e, f) {
				return false
			}
		}
		return true
	}
	return false
}
