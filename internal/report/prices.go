package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/contextreceipts/convert/internal/models"
	"github.com/contextreceipts/convert/internal/usage"
)

// Price is what one model costs, in US dollars per million tokens of each
// kind, in the one token model (input without the cache).
type Price struct {
	Input      float64
	Output     float64
	CacheRead  float64
	CacheWrite float64
	// CacheWrite1h is the price of a write to Anthropic's 1-hour cache;
	// with Has1h false, such writes cost CacheWrite.
	CacheWrite1h float64
	Has1h        bool
	// Unset are the kinds the table gives no price for (priceKinds bits;
	// zero: all four given). A model with tokens of such a kind is refused
	// (Report.PriceErrors), never priced at 0.
	Unset uint8
	// Long is the price of a request above the long-context threshold
	// (Long.From input tokens, the cache included; 0: none), the
	// catalog's first tier. A --prices entry has none.
	Long LongPrice
}

// LongPrice is a model's long-context price, in US dollars per million
// tokens of each kind.
type LongPrice struct {
	From                                               int64
	Input, Output, CacheRead, CacheWrite, CacheWrite1h float64
}

// Prices is how a report prices its models: the models of Table (a
// --prices file's entries) at their own price, then, with Catalog, those
// of the model catalog (internal/models: pydantic's genai-prices data).
// A model neither names has no cost: the report never guesses one.
type Prices struct {
	Table   map[string]Price
	Catalog bool
}

// priceKinds are the token kinds of a price, in the order of Price's bits.
var priceKinds = []string{"input", "output", "cache_read", "cache_write"}

// Bundled is the catalog's prices, which `convert report` uses unless
// --no-cost, and the catalog's source ("@pydantic/genai-prices@0.1.8").
func Bundled() (*Prices, string) {
	return &Prices{Catalog: true}, models.Source()
}

// LoadPrices reads a --prices file: either a JSON object from model name
// to {"input", "output", "cache_read", "cache_write"} in USD per million
// tokens, or a table in the long form ({"date": ..., "models":
// {...}}). An entry may leave a kind out: it is refused only when the
// report has tokens of that kind for that model.
func LoadPrices(path string) (map[string]Price, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read the price table", path)
	}
	p, _, err := parsePrices(b, path)
	return p, err
}

// Merge returns p with the entries of a --prices file (over) replacing
// its own, model by model, before the catalog.
func (p *Prices) Merge(over map[string]Price) *Prices {
	out := &Prices{Table: make(map[string]Price, len(p.Table)+len(over)), Catalog: p.Catalog}
	for k, v := range p.Table {
		out.Table[k] = v
	}
	for k, v := range over {
		out.Table[k] = v
	}
	return out
}

// priceEntry is one model of a price file. Names of other fields than the
// kinds (aliases, source, note) are the long form's.
type priceEntry struct {
	kinds   map[string]float64
	aliases []string
}

func parsePrices(b []byte, path string) (map[string]Price, string, error) {
	bad := fmt.Errorf("%s:1: not a price table: want {\"MODEL\": {\"input\": USD_PER_MTOK, \"output\": ..., \"cache_read\": ..., \"cache_write\": ...}}", path)
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&top); err != nil || top == nil {
		return nil, "", bad
	}
	var date string
	models := top
	if raw, ok := top["models"]; ok && len(raw) > 0 && raw[0] == '{' {
		// The long form: date, currency, unit, sources, notes, models.
		if d, ok := top["date"]; ok {
			if err := json.Unmarshal(d, &date); err != nil {
				return nil, "", bad
			}
		}
		models = nil
		if err := json.Unmarshal(raw, &models); err != nil {
			return nil, "", bad
		}
	}
	p := map[string]Price{}
	for _, m := range sortedKeys(models) {
		e, err := parseEntry(models[m], path)
		if err != nil {
			return nil, "", err
		}
		pr := Price{}
		for i, k := range priceKinds {
			v, ok := e.kinds[k]
			if !ok {
				pr.Unset |= 1 << i
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
			}
		}
		if v, ok := e.kinds["cache_write_1h"]; ok {
			pr.CacheWrite1h, pr.Has1h = v, true
		}
		p[m] = pr
		for _, a := range e.aliases {
			p[a] = pr
		}
	}
	return p, date, nil
}

func parseEntry(raw json.RawMessage, path string) (priceEntry, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return priceEntry{}, fmt.Errorf("%s:1: a model's price is an object of %s", path, strings.Join(priceKinds, ", "))
	}
	e := priceEntry{kinds: map[string]float64{}}
	for _, k := range sortedKeys(fields) {
		switch k {
		case "input", "output", "cache_read", "cache_write", "cache_write_1h":
			var v float64
			if err := json.Unmarshal(fields[k], &v); err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return priceEntry{}, fmt.Errorf("%s:1: a price must be a number of 0 or more", path)
			}
			e.kinds[k] = v
		case "aliases":
			if err := json.Unmarshal(fields[k], &e.aliases); err != nil {
				return priceEntry{}, fmt.Errorf("%s:1: aliases is a list of model names", path)
			}
		case "source", "note":
		default:
			return priceEntry{}, fmt.Errorf("%s:1: a model's price has the keys %s only (and cache_write_1h, aliases, source, note)", path, strings.Join(priceKinds, ", "))
		}
	}
	return e, nil
}

// dateSuffix is a dated snapshot's suffix (claude-haiku-4-5-20251001,
// gpt-5-2025-08-07): a model without its own entry costs what its
// undated name does.
var dateSuffix = regexp.MustCompile(`-(20[0-9]{6}|20[0-9]{2}-[0-9]{2}-[0-9]{2})$`)

// lookup finds a model's price: its table entry, else its undated name's,
// else the catalog's.
func (p *Prices) lookup(model string) (Price, bool) {
	if p == nil {
		return Price{}, false
	}
	if pr, ok := p.Table[model]; ok {
		return pr, true
	}
	if base := dateSuffix.ReplaceAllString(model, ""); base != model {
		if pr, ok := p.Table[base]; ok {
			return pr, true
		}
	}
	if !p.Catalog {
		return Price{}, false
	}
	c, ok := models.PriceOf(model)
	if !ok {
		return Price{}, false
	}
	// An unset cache kind has its parent's rate in the catalog (a cache
	// write is input where the provider charges no more for it); an
	// unset input or output price stays unset, refused if it has tokens.
	pr := Price{Input: c.Input, Output: c.Output, CacheRead: c.CacheRead, CacheWrite: c.CacheWrite, CacheWrite1h: c.CacheWrite1h, Has1h: true}
	if len(c.Tiers) > 0 {
		r := c.Tiers[0]
		pr.Long = LongPrice{From: r.From, Input: r.Input, Output: r.Output, CacheRead: r.CacheRead, CacheWrite: r.CacheWrite, CacheWrite1h: r.CacheWrite1h}
	}
	if c.Unset&models.Input != 0 {
		pr.Unset |= 1
	}
	if c.Unset&models.Output != 0 {
		pr.Unset |= 2
	}
	return pr, true
}

// cost is nil when the model has no price, or no price for a kind it has
// tokens of (missing names that kind: a partial entry is refused, never
// priced at 0).
func (p *Prices) cost(t ModelTokens) (c *float64, missing string) {
	pr, ok := p.lookup(t.Model)
	if !ok {
		return nil, ""
	}
	out := t.Output
	if reasoningApart(t.Model) {
		out += t.Reasoning
	}
	for i, n := range []int64{t.Input, out, t.CacheRead, t.CacheWrite} {
		if n != 0 && pr.Unset&(1<<i) != 0 {
			return nil, priceKinds[i]
		}
	}
	write1h := pr.CacheWrite
	if pr.Has1h {
		write1h = pr.CacheWrite1h
	}
	h := min(t.CacheWrite1h, t.CacheWrite)
	// The requests above the long-context threshold cost the long
	// price, every token of them; their share of the 1-hour writes is
	// their share of the cache writes.
	long := t.long
	if pr.Long.From == 0 || long.Input+long.Output+long.CacheRead+long.CacheWrite+long.Reasoning == 0 {
		long = usage.Tokens{}
	}
	longOut := long.Output
	if reasoningApart(t.Model) {
		longOut += long.Reasoning
	}
	var h1 int64
	if t.CacheWrite > 0 {
		h1 = h * long.CacheWrite / t.CacheWrite
	}
	v := (float64(t.Input-long.Input)*pr.Input + float64(out-longOut)*pr.Output + float64(t.CacheRead-long.CacheRead)*pr.CacheRead +
		float64(t.CacheWrite-long.CacheWrite-(h-h1))*pr.CacheWrite + float64(h-h1)*write1h +
		float64(long.Input)*pr.Long.Input + float64(longOut)*pr.Long.Output + float64(long.CacheRead)*pr.Long.CacheRead +
		float64(long.CacheWrite-h1)*pr.Long.CacheWrite + float64(h1)*pr.Long.CacheWrite1h) / 1e6
	v = math.Round(v*1e6) / 1e6
	return &v, ""
}

// reasoningApart reports whether a model's reasoning tokens are billed
// on top of its output tokens: Google's models, whose API counts thoughts
// apart from the output (thoughtsTokenCount beside candidatesTokenCount)
// and bills them as output, as ccusage prices Gemini CLI's. OpenAI's and
// Anthropic's output counts already hold their reasoning.
func reasoningApart(model string) bool {
	p, ok := models.PriceOf(model)
	return ok && p.Provider == "google"
}

// priceErrors are the models whose price entry lacks a kind they have
// tokens of, as messages naming the model and the kind.
func priceErrors(p *Prices, tokens []ModelTokens) []string {
	var out []string
	for _, t := range tokens {
		if _, missing := p.cost(t); missing != "" {
			n := map[string]int64{"input": t.Input, "output": t.Output, "cache_read": t.CacheRead, "cache_write": t.CacheWrite}[missing]
			out = append(out, fmt.Sprintf("%s has no %s price, and the report has %s %s tokens of it: give one (0 if they are free)",
				t.Model, missing, num(n), strings.ReplaceAll(missing, "_", " ")))
		}
	}
	sort.Strings(out)
	return out
}
