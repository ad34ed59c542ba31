package converters

import (
	"fmt"
	"sort"
	"strings"
)

// Detect picks the converter for an input from the record types seen in its
// first lines (type name -> occurrences). A type known to several converters
// counts for each as 1/n, so shared types (session.start) decide nothing and
// the converter that knows the distinctive types wins. A tie or no
// recognised type is an error naming the known kinds. Each hint field seen
// (keys: the top-level field names of those lines) adds half a point, which
// breaks ties between converters that read the same record types.
func Detect(typeField string, types map[string]int, keys map[string]bool) (Converter, error) {
	known := map[string]int{}
	for _, c := range All() {
		if c.TypeField != typeField {
			continue
		}
		for _, t := range c.Types {
			known[t]++
		}
	}
	type score struct {
		c Converter
		v float64
	}
	var scores []score
	for _, c := range All() {
		if c.TypeField != typeField {
			continue
		}
		v := 0.0
		for _, t := range c.Types {
			if types[t] > 0 {
				v += 1 / float64(known[t])
			}
		}
		if v > 0 {
			for _, h := range c.Hints {
				if keys[h] {
					v += 0.5
				}
			}
			scores = append(scores, score{c, v})
		}
	}
	sort.SliceStable(scores, func(i, j int) bool { return scores[i].v > scores[j].v })
	switch {
	case len(scores) == 0:
		return Converter{}, fmt.Errorf("input matches no known kind (known: %s)", strings.Join(Names(), ", "))
	case len(scores) > 1 && scores[0].v-scores[1].v < 1e-9:
		return Converter{}, fmt.Errorf("input matches %s and %s equally; pass --converter", scores[0].c.Name, scores[1].c.Name)
	}
	return scores[0].c, nil
}
