package scenario

import (
	"fmt"
	"strings"

	"github.com/contextreceipts/convert/converters/events"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/receipt"
)

// A Move maps one input field to one attribute. Scenario converters are
// tables of moves; the few things a table cannot say go in a Hook.
type Move struct {
	// Attr is the attribute the move writes (its key, definition type and
	// schema: events/eventschema.go); a move that writes no attribute of the
	// event (ToSpan, Use, most invariants) has an empty one.
	events.Attr
	Path  string     // input field (gjson path); "" for moves that read none
	Pass  bool       // the field's token values may appear verbatim in output
	Shape leak.Shape // the shape of a pass-through field's values (leak.Label unless set)
	Apply func(s *Session, v view.Value, a *receipt.Attrs) error
	reads []string   // further fields the move reads (invariants, Use)
	Inv   *Invariant // set for an invariant move
	check func(s *Session, v *Values, a *receipt.Attrs) error
	rule  string        // Check: what it checks
	also  []events.Attr // further attributes the move writes
	// spanKey is, for a move redirected to the root span, the key it
	// writes there.
	spanKey string
	// fromSpan lists the root-span keys the move copies to the event; their
	// types are those of the moves that wrote them on the span.
	fromSpan []string
}

// Use declares a field that only a Hook reads: Values.Get refuses any other
// field no move declares.
func Use(paths ...string) Move { return Move{reads: paths} }

// Check runs a rule the invariant kinds cannot say, in its place among the
// moves, on the record's declared values; rule says it in a few words for
// `convert list -v`.
func Check(rule string, fn func(s *Session, v *Values) error) Move {
	return Move{rule: rule, check: func(s *Session, v *Values, _ *receipt.Attrs) error { return fn(s, v) }}
}

// reading returns the fields a move reads.
func (m Move) reading() []string {
	if m.Path == "" {
		return m.reads
	}
	return append([]string{m.Path}, m.reads...)
}

// Req marks a move's field as required: a record without it is an error,
// so the key the move writes is required in the event's schema. On a move
// that reads no field (Const, SeenBefore, Sets) it only says the key is
// always written.
func Req(m Move) Move { m.Required = true; return m }

// Label passes a categorical field through when it is a token
// (receipt.IsToken) and writes its digest otherwise, so free text that lands
// in an enum field never reaches the receipt.
// A label is written in clear only when it is one of the program's words
// (leak.Label: the scenario's Labels among them); any other value, a new
// one included, is written as its digest.
func Label(path, key string) Move { return passMove(path, key, leak.Label, events.DefLabel) }

// Model passes a model name through in the forms providers write it
// (leak.Model: openai/gpt-oss-120b, claude-opus-4-5@20251101) and writes
// its digest otherwise.
func Model(path, key string) Move { return passMove(path, key, leak.Model, events.DefModel) }

func passMove(path, key string, shape leak.Shape, def string) Move {
	return Move{Path: path, Pass: true, Shape: shape, Attr: events.Attr{Key: key, Def: def}, Apply: func(s *Session, v view.Value, a *receipt.Attrs) error {
		if v.Type() != view.String {
			return fmt.Errorf("field %q must be a string", path)
		}
		a.Set(key, receipt.S(s.Pass(shape, v.Str())))
		return nil
	}}
}

// Hash writes the digest of a field: of its text when it is a string, of its
// RFC 8785 canonical JSON otherwise (lists, objects, numbers).
func Hash(path, key string) Move {
	return Move{Path: path, Attr: events.Attr{Key: key, Def: events.DefDigest}, Apply: func(s *Session, v view.Value, a *receipt.Attrs) error {
		d, err := s.Digest(v)
		if err != nil {
			return fmt.Errorf("field %q: %w", path, err)
		}
		a.Set(key, receipt.S(d))
		return nil
	}}
}

// Int copies a whole number: a count, declared as such (leak.Count), so a
// number above leak.MaxCount (a card or phone number in a count field:
// every phone number with its area code has 10 digits or more) is
// refused rather than copied.
//
// A latency (a key ending in latency_ms) is bounded tighter, by
// MaxLatencyMs: a day. A phone number as latency_ms (5551234567) is not a
// latency, and copied as one it would be a personal number in the receipt.
func Int(path, key string) Move {
	max := int64(leak.MaxCount)
	if strings.HasSuffix(key, "latency_ms") {
		max = MaxLatencyMs
	}
	return Move{Path: path, Pass: true, Shape: leak.Count, Attr: events.Attr{Key: key, Def: events.DefCount}, Apply: func(s *Session, v view.Value, a *receipt.Attrs) error {
		n, err := WholeCount(path, v)
		if err != nil {
			return err
		}
		if n > max {
			return fmt.Errorf("field %q must be a latency from 0 to 86400000 ms (a day)", path)
		}
		a.Set(key, receipt.Copied(n))
		return nil
	}}
}

// MaxLatencyMs bounds a latency an Int move copies: one day.
const MaxLatencyMs = 24 * 60 * 60 * 1000

// Bucket writes the ladder bucket of a whole number.
func Bucket(path, key string, l receipt.Ladder) Move {
	return Move{Path: path, Attr: events.Attr{Key: key, Def: events.LadderDef(l)}, Apply: func(s *Session, v view.Value, a *receipt.Attrs) error {
		n, err := WholeNumber(path, v)
		if err != nil {
			return err
		}
		a.Set(key, receipt.S(l.Bucket(n)))
		return nil
	}}
}

// Count writes the length of a list.
func Count(path, key string) Move {
	return Move{Path: path, Attr: events.Attr{Key: key, Def: events.DefCount}, Apply: func(s *Session, v view.Value, a *receipt.Attrs) error {
		if !v.IsArray() {
			return fmt.Errorf("field %q must be a list", path)
		}
		a.Set(key, receipt.Computed(int64(v.Len())))
		return nil
	}}
}

// Bool copies a boolean.
func Bool(path, key string) Move {
	return Move{Path: path, Attr: events.Attr{Key: key, Def: events.DefBool}, Apply: func(s *Session, v view.Value, a *receipt.Attrs) error {
		if !v.IsBool() {
			return fmt.Errorf("field %q must be true or false", path)
		}
		a.Set(key, receipt.B(v.Bool()))
		return nil
	}}
}

// Const writes a fixed value. Its schema is the constant, which also
// exempts a constant string from the leak check (schema vocabulary).
func Const(key string, v receipt.Value) Move {
	return Move{Attr: events.SetsConst(key, v), Apply: func(s *Session, _ view.Value, a *receipt.Attrs) error {
		a.Set(key, v)
		return nil
	}}
}

// SessionIDs writes session.id and gen_ai.conversation.id from session.start.
func SessionIDs() Move {
	return Move{also: []events.Attr{{Key: "gen_ai.conversation.id", Def: events.DefID}}, Attr: events.Attr{Key: "session.id", Def: events.DefID}, Apply: func(s *Session, _ view.Value, a *receipt.Attrs) error {
		if s.ID != "" {
			a.Set("session.id", receipt.S(s.ID))
		}
		if s.Conversation != "" {
			a.Set("gen_ai.conversation.id", receipt.S(s.Conversation))
		}
		return nil
	}}
}

// AgentName writes agent.name from session.start.
func AgentName() Move {
	return Move{Attr: events.Attr{Key: "agent.name", Def: events.DefID}, Apply: func(s *Session, _ view.Value, a *receipt.Attrs) error {
		if s.Agent != "" {
			a.Set("agent.name", receipt.S(s.Agent))
		}
		return nil
	}}
}

// WholeCount reads a whole-number count: 0 to leak.MaxCount, the range in
// which the leak check admits a count field's value. Copied as it stood,
// a larger one (a card or phone number in a count field) would be a raw
// input number in the receipt and the whole session refused as a leak; it
// is bad input, and said so at its line. A hand-written mapping that
// copies a count it read another way checks it with countRange.
//
//	12345            12345
//	-1, 5558675309   "field ... must be a count from 0 to 999999999"
//	1.5, "7"         "field ... must be a whole number"
func WholeCount(path string, v view.Value) (int64, error) {
	n, err := WholeNumber(path, v)
	if err != nil {
		return 0, err
	}
	return n, CountRange(path, n)
}

func CountRange(path string, n int64) error {
	if n < 0 || n > leak.MaxCount {
		return fmt.Errorf("field %q must be a count from 0 to 999999999", path)
	}
	return nil
}

func WholeNumber(path string, v view.Value) (int64, error) {
	if v.Type() != view.Number || v.Num() != float64(int64(v.Num())) {
		return 0, fmt.Errorf("field %q must be a whole number", path)
	}
	return int64(v.Num()), nil
}

// Schema narrows what a move writes (Attr.Schema).
func (m Move) Schema(p events.Prop) Move { m.Attr = m.Attr.Schema(p); return m }

// Doc describes the attribute a move writes, in its schema (Attr.Doc).
func (m Move) Doc(description string) Move { m.Attr = m.Attr.Doc(description); return m }
