package converters_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// TestRootInputHoldsTheCache: a root span's gen_ai.usage.input_tokens is
// every input token of the session, cached ones included, as each chat
// span counts its own (the GenAI conventions' input). A reader whose agent
// counts input and cache apart (Claude Code, pi, Droid, OpenCode) adds
// them; so the root's input is never below the cache reads and writes the
// receipt's token summaries count. Read from every golden trace and its
// receipt. (Droid and pi wrote the uncached part alone until a reread.)
func TestRootInputHoldsTheCache(t *testing.T) {
	checked := 0
	err := filepath.WalkDir(filepath.Join("..", "golden"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".otel.jsonl") {
			return err
		}
		rec, err := os.ReadFile(strings.TrimSuffix(p, ".otel.jsonl") + ".receipt.ndjson")
		if err != nil {
			return nil // a failed conversion writes no receipt
		}
		var cached int64
		for _, l := range bytes.Split(rec, []byte{'\n'}) {
			if gjson.GetBytes(l, "name").Str == "gen_ai.token_usage.summarized" {
				a := gjson.GetBytes(l, "attributes")
				cached += a.Get(gjson.Escape("gen_ai.usage.cache_read.input_tokens")).Int() + a.Get(gjson.Escape("gen_ai.usage.cache_creation.input_tokens")).Int()
			}
		}
		trace, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, line := range bytes.Split(bytes.TrimSpace(trace), []byte{'\n'}) {
			gjson.GetBytes(line, "resourceSpans.#.scopeSpans.#.spans|@flatten|@flatten").ForEach(func(_, s gjson.Result) bool {
				if s.Get("parentSpanId").Str != "" {
					return true
				}
				in := s.Get(`attributes.#(key=="gen_ai.usage.input_tokens").value.intValue`)
				if !in.Exists() {
					return true
				}
				checked++
				if in.Int() < cached {
					t.Errorf("%s: the root span's input_tokens %d is below the %d cached tokens its receipt counts", p, in.Int(), cached)
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Fatalf("checked %d root spans with input tokens: the goldens were not found", checked)
	}
	t.Logf("%d root spans checked", checked)
}
