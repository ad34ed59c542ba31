package models

import (
	"os"
	"regexp"
	"testing"
)

// The names agents write, as Known and PriceOf take them: the catalog's
// ids, behind provider prefixes, with release dates and versions.
func TestKnownAndPrice(t *testing.T) {
	for _, c := range []struct {
		name          string
		known, priced bool
		model         string
		in, out       float64
	}{
		{"claude-opus-4-5", true, true, "claude-opus-4-5", 5, 25},
		{"claude-opus-4-5-20251101", true, true, "claude-opus-4-5", 5, 25},
		{"anthropic/claude-opus-4-5-20251101", true, true, "claude-opus-4-5", 5, 25},
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", true, true, "claude-sonnet-4-5", 3, 15},
		{"claude-opus-4-6[1m]", true, true, "claude-opus-4-6", 5, 25},
		{"claude-haiku-4-5-20251001", true, true, "claude-haiku-4-5", 1, 5},
		{"claude-opus-5", true, true, "claude-opus-5", 5, 25},
		{"gpt-5.1-codex", true, true, "gpt-5.1", 1.25, 10},
		{"openai/gpt-5-2025-08-07", true, true, "gpt-5", 1.25, 10},
		{"gemini-2.5-pro", true, true, "gemini-2.5-pro", 1.25, 10},
		{"models/gemini-2.5-pro", true, true, "gemini-2.5-pro", 1.25, 10},
		// A name that only starts like a known one is priced as
		// genai-prices matches it, but not known: its rest may be anything.
		{"claude-opus-4-5-CANARY", false, true, "claude-opus-4-5", 5, 25},
		{"CANARY/claude-opus-4-5", false, true, "claude-opus-4-5", 5, 25},
		{"claude-opus-4-5@CANARY", false, true, "claude-opus-4-5", 5, 25},
		{"claude-opus-4-5-20251101CANARY", false, true, "claude-opus-4-5", 5, 25},
		{"anthropic/CANARY", false, false, "", 0, 0},
		{"<synthetic>", false, false, "", 0, 0},
		{"CANARY-model", false, false, "", 0, 0},
		{"", false, false, "", 0, 0},
	} {
		if got := Known(c.name); got != c.known {
			t.Errorf("Known(%q) = %v, want %v", c.name, got, c.known)
		}
		p, ok := PriceOf(c.name)
		if ok != c.priced || p.Model != c.model || p.Input != c.in || p.Output != c.out {
			t.Errorf("PriceOf(%q) = %s %v/%v, %v; want %s %v/%v, %v", c.name, p.Model, p.Input, p.Output, ok, c.model, c.in, c.out, c.priced)
		}
	}
}

// An unset cache kind costs its parent's rate; a tier carries every kind.
func TestRatesAndTiers(t *testing.T) {
	p, _ := PriceOf("gemini-2.5-pro")
	if p.Unset&CacheWrite == 0 || p.CacheWrite != p.Input || p.CacheWrite1h != p.Input {
		t.Errorf("gemini-2.5-pro: unset %b, cache write %v, 1h %v; want unset and %v", p.Unset, p.CacheWrite, p.CacheWrite1h, p.Input)
	}
	if len(p.Tiers) != 1 || p.Tiers[0].From != 200000 || p.Tiers[0].Input != 2.5 || p.Tiers[0].Output != 15 || p.Tiers[0].CacheWrite != 2.5 {
		t.Errorf("gemini-2.5-pro tiers: %+v", p.Tiers)
	}
	p, _ = PriceOf("claude-sonnet-4-5")
	if p.Unset != 0 || p.CacheWrite != 3.75 || p.CacheWrite1h != 6 || p.CacheRead != 0.3 {
		t.Errorf("claude-sonnet-4-5: %+v", p)
	}
}

// A model whose prices changed has one per period: PriceOf the newest,
// PriceOn the one of the day.
func TestPriceOn(t *testing.T) {
	now, _ := PriceOf("claude-opus-4-6")
	old, _ := PriceOn("claude-opus-4-6", "2026-02-01")
	if now.From != "2026-03-13" || len(now.Tiers) != 0 || old.From != "" || len(old.Tiers) != 1 {
		t.Errorf("claude-opus-4-6: now from %q tiers %v; 2026-02-01 from %q tiers %v", now.From, now.Tiers, old.From, old.Tiers)
	}
	if on, _ := PriceOn("claude-opus-4-6", "2026-03-13"); on.From != "2026-03-13" {
		t.Errorf("PriceOn 2026-03-13: from %q", on.From)
	}
}

// TestSource: catalog.json is what generate.sh writes from the package
// and version it pins (an edit by hand of either shows here; make
// check-generated regenerates it), and stays small.
func TestSource(t *testing.T) {
	b, err := os.ReadFile("generate.sh")
	if err != nil {
		t.Fatal(err)
	}
	pkg := regexp.MustCompile(`(?m)^PKG=(\S+)$`).FindSubmatch(b)
	ver := regexp.MustCompile(`(?m)^VERSION=(\S+)$`).FindSubmatch(b)
	if pkg == nil || ver == nil || Source() != string(pkg[1])+"@"+string(ver[1]) {
		t.Errorf("Source() = %q; generate.sh pins %q %q", Source(), pkg, ver)
	}
	if n := len(catalogJSON); n > 1<<20 || len(load().models) < 100 {
		t.Errorf("catalog.json: %d bytes, %d models", n, len(load().models))
	}
}
