package scenario

import (
	"fmt"
	"strings"

	"github.com/contextreceipts/convert/converters/events"

	"github.com/contextreceipts/convert/internal/receipt"
)

// Invariants are moves that check instead of (or besides) writing: the
// common shapes of a scenario's rules, declared in its table so that
// `convert list -v` prints them and the conformance test runs an example of
// each. Fields are compared by digest, so no raw id ever sits in state an
// error could print. Each fails with "field ..." wording that names the
// field (the pipeline adds path:line, the converter and the record type);
// Says replaces the wording where a scenario has its own.
//
//	After(path, of, ofPath)        the record's path value(s) appeared at ofPath of an earlier `of` record
//	AfterAny(of)                   an `of` record came earlier
//	Once(path)                     no earlier record of this type had the same path value
//	SubsetOf(path, of, ofPath)     every value of the list at path appeared at ofPath of an earlier `of` record
//	SeenBefore(key, path, of, ofPath)  writes key: true when After would hold, false otherwise (never fails)
//	Disjoint(a, b)                 the lists at a and b share no value
//	LenEq(count, list)             the number at count is the length of the list at list
//	LengthOf(count, of, list)      the number at count is the length of list in the latest earlier `of` record
//	SumEq(total, parts...)         the number at total is the sum of the numbers at parts
//	SumOf(total, of, path)         the number at total is the sum of path over the earlier `of` records
//	CountOf(count, of)             the number at count is the number of earlier `of` records (Where: those whose flag is as given)
//	DistinctOf(count, of, paths...) the number at count is the number of distinct value tuples at paths of earlier `of` records
//
// Within(scope, ofScope) scopes the cross-record kinds: only `of` records
// whose ofScope value equals this record's scope value count.
type Invariant struct {
	Kind           invKind
	Rec            string // the record type it belongs to (set at registration)
	key            string // SeenBefore: the attribute written
	Path, Other    string // the field checked; the second field (Disjoint, LenEq)
	Parts          []string
	Of, ofPath     string
	scope, ofScope string
	msg            string
	where          string // CountOf: count only `of` records whose where flag is want
	want           bool
	ofPaths        []string // DistinctOf
}

type invKind int

const (
	InvAfter invKind = iota
	InvSubset
	InvSeen
	InvDisjoint
	InvLenEq
	InvLengthOf
	InvSumEq
	InvSumOf
	InvCountOf
	InvDistinctOf
	InvAfterAny
	InvOnce
)

// After requires each value at path (a string or a list of strings) to have
// appeared at ofPath of an earlier record of type of. It is the ordering
// rule "B only after an A with the same id".
func After(path, of, ofPath string) Move {
	return invMove(&Invariant{Kind: InvAfter, Path: path, Of: of, ofPath: ofPath})
}

// AfterAny requires an earlier record of type of: the ordering rule with no
// id to join on.
func AfterAny(of string) Move { return invMove(&Invariant{Kind: InvAfterAny, Of: of}) }

// Once requires the value at path to be new among the records of this type.
func Once(path string) Move { return invMove(&Invariant{Kind: InvOnce, Path: path, ofPath: path}) }

// SubsetOf requires the values at path to be a subset of those that
// appeared at ofPath of earlier records of type of.
func SubsetOf(path, of, ofPath string) Move {
	return invMove(&Invariant{Kind: InvSubset, Path: path, Of: of, ofPath: ofPath})
}

// SeenBefore writes key: whether every value at path appeared at ofPath of
// an earlier record of type of (false when path is absent). It never fails.
func SeenBefore(key, path, of, ofPath string) Move {
	m := invMove(&Invariant{Kind: InvSeen, key: key, Path: path, Of: of, ofPath: ofPath})
	m.Key, m.Def = key, events.DefBool
	return m
}

// Disjoint requires the lists at a and b to share no value.
func Disjoint(a, b string) Move { return invMove(&Invariant{Kind: InvDisjoint, Path: a, Other: b}) }

// LenEq requires the whole number at count, when present, to be the length
// of the list at list.
func LenEq(count, list string) Move {
	return invMove(&Invariant{Kind: InvLenEq, Path: count, Other: list})
}

// LengthOf requires the whole number at count, when present, to be the
// length of the list at list in the latest earlier record of type of (0
// when there is none).
func LengthOf(count, of, list string) Move {
	return invMove(&Invariant{Kind: InvLengthOf, Path: count, Of: of, ofPath: list})
}

// SumEq requires the whole number at total, when present, to be the sum of
// the numbers at parts (absent parts count 0).
func SumEq(total string, parts ...string) Move {
	return invMove(&Invariant{Kind: InvSumEq, Path: total, Parts: parts})
}

// SumOf requires the whole number at total, when present, to be the sum of
// path over the earlier records of type of.
func SumOf(total, of, path string) Move {
	return invMove(&Invariant{Kind: InvSumOf, Path: total, Of: of, ofPath: path})
}

// CountOf requires the whole number at count, when present, to be the
// number of earlier records of type of.
func CountOf(count, of string) Move {
	return invMove(&Invariant{Kind: InvCountOf, Path: count, Of: of})
}

// Where narrows a CountOf to the records whose boolean flag is want.
func (m Move) Where(flag string, want bool) Move {
	inv := m.invariant()
	inv.where, inv.want = flag, want
	return m
}

// DistinctOf requires the whole number at count, when present, to be the
// number of distinct tuples of the values at paths of earlier records of
// type of.
func DistinctOf(count, of string, paths ...string) Move {
	return invMove(&Invariant{Kind: InvDistinctOf, Path: count, Of: of, ofPaths: paths})
}

// Within scopes a cross-record invariant: only earlier records whose ofScope
// equals this record's scope count.
func (m Move) Within(scope, ofScope string) Move {
	inv := m.invariant()
	inv.scope, inv.ofScope = scope, ofScope
	m.reads = append(m.reads, scope)
	return m
}

// Says replaces an invariant's message.
func (m Move) Says(msg string) Move {
	m.invariant().msg = msg
	return m
}

func (m *Move) invariant() *Invariant {
	if m.Inv == nil {
		panic("converters: Within and Says apply to invariant moves only")
	}
	c := *m.Inv // moves are values: a modifier must not change a shared one
	m.Inv = &c
	return m.Inv
}

func invMove(inv *Invariant) Move {
	m := Move{Inv: inv}
	if inv.Path != "" {
		m.reads = append(m.reads, inv.Path)
	}
	m.reads = append(m.reads, inv.Parts...)
	if inv.Other != "" {
		m.reads = append(m.reads, inv.Other)
	}
	return m
}

// String is the invariant as `convert list -v` prints it.
func (inv *Invariant) String() string {
	scope := ""
	if inv.scope != "" {
		scope = fmt.Sprintf(" with the same %s", inv.scope)
		if inv.ofScope != inv.scope {
			scope = fmt.Sprintf(" whose %s is this %s", inv.ofScope, inv.scope)
		}
	}
	switch inv.Kind {
	case InvAfter:
		return fmt.Sprintf("after: %s only after a %s with that %s%s", inv.Path, inv.Of, inv.ofPath, scope)
	case InvSubset:
		return fmt.Sprintf("subset: %s within the %s of earlier %s records%s", inv.Path, inv.ofPath, inv.Of, scope)
	case InvSeen:
		return fmt.Sprintf("seen: %s says whether %s is among the %s of earlier %s records%s", inv.key, inv.Path, inv.ofPath, inv.Of, scope)
	case InvDisjoint:
		return fmt.Sprintf("disjoint: %s and %s share no value", inv.Path, inv.Other)
	case InvLenEq:
		return fmt.Sprintf("len_eq: %s is the length of %s", inv.Path, inv.Other)
	case InvLengthOf:
		return fmt.Sprintf("length_of: %s is the length of %s in the latest earlier %s%s", inv.Path, inv.ofPath, inv.Of, scope)
	case InvSumEq:
		return fmt.Sprintf("sum_eq: %s is %s", inv.Path, strings.Join(inv.Parts, " + "))
	case InvSumOf:
		return fmt.Sprintf("sum_of: %s is the sum of %s over earlier %s records%s", inv.Path, inv.ofPath, inv.Of, scope)
	case InvAfterAny:
		return fmt.Sprintf("after_any: only after a %s record", inv.Of)
	case InvOnce:
		return fmt.Sprintf("once: %s is new among the %s records", inv.Path, inv.Of)
	case InvCountOf:
		where := ""
		if inv.where != "" {
			where = fmt.Sprintf(" whose %s is %t", inv.where, inv.want)
		}
		return fmt.Sprintf("count_of: %s is the number of earlier %s records%s", inv.Path, inv.Of, where)
	default: // invDistinctOf
		return fmt.Sprintf("distinct_of: %s is the number of distinct %s of earlier %s records", inv.Path, strings.Join(inv.ofPaths, ", "), inv.Of)
	}
}

// Message is the default failure message, unless Says set one.
func (inv *Invariant) Message() string {
	if inv.msg != "" {
		return inv.msg
	}
	switch inv.Kind {
	case InvAfter:
		return fmt.Sprintf("%s has no %s record before it", inv.Path, inv.Of)
	case InvSubset:
		return fmt.Sprintf("%s is not a subset of the %s of earlier %s records", inv.Path, inv.ofPath, inv.Of)
	case InvDisjoint:
		return fmt.Sprintf("%s and %s share a value", inv.Path, inv.Other)
	case InvLenEq:
		return fmt.Sprintf("%s differs from the length of %s", inv.Path, inv.Other)
	case InvLengthOf:
		return fmt.Sprintf("%s differs from the length of %s in the %s record before it", inv.Path, inv.ofPath, inv.Of)
	case InvSumEq:
		return fmt.Sprintf("%s is not %s", inv.Path, strings.Join(inv.Parts, " + "))
	case InvSumOf:
		return fmt.Sprintf("%s differs from the sum of %s over the %s records before it", inv.Path, inv.ofPath, inv.Of)
	case InvCountOf:
		return fmt.Sprintf("%s does not match the %s records before it", inv.Path, inv.Of)
	case InvAfterAny:
		return fmt.Sprintf("record before any %s record", inv.Of)
	case InvOnce:
		return fmt.Sprintf("%s repeats an earlier %s record", inv.Path, inv.Of)
	default: // invDistinctOf; invSeen never fails
		return fmt.Sprintf("%s does not match the distinct %s of %s records before it", inv.Path, strings.Join(inv.ofPaths, ", "), inv.Of)
	}
}

// tallyKey names what a record type keeps for the invariants that refer to
// it: the values of one field, grouped by the digest of a scope field.
type tallyKey struct {
	kind             tallyKind
	rec, path, scope string
	want             bool // tallyCount: count only records whose path flag is want
}

type tallyKind int

const (
	tallyIDs    tallyKind = iota // every value seen
	tallyLen                     // the latest list length
	tallySum                     // the running sum
	tallyCount                   // the records (whose path flag is want, when path is set)
	tallyTuples                  // every tuple of the values at path's "\x00"-joined fields
)

func (inv *Invariant) tally() (tallyKey, bool) {
	k := tallyKey{rec: inv.Of, path: inv.ofPath, scope: inv.ofScope}
	switch inv.Kind {
	case InvAfter, InvSubset, InvSeen, InvOnce:
		k.kind = tallyIDs
	case InvLengthOf:
		k.kind = tallyLen
	case InvSumOf:
		k.kind = tallySum
	case InvCountOf:
		k.kind, k.path, k.want = tallyCount, inv.where, inv.want
	case InvAfterAny:
		k.kind = tallyCount
	case InvDistinctOf:
		k.kind, k.path = tallyTuples, strings.Join(inv.ofPaths, "\x00")
	default:
		return tallyKey{}, false
	}
	return k, true
}

// tallies is the invariants' per-file state.
type tallies map[tallyKey]map[string]*tally

type tally struct {
	ids map[string]bool
	n   int64
}

func (t tallies) get(k tallyKey, scope string) *tally {
	if t[k] == nil {
		t[k] = map[string]*tally{}
	}
	if t[k][scope] == nil {
		t[k][scope] = &tally{ids: map[string]bool{}}
	}
	return t[k][scope]
}

// record keeps what k asks of a record that passed its checks.
func (t tallies) record(k tallyKey, v *Values) error {
	scope := ""
	if k.scope != "" {
		scope = v.Digest(k.scope)
	}
	ta := t.get(k, scope)
	switch k.kind {
	case tallyIDs:
		ds, err := v.IDs(k.path)
		if err != nil {
			return err
		}
		for _, d := range ds {
			ta.ids[d] = true
		}
	case tallyLen:
		if r := v.Get(k.path); r.IsArray() {
			ta.n = int64(len(r.Array()))
		}
	case tallySum:
		n, err := v.Whole(k.path)
		if err != nil {
			return err
		}
		ta.n += n
	case tallyCount:
		if k.path == "" || v.Bool(k.path) == k.want {
			ta.n++
		}
	case tallyTuples:
		var tuple []string
		for _, f := range strings.Split(k.path, "\x00") {
			tuple = append(tuple, v.Digest(f))
		}
		ta.ids[strings.Join(tuple, "/")] = true
	}
	return nil
}

// fields returns the fields a tally reads of its record.
func (k tallyKey) fields() []string {
	return append(strings.Split(k.path, "\x00"), k.scope)
}

// check runs an invariant on a record's values; a SeenBefore writes its
// attribute.
func (inv *Invariant) check(s *Session, v *Values, a *receipt.Attrs) error {
	var ta *tally
	if k, ok := inv.tally(); ok {
		scope := ""
		if inv.scope != "" {
			scope = v.Digest(inv.scope)
		}
		ta = s.tallies.get(k, scope)
	}
	var ok bool
	var err error
	switch inv.Kind {
	case InvAfter, InvSubset, InvSeen:
		ok, err = inv.seen(v, ta, a)
	case InvAfterAny:
		ok = ta.n > 0
	case InvOnce:
		ok, err = inv.new(v, ta)
	case InvDisjoint:
		ok, err = inv.disjoint(v)
	default: // the counting kinds
		ok, err = inv.counts(v, ta)
	}
	if err == nil && !ok {
		err = fmt.Errorf("%s", inv.Message())
	}
	return err
}

// seen reports whether every value at path is in the tally; SeenBefore
// writes that and always holds.
func (inv *Invariant) seen(v *Values, ta *tally, a *receipt.Attrs) (bool, error) {
	ds, err := v.IDs(inv.Path)
	if err != nil {
		return false, err
	}
	all := true
	for _, d := range ds {
		all = all && ta.ids[d]
	}
	if inv.Kind == InvSeen {
		a.Set(inv.key, receipt.B(len(ds) > 0 && all))
		return true, nil
	}
	return all, nil
}

// new reports whether no value at path is in the tally (Once).
func (inv *Invariant) new(v *Values, ta *tally) (bool, error) {
	ds, err := v.IDs(inv.Path)
	if err != nil {
		return false, err
	}
	for _, d := range ds {
		if ta.ids[d] {
			return false, nil
		}
	}
	return true, nil
}

// disjoint reports whether the values at path and other share none.
func (inv *Invariant) disjoint(v *Values) (bool, error) {
	x, err := v.IDs(inv.Path)
	if err != nil {
		return false, err
	}
	y, err := v.IDs(inv.Other)
	if err != nil {
		return false, err
	}
	return !overlap(x, y), nil
}

// counts reports whether the number at path, when present, is the one the
// counting kind expects.
func (inv *Invariant) counts(v *Values, ta *tally) (bool, error) {
	if !v.Has(inv.Path) {
		return true, nil
	}
	got, err := v.Whole(inv.Path)
	if err != nil {
		return false, err
	}
	want, err := inv.expected(v, ta)
	return got == want, err
}

// expected is the number a counting invariant compares its field with.
func (inv *Invariant) expected(v *Values, ta *tally) (int64, error) {
	switch inv.Kind {
	case InvLenEq:
		r := v.Get(inv.Other)
		if !r.IsArray() {
			return 0, fmt.Errorf("field %q must be a list", inv.Other)
		}
		return int64(len(r.Array())), nil
	case InvSumEq:
		var sum int64
		for _, p := range inv.Parts {
			n, err := v.Whole(p)
			if err != nil {
				return 0, err
			}
			sum += n
		}
		return sum, nil
	case InvDistinctOf:
		return int64(len(ta.ids)), nil
	default: // invLengthOf, invSumOf, invCountOf
		return ta.n, nil
	}
}

// overlap reports whether two digest lists share a value.
func overlap(a, b []string) bool {
	in := map[string]bool{}
	for _, d := range a {
		in[d] = true
	}
	for _, d := range b {
		if in[d] {
			return true
		}
	}
	return false
}
