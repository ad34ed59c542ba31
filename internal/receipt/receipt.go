// Package receipt holds the receipt event model shared by converters, the
// pipeline and the writers: events, typed attribute values and their order.
package receipt

import (
	"fmt"
	"math"
	"sort"
)

// Kind is the type of an attribute value. Receipts carry only these.
type Kind uint8

// The attribute value kinds, the only ones a receipt line allows
// (docs/design.md, "Receipt lines").
const (
	String Kind = iota + 1
	Bool
	Int
	Float
	Strings
)

// Value is one typed attribute value, in 40 bytes: a long session keeps
// about a million of them live until its trace is written. Kind and Bool
// share a word; a float is kept as its bits in Int (Float reads it back);
// a list, rare, sits behind a pointer (List reads it).
type Value struct {
	Kind Kind
	Bool bool
	// computed marks an Int the program computed (Computed), not one
	// copied from the input (Copied); it sits in Kind's word, free.
	computed bool
	Str      string
	Int      int64 // an Int's value; a Float's bits
	strs     *[]string
}

// Float returns a Float value's number.
func (v Value) Float() float64 {
	if v.Kind != Float {
		return 0
	}
	return math.Float64frombits(uint64(v.Int))
}

// List returns a Strings value's strings.
func (v Value) List() []string {
	if v.strs == nil {
		return nil
	}
	return *v.strs
}

// Attr is one attribute: a dotted lower_snake key and its value.
type Attr struct {
	Key   string
	Value Value
}

// S, B, F and L build attribute values of each kind; a whole number is
// built by Computed or Copied, which say where it comes from.
func S(s string) Value       { return Value{Kind: String, Str: s} }
func B(b bool) Value         { return Value{Kind: Bool, Bool: b} }
func F(f float64) Value      { return Value{Kind: Float, Int: int64(math.Float64bits(f))} }
func L(s []string) Value     { return Value{Kind: Strings, strs: &s} }
func (v Value) IsZero() bool { return v.Kind == 0 }

// Computed is a whole number the program computed: a count of records or
// items, a sum over responses, a growth between two running totals, a
// rank or depth it assigned, a bucket's bound, the pipeline's own
// measures. It is not a copy of any input number, whatever it equals, and
// the leak check does not probe it (gate.Numbers). Its argument must be
// the program's arithmetic, never a value read from the input as it
// stands: TestNumberProvenance refuses a Computed whose argument reads
// one (x.Int(), c.Count(v), v.Get(...)) outside a len().
//
//	receipt.Computed(int64(len(st.loaded)))      a count of items
//	receipt.Computed(st.jobs["a"]+st.jobs["b"])  a sum
func Computed(n int64) Value { return Value{Kind: Int, Int: n, computed: true} }

// Copied is a whole number copied from the input as it stood: a declared
// count field's value (leak.Count, leak.Cumulative), a scenario's score, a
// rank the input gave. The leak check probes it: a copy of a raw input
// number of 6 digits or more that is not a declared count is a leak.
//
//	receipt.Copied(c.Count(r.Get("token_count")))  a declared count field
//	receipt.Copied(e.Get("rank").Int())            the input's own rank
func Copied(n int64) Value { return Value{Kind: Int, Int: n} }

// IsComputed reports an Int built by Computed.
func (v Value) IsComputed() bool { return v.Kind == Int && v.computed }

// Event is one receipt event before the pipeline places it in a trace.
type Event struct {
	Name  string
	Time  string // RFC 3339 UTC, or "" when the input had no time for it
	Line  int    // 1-based input line that produced it, 0 for end-of-input events
	File  int    // index of the input file in its group (0: the main file)
	Span  string // key of the span it belongs to; "" for the root span
	Attrs Attrs
}

// Attrs is an ordered attribute list. Set replaces an existing key, so the
// order is the order keys were first set: converters decide it, maps never do.
type Attrs []Attr

// Set adds or replaces key.
func (a *Attrs) Set(key string, v Value) {
	for i := range *a {
		if (*a)[i].Key == key {
			(*a)[i].Value = v
			return
		}
	}
	if len(*a) == cap(*a) {
		// A full list grows by a quarter, not by append's doubling: a long
		// session keeps about a million attributes live, in lists that
		// stop growing anywhere, and the room a list holds past its length
		// stays unused while it lives. As with append, a list with room is
		// extended in place.
		n := make(Attrs, len(*a), len(*a)+len(*a)/4+2)
		copy(n, *a)
		*a = n
	}
	*a = append(*a, Attr{Key: key, Value: v})
}

// Get returns the value of key and whether it is set.
func (a Attrs) Get(key string) (Value, bool) {
	for _, at := range a {
		if at.Key == key {
			return at.Value, true
		}
	}
	return Value{}, false
}

// Sorted returns a copy ordered by key, for outputs whose order must not
// depend on the order a converter happened to set keys in.
func (a Attrs) Sorted() Attrs {
	out := append(Attrs(nil), a...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// String renders a value for messages; never used for output encoding.
func (v Value) String() string {
	switch v.Kind {
	case String:
		return v.Str
	case Bool:
		return fmt.Sprint(v.Bool)
	case Int:
		return fmt.Sprint(v.Int)
	case Float:
		return fmt.Sprint(v.Float())
	case Strings:
		return fmt.Sprint(v.List())
	}
	return ""
}
