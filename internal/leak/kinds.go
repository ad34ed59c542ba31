package leak

import "sync/atomic"

// The value kinds, declared once: what a shape admits (Shape.Admit, which
// both the readers' copies and the leak check's typed/raw split call), the
// JSON Schema pattern a receipt value of the kind must match
// (Shape.Pattern, from which converters/events renders
// schemas/defs.schema.json), and examples of each side. TestKinds holds
// Admit to the examples; TestKindPatternsAdmitWhatTheShapeAdmits holds
// every pattern to Admit on the examples and on random strings: a value a
// shape admits is valid where the schema expects its kind, so a session is
// never refused for a value the screen let through.

// A kind is one shape's declaration.
type kind struct {
	// pattern is what a receipt value of the kind matches: the admitted
	// values, and the digest written in place of any other. "" for kinds
	// written as numbers or never written alone.
	pattern string
	// admits and refuses are examples: honest values of the kind, and
	// values of its syntax that are personal data, secrets or free text.
	admits, refuses []string
}

// digestAlt is the pattern of a digest, written in place of a refused value.
const digestAlt = `(sha256|hmac-sha256):[0-9a-f]{64}`

// tokenPattern is the pattern of a value written as a token: the ids,
// labels and versions the shapes admit, and a digest, fit it.
const tokenPattern = `^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,127}$`

var kinds = map[Shape]kind{
	UUID: {
		pattern: `^(` + digestAlt + `|[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})$`,
		admits:  []string{"6f1c1d2e-8b1a-4c1e-9d55-0a1b2c3d4e5f", "019ed917-0000-7000-8000-000000000000"},
		refuses: []string{"6f1c1d2e8b1a4c1e9d550a1b2c3d4e5f", "not-a-uuid", "alice@example.com"},
	},
	ID: {
		pattern: tokenPattern,
		admits: []string{"msg_01XoK4fG1oV1gbK9eQof7eGk", "toolu_01VopHPceYcznbLHs9g1kvjP", "call_abc123", "a1b2c3d",
			"a3f9b2c1d4e5f6789", "tc-0001", "agent-5f2e77", "line:0:2:1", "req_011CVz2",
			"ses_4f1e2d3c5ffeA1b2C3d4E5f6G7", "prt_b20000000002ffeZx9Cv8Bn7Ma", "bash-progress-12", "call_olx_9"},
		refuses: []string{
			"6f1c1d2e-8b1a-4c1e-9d55-0a1b2c3d4e5f",          // a UUID: a Heroku API key's form
			"0123456789abcdef0123456789abcdef",              // 32 hex: a Datadog API key's form
			"key-0123456789abcdef0123456789abcdef",          // Mailgun
			"4111111111111111", "5551234567", "078-05-1120", // card, phone, SSN
			"my-secret-password", "toolu_CANARY/with/slash", "sk-ant-api03-Qx7Lm2Np9Rt4Vw8Yz1Bc5Df0Gh3Jk6",
			// issue #49: each agent's id grammar, no free words
			"mysql:root:hunter2", "mysql-root-hunter2", "call_db:root:hunter2x", "ses_alicePayrollQ3notes",
			"prt_payroll2026", "ses_4f1e2d3c5ffeA1b2C3d4E5f6G7-x",
		},
	},
	IDOrUUID: {
		pattern: tokenPattern,
		admits:  []string{"6f1c1d2e-8b1a-4c1e-9d55-0a1b2c3d4e5f", "msg_01XoK4fG1oV1gbK9eQof7eGk", "tc-0001", "T-6f1c1d2e-8b1a-4c1e-9d55-0a1b2c3d4e5f"},
		refuses: []string{"0123456789abcdef0123456789abcdef", "4111111111111111", "+15551234567", "alice@example.com", "T-alice-payroll", "T-6f1c1d2e-8b1a-4c1e-9d55-0a1b2c3d4e5"},
	},
	Time: {
		admits:  []string{"2026-05-01T10:00:01Z", "2026-05-01T10:00:01.123+02:00", "2026-05-01 10:00:01"},
		refuses: []string{"yesterday", "4111111111111111"},
	},
	Version: {
		pattern: tokenPattern,
		admits: []string{"2.1.39", "0.142.4", "v1.2.3-beta.1", "2026.1.15", "1.0.0+20251101", "0.0.354",
			"0.47.0-alpha.2", "0.5.0-nightly.20250910.a1b2c3d", "1.2.0-rc1"},
		refuses: []string{"4111-1111-1111-1111", "4111111111111111", "192.168.1.20", "1.2.3.4", "078-05-1120",
			"555.123.4567", "CANARY.1.2", "2", "12345.1.1", "1.2.3-CANARYhunter2hunter2",
			// issue #49: a version's grammar has no free word
			"2.1.39-alice.kowalczyk.payroll", "1.0.0-payroll", "2.1.39+acme"},
	},
	Model: {
		pattern: `^(<synthetic>|` + digestAlt + `|[A-Za-z0-9][A-Za-z0-9_.:/@-]{0,63})$`,
		admits: []string{"claude-opus-4-5-20251101", "gpt-5.5", "o3", "<synthetic>", "openrouter/anthropic/claude-sonnet-4",
			"openai/gpt-oss-120b", "claude-opus-4-5@20251101", "us.anthropic.claude-sonnet-4-20250514-v1:0", "llama3:8b"},
		refuses: []string{"alice@example.com", "192.168.1.20", "hunter2hunter2hunter2hunter22x", "4111111111111111",
			"x_sk-ant-api03-CANARYQx7Lm2Np9Rt4Vw8Yz1Bc5Df",
			// issue #49: a path, an intranet e-mail, a national phone number
			"home/alice/payroll/q3-salaries.xlsx", "alice.kowalczyk@acme", "models/llama-3-8b-q4.gguf", "tel-02079460958"},
	},
	Label: {
		pattern: tokenPattern,
		admits:  []string{"end_turn", "tool_use", "acceptEdits", "SessionStart:startup", "assistant", "cli", "v2"},
		refuses: []string{"555-123-4567", "+15551234567", "078-05-1120", "4111-1111-1111-1111", "192.168.1.20",
			"fe80::1", "2001:db8::8a2e:370:7334", "0123456789abcdef0123456789abcdef", "free text here",
			"6f1c1d2e-8b1a-4c1e-9d55-0a1b2c3d4e5f", "key_ghp_CANARY0123456789abcdefABCDEF0123",
			// a label's syntax, not a word the program knows: a passphrase
			// and a person's name (the closed vocabulary refuses them)
			"correct-horse-battery-staple-xxxxxx", "alice.kowalczyk.payroll"},
	},
	Name: {
		pattern: `^(` + digestAlt + `|[A-Za-z0-9][A-Za-z0-9_.:/@-]{0,95})$`,
		admits: []string{"playwright", "browser_navigate", "mcp__playwright__browser_navigate", "frontend-design",
			"plugin/skill-name", "ms-playwright@1", "general-purpose"},
		refuses: []string{"alice@example.com", "alice.kowalczyk@acme.io", "192.168.1.20", "555-123-4567",
			"key-0123456789abcdef0123456789abcdef", "mcp__srv__4111111111111111",
			// issue #49: paths and e-mails, dotted domain or not, are never names
			"alice.kowalczyk@acme", "home/alice/skills/payroll", "Users/alice/notes.md", "skill/CANARY-notes.txt"},
	},
	ServerToolName: {
		pattern: `^(` + digestAlt + `|[A-Za-z0-9][A-Za-z0-9_.:/@-]{0,95})$`,
		admits:  []string{"github_search_code", "chrome-devtools_click", "bash"},
		refuses: []string{"alice@example.com_list", "srv_4111111111111111", "192.168.1.20_ping", "key-0123456789abcdef0123456789abcdef"},
	},
	EpochMs: {
		admits:  []string{"1773479523100"},
		refuses: []string{"5551234567", "4111111111111111"},
	},
	Count: {
		admits:  []string{"0", "42", "28249720", "999999999"},
		refuses: []string{"5551234567", "15551234567", "4111111111111111", "-1", "1.5"},
	},
	// A running total: a phone number fits (5551234567), so it is
	// never written, only subtracted; what is written is the growth,
	// a Count (CumulativeGrowth).
	Cumulative: {
		admits:  []string{"0", "28249720", "1000000001", "38512345678", "9999999999999"},
		refuses: []string{"10000000000000", "4111111111111111", "-1", "1.5", "1e12"},
	},
}

// Pattern returns the JSON Schema pattern of a receipt value of kind s:
// what s admits, or the digest written in its place ("" for a kind not
// written as a string).
func (s Shape) Pattern() string { return kinds[s].pattern }

// vocabulary is the lookup of the program's own words (the generated
// vocabulary of internal/gate, and the words of converters registered at
// run time), which the gate installs (SetVocabulary) when it is loaded.
// Until then no word is known: a label is written as its digest, never in
// clear (fail closed).
var vocabulary atomic.Pointer[func(string) bool]

// SetVocabulary installs the lookup of the program's own words: a Label
// value is admitted only when isWord knows it. The gate calls it once, at
// load; tests may install a vocabulary of their own (the lookup is read
// per value, so a later call takes effect at once).
func SetVocabulary(isWord func(string) bool) { vocabulary.Store(&isWord) }

// knownWord reports whether v is one of the program's own words.
func knownWord(v string) bool {
	f := vocabulary.Load()
	return f != nil && (*f)(v)
}

// Examples returns the kind's declared examples: honest values it admits
// and values of its syntax it refuses. Tests of other packages that apply
// a kind (the read-back side, internal/untrusted) hold themselves to them.
func (s Shape) Examples() (admits, refuses []string) {
	k := kinds[s]
	return append([]string(nil), k.admits...), append([]string(nil), k.refuses...)
}
