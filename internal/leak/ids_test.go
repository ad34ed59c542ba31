package leak

import "testing"

// TestIDRules: the providers' id families admit their examples (ids as
// the agents write them) and nothing shaped like them that is not one: a
// shorter or longer body, a letter outside the alphabet, free words.
func TestIDRules(t *testing.T) {
	cases := []struct {
		name    string
		rule    IDRule
		refuses []string
	}{
		{"anthropic", AnthropicIDs, []string{
			"msg_01A", "toolu_01Bash", "toolu_S1Grep", "req_227Aaaaa", // the samples' made-up ids
			"toolu_0114R4tT6VPiDksvXghJqa5", "toolu_0114R4tT6VPiDksvXghJqa5CC", // 21 and 23 after 01
			"toolu_0214R4tT6VPiDksvXghJqa5C",  // not 01
			"toolu_01alicekowalczykpayrollQ3", // l is no Base58 letter
			"toolu_01CANARY/with/slashXXXXXX", "msg_01OIl0OIl0OIl0OIl0OIl0Ol", "toolu_bdrk_01Bash",
		}},
		{"openai", OpenAICallIDs, []string{
			"call_app_0001", "call_c1", "call_pDb1Lo4zKc00210", "call_01iQZvHRP9UGrkhoUlvcOLX",
			"call_01iQZvHRP9UGrkhoUlvcOLXU1", "call_db:root:hunter2xxxxxxxxx", "call_alice.kowalczyk@acme.x",
		}},
		{"uuid", UUIDs, []string{
			"0822E04B-5551-4DE8-A98A-5660C689E49B", // upper case: no agent here writes it so
			"0822e04b55514de8a98a5660c689e49b", "0822e04b-5551-4de8-a98a-5660c689e49", "sess-utf8",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.rule.Examples) == 0 {
				t.Fatal("a rule without examples")
			}
			for _, v := range tc.rule.Examples {
				if !tc.rule.Match(v) {
					t.Errorf("%q: refused, an example of the rule", v)
				}
			}
			for _, v := range tc.refuses {
				if tc.rule.Match(v) {
					t.Errorf("%q: admitted", v)
				}
			}
		})
	}
}

// TestClearFor: an id is written in clear only when its agent's grammar
// matches and the id shape admits it; a model name when the catalog or
// the agent knows it, or names are revealed; other shapes as Clear.
func TestClearFor(t *testing.T) {
	claude := Knowledge{IDs: IDs{UUIDs, AnthropicIDs}, Models: []string{"<synthetic>", "sonnet"}}
	none := Knowledge{}
	cases := []struct {
		shape  Shape
		v      string
		k      Knowledge
		reveal bool
		want   bool
	}{
		{ID, "toolu_0114R4tT6VPiDksvXghJqa5C", claude, false, true},
		{ID, "toolu_0114R4tT6VPiDksvXghJqa5C", none, false, false},  // a reader that declares no ids writes none
		{ID, "call_01iQZvHRP9UGrkhoUlvcOLXU", claude, false, false}, // another agent's family
		{ID, "toolu_227workflow", claude, false, false},             // the old shape admitted it
		{ID, "toolu_227workflow", claude, true, false},              // --reveal names reveals names, not ids
		{IDOrUUID, "0822e04b-5551-4de8-a98a-5660c689e49b", claude, false, true},
		{IDOrUUID, "0822e04b-5551-4de8-a98a-5660c689e49b", none, false, false},
		{ID, "0822e04b-5551-4de8-a98a-5660c689e49b", claude, false, false},                                                 // the id shape refuses a UUID
		{ID, "0123456789abcdef0123456789abcdef", Knowledge{IDs: IDs{{Alphabet: LowerHex, Min: 6, Max: 40}}}, false, false}, // the screens hold over a loose grammar
		{ID, "key-0123456789abcdef0123456789abcdef", Knowledge{IDs: IDs{{Prefixes: []string{"key-"}, Alphabet: LowerHex, Min: 32, Max: 32}}}, false, false},
		{Model, "sonnet", claude, false, true},
		{Model, "sonnet", none, false, false},
		{Model, "sonnet", none, true, true},
		{Model, "<synthetic>", claude, false, true},
		{Model, "<synthetic>", none, false, false},
		{Model, "claude-opus-4-5-20251101", none, false, true}, // the catalog's
		{Model, "home/alice/payroll/q3-salaries.xlsx", claude, true, false},
		{Version, "2.1.39", none, false, true},
		{Label, "alice.kowalczyk.payroll", claude, true, false},
	}
	for _, tc := range cases {
		if got := tc.shape.ClearFor(tc.v, tc.reveal, tc.k); got != tc.want {
			t.Errorf("%v %q (models %v, reveal %v): %v, want %v", tc.shape, tc.v, tc.k.Models, tc.reveal, got, tc.want)
		}
	}
}
