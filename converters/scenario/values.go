package scenario

import (
	"fmt"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/receipt"
)

// Values are the fields of one record that its table declares, as the moves
// read them: the only view of the record a Hook gets, valid for that call
// (borrow:call). Reading a field no move
// declares (Use declares one that only a hook reads) is a converter bug: the
// record fails with a message saying so, and the golden and conformance
// tests catch it before it ships.
type Values struct {
	Type string // the record type
	Line int
	Time string
	NS   int64 // Time as unix nanoseconds, 0 when the record has none

	hash       receipt.Hasher
	fields     map[string]view.Value // declared path -> the value read ("" Result when absent)
	undeclared string                // the first undeclared path a hook read
}

// Get returns a declared field's value (a zero Result when the record lacks
// it).
func (v *Values) Get(path string) view.Value {
	r, ok := v.fields[path]
	if !ok && v.undeclared == "" {
		v.undeclared = path
	}
	return r
}

// Has reports whether a declared field is present and not null.
func (v *Values) Has(path string) bool {
	r := v.Get(path)
	return r.Exists() && r.Type() != view.Null
}

// Str returns a declared field as text (empty when absent), as gjson's
// String renders it: borrowed from the line, like every value here.
func (v *Values) Str(path string) view.Text { return v.Get(path).String() }

// Int returns a declared field as an integer (0 when absent).
func (v *Values) Int(path string) int64 { return v.Get(path).Int() }

// Bool returns a declared field as a boolean (false when absent).
func (v *Values) Bool(path string) bool { return v.Get(path).Bool() }

// Digest returns the digest of a declared string field ("" when absent), so
// state keeps no raw id an error could print.
func (v *Values) Digest(path string) string {
	if !v.Has(path) {
		return ""
	}
	return v.Str(path).Digest(v.hash)
}

// IDs returns the digests of a declared field's strings: one for a string,
// one per element for a list of strings, none when absent.
func (v *Values) IDs(path string) ([]string, error) {
	return ids(v.hash, path, v.Get(path))
}

// IDList returns the digests of a declared list of strings, in order (none
// when absent).
func (v *Values) IDList(path string) ([]string, error) {
	if r := v.Get(path); v.Has(path) && !r.IsArray() {
		return nil, fmt.Errorf("field %q must be a list", path)
	}
	return v.IDs(path)
}

// Whole returns a declared whole-number field (0 when absent).
func (v *Values) Whole(path string) (int64, error) {
	if !v.Has(path) {
		return 0, nil
	}
	return WholeNumber(path, v.Get(path))
}

// Cents reads a declared dollar amount as whole cents (0 when absent).
func (v *Values) Cents(path string) (int64, error) {
	if !v.Has(path) {
		return 0, nil
	}
	return Scaled(path, v.Get(path), 100)
}

// ids digests a string or a list of strings.
func ids(h receipt.Hasher, path string, r view.Value) ([]string, error) {
	switch {
	case !r.Exists() || r.Type() == view.Null:
		return nil, nil
	case r.Type() == view.String:
		return []string{r.Str().Digest(h)}, nil
	case !r.IsArray():
		return nil, fmt.Errorf("field %q must be a string or a list of strings", path)
	}
	var out []string
	var err error
	r.Each(func(e view.Value) bool {
		if !e.IsString() {
			err = fmt.Errorf("field %q must be a list of strings", path)
			return false
		}
		out = append(out, e.Str().Digest(h))
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// StateOf returns the typed per-file state of a scenario whose table sets
// NewState; T must be the type NewState returns a pointer to.
func StateOf[T any](s *Session) *T {
	return s.State.(*T)
}
