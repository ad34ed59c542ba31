package leak

import (
	"strings"
	"testing"
)

// check indexes outputs, walks one input line and returns the findings.
func check(t *testing.T, input string, pass Paths, vocab map[string]bool, outputs ...string) []Finding {
	t.Helper()
	o := NewOutputs(vocab)
	for i, s := range outputs {
		o.Add(s, "output "+string(rune('A'+i)))
	}
	c := o.NewChecker()
	c.Line([]byte(input), 7, pass)
	return c.Findings()
}

func TestLeakRule(t *testing.T) {
	const body = "the quarterly payroll export for Acme lives in bucket s3-private-77"
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
		{name: "raw string of 7 bytes is too short to matter", input: `{"q":"Acme-Co"}`, outputs: []string{"Acme-Co"}},
		{name: "16-byte run of a long raw string", input: `{"body":"` + body + `"}`, outputs: []string{"x" + body[10:26] + "y"}, leak: true},
		{name: "15-byte run is not a leak", input: `{"body":"` + body + `"}`, outputs: []string{"x" + body[10:25] + "y"}},
		{name: "run at the very end of the raw string", input: `{"body":"` + body + `"}`, outputs: []string{body[len(body)-16:]}, leak: true},
		{name: "raw string in a nested array", input: `{"a":[{"b":["zz","customer payload 42"]}]}`, outputs: []string{"customer payload 42"}, leak: true},
		{name: "escaped raw string is decoded first", input: `{"q":"line one\nline two"}`, outputs: []string{"line one\nline two"}, leak: true},
		{name: "digest outputs carry no content", input: `{"q":"sha256:` + strings.Repeat("ab", 32) + `"}`, outputs: []string{"sha256:" + strings.Repeat("ab", 32)}},
		{name: "pass-through id is not a leak", input: `{"session_id":"sess-2026-payments"}`, pass: Paths{"session_id": true}, outputs: []string{"sess-2026-payments"}},
		{name: "pass-through id inside raw text is not a leak", input: `{"session_id":"sess-2026-payments","note":"see sess-2026-payments for details"}`, pass: Paths{"session_id": true}, outputs: []string{"sess-2026-payments:sha256:" + strings.Repeat("0", 64)}},
		{name: "pass-through path with free text is raw", input: `{"status":"customer Acme-Co refused"}`, pass: Paths{"status": true}, outputs: []string{"customer Acme-Co refused"}, leak: true},
		{name: "pass-through covers only its own bytes", input: `{"id":"sess-2026-payments","note":"sess-2026-payments and then the private tail text"}`, pass: Paths{"id": true}, outputs: []string{"sess-2026-payments and then the private tail text"}, leak: true},
		{name: "vocabulary string is the program's own", input: `{"q":"mcp.tool_search.performed"}`, vocab: map[string]bool{"mcp.tool_search.performed": true}, outputs: []string{"mcp.tool_search.performed"}},
		{name: "vocabulary exemption is for whole strings only", input: `{"q":"mcp.tool_search.performed by Acme"}`, vocab: map[string]bool{"mcp.tool_search.performed": true}, outputs: []string{"x mcp.tool_search.performed by Acme"}, leak: true},
		{name: "object keys are structure, not content", input: `{"definition_token_count":5}`, outputs: []string{"mcp.tool.definition_token_count_bucket"}},
		{name: "unrelated output", input: `{"q":"private staging checkout failures"}`, outputs: []string{"sha256:" + strings.Repeat("1", 64), "under_25", "context.input.loaded"}},
		{name: "secret shape without any input", input: `{}`, outputs: []string{"token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"}, leak: true},
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
	c.Line([]byte(`{"type":"x","v":"CANARY-raw-field-value"}`), 3, Paths{"type": true})
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
