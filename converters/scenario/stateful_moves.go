package scenario

import (
	"fmt"
	"math"

	"github.com/contextreceipts/convert/converters/events"

	"github.com/contextreceipts/convert/converters/view"
	"github.com/contextreceipts/convert/internal/receipt"
)

// Moves shared by the memory, brain, code-search, compaction and pruning
// scenarios: run-level attributes kept on the root span and copied to
// events, one remembered string per key, fractional and money buckets.

// The ladders these scenarios add to receipt's; each is documented where its
// events' schemas enumerate its labels.
var (
	// ScoreLadder buckets a relevance or quality score in [0, 1], in
	// thousandths.
	ScoreLadder = events.CustomLadder(receipt.Ladder{Name: "score_0_1",
		Bounds: []int64{500, 800, 900},
		Labels: []string{"low", "medium", "high", "very_high"}})
	// HealthLadder buckets a 0-100 health score.
	HealthLadder = events.CustomLadder(receipt.Ladder{Name: "score_0_100",
		Bounds: []int64{50, 75, 90},
		Labels: []string{"under_50", "under_75", "under_90", "90_plus"}})
	// UsdLadder buckets a spend in US cents.
	UsdLadder = events.CustomLadder(receipt.Ladder{Name: "usd_cents",
		Bounds: []int64{100, 500, 2500, 10000},
		Labels: []string{"under_1_usd", "under_5_usd", "under_25_usd", "under_100_usd", "100_usd_plus"}})
	// PercentLadder buckets a ratio in percent.
	PercentLadder = events.CustomLadder(receipt.Ladder{Name: "percent",
		Bounds: []int64{25, 50, 75, 90, 100},
		Labels: []string{"under_25_percent", "under_50_percent", "under_75_percent", "under_90_percent", "under_100_percent", "100_percent_plus"}})
)

// OnSpan writes a move's attribute on the event and on the root span, so
// events after it can copy it with FromSpan.
func OnSpan(key string, m Move) Move {
	m.spanKey = key
	inner := m.Apply
	m.Apply = func(s *Session, v view.Value, a *receipt.Attrs) error {
		if err := inner(s, v, a); err != nil {
			return err
		}
		if val, ok := a.Get(key); ok {
			s.Span.Set(key, val)
		}
		return nil
	}
	return m
}

// ToSpan writes a move's attribute on the root span only.
func ToSpan(m Move) Move { return SpanMove(m) }

// FromSpan copies run-level attributes from the root span to the event.
func FromSpan(keys ...string) Move {
	return Move{fromSpan: keys, Apply: func(s *Session, _ view.Value, a *receipt.Attrs) error {
		for _, k := range keys {
			if v, ok := s.Span.Get(k); ok {
				a.Set(k, v)
			}
		}
		return nil
	}}
}

// Noted writes the string noted under key, when there is one.
func Noted(key string) Move {
	return Move{fromSpan: []string{key}, Apply: func(s *Session, _ view.Value, a *receipt.Attrs) error {
		if v := s.Recall(key); v != "" {
			a.Set(key, receipt.S(v))
		}
		return nil
	}}
}

// Noting writes a move's attribute and notes its string value under the same
// key for later records.
func Noting(key string, m Move) Move {
	inner := m.Apply
	m.Apply = func(s *Session, v view.Value, a *receipt.Attrs) error {
		if err := inner(s, v, a); err != nil {
			return err
		}
		if val, ok := a.Get(key); ok && val.Kind == receipt.String {
			s.notes[key] = val.Str // an attribute value: owned
		}
		return nil
	}
	return m
}

// ListBucket writes the count-ladder bucket of a list's length.
func ListBucket(path, key string) Move {
	return Move{Path: path, Attr: events.Attr{Key: key, Def: events.LadderDef(receipt.CountLadder)}, Apply: func(s *Session, v view.Value, a *receipt.Attrs) error {
		if !v.IsArray() {
			return fmt.Errorf("field %q must be a list", path)
		}
		a.Set(key, receipt.S(receipt.CountLadder.Bucket(int64(len(v.Array())))))
		return nil
	}}
}

// ScaledBucket writes the ladder bucket of a number times scale, rounded
// (scores in thousandths, dollars in cents).
func ScaledBucket(path, key string, l receipt.Ladder, scale float64) Move {
	return Move{Path: path, Attr: events.Attr{Key: key, Def: events.LadderDef(l)}, Apply: func(s *Session, v view.Value, a *receipt.Attrs) error {
		n, err := Scaled(path, v, scale)
		if err != nil {
			return err
		}
		a.Set(key, receipt.S(l.Bucket(n)))
		return nil
	}}
}

func Scaled(path string, v view.Value, scale float64) (int64, error) {
	if v.Type() != view.Number || math.IsInf(v.Num(), 0) || math.Abs(v.Num()*scale) > 1e15 {
		return 0, fmt.Errorf("field %q must be a number", path)
	}
	return int64(math.Round(v.Num() * scale)), nil
}
