package report

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
)

// Price is what one model costs, in US dollars per million tokens.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
}

// Prices maps a model name to its price. A model not in the table has no
// cost: the report never guesses one.
type Prices map[string]Price

// LoadPrices reads a --prices file: a JSON object from model name to
// {"input", "output", "cache_read", "cache_write"} in USD per million tokens.
func LoadPrices(path string) (Prices, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the price table", path)
	}
	var raw map[string]map[string]float64
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s:1: not a price table: want {\"MODEL\": {\"input\": USD_PER_MTOK, \"output\": ..., \"cache_read\": ..., \"cache_write\": ...}}", path)
	}
	p := Prices{}
	for _, m := range sortedKeys(raw) {
		var pr Price
		for _, k := range sortedKeys(raw[m]) {
			v := raw[m][k]
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s:1: a price must be a number of 0 or more", path)
			}
			switch k {
			case "input":
				pr.Input = v
			case "output":
				pr.Output = v
			case "cache_read":
				pr.CacheRead = v
			case "cache_write":
				pr.CacheWrite = v
			default:
				keys := []string{"input", "output", "cache_read", "cache_write"}
				sort.Strings(keys)
				return nil, fmt.Errorf("%s:1: a model's price has the keys %s only", path, strings.Join(keys, ", "))
			}
		}
		p[m] = pr
	}
	return p, nil
}

// cost is nil when the model has no price.
func (p Prices) cost(t ModelTokens) *float64 {
	pr, ok := p[t.Model]
	if !ok {
		return nil
	}
	c := (float64(t.Input)*pr.Input + float64(t.Output)*pr.Output + float64(t.CacheRead)*pr.CacheRead + float64(t.CacheWrite)*pr.CacheWrite) / 1e6
	c = math.Round(c*1e6) / 1e6
	return &c
}
