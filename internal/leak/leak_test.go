package leak

import (
	"strings"
	"testing"
	"time"
)

// check collects the input's pass-through values, indexes outputs, probes
// the input line and returns the findings: the pipeline's two passes.
func check(t *testing.T, input string, pass Paths, vocab map[string]bool, outputs ...string) []Finding {
	t.Helper()
	in := NewInput()
	in.Line([]byte(input), pass, nil)
	o := NewOutputs(vocab)
	for i, s := range outputs {
		o.Add(s, "output "+string(rune('A'+i)))
	}
	c := o.Check(in)
	c.Line([]byte(input), 7, pass, nil)
	return c.Findings()
}

func TestLeakRule(t *testing.T) {
	const body = "the quarterly payroll export for Acme lives in bucket s3-private-77"
	const aws = "AKIAQ7EXAMPLEKEY2024"
	tests := []struct {
		name    string
		input   string
		pass    Paths
		vocab   map[string]bool
		outputs []string
		leak    bool
	}{
		{name: "whole raw string", input: `{"q":"Acme-Co secret"}`, outputs: []string{"Acme-Co secret"}, leak: true},
		{name: "raw string of 8 bytes inside an output", input: `{"q":"Acme-Co!"}`, outputs: []string{"org=Acme-Co!;"}, leak: true},
		{name: "raw string of 7 bytes copied whole", input: `{"q":"Acme-Co"}`, outputs: []string{"Acme-Co"}, leak: true},
		{name: "raw string of 3 bytes copied whole", input: `{"originator":"cli"}`, outputs: []string{"cli"}, leak: true},
		{name: "short raw string as a part of a composite", input: `{"originator":"acme"}`, outputs: []string{"originator=acme"}, leak: true},
		{name: "short raw string inside a word is not a copy", input: `{"q":"pay"}`, outputs: []string{"payments-team-ledger"}},
		{name: "16-byte run of a long raw string", input: `{"body":"` + body + `"}`, outputs: []string{"x" + body[10:26] + "y"}, leak: true},
		{name: "15-byte run is not a leak", input: `{"body":"` + body + `"}`, outputs: []string{"x" + body[10:25] + "y"}},
		{name: "run at the very end of the raw string", input: `{"body":"` + body + `"}`, outputs: []string{body[len(body)-16:]}, leak: true},
		{name: "case-changed copy", input: `{"body":"` + body + `"}`, outputs: []string{strings.ToUpper(body[4:30])}, leak: true},
		{name: "lower-cased AWS key id", input: `{"k":"` + aws + `"}`, outputs: []string{strings.ToLower(aws)}, leak: true},
		{name: "lower-cased URI scheme", input: `{"u":"HTTPS://files.example/payroll"}`, outputs: []string{"https://files.example/payroll"}, leak: true},
		{name: "raw string in a nested array", input: `{"a":[{"b":["zz","customer payload 42"]}]}`, outputs: []string{"customer payload 42"}, leak: true},
		{name: "escaped raw string is decoded first", input: `{"q":"line one\nline two"}`, outputs: []string{"line one\nline two"}, leak: true},
		{name: "object key copied into an output", input: `{"result":{"tenant-acme-payroll":1}}`, outputs: []string{"tenant-acme-payroll"}, leak: true},
		{name: "short object key copied whole", input: `{"result":{"acme":1}}`, outputs: []string{"acme"}, leak: true},
		{name: "object keys are not the program's vocabulary", input: `{"definition_token_count":5}`, vocab: map[string]bool{"mcp.tool.definition_token_count_bucket": true}, outputs: []string{"mcp.tool.definition_token_count_bucket"}},
		{name: "digest outputs carry no content", input: `{"q":"sha256:` + strings.Repeat("ab", 32) + `"}`, outputs: []string{"sha256:" + strings.Repeat("ab", 32)}},
		{name: "pass-through id is not a leak", input: `{"session_id":"sess-2026-payments"}`, pass: Paths{"session_id": IDOrUUID}, outputs: []string{"sess-2026-payments"}},
		{name: "pass-through id inside raw text is not a leak", input: `{"session_id":"sess-2026-payments","note":"see sess-2026-payments for details"}`, pass: Paths{"session_id": IDOrUUID}, outputs: []string{"sess-2026-payments:sha256:" + strings.Repeat("0", 64)}},
		{name: "pass-through path with free text is raw", input: `{"status":"customer Acme-Co refused"}`, pass: Paths{"status": Label}, outputs: []string{"customer Acme-Co refused"}, leak: true},
		{name: "pass-through value outside its shape is raw", input: `{"sessionId":"Tr0ub4dor-and-3-horses"}`, pass: Paths{"sessionId": UUID}, outputs: []string{"Tr0ub4dor-and-3-horses"}, leak: true},
		{name: "password in a model field is raw", input: `{"model":"hunter2hunter2hunter2hunter22x"}`, pass: Paths{"model": Model}, outputs: []string{"hunter2hunter2hunter2hunter22x"}, leak: true},
		{name: "short label on an undeclared path", input: `{"model_provider":"acme"}`, pass: Paths{"model": Model}, outputs: []string{"acme"}, leak: true},
		{name: "pass-through is by field, not by value elsewhere", input: `{"model":"gpt-5.5","note":"claude-opus-4-6"}`, pass: Paths{"model": Model}, outputs: []string{"claude-opus-4-6"}, leak: true},
		{name: "pass-through covers only its own bytes", input: `{"id":"sess-2026-payments","note":"sess-2026-payments and then the private tail text"}`, pass: Paths{"id": IDOrUUID}, outputs: []string{"sess-2026-payments and then the private tail text"}, leak: true},
		{name: "vocabulary string is the program's own", input: `{"q":"mcp.tool_search.performed"}`, vocab: map[string]bool{"mcp.tool_search.performed": true}, outputs: []string{"mcp.tool_search.performed"}},
		{name: "vocabulary exemption is for whole parts only", input: `{"q":"mcp.tool_search.performed by Acme"}`, vocab: map[string]bool{"mcp.tool_search.performed": true}, outputs: []string{"x mcp.tool_search.performed by Acme"}, leak: true},
		{name: "composite of vocabulary and pass-through", input: `{"name":"Bash","q":"execute_tool Bash"}`, pass: Paths{"name": Name}, vocab: map[string]bool{"execute_tool": true}, outputs: []string{"execute_tool Bash"}},
		{name: "composite of vocabulary and counts", input: `{"q":"assistant=12 user=3"}`, vocab: map[string]bool{"assistant": true, "user": true}, outputs: []string{"assistant=12", "user=3"}},
		// A session of 100,000 or more records of a type writes
		// "assistant=124749": the count is probed (it has 6 digits), but the
		// raw word "assistant" on every line matches only our own word.
		{name: "raw word equal to our own part of a probed composite", input: `{"data":{"message":{"role":"assistant"}}}`, vocab: map[string]bool{"assistant": true}, outputs: []string{"assistant=124749"}},
		{name: "the probed part of such a composite is still found", input: `{"q":"ref assistant=124749"}`, vocab: map[string]bool{"assistant": true}, outputs: []string{"assistant=124749"}, leak: true},
		{name: "a raw word covering our part and a separator only", input: `{"q":"assistant="}`, vocab: map[string]bool{"assistant": true}, outputs: []string{"assistant=124749"}},
		{name: "digits joined by separators beside a word", input: `{"q":"555 123 4567 89"}`, outputs: []string{"x 555 123 4567 89"}, leak: true},
		{name: "raw text equal to a pass-through part", input: `{"name":"BashRunner","q":"BashRunner"}`, pass: Paths{"name": Name}, vocab: map[string]bool{"execute_tool": true}, outputs: []string{"execute_tool BashRunner zq-elsewhere"}},
		{name: "unrelated output", input: `{"q":"private staging checkout failures"}`, outputs: []string{"sha256:" + strings.Repeat("1", 64), "under_25", "context.input.loaded"}, vocab: map[string]bool{"under_25": true, "context.input.loaded": true}},
		{name: "secret shape without any input", input: `{}`, outputs: []string{"token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"}, leak: true},
		{name: "secret in a pass-through field", input: `{"model":"x_sk-ant-api03-Qx7Lm2Np9Rt4Vw8Yz1Bc5Df0Gh3Jk6"}`, pass: Paths{"model": Label}, outputs: []string{"x_sk-ant-api03-Qx7Lm2Np9Rt4Vw8Yz1Bc5Df0Gh3Jk6"}, leak: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := check(t, tt.input, tt.pass, tt.vocab, tt.outputs...)
			if (len(got) > 0) != tt.leak {
				t.Fatalf("leak = %v, want %v (findings %+v)", len(got) > 0, tt.leak, got)
			}
			for _, f := range got {
				for _, o := range tt.outputs {
					if len(o) >= 8 && strings.Contains(f.What+f.Where, o) {
						t.Errorf("finding repeats the leaked content: %+v", f)
					}
				}
			}
		})
	}
}

// TestLeakNumbers: a raw input number of 6+ digits copied to an output
// number leaks; the same number in a declared Count field does not; short
// numbers are counts, never identifiers.
func TestLeakNumbers(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		pass        Paths
		out         string
		leak        bool
	}{
		{"card number copied", `{"session_id":4111111111111111}`, nil, "4111111111111111", true},
		{"phone number copied", `{"x":{"latency_ms":5551234567}}`, nil, "5551234567", true},
		{"declared count", `{"usage":{"input_tokens":276011}}`, Paths{"usage.input_tokens": Count}, "276011", false},
		{"short numbers are counts", `{"load_order":3}`, nil, "3", false},
		{"unrelated number", `{"x":123456}`, nil, "654321", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := NewInput()
			in.Line([]byte(tc.input), tc.pass, nil)
			o := NewOutputs(nil)
			o.AddNumber(tc.out, "receipt line 1")
			c := o.Check(in)
			if got := c.Findings(); (len(got) > 0) != tc.leak {
				t.Fatalf("findings %+v, want leak %v", got, tc.leak)
			}
		})
	}
}

// TestNoProbeWhenEveryOutputIsTyped: when every output string has a
// provenance, nothing can leak through a raw string and the second pass is
// not needed; one untyped string brings it back.
func TestNoProbeWhenEveryOutputIsTyped(t *testing.T) {
	input := `{"uuid":"6f1c1d2e-8b1a-4c1e-9d55-0a1b2c3d4e5f","message":{"model":"claude-opus-4-6","content":"execute_tool Bash compaction https://opentelemetry.io/schemas/1.37.0"}}`
	pass := Paths{"uuid": UUID, "message.model": Model}
	vocab := map[string]bool{"execute_tool": true, "https://opentelemetry.io/schemas/1.37.0": true, "context.compaction.started": true}
	in := NewInput()
	in.Line([]byte(input), pass, nil)
	o := NewOutputs(vocab)
	for _, s := range []string{"6f1c1d2e-8b1a-4c1e-9d55-0a1b2c3d4e5f", "claude-opus-4-6", "execute_tool", "https://opentelemetry.io/schemas/1.37.0", "context.compaction.started", "sha256:" + strings.Repeat("a", 64)} {
		o.Add(s, "out")
	}
	c := o.Check(in)
	if c.NeedsProbe() {
		t.Fatalf("every output is typed, yet a probe is needed")
	}
	c.Line([]byte(input), 1, pass, nil)
	if f := c.Findings(); len(f) != 0 {
		t.Fatalf("findings %+v", f)
	}
	o.Add("execute_tool Bash compaction", "out2")
	c = o.Check(in)
	if !c.NeedsProbe() {
		t.Fatalf("an untyped output needs the probe")
	}
	c.Line([]byte(input), 1, pass, nil)
	if f := c.Findings(); len(f) != 1 {
		t.Fatalf("findings %+v, want the copied text", f)
	}
}

// TestTypedComposites: a composite is typed part by part, and a run of
// parts may be one pass-through value that holds a separator (a model
// "llama3:8b" in the span name "chat llama3:8b"); only its exact bytes
// count, and every other part still needs a provenance of its own.
func TestTypedComposites(t *testing.T) {
	pass := Paths{"model": Model, "name": Name}
	vocab := map[string]bool{"chat": true, "execute_tool": true}
	for _, tc := range []struct {
		name, input, out string
		typed            bool
	}{
		{"model with a colon", `{"model":"gpt-5.3-cod:x"}`, "chat gpt-5.3-cod:x", true},
		{"ollama tag", `{"model":"llama3:8b"}`, "chat llama3:8b", true},
		{"two values in a row", `{"model":"llama3:8b","name":"Bash"}`, "execute_tool Bash llama3:8b", true},
		{"another tag is not the value", `{"model":"llama3:8b"}`, "chat llama3:70b", false},
		{"a raw word beside the value", `{"model":"llama3:8b","q":"notes"}`, "chat llama3:8b notes", false},
		{"a value split across a raw piece", `{"model":"llama3:8b","q":"llama3"}`, "chat llama3 8b", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := NewInput()
			in.RevealNames = true // llama3:8b is no catalog's: in clear only so
			in.Line([]byte(tc.input), pass, &Knowledge{})
			o := NewOutputs(vocab)
			o.Add(tc.out, "out")
			c := o.Check(in)
			if typed := len(c.Untyped()) == 0; typed != tc.typed {
				t.Fatalf("%q typed = %v, want %v", tc.out, typed, tc.typed)
			}
		})
	}
}

// TestLeakFindingPositions checks that a finding names the output and the
// input line, so a user can act on it without the content being printed.
func TestLeakFindingPositions(t *testing.T) {
	got := check(t, `{"q":"private staging checkout failures"}`, nil, nil, "ok", "prefix private staging checkout failures")
	if len(got) != 1 || got[0].Where != "output B" || got[0].Line != 7 {
		t.Fatalf("findings = %+v, want one in output B from line 7", got)
	}
}

// TestCanaryInStderr: a warning is an output like any other.
func TestCanaryInStderr(t *testing.T) {
	o := NewOutputs(nil)
	o.Add("samples/x.jsonl:3: session: skipped line: CANARY-raw-field-value", "stderr message 1")
	c := o.NewChecker()
	c.Line([]byte(`{"type":"x","v":"CANARY-raw-field-value"}`), 3, Paths{"type": Label}, nil)
	if f := c.Findings(); len(f) != 1 || f[0].Where != "stderr message 1" {
		t.Fatalf("findings = %+v, want the stderr message", f)
	}
}

// TestLongRawString probes a 4 MiB raw string that shares nothing with the
// outputs, and one whose 16-byte run sits at its end.
func TestLongRawString(t *testing.T) {
	o := NewOutputs(nil)
	o.Add("nothing in common with the input at all", "out")
	c := o.NewChecker()
	big := strings.Repeat("abcdefghijklmnopqrstuvwxyz012345", 1<<17)
	c.Raw(big, 1)
	if c.RawBytes != int64(len(big)) || len(c.Findings()) != 0 {
		t.Fatalf("raw bytes %d, findings %v", c.RawBytes, c.Findings())
	}
	o.Add("tail: "+big[len(big)-20:], "out2")
	c = o.NewChecker()
	c.Raw(big, 1)
	if len(c.Findings()) != 1 {
		t.Fatalf("findings %v, want the tail run", c.Findings())
	}
}

// TestRepetitiveRawStaysLinear: a raw string made of one repeated byte
// pattern, against an untyped output holding the same pattern, took 12 s
// for 3 KB (every window hit every position and each hit was extended
// byte by byte); one finding per output string keeps it linear. Found by
// FuzzLeakCheckKeysAndNumbers.
func TestRepetitiveRawStaysLinear(t *testing.T) {
	raw := strings.Repeat("\ufffd", 20000) // 60 KB
	o := NewOutputs(nil)
	o.Add("x"+raw[:30000], "output")
	c := o.NewChecker()
	start := time.Now()
	c.Raw(raw, 1)
	if f := c.Findings(); len(f) != 1 {
		t.Fatalf("findings %+v, want one", f)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %s: the probe is not linear on repetitive text", d)
	}
}

// TestLeakNumberShapedStrings: an output string shaped like a number is a
// count only below 6 digits; a longer one is probed like text, so a raw
// digit string copied out is found, and a number in a declared label or id
// field passes through like that field's strings.
func TestLeakNumberShapedStrings(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		pass        Paths
		out         string
		leak        bool
	}{
		{"card number string copied whole", `{"args":{"card":"4111111111111111"}}`, nil, "4111111111111111", true},
		{"card number copied from text", `{"args":{"note":"charge card 4111111111111111 now"}}`, nil, "4111111111111111", true},
		{"short digit string is a count", `{"args":{"pin":"12345"}}`, nil, "12345", false},
		{"phone number in groups copied", `{"args":{"phone":"555 123 4567"}}`, nil, "555 123 4567", true},
		{"a few counts joined", `{"args":{"x":"3, 4"}}`, nil, "3, 4", false},
		{"phone number with dots copied", `{"args":{"phone":"555.123.4567"}}`, nil, "555.123.4567", true},
		{"fraction is a count", `{"args":{"ratio":"0.25"}}`, nil, "0.25", false},
		{"number in an id field", `{"conversation_id":12345678}`, Paths{"conversation_id": IDOrUUID}, "12345678", false},
		// 9 digits or more alone are a phone, card or account number
		// whatever the field (Personal): raw, so a copy is a leak.
		{"long number in an id field", `{"conversation_id":12345678901234}`, Paths{"conversation_id": IDOrUUID}, "12345678901234", true},
		{"unrelated digits", `{"args":{"card":"4111111111111111"}}`, nil, "5500000000000004", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := NewInput()
			in.Line([]byte(tc.input), tc.pass, nil)
			o := NewOutputs(nil)
			o.Add(tc.out, "receipt line 1")
			c := o.Check(in)
			if c.NeedsProbe() {
				c.Line([]byte(tc.input), 1, tc.pass, nil)
			}
			if got := c.Findings(); (len(got) > 0) != tc.leak {
				t.Fatalf("findings %+v, want leak %v", got, tc.leak)
			}
		})
	}
}

// TestRawNumbersMatchWhole: checking files with no input knowledge (convert
// leakcheck), a raw number holds a number-shaped output string only whole,
// and text holds it like any text.
func TestRawNumbersMatchWhole(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		leak        bool
	}{
		{"epoch seconds inside unix nanoseconds", `{"ts":1773479523}`, false},
		{"the same number", `{"n":1773479523100000000}`, true},
		{"the digits in text", `{"note":"id 1773479523100000000 here"}`, true},
		// The output is a piece of a longer raw number: another number
		// (a fuzz grammar's junk 30-digit tag against a planted piece).
		{"inside a longer number", `{"n":91773479523100000000123}`, false},
		{"inside a longer number's text", `{"n":"91773479523100000000123"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := NewOutputs(nil)
			o.Add("1773479523100000000", "trace")
			c := o.NewChecker()
			c.Line([]byte(tc.input), 1, nil, nil)
			if got := c.Findings(); (len(got) > 0) != tc.leak {
				t.Fatalf("findings %+v, want leak %v", got, tc.leak)
			}
		})
	}
}

// TestAdmitRemembersShapeAndValue: a value admitted at a path of one shape
// is remembered as admitted for that shape only. The same value at a path
// whose shape refuses it is raw on every line, however often it was
// admitted elsewhere, and a refused value is never remembered.
func TestAdmitRemembersShapeAndValue(t *testing.T) {
	const id = "0f3c9a2e-5b1d-4c8e-9f7a-1234567890ab"
	pass := Paths{"uuid": UUID, "when": Time}
	for _, tc := range []struct {
		line     string
		raw      int64 // a line's raw strings: its keys, and the id where a time is due
		admitted bool
	}{
		{`{"uuid":"` + id + `","when":"` + id + `"}`, 3, true},
		{`{"when":"` + id + `","uuid":"` + id + `"}`, 3, true},
		{`{"when":"` + id + `"}`, 2, false},
		{`{"uuid":"` + id + `"}`, 1, true},
	} {
		in := NewInput()
		for range 3 {
			in.Line([]byte(tc.line), pass, nil)
		}
		in.freeze()
		if in.RawCount != 3*tc.raw || in.has(id) != tc.admitted {
			t.Errorf("%s three times: %d raw strings, admitted %v; want %d, %v", tc.line, in.RawCount, in.has(id), 3*tc.raw, tc.admitted)
		}
	}
}
