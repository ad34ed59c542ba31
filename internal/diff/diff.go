// Package diff compares two convert.receipt.v1 receipts structurally:
// events added, removed or changed (matched by name and identity), buckets
// that moved, events that entered or left the selected and omitted sets,
// and the summary's changes. A receipt may come from anywhere: what is
// printed of it goes through Result.Screened.
package diff

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/internal/untrusted"
)

// Event is one receipt line as the diff sees it.
type Event struct {
	Line     int
	Name     string
	Identity string            // identity attributes, "k=v" joined by ", "; "#n" when repeated
	Attrs    map[string]string // compact JSON of each attribute, plus "time"
}

// Ref names an event of one side.
type Ref struct {
	Name     string `json:"name"`
	Identity string `json:"identity"`
	Line     int    `json:"line"`
}

// AttrChange is one attribute that differs; From or To is "" when absent.
type AttrChange struct {
	Attr   string `json:"attr"`
	From   string `json:"from"`
	To     string `json:"to"`
	Bucket bool   `json:"bucket,omitempty"` // both values are bucket labels
}

// Change is an event present on both sides with different attributes.
type Change struct {
	Name     string       `json:"name"`
	Identity string       `json:"identity"`
	LineA    int          `json:"line_a"`
	LineB    int          `json:"line_b"`
	Attrs    []AttrChange `json:"attrs"`
}

// Move is a bucket attribute of a matched event that changed bucket.
type Move struct {
	Name     string `json:"name"`
	Identity string `json:"identity"`
	Attr     string `json:"attr"`
	From     string `json:"from"`
	To       string `json:"to"`
}

// SetChange lists the events that entered and left a set between A and B.
type SetChange struct {
	Entered []string `json:"entered"`
	Left    []string `json:"left"`
}

// Result is the whole difference of A and B.
type Result struct {
	Added        []Ref        `json:"added"`
	Removed      []Ref        `json:"removed"`
	Changed      []Change     `json:"changed"`
	BucketsMoved []Move       `json:"buckets_moved"`
	Selected     SetChange    `json:"selected"`
	Omitted      SetChange    `json:"omitted"`
	Summary      []AttrChange `json:"summary"`
	Equivalent   bool         `json:"equivalent"`
}

// identitySuffixes mark the attributes that say which thing an event is
// about (as opposed to what was observed of it).
var identitySuffixes = []string{".path_hash", ".uri_hash", ".name_hash", ".id_hash", ".key_hash", ".id", "_id", ".path", ".uri", ".name"}

// sessionKeys name the session every event belongs to, not the event.
var sessionKeys = map[string]bool{"session.id": true, "gen_ai.conversation.id": true}

// omittedValues are attribute values that put an event in the omitted set.
var omittedValues = map[string]bool{"omitted": true, "suppressed": true, "dropped": true, "excluded": true,
	"pruned": true, "evicted": true, "not_selected": true, "rejected": true, "filtered": true}

var bucketLabels = func() map[string]bool {
	m := map[string]bool{"0": true, "invalid": true}
	for _, l := range receipt.Ladders() {
		for _, s := range l.Labels {
			m[s] = true
		}
	}
	return m
}()

// ErrNotReceipt is Parse's answer for a file that is not a receipt.
var ErrNotReceipt = errors.New("not a receipt")

// RunKeys are the attributes that differ between two runs of the same agent
// over the same task however alike the runs are: event times, the session,
// conversation, response and tool-call ids, the input's path and digests,
// and the leak check's raw-string counts (they count the prompts' words).
// convert diff ignores them unless --ignore is given.
var RunKeys = []string{"time", "session.id", "gen_ai.conversation.id", "gen_ai.response.id", "gen_ai.tool.call.id",
	"convert.input.path", "convert.input.sha256", "convert.input.group_sha256", "convert.input.bytes", "convert.input.lines",
	"convert.input.records", "convert.leak_check.raw_strings", "convert.leak_check.raw_bytes"}

// Parse reads a receipt: its events, and the summary's attributes.
func Parse(name string, data []byte) (events []Event, summary map[string]string, err error) {
	return ParseIgnoring(name, data, nil)
}

// ParseIgnoring is Parse without the attributes ignore names: they are
// neither compared nor part of an event's identity.
func ParseIgnoring(name string, data []byte, ignore map[string]bool) (events []Event, summary map[string]string, err error) {
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte{'\n'})
	seen := map[string]int{}
	for i, l := range lines {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var ln struct {
			Name       string                     `json:"name"`
			Time       string                     `json:"time"`
			Schema     string                     `json:"schema"`
			Attributes map[string]json.RawMessage `json:"attributes"`
		}
		if err := json.Unmarshal(l, &ln); err != nil || ln.Name == "" {
			return nil, nil, fmt.Errorf("%s:%d: %w (no receipt line)", name, i+1, ErrNotReceipt)
		}
		if ln.Schema != receipt.SchemaID {
			return nil, nil, fmt.Errorf("%s:%d: %w (schema is not %s)", name, i+1, ErrNotReceipt, receipt.SchemaID)
		}
		attrs := map[string]string{}
		for k, v := range ln.Attributes {
			if ignore[k] {
				continue
			}
			var b bytes.Buffer
			if json.Compact(&b, v) == nil {
				attrs[k] = b.String()
			}
		}
		if ln.Name == "convert.summary" {
			summary = attrs
			continue
		}
		if ln.Time != "" && !ignore["time"] {
			attrs["time"] = `"` + ln.Time + `"`
		}
		id := identity(attrs)
		seen[ln.Name+"\x00"+id]++
		if n := seen[ln.Name+"\x00"+id]; n > 1 {
			id = strings.TrimPrefix(id+fmt.Sprintf(" #%d", n), " ")
		}
		events = append(events, Event{Line: i + 1, Name: ln.Name, Identity: id, Attrs: attrs})
	}
	if summary == nil {
		return nil, nil, fmt.Errorf("%s: %w (no convert.summary line)", name, ErrNotReceipt)
	}
	return events, summary, nil
}

func identity(attrs map[string]string) string {
	var parts []string
	for k, v := range attrs {
		if sessionKeys[k] {
			continue
		}
		for _, s := range identitySuffixes {
			if strings.HasSuffix(k, s) {
				parts = append(parts, k+"="+unquote(v))
				break
			}
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func unquote(v string) string {
	var s string
	if json.Unmarshal([]byte(v), &s) == nil {
		return s
	}
	return v
}

// Receipts compares the receipt bytes a and b.
func Receipts(nameA string, a []byte, nameB string, b []byte) (*Result, error) {
	return ReceiptsIgnoring(nameA, a, nameB, b, nil)
}

// ReceiptsIgnoring is Receipts without the attributes ignore names.
func ReceiptsIgnoring(nameA string, a []byte, nameB string, b []byte, ignore map[string]bool) (*Result, error) {
	ea, sa, err := ParseIgnoring(nameA, a, ignore)
	if err != nil {
		return nil, err
	}
	eb, sb, err := ParseIgnoring(nameB, b, ignore)
	if err != nil {
		return nil, err
	}
	return Compare(ea, sa, eb, sb), nil
}

// Compare compares parsed receipts.
func Compare(ea []Event, sa map[string]string, eb []Event, sb map[string]string) *Result {
	r := &Result{Added: []Ref{}, Removed: []Ref{}, Changed: []Change{}, BucketsMoved: []Move{}, Summary: []AttrChange{},
		Selected: SetChange{[]string{}, []string{}}, Omitted: SetChange{[]string{}, []string{}}}
	key := func(e Event) string { return e.Name + "\x00" + e.Identity }
	inB := map[string]Event{}
	for _, e := range eb {
		inB[key(e)] = e
	}
	inA := map[string]bool{}
	for _, e := range ea {
		inA[key(e)] = true
		f, ok := inB[key(e)]
		if !ok {
			r.Removed = append(r.Removed, Ref{e.Name, e.Identity, e.Line})
			continue
		}
		ch := attrChanges(e.Attrs, f.Attrs)
		if len(ch) == 0 {
			continue
		}
		r.Changed = append(r.Changed, Change{e.Name, e.Identity, e.Line, f.Line, ch})
		for _, c := range ch {
			if c.Bucket {
				r.BucketsMoved = append(r.BucketsMoved, Move{e.Name, e.Identity, c.Attr, unquote(c.From), unquote(c.To)})
			}
		}
	}
	for _, e := range eb {
		if !inA[key(e)] {
			r.Added = append(r.Added, Ref{e.Name, e.Identity, e.Line})
		}
	}
	r.Selected = setChange(ea, eb, isSelected)
	r.Omitted = setChange(ea, eb, isOmitted)
	r.Summary = attrChanges(sa, sb)
	r.Equivalent = len(r.Added)+len(r.Removed)+len(r.Changed)+len(r.Summary) == 0
	return r
}

func attrChanges(a, b map[string]string) []AttrChange {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var out []AttrChange
	for k := range keys {
		if a[k] != b[k] {
			out = append(out, AttrChange{Attr: k, From: a[k], To: b[k],
				Bucket: bucketLabels[unquote(a[k])] && bucketLabels[unquote(b[k])] && a[k] != "" && b[k] != ""})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Attr < out[j].Attr })
	return out
}

func isSelected(e Event) bool {
	for _, v := range e.Attrs {
		if v == `"selected"` {
			return true
		}
	}
	return strings.HasSuffix(e.Name, ".selected")
}

func isOmitted(e Event) bool {
	for _, v := range e.Attrs {
		if omittedValues[unquote(v)] {
			return true
		}
	}
	for w := range omittedValues {
		if strings.Contains(e.Name, w) {
			return true
		}
	}
	return false
}

func setChange(ea, eb []Event, in func(Event) bool) SetChange {
	set := func(es []Event) map[string]bool {
		m := map[string]bool{}
		for _, e := range es {
			if in(e) {
				m[label(e.Name, e.Identity)] = true
			}
		}
		return m
	}
	a, b := set(ea), set(eb)
	sc := SetChange{Entered: []string{}, Left: []string{}}
	for k := range b {
		if !a[k] {
			sc.Entered = append(sc.Entered, k)
		}
	}
	for k := range a {
		if !b[k] {
			sc.Left = append(sc.Left, k)
		}
	}
	sort.Strings(sc.Entered)
	sort.Strings(sc.Left)
	return sc
}

func label(name, id string) string {
	if id == "" {
		return name
	}
	return name + " [" + id + "]"
}

// WriteText prints r for people: one line per difference, then a count.
func (r *Result) WriteText(w io.Writer, nameA, nameB string) {
	fmt.Fprintf(w, "--- %s\n+++ %s\n", nameA, nameB)
	for _, e := range r.Removed {
		fmt.Fprintf(w, "- %s (A line %d)\n", label(e.Name, e.Identity), e.Line)
	}
	for _, e := range r.Added {
		fmt.Fprintf(w, "+ %s (B line %d)\n", label(e.Name, e.Identity), e.Line)
	}
	for _, c := range r.Changed {
		fmt.Fprintf(w, "~ %s (A line %d, B line %d)\n", label(c.Name, c.Identity), c.LineA, c.LineB)
		writeAttrs(w, "    ", c.Attrs)
	}
	for _, s := range []struct {
		name string
		sc   SetChange
	}{{"selected", r.Selected}, {"omitted", r.Omitted}} {
		for _, e := range s.sc.Entered {
			fmt.Fprintf(w, "%s set + %s\n", s.name, e)
		}
		for _, e := range s.sc.Left {
			fmt.Fprintf(w, "%s set - %s\n", s.name, e)
		}
	}
	if len(r.Summary) > 0 {
		fmt.Fprintln(w, "~ convert.summary")
		writeAttrs(w, "    ", r.Summary)
	}
	if r.Equivalent {
		fmt.Fprintln(w, "equivalent")
		return
	}
	fmt.Fprintf(w, "%d added, %d removed, %d changed, %d buckets moved, %d summary attributes changed\n",
		len(r.Added), len(r.Removed), len(r.Changed), len(r.BucketsMoved), len(r.Summary))
}

func writeAttrs(w io.Writer, indent string, cs []AttrChange) {
	for _, c := range cs {
		kind := ""
		if c.Bucket {
			kind = "bucket moved: "
		}
		fmt.Fprintf(w, "%s%s%s: %s -> %s\n", indent, kind, c.Attr, orAbsent(c.From), orAbsent(c.To))
	}
}

func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}

// Screened is r as it may be printed: a receipt comes from anywhere, so
// every name, identity, attribute key and value read from one is shown as
// it is only when a receipt convert writes could hold it in clear, else as
// its digest with a note (untrusted.Show). A value is judged by the field
// that holds it (Value): a count, a bucket, an id, a model name is shown
// as itself, since that is where a regression shows. Equivalent is r's.
func (r *Result) Screened() *Result {
	s := *r
	refs := func(rs []Ref) []Ref {
		out := make([]Ref, len(rs))
		for i, e := range rs {
			out[i] = Ref{Name: untrusted.Show(e.Name), Identity: screenIdentity(e.Identity), Line: e.Line}
		}
		return out
	}
	attrs := func(cs []AttrChange) []AttrChange {
		out := make([]AttrChange, len(cs))
		for i, c := range cs {
			out[i] = AttrChange{Attr: untrusted.Show(c.Attr), From: Value(c.Attr, c.From), To: Value(c.Attr, c.To), Bucket: c.Bucket}
		}
		return out
	}
	set := func(sc SetChange) SetChange {
		out := SetChange{Entered: make([]string, len(sc.Entered)), Left: make([]string, len(sc.Left))}
		for i, e := range sc.Entered {
			out.Entered[i] = screenLabel(e)
		}
		for i, e := range sc.Left {
			out.Left[i] = screenLabel(e)
		}
		return out
	}
	s.Added, s.Removed = refs(r.Added), refs(r.Removed)
	s.Changed = make([]Change, len(r.Changed))
	for i, c := range r.Changed {
		s.Changed[i] = Change{Name: untrusted.Show(c.Name), Identity: screenIdentity(c.Identity), LineA: c.LineA, LineB: c.LineB, Attrs: attrs(c.Attrs)}
	}
	s.BucketsMoved = make([]Move, len(r.BucketsMoved))
	for i, m := range r.BucketsMoved {
		s.BucketsMoved[i] = Move{Name: untrusted.Show(m.Name), Identity: screenIdentity(m.Identity), Attr: untrusted.Show(m.Attr),
			From: untrusted.Field(m.Attr, m.From), To: untrusted.Field(m.Attr, m.To)}
	}
	s.Selected, s.Omitted = set(r.Selected), set(r.Omitted)
	s.Summary = attrs(r.Summary)
	return &s
}

// Value is v, the compact JSON value of the attribute key in a receipt
// from anywhere, as diff prints it: a whole number a count's kind admits
// (leak.Count: token counts, bytes, events; not a card or phone number) as
// it is; a string as untrusted.Field judges it in that field (an id, a
// file name as the run writes it, a bucket, a digest; a model the catalog
// knows); an array
// element by element; anything else as untrusted.ShowJSON.
//
//	gen_ai.usage.input_tokens 28249720          28249720
//	gen_ai.usage.input_tokens 4111111111111111  withheld (a card number)
//	gen_ai.response.model "claude-opus-4-5"     "claude-opus-4-5"
//	gen_ai.response.model "claude-CANARYUSER"   withheld (no catalog model)
//	session.id "sess-9c1e-payments-refactor"    "sess-9c1e-payments-refactor"
func Value(key, v string) string {
	switch {
	case v == "":
		return ""
	case leak.Count.Admit(v):
		return v
	case len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"':
		var s string
		if json.Unmarshal([]byte(v), &s) != nil {
			break
		}
		if untrusted.FieldKind(key) == leak.Model {
			// A model the catalog knows is Printable; a model field's
			// syntax admits a user name, and this receipt may be hostile.
			if untrusted.Printable(s) {
				return v
			}
		} else if untrusted.Field(key, s) == s {
			return v
		}
	case len(v) >= 2 && v[0] == '[' && v[len(v)-1] == ']':
		var elems []json.RawMessage
		if json.Unmarshal([]byte(v), &elems) != nil {
			break
		}
		out := make([]string, len(elems))
		for i, e := range elems {
			out[i] = Value(key, string(e))
		}
		return "[" + strings.Join(out, ",") + "]"
	}
	return untrusted.ShowJSON(v)
}

// screenIdentity is an identity ("k=v, k=v", maybe " #n") with each key
// and value screened on its own, a value by its field (untrusted.Field).
func screenIdentity(id string) string {
	if id == "" {
		return ""
	}
	rest, nth := id, ""
	if i := strings.LastIndex(id, " #"); i >= 0 && strings.Trim(id[i+2:], "0123456789") == "" && i+2 < len(id) {
		rest, nth = id[:i], id[i:]
	} else if strings.HasPrefix(id, "#") && strings.Trim(id[1:], "0123456789") == "" && len(id) > 1 {
		return id
	}
	if rest == "" {
		return nth
	}
	parts := strings.Split(rest, ", ")
	for i, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			parts[i] = untrusted.Show(p)
			continue
		}
		parts[i] = untrusted.Show(k) + "=" + untrusted.Field(k, v)
	}
	return strings.Join(parts, ", ") + nth
}

// screenLabel is a set's entry, "name [identity]", screened.
func screenLabel(l string) string {
	if name, id, ok := strings.Cut(l, " ["); ok && strings.HasSuffix(id, "]") {
		return label(untrusted.Show(name), screenIdentity(strings.TrimSuffix(id, "]")))
	}
	return untrusted.Show(l)
}
