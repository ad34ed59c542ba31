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

// TestCheckGoesByGrammar: the leak check admits an id as its reader
// writes it (ClearFor): a value at an id path that fits the id shape but
// is no id of the reader's agent is raw in both passes, so its copy in an
// untyped output, whole or inside a composite, and its repetition
// elsewhere in the input, are refused; an id of the grammar is admitted. A
// reader that declares no grammar (ZCode's) admits no id; a writer of no
// agent (k nil, a scenario's) admits ids by their shape, as before.
func TestCheckGoesByGrammar(t *testing.T) {
	anthropic := &Knowledge{IDs: IDs{AnthropicIDs}}
	claude := &Knowledge{IDs: IDs{UUIDs, AnthropicIDs}}
	none := &Knowledge{} // ZCode's
	pass := Paths{"message.id": ID, "sessionId": IDOrUUID}
	const (
		grammarID = "msg_0113ezJR3hNQJo51NLnS26HK"
		notOurs   = "msg_01alicekowalczykpayrollQ3" // l is no Base58 letter: the id shape's, not Anthropic's
		hexID     = "0123456789abcdef01234567"      // 24 hex digits: the id shape's
		uuid      = "0822e04b-5551-4de8-a98a-5660c689e49b"
	)
	cases := []struct {
		name   string
		k      *Knowledge
		input  string
		output string
		leak   bool
	}{
		{"an id of the grammar", anthropic, `{"message":{"id":"` + grammarID + `"}}`, grammarID, false},
		{"an id of the grammar in a composite", anthropic, `{"message":{"id":"` + grammarID + `"}}`, "ref=" + grammarID, false},
		{"an id-shaped value of no family of the agent", anthropic, `{"message":{"id":"` + notOurs + `"}}`, notOurs, true},
		{"in a composite", anthropic, `{"message":{"id":"` + notOurs + `"}}`, "ref=" + notOurs, true},
		{"its copy in a raw field is not spared", anthropic, `{"message":{"id":"` + notOurs + `"},"note":"see ` + notOurs + `"}`, notOurs, true},
		{"hex digits for a reader whose grammar has none", none, `{"message":{"id":"` + hexID + `"}}`, hexID, true},
		{"a number in an id field for a reader whose grammar has none", none, `{"message":{"id":1234567}}`, "id 1234567", true},
		{"a UUID for a reader whose grammar has none", none, `{"sessionId":"` + uuid + `"}`, uuid, true},
		{"a UUID for a reader with no UUID family", anthropic, `{"sessionId":"` + uuid + `"}`, uuid, true},
		{"a UUID for a reader with one", claude, `{"sessionId":"` + uuid + `"}`, uuid, false},
		{"no agent: the shape admits", nil, `{"message":{"id":"` + notOurs + `"}}`, notOurs, false},
		{"no agent: hex digits", nil, `{"message":{"id":"` + hexID + `"}}`, hexID, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkOneLine(tc.input, tc.output, pass, tc.k, false, "ref", "id"); (len(got) > 0) != tc.leak {
				t.Fatalf("%q: findings %+v, want a leak %v", tc.output, got, tc.leak)
			}
		})
	}
}

// TestCheckGoesByModelKnowledge: the leak check admits a model name as
// its reader writes it (ClearFor): one the catalog knows, one the agent
// writes of its own, or, under --reveal names, any the screens pass. A
// model-shaped name no one knows (a deployment named after a person) is
// written as its digest, so it is raw in both passes: its copy in an
// untyped output, whole or in a composite, is a leak, and its repeats in
// the input are not spared. A writer of no agent (k nil, a scenario's)
// never reveals a model name, whatever the run.
func TestCheckGoesByModelKnowledge(t *testing.T) {
	claude := &Knowledge{Models: []string{"<synthetic>"}}
	pass := Paths{"model": Model}
	const person = "alice-kowalczyk-finetune" // the model shape's, no catalog's
	cases := []struct {
		name   string
		k      *Knowledge
		reveal bool
		input  string
		output string
		leak   bool
	}{
		{"a catalog model", claude, false, `{"model":"claude-opus-4-5-20251101"}`, "chat claude-opus-4-5-20251101", false},
		{"a catalog model, no agent", nil, false, `{"model":"gpt-5.5"}`, "chat gpt-5.5", false},
		{"the agent's own", claude, false, `{"model":"<synthetic>"}`, "chat <synthetic>", false},
		{"another agent's own", &Knowledge{}, false, `{"model":"<synthetic>"}`, "chat <synthetic>", true},
		{"no one's model, whole", claude, false, `{"model":"` + person + `"}`, person, true},
		{"no one's model in a composite", claude, false, `{"model":"` + person + `"}`, "chat " + person, true},
		{"its repeat in a raw field is not spared", claude, false, `{"model":"` + person + `","note":"ask ` + person + `"}`, person, true},
		{"under --reveal names", claude, true, `{"model":"` + person + `"}`, "chat " + person, false},
		{"under --reveal names, a path still", claude, true, `{"model":"home/alice/q3.gguf"}`, "chat home/alice/q3.gguf", true},
		{"no agent under --reveal names", nil, true, `{"model":"` + person + `"}`, "chat " + person, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkOneLine(tc.input, tc.output, pass, tc.k, tc.reveal, "chat"); (len(got) > 0) != tc.leak {
				t.Fatalf("%q: findings %+v, want a leak %v", tc.output, got, tc.leak)
			}
		})
	}
}

// TestAgentModelIsNotRemembered: a model name admitted by one reader's
// knowledge (its agent's own) is admitted for that reader's lines only,
// though the check remembers admitted values across lines.
func TestAgentModelIsNotRemembered(t *testing.T) {
	in := NewInput()
	pass := Paths{"model": Model}
	in.Line([]byte(`{"model":"<synthetic>"}`), pass, &Knowledge{Models: []string{"<synthetic>"}})
	before := in.RawCount
	in.Line([]byte(`{"model":"<synthetic>"}`), pass, &Knowledge{})
	if in.RawCount != before+2 { // its key and, now, its value
		t.Fatalf("raw strings %d, want %d: another reader admitted a name only Claude Code knows", in.RawCount, before+2)
	}
}

// TestGrammarAllocatesNothing: asking the reader's grammar and the model
// catalog keeps both passes free of allocation per value (the second
// pass is the check's hot loop), for ids and model names admitted and
// refused alike, under -race too. Values of 9 digits or more
// (msg_0113ezJR3hNQJo51NLnS26HK, claude-opus-4-5-20251101) go through the
// personal-data screen's card test, which works in a fixed buffer.
func TestGrammarAllocatesNothing(t *testing.T) {
	k := &Knowledge{IDs: IDs{UUIDs, AnthropicIDs, OpenAICallIDs}, Models: []string{"<synthetic>"}}
	pass := Paths{"message.id": ID, "sessionId": IDOrUUID, "message.content.#.id": ID, "message.model": Model, "model": Model, "m": Model}
	doc := []byte(`{"model":"<synthetic>","m":"alice-kowalczyk-finetune","sessionId":"0822e04b-5551-4de8-a98a-5660c689e49b","message":{"model":"claude-opus-4-5-20251101","id":"req_011CWpS5NgpKRVokUuHVdg1m","content":[` +
		`{"id":"toolu_0114R4tT6VPiDksvXghJqa5C","text":"CANARY text"},{"id":"msg_0113ezJR3hNQJo51NLnS26HK"},{"id":"msg_01alicekowalczykpayrollQ3"},{"id":"0123456789abcdef01234567"}]}}`)
	in := NewInput()
	in.Line(doc, pass, k)
	if n := testing.AllocsPerRun(100, func() { in.Line(doc, pass, k) }); n != 0 {
		t.Errorf("first pass: %v allocations a line", n)
	}
	o := NewOutputs(nil)
	o.Add("untyped output", "output A")
	c := o.Check(in)
	if !c.NeedsProbe() {
		t.Fatal("no probe")
	}
	c.Line(doc, 1, pass, k)
	if n := testing.AllocsPerRun(100, func() { c.Line(doc, 1, pass, k) }); n != 0 {
		t.Errorf("second pass: %v allocations a line", n)
	}
}

// checkOneLine runs both passes of the check over one input line read
// with pass and k (reveal: the outputs were written under --reveal names)
// against one output string, words being the program's, and returns what
// it found.
func checkOneLine(input, output string, pass Paths, k *Knowledge, reveal bool, words ...string) []Finding {
	in := NewInput()
	in.RevealNames = reveal
	in.Line([]byte(input), pass, k)
	vocab := map[string]bool{}
	for _, w := range words {
		vocab[w] = true
	}
	o := NewOutputs(vocab)
	o.Add(output, "output A")
	c := o.Check(in)
	if c.NeedsProbe() {
		c.Line([]byte(input), 1, pass, k)
	}
	return c.Findings()
}
