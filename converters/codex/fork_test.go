package codex_test

import (
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/testshared"

	"github.com/tidwall/gjson"

	"github.com/contextreceipts/convert/internal/pipeline"
)

// TestCodexForkCopy reads samples/codex/v0151_fork: a fork rollout that
// begins with its parent's history re-stamped at the fork's creation (the
// parent's session_meta, a turn with a tool call and a token_count), then a
// turn of its own, and two record kinds of newer releases. The copy is
// told by its turn id (a UUIDv7 older than the fork): it is counted, its
// token total is only the baseline, and the fork keeps its own identity.
func TestCodexForkCopy(t *testing.T) {
	testshared.InRepo(t)
	res := convtest.Convert(t, "samples/codex/v0151_fork", pipeline.Options{})
	if len(res) != 1 {
		t.Fatalf("%d inputs", len(res))
	}
	// Own turn: totals 25000/650 (cached 20000) less the copied 12000/400 (8000).
	if got, want := convtest.Usage(res[0].Receipt)[""], "in=13000 out=250 cache_read=12000 cache_write=0 responses=0"; got != want {
		t.Errorf("tokens %s, want %s", got, want)
	}
	root := gjson.GetBytes(res[0].Trace, "resourceSpans.0.scopeSpans.0.spans.0.attributes")
	for key, want := range map[string]string{
		"session.id":                         "01a01e9c-fd00-7111-8222-333444555666",
		"codex.forked_from_id":               "01a01e66-0e80-7aaa-8bbb-cccdddeeefff",
		"codex.copied_history_records.count": "6",
		"codex.tool_calls.count":             "0",
	} {
		v := root.Get(`#(key=="` + key + `").value`)
		if got := v.Get("stringValue").Str + v.Get("intValue").Str; got != want {
			t.Errorf("root %s = %q, want %q", key, got, want)
		}
	}
	sum := convtest.Events(res[0].Receipt, "convert.summary")[0].Get("attributes")
	if types := sum.Get(`convert\.input\.record_types`).Raw; strings.Count(types, "sha256:") != 2 {
		t.Errorf("record types %s: the two new kinds are not counted by digest", types)
	}
	if n := len(convtest.Events(res[0].Receipt, "context.input.loaded")); n != 0 {
		t.Errorf("%d instruction loads: the parent's copied meta was read as the fork's", n)
	}
}
