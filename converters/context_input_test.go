package converters_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared"

	"github.com/contextreceipts/convert/internal/pipeline"
)

// ciEvent is one context.input.loaded event as a receipt consumer sees it.
type ciEvent struct {
	Line  int
	Attrs map[string]any
}

func (e ciEvent) str(k string) string { s, _ := e.Attrs[k].(string); return s }
func (e ciEvent) has(k string) bool   { _, ok := e.Attrs[k]; return ok }

// receiptEvents converts a context_input sample and returns its
// context.input.loaded events, read back from the receipt bytes alone.
func receiptEvents(t *testing.T, sample string) []ciEvent {
	t.Helper()
	testshared.InRepo(t)
	res := pipeline.Convert(pipeline.Input{Path: sample, Rel: "basic.jsonl"}, pipeline.Options{Converter: "context_input"})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var out []ciEvent
	sc := bufio.NewScanner(bytes.NewReader(res.Receipt))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var line struct {
			Name       string         `json:"name"`
			SourceLine int            `json:"source_line"`
			Attributes map[string]any `json:"attributes"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if line.Name == "context.input.loaded" {
			out = append(out, ciEvent{line.SourceLine, line.Attributes})
		}
	}
	if len(out) == 0 {
		t.Fatal("no context.input.loaded events")
	}
	return out
}

// pairs calls f for every ordered pair of events (a before b).
func pairs(evs []ciEvent, f func(a, b ciEvent) bool) bool {
	for i := range evs {
		for j := i + 1; j < len(evs); j++ {
			if f(evs[i], evs[j]) {
				return true
			}
		}
	}
	return false
}

// TestContextInputFailureModes shows that each of the five failure modes of
// seed 004 ("full_render" section) is decidable from the receipt alone: the
// test reads nothing but receipt attributes.
func TestContextInputFailureModes(t *testing.T) {
	evs := receiptEvents(t, "samples/context_input/basic.jsonl")

	t.Run("1 source bytes match while delivered diverges", func(t *testing.T) {
		if !pairs(evs, func(a, b ciEvent) bool {
			return a.str("context.input.source.bytes_hash") == b.str("context.input.source.bytes_hash") &&
				a.str("context.input.delivered.hash") != b.str("context.input.delivered.hash") &&
				a.str("context.input.duplicate.dedupe_key") != b.str("context.input.duplicate.dedupe_key")
		}) {
			t.Error("no pair with equal source bytes, different delivered hash and distinct dedupe keys")
		}
	})

	t.Run("2 canonical hash comparable only under the same form", func(t *testing.T) {
		for _, e := range evs {
			if e.has("context.input.source.canonical.hash") && e.str("context.input.source.canonical.form") == "" {
				t.Errorf("line %d: canonical hash without its form", e.Line)
			}
		}
		if !pairs(evs, func(a, b ciEvent) bool {
			return a.str("context.input.source.bytes_hash") != b.str("context.input.source.bytes_hash") &&
				a.str("context.input.source.canonical.form") == b.str("context.input.source.canonical.form") &&
				a.str("context.input.source.canonical.hash") == b.str("context.input.source.canonical.hash")
		}) {
			t.Error("no pair whose bytes differ but whose canonical hashes agree under one named form")
		}
	})

	t.Run("3 generated headers need a template hash", func(t *testing.T) {
		for _, e := range evs {
			if e.Attrs["context.input.delivered.nondeterministic"] == true {
				if !strings.HasPrefix(e.str("context.input.delivered.template_hash"), "sha256:") || e.str("context.input.delivered.nondeterminism_reason") == "" {
					t.Errorf("line %d: nondeterministic delivery without template hash or reason", e.Line)
				}
				if e.str("context.input.duplicate.suppression_policy") == "suppress_equal_dedupe_key_within_scope" {
					t.Errorf("line %d: nondeterministic delivery suppressed by default", e.Line)
				}
			}
		}
		if !pairs(evs, func(a, b ciEvent) bool {
			return a.Attrs["context.input.delivered.nondeterministic"] == true && b.Attrs["context.input.delivered.nondeterministic"] == true &&
				a.str("context.input.delivered.template_hash") == b.str("context.input.delivered.template_hash") &&
				a.str("context.input.delivered.hash") != b.str("context.input.delivered.hash") &&
				b.str("context.input.duplicate.suppression_policy") == "keep_distinct_template_hash_is_candidate_only" &&
				b.str("context.input.duplicate.role") == "candidate_duplicate"
		}) {
			t.Error("no pair of renders of one template kept distinct as candidates")
		}
	})

	t.Run("4 a clip needs both delivered and full-render hashes", func(t *testing.T) {
		for _, e := range evs {
			if e.Attrs["context.input.delivered.truncated"] == true && e.str("context.input.delivered.full_render.status") == "available" {
				if e.str("context.input.delivered.full_render.hash") == "" || e.str("context.input.delivered.full_render.hash") == e.str("context.input.delivered.hash") {
					t.Errorf("line %d: clipped delivery without a distinct full-render hash", e.Line)
				}
			}
		}
		if !pairs(evs, func(a, b ciEvent) bool {
			return a.Attrs["context.input.delivered.truncated"] == true && b.Attrs["context.input.delivered.truncated"] == true &&
				a.str("context.input.delivered.full_render.status") == "available" && b.str("context.input.delivered.full_render.status") == "available" &&
				a.str("context.input.delivered.hash") == b.str("context.input.delivered.hash") &&
				a.str("context.input.delivered.full_render.hash") != b.str("context.input.delivered.full_render.hash") &&
				a.str("context.input.duplicate.dedupe_key") != b.str("context.input.duplicate.dedupe_key") &&
				b.str("context.input.duplicate.role") == "selected"
		}) {
			t.Error("no pair of equal clips from different full renders kept apart")
		}
	})

	t.Run("5 clipped at ingest: no full render, kept distinct", func(t *testing.T) {
		for _, e := range evs {
			status := e.str("context.input.delivered.full_render.status")
			if status != "available" && e.has("context.input.delivered.full_render.hash") {
				t.Errorf("line %d: full-render hash with status %s", e.Line, status)
			}
			if status == "unavailable_not_materialized" && e.str("context.input.duplicate.suppression_policy") == "suppress_equal_dedupe_key_within_scope" {
				t.Errorf("line %d: unknown full render suppressed as a duplicate", e.Line)
			}
		}
		if !pairs(evs, func(a, b ciEvent) bool {
			return a.str("context.input.delivered.full_render.status") == "unavailable_not_materialized" &&
				b.str("context.input.delivered.full_render.status") == "unavailable_not_materialized" &&
				a.str("context.input.duplicate.dedupe_key") == b.str("context.input.duplicate.dedupe_key") &&
				b.str("context.input.duplicate.role") == "candidate_duplicate" &&
				b.str("context.input.duplicate.suppression_policy") == "keep_distinct_full_render_unknown"
		}) {
			t.Error("no pair of equal ingest clips kept distinct while the full render is unknown")
		}
	})

	t.Run("an equal full render in one conversation is suppressed", func(t *testing.T) {
		if !pairs(evs, func(a, b ciEvent) bool {
			return a.str("context.input.duplicate.dedupe_key") == b.str("context.input.duplicate.dedupe_key") &&
				b.str("context.input.duplicate.role") == "duplicate" &&
				b.str("context.input.duplicate.suppression_policy") == "suppress_equal_dedupe_key_within_scope"
		}) {
			t.Error("no suppressed duplicate")
		}
	})
}

// TestContextInputReferenceKeys: the reference writes receipt.ndjson from
// AGENTS.md with no input log, so TestReferenceParity cannot run it; our own
// sample must still produce every (event name, attribute key) pair of it.
func TestContextInputReferenceKeys(t *testing.T) {
	ref := filepath.Join(referenceDir(t), "receipt.ndjson")
	want := nameKeys(t, readLines(t, ref))
	if len(want) == 0 {
		t.Fatal("reference receipt has no attributes")
	}
	testshared.InRepo(t)
	res := pipeline.Convert(pipeline.Input{Path: "samples/context_input/basic.jsonl", Rel: "basic.jsonl"}, pipeline.Options{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if res.Converter != "context_input" {
		t.Errorf("detected %s, want context_input", res.Converter)
	}
	got := nameKeys(t, strings.Split(string(res.Receipt), "\n"))
	for k := range want {
		if !got[k] {
			t.Errorf("reference name/key pair missing: %s", k)
		}
	}
}
