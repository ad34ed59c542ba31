package converters

import (
	"errors"
	"fmt"
	"sort"
)

// Detect picks the converter for an input from the record types seen in its
// first lines: types maps each Typer's Key to the type names it found and
// their occurrences. Each converter is scored on its own way of finding
// types. A type seen by several converters counts for each as
// 1/n, so shared types (session.start) decide nothing and the converter
// that knows the distinctive types wins. Each hint field seen (keys: the
// top-level field names of those lines) adds half a point, which breaks
// ties between converters that read the same record types; a remaining tie
// goes to the converter with fewer record types. No recognised type, or a
// tie between equally specific converters, is an error naming the known
// kinds.
//
// A converter only claims an input whose typed lines (under its type
// field) are mostly of types it knows (exactly half will do when it
// declares no hints or one of its hints is there): a log of a format no
// converter reads shares a few type names with some of them (a Gemini CLI
// chat's "user" messages with Cursor's and Claude Code's) and must match
// none.
// ErrNoKind is Detect's answer for an input no converter claims. It names
// no converter: there are 30 (convert list names them), and a message
// printed once per input should not carry them all.
var ErrNoKind = errors.New("input matches no known kind (convert list names every kind)")

func Detect(types map[string]map[string]int, keys map[string]bool) (Converter, error) {
	return DetectAmong(All(), types, keys)
}

// DetectAmong is Detect among the given converters only (tests use it to
// show that no converter claims another's format).
func DetectAmong(cands []Converter, types map[string]map[string]int, keys map[string]bool) (Converter, error) {
	// Each candidate's counts, looked up once (a native format's type key
	// is made by a concatenation).
	counts := make([]map[string]int, len(cands))
	known := map[string]int{}
	for i, c := range cands {
		counts[i] = types[c.typeKey()]
		for _, t := range c.Types {
			if counts[i][t] > 0 {
				known[t]++
			}
		}
	}
	type score struct {
		c Converter
		v float64
	}
	var scores []score
	for i, c := range cands {
		v := 0.0
		explained := 0
		for _, t := range c.Types {
			if n := counts[i][t]; n > 0 {
				v += 1 / float64(known[t])
				explained += n
			}
		}
		typed := 0
		for _, n := range counts[i] {
			typed += n
		}
		hinted := false
		for _, h := range c.Hints {
			if keys[h] {
				v += 0.5
				hinted = true
			}
		}
		// Half the typed lines explained is enough only for a converter
		// that declares no hints or finds one of them. Hints alone claim
		// nothing: a converter must know one of the input's types.
		if explained > 0 && (2*explained > typed || 2*explained == typed && (hinted || len(c.Hints) == 0)) {
			scores = append(scores, score{c, v})
		}
	}
	// Best score first; on a tie the converter with the smaller vocabulary,
	// the most specific one that explains the input, first.
	sort.SliceStable(scores, func(i, j int) bool {
		if d := scores[i].v - scores[j].v; d > 1e-9 || d < -1e-9 {
			return d > 0
		}
		return len(scores[i].c.Types) < len(scores[j].c.Types)
	})
	switch {
	case len(scores) == 0:
		return Converter{}, ErrNoKind
	case len(scores) > 1 && scores[0].v-scores[1].v < 1e-9 && len(scores[0].c.Types) == len(scores[1].c.Types):
		return Converter{}, fmt.Errorf("input matches %s and %s equally; pass --converter", scores[0].c.Name, scores[1].c.Name)
	}
	return scores[0].c, nil
}
