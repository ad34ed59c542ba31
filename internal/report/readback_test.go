package report

import (
	"strings"
	"testing"
)

// TestReadBackByAgent: a receipt is screened as the reader of the agent
// it names writes its values. Claude Code's reader writes an id in clear
// only when it is one of Anthropic's (its grammar), so a receipt that
// names Claude Code and holds msg_01alicekowalczykpayrollQ3 (no Base58
// id: l is no letter of it) in clear was not written by convert, and the
// report withholds it, as it withholds a model name no catalog knows and
// the agent does not write of its own; an agent convert has no reader for
// leaves the id to the id kind. Its own ids, the catalog's models and the
// agent's own model names are shown.
func TestReadBackByAgent(t *testing.T) {
	receipt := func(agent string) string {
		return `{"schema":"convert.receipt.v1","name":"gen_ai.tool.call","converter":"` + agent + `","time":"2026-03-14T09:30:00Z","attributes":{` +
			`"gen_ai.tool.call.id":"msg_01alicekowalczykpayrollQ3","gen_ai.response.id":"msg_0113ezJR3hNQJo51NLnS26HK",` +
			`"gen_ai.request.model":"alice-kowalczyk-finetune","gen_ai.response.model":"claude-opus-4-5-20251101","gen_ai.agent.model":"<synthetic>"}}` + "\n" +
			`{"schema":"convert.receipt.v1","name":"convert.summary","converter":"` + agent + `","time":"2026-03-14T09:30:01Z","attributes":{"convert.converter":"` + agent + `"}}` + "\n"
	}
	for _, tc := range []struct {
		agent string
		shown map[string]bool
	}{
		{"claude_code", map[string]bool{"gen_ai.tool.call.id": false, "gen_ai.response.id": true, "gen_ai.request.model": false,
			"gen_ai.response.model": true, "gen_ai.agent.model": true}},
		{"no_such_agent", map[string]bool{"gen_ai.tool.call.id": true, "gen_ai.response.id": true, "gen_ai.request.model": false,
			"gen_ai.response.model": true}},
	} {
		s, err := ParseReceipt("r.receipt.ndjson", "r.receipt.ndjson", strings.NewReader(receipt(tc.agent)))
		if err != nil {
			t.Fatal(err)
		}
		for key, want := range tc.shown {
			v := s.Events[0].Attrs[key].Str
			if shown := !strings.Contains(v, "withheld"); shown != want {
				t.Errorf("%s %s: %q shown %v, want %v", tc.agent, key, v, shown, want)
			}
		}
	}
}
