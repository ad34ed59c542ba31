// Package models is the catalog of the model ids convert knows and what
// they cost: the chat models of the first-party providers in pydantic's
// genai-prices data (catalog.json, trimmed from a pinned npm package by
// generate.sh, `make generate`). It depends on the standard library only,
// so that any layer may ask it whether a model name is one it knows.
package models

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

//go:generate sh generate.sh

//go:embed catalog.json
var catalogJSON []byte

// Kinds is a set of token kinds, one bit each.
type Kinds uint8

// The token kinds a price is given for, in the one token model (input
// without the cache).
const (
	Input Kinds = 1 << iota
	Output
	CacheRead
	CacheWrite   // a write to the cache, 5-minute where there are two
	CacheWrite1h // a write to Anthropic's 1-hour cache
)

// Rates are prices in US dollars per million tokens of each kind.
type Rates struct {
	Input, Output, CacheRead, CacheWrite, CacheWrite1h float64
}

// Tier is the price of a request whose input tokens (the cache included)
// reach From: the data's long-context prices.
type Tier struct {
	From int64
	Rates
}

// Price is what one model costs.
type Price struct {
	// Model and Provider are the catalog's id of the model and its
	// provider's (genai-prices' ids: "claude-opus-4-5", "anthropic").
	Model, Provider string
	Rates
	// Unset are the kinds the data gives no price for. An unset cache
	// kind has its parent's rate (a read or write: Input; a 1-hour write:
	// CacheWrite), as genai-prices prices it; an unset Input or Output has
	// rate 0 and must not be priced (a report never prices a kind at 0
	// for want of data).
	Unset Kinds
	// Tiers are the long-context prices, by From ascending; none: one
	// price whatever the request's size.
	Tiers []Tier
	// From is the first day (YYYY-MM-DD) these prices hold, "" for the
	// model's first prices.
	From string
}

// Source is the data's package and version, e.g. "@pydantic/genai-prices@0.1.8".
func Source() string { return load().source }

// Known reports whether name is a model id the catalog knows: one of its
// ids or the names its match rules spell out, optionally behind a known
// provider prefix ("anthropic/", "openai/", "models/", "us.anthropic.")
// and with a release date or version suffix ("-20251101", "-2025-08-07",
// "@20250514", "-v1:0", "-latest"). It matches no prefix or pattern
// beyond that: a name it knows is a name someone published, never one
// that merely starts like it.
func Known(name string) bool {
	_, ok := load().names[Canonical(name)]
	return ok
}

// PriceOf returns the newest price of the model name names: the model Known
// finds, else the first model (in the data's order) whose match rule
// takes the name without its provider prefix and date suffix (or the
// part after its last slash), as genai-prices matches it. ok is false for a model the data does not
// price.
func PriceOf(name string) (Price, bool) {
	c := load()
	m, ok := c.names[Canonical(name)]
	if !ok {
		// Then the match rules, on the name and on its last part after a
		// prefix Canonical does not know ("gateway/claude-opus-4-5").
		base := Canonical(name)
		last := Canonical(base[strings.LastIndexByte(base, '/')+1:])
		for i := range c.models {
			if c.models[i].Match.matches(base) || c.models[i].Match.matches(last) {
				m, ok = &c.models[i], true
				break
			}
		}
	}
	if !ok {
		return Price{}, false
	}
	return m.prices[len(m.prices)-1], true
}

// PriceOn is PriceOf as it held on day (YYYY-MM-DD): the newest of the
// model's prices whose From is not after day. A day before the first
// (or "") gives the first.
func PriceOn(name, day string) (Price, bool) {
	p, ok := PriceOf(name)
	if !ok {
		return p, false
	}
	m := load().byID[p.Provider+"/"+p.Model]
	for i := len(m.prices) - 1; i >= 0; i-- {
		if m.prices[i].From <= day || i == 0 {
			return m.prices[i], true
		}
	}
	return p, true
}

// providerPrefixes are the prefixes agents and gateways put before a
// model id, removed before a lookup.
var providerPrefixes = []string{
	"anthropic/", "openai/", "google/", "gemini/", "models/", "vertex_ai/", "bedrock/", "azure/",
	"x-ai/", "xai/", "deepseek/", "mistral/", "mistralai/", "moonshotai/", "moonshot/", "zai/", "z-ai/",
	"minimax/", "openrouter/", "github-copilot/", "copilot/", "opencode/", "litellm/",
}

// bedrockPrefix is a Bedrock inference profile's region and vendor
// ("us.anthropic.claude-sonnet-4-5-20250929-v1:0").
var bedrockPrefix = regexp.MustCompile(`^(?:(?:us|eu|apac|au|jp|global)\.)?anthropic\.`)

// versionSuffix is a release's date or version after the model id:
// -20251101, -2025-08-07, @20250514, -v1:0, -latest, [1m] (Claude Code's
// 1M-context mark), repeated in any order.
var versionSuffix = regexp.MustCompile(`(?:-20[0-9]{6}|-20[0-9]{2}-[0-9]{2}-[0-9]{2}|@20[0-9]{6}|@latest|-v[0-9]+(?::[0-9]+)?|:[0-9]+|-latest|\[1m\])$`)

// Canonical is name without the provider prefixes and version suffixes
// Known accepts: the form the catalog's names are looked up in.
func Canonical(name string) string {
	n := strings.TrimSpace(name)
	for again := true; again; {
		again = false
		for _, p := range providerPrefixes {
			if len(n) > len(p) && strings.EqualFold(n[:len(p)], p) {
				n, again = n[len(p):], true
			}
		}
	}
	n = bedrockPrefix.ReplaceAllString(n, "")
	for {
		m := versionSuffix.ReplaceAllString(n, "")
		if m == n || m == "" {
			break
		}
		n = m
	}
	return n
}

// match is genai-prices' match rule: exactly one of its fields is set.
type match struct {
	Equals     *string `json:"equals"`
	StartsWith *string `json:"starts_with"`
	EndsWith   *string `json:"ends_with"`
	Contains   *string `json:"contains"`
	Regex      *string `json:"regex"`
	Or         []match `json:"or"`
	And        []match `json:"and"`

	re     *regexp.Regexp
	negate bool // re is a negative lookahead ^(?!X), which Go spells as not ^(?:X)
}

func (m *match) matches(s string) bool {
	switch {
	case m.Equals != nil:
		return s == *m.Equals
	case m.StartsWith != nil:
		return strings.HasPrefix(s, *m.StartsWith)
	case m.EndsWith != nil:
		return strings.HasSuffix(s, *m.EndsWith)
	case m.Contains != nil:
		return strings.Contains(s, *m.Contains)
	case m.Regex != nil:
		return m.re.MatchString(s) != m.negate
	case m.Or != nil:
		for i := range m.Or {
			if m.Or[i].matches(s) {
				return true
			}
		}
		return false
	case m.And != nil:
		for i := range m.And {
			if !m.And[i].matches(s) {
				return false
			}
		}
		return true
	}
	return false
}

// prepare compiles the rule's regular expressions and returns the
// literal names it spells out (what Known accepts).
func (m *match) prepare() ([]string, error) {
	var names []string
	for _, s := range []*string{m.Equals, m.StartsWith, m.EndsWith, m.Contains} {
		if s != nil {
			names = append(names, *s)
		}
	}
	if m.Regex != nil {
		expr := *m.Regex
		if inner, ok := strings.CutPrefix(expr, "^(?!"); ok && strings.HasSuffix(inner, ")") {
			expr, m.negate = "^(?:"+strings.TrimSuffix(inner, ")")+")", true
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, fmt.Errorf("regex %q: %v", *m.Regex, err)
		}
		m.re = re
	}
	var subNames []string
	for _, sub := range [][]match{m.Or, m.And} {
		for i := range sub {
			n, err := sub[i].prepare()
			if err != nil {
				return nil, err
			}
			subNames = append(subNames, n...)
		}
	}
	// The names of an "and" are prefixes other rules narrow: a name only
	// where the whole rule takes it.
	for _, s := range subNames {
		if m.And == nil || matchesAll(m.And, s) {
			names = append(names, s)
		}
	}
	return names, nil
}

func matchesAll(all []match, s string) bool {
	for i := range all {
		if !all[i].matches(s) {
			return false
		}
	}
	return true
}

type model struct {
	Provider string  `json:"provider"`
	ID       string  `json:"id"`
	Match    match   `json:"match"`
	Prices   []entry `json:"prices"`

	prices []Price
}

type entry struct {
	From   string                     `json:"from"`
	Prices map[string]json.RawMessage `json:"prices"`
}

// tiered is a price that changes with the request's input size.
type tiered struct {
	Base  float64 `json:"base"`
	Tiers []struct {
		Start int64   `json:"start"`
		Price float64 `json:"price"`
	} `json:"tiers"`
}

type catalog struct {
	source string
	models []model
	names  map[string]*model
	byID   map[string]*model
}

var load = sync.OnceValue(func() *catalog {
	c, err := parse(catalogJSON)
	if err != nil {
		panic("internal/models: catalog.json: " + err.Error())
	}
	return c
})

// kindKeys are catalog.json's names of the kinds.
var kindKeys = []struct {
	key  string
	kind Kinds
	rate func(*Rates) *float64
}{
	{"input", Input, func(r *Rates) *float64 { return &r.Input }},
	{"output", Output, func(r *Rates) *float64 { return &r.Output }},
	{"cache_read", CacheRead, func(r *Rates) *float64 { return &r.CacheRead }},
	{"cache_write", CacheWrite, func(r *Rates) *float64 { return &r.CacheWrite }},
	{"cache_write_1h", CacheWrite1h, func(r *Rates) *float64 { return &r.CacheWrite1h }},
}

func parse(b []byte) (*catalog, error) {
	var doc struct {
		Source string  `json:"source"`
		Models []model `json:"models"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	c := &catalog{source: doc.Source, models: doc.Models, names: map[string]*model{}, byID: map[string]*model{}}
	for i := range c.models {
		m := &c.models[i]
		names, err := m.Match.prepare()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", m.ID, err)
		}
		for _, e := range m.Prices {
			p, err := price(m, e)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", m.ID, err)
			}
			m.prices = append(m.prices, p)
		}
		if len(m.prices) == 0 {
			return nil, fmt.Errorf("%s: no prices", m.ID)
		}
		sort.SliceStable(m.prices, func(a, b int) bool { return m.prices[a].From < m.prices[b].From })
		c.byID[m.Provider+"/"+m.ID] = m
		// The first model to spell a name out owns it, as the first
		// match wins in genai-prices.
		for _, n := range append([]string{m.ID}, names...) {
			if _, taken := c.names[n]; !taken {
				c.names[n] = m
			}
		}
	}
	return c, nil
}

// price reads one entry's prices: a kind is a number or a tiered price;
// every tier start of any kind becomes a Tier with every kind's price
// from that start on.
func price(m *model, e entry) (Price, error) {
	p := Price{Model: m.ID, Provider: m.Provider, From: e.From}
	tiers := map[int64]map[Kinds]float64{}
	for _, k := range kindKeys {
		raw, ok := e.Prices[k.key]
		if !ok {
			p.Unset |= k.kind
			continue
		}
		var v float64
		if err := json.Unmarshal(raw, &v); err == nil {
			*k.rate(&p.Rates) = v
			continue
		}
		var t tiered
		if err := json.Unmarshal(raw, &t); err != nil {
			return p, fmt.Errorf("%s: neither a number nor a tiered price", k.key)
		}
		*k.rate(&p.Rates) = t.Base
		for _, s := range t.Tiers {
			if tiers[s.Start] == nil {
				tiers[s.Start] = map[Kinds]float64{}
			}
			tiers[s.Start][k.kind] = s.Price
		}
	}
	// A cache kind without its own price costs what its parent does, as
	// genai-prices counts it: a cache read or write is input, a 1-hour
	// write a write (OpenAI's and Google's caches have no write
	// surcharge).
	fill := func(r *Rates) {
		if p.Unset&CacheRead != 0 {
			r.CacheRead = r.Input
		}
		if p.Unset&CacheWrite != 0 {
			r.CacheWrite = r.Input
		}
		if p.Unset&CacheWrite1h != 0 {
			r.CacheWrite1h = r.CacheWrite
		}
	}
	fill(&p.Rates)
	var starts []int64
	for s := range tiers {
		starts = append(starts, s)
	}
	sort.Slice(starts, func(a, b int) bool { return starts[a] < starts[b] })
	prev := p.Rates
	for _, s := range starts {
		t := Tier{From: s, Rates: prev}
		for _, k := range kindKeys {
			if v, ok := tiers[s][k.kind]; ok {
				*k.rate(&t.Rates) = v
			}
		}
		fill(&t.Rates)
		p.Tiers = append(p.Tiers, t)
		prev = t.Rates
	}
	return p, nil
}
