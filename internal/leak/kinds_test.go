package leak

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestKinds: each kind admits its honest examples and refuses its
// hostile ones (personal data, secrets, free text in its syntax).
func TestKinds(t *testing.T) {
	for sh, k := range kinds {
		if len(k.admits) == 0 || len(k.refuses) == 0 {
			t.Errorf("%s: no examples", sh)
		}
		for _, v := range k.admits {
			if !sh.Admit(v) {
				t.Errorf("%s refuses %q, an honest value", sh, v)
			}
		}
		for _, v := range k.refuses {
			if sh.Admit(v) {
				t.Errorf("%s admits %q (%s)", sh, v, personal(v))
			}
		}
	}
	for sh := None + 1; int(sh) < len(shapeNames); sh++ {
		if _, ok := kinds[sh]; !ok {
			t.Errorf("shape %s has no kind declaration", sh)
		}
	}
}

// TestPersonalEverywhere: personal data and key shapes are refused by every
// shape of a free syntax, whatever the field, alone or inside a value.
func TestPersonalEverywhere(t *testing.T) {
	for _, tc := range []struct{ v, kind string }{
		{"4111111111111111", "digits"},
		{"ref-4111-1111-1111-1111", "card_number"},
		{"4111 1111 1111 1111", "card_number"},
		{"x078-05-1120", "ssn"},
		{"host-192.168.1.20", "ip_address"},
		{"fe80::1", "ip_address"},
		{"::ffff:10.0.0.1", "ip_address"},
		{"alice@example.com", "email"},
		{"+15551234567", "digits"},
		{"tel:+15551234567", "phone"},
		{"555-123-4567", "phone"},
		{"(555) 123-4567", "phone"},
		{"+44 20 7946 0958", "phone"},
		{"key-0123456789abcdef0123456789abcdef", "hex_key"},
		{"dd_0123456789abcdef0123456789abcdef", "hex_key"},
		{"heroku:6f1c1d2e-8b1a-4c1e-9d55-0a1b2c3d4e5f", "uuid_key"},
	} {
		if got := personal(tc.v); got != tc.kind {
			t.Errorf("personal(%q) = %q, want %q", tc.v, got, tc.kind)
		}
		for _, sh := range []Shape{ID, IDOrUUID, Version, Model, Label, Name} {
			if sh.Admit(tc.v) {
				t.Errorf("%s admits %q", sh, tc.v)
			}
		}
	}
	for _, v := range []string{"2.1.39", "line:0:2:1", "SessionStart:startup", "claude-opus-4-5@20251101",
		"us.anthropic.claude-sonnet-4-20250514-v1:0", "2026-05-01", "agent-5f2e77", "gpt-5.5", "12345678"} {
		if k := personal(v); k != "" {
			t.Errorf("personal(%q) = %q, want none", v, k)
		}
	}
}

// TestKindPatternsAdmitWhatTheShapeAdmits: every value a shape admits
// matches its kind's schema pattern (as does a digest), on the examples
// and 20,000 random strings per kind over the kinds' alphabet.
func TestKindPatternsAdmitWhatTheShapeAdmits(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 1))
	const alphabet = "abcfxyzABCF0123456789-._:/@<>+ "
	for sh, k := range kinds {
		if k.pattern == "" {
			continue
		}
		re := regexp.MustCompile(k.pattern)
		vals := append(append([]string{"sha256:" + strings.Repeat("ab", 32), "hmac-sha256:" + strings.Repeat("0f", 32)}, k.admits...), k.refuses...)
		for range 20000 {
			b := make([]byte, 1+rng.IntN(40))
			for i := range b {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			}
			vals = append(vals, string(b))
		}
		admitted := 0
		for _, v := range vals {
			if !sh.Admit(v) && !strings.Contains(v, "sha256:") {
				continue
			}
			admitted++
			if !re.MatchString(v) {
				t.Errorf("%s admits %q, its schema pattern refuses it", sh, v)
			}
		}
		if admitted < len(k.admits) {
			t.Errorf("%s: only %d values admitted: the corpus or the shape changed", sh, admitted)
		}
	}
}

// BenchmarkPersonal: the screen runs on every value a reader copies; on
// the values real sessions hold it must stay well under a microsecond
// (the expressions run only on values with grouped digits, a "+" or "@").
func BenchmarkPersonal(b *testing.B) {
	vals := []string{"claude-opus-4-5-20251101", "msg_01XoK4fG1oV1gbK9eQof7eGk", "2.1.39", "end_turn",
		"toolu_01VopHPceYcznbLHs9g1kvjP", "6f1c1d2e-8b1a-4c1e-9d55-0a1b2c3d4e5f"}
	for i := 0; i < b.N; i++ {
		for _, v := range vals {
			personal(v)
		}
	}
}

// TestParts: the halves of a server__tool name, and of a <server>_<tool>
// name where the reader declares that split (ServerToolName), are parts of
// it, each only when it is a name itself; labels and other kinds have none.
func TestParts(t *testing.T) {
	for _, tc := range []struct {
		sh   Shape
		v    string
		want string
	}{
		{Name, "mcp__playwright__browser_navigate", "playwright browser_navigate"},
		{Name, "github__search_code", "github search_code"},
		{Name, "mcp__linear", "linear"},
		{Label, "mcp__linear", ""}, // a namespace is declared a name (Codex)
		{Name, "mcp__srv__alice@example.com", "srv"},
		{Name, "Bash", ""},
		{ServerToolName, "github_search_code", "github search_code"},
		{ServerToolName, "chrome-devtools_take_snapshot", "chrome-devtools take_snapshot"},
		{ServerToolName, "bash", ""},
		{ServerToolName, "_x", ""},
		{ServerToolName, "alice@example.com_list", "list"},
		{Name, "github_search_code", ""},
		{ID, "mcp__a__b", ""},
	} {
		if got := strings.Join(tc.sh.Parts(tc.v), " "); got != tc.want {
			t.Errorf("%s.Parts(%q) = %q, want %q", tc.sh, tc.v, got, tc.want)
		}
	}
}
