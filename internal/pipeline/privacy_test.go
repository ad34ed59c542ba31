package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/otlp"
	"github.com/contextreceipts/convert/internal/receipt"
	"github.com/contextreceipts/convert/internal/testshared"
)

// The privacy model's two sides, each as a corpus run by `make test`:
// honest sessions that quote our own vocabulary convert with no finding
// (no false refusal), and hostile sessions with a canary in every place a
// log can hold one never let it reach any output or message.

// ccLine is one Claude Code user or assistant record.
func ccLine(typ, uuid, text string) string {
	return fmt.Sprintf(`{"type":%q,"uuid":"%s","parentUuid":null,"sessionId":"6f1c1d2e-8b1a-4c1e-9d55-0a1b2c3d4e5f","timestamp":"2026-05-01T10:00:0%sZ","version":"2.1.50","message":{"role":%q,"content":%s}}`,
		typ, uuid, uuid[len(uuid)-1:], typ, quoteJSON(text))
}

func quoteJSON(s string) string {
	b := new(strings.Builder)
	fmt.Fprintf(b, "%q", s)
	return strings.NewReplacer(`\x`, `\u00`).Replace(b.String())
}

func uuidN(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-00000000000%d", n) }

// honestTexts are what people who use this tool write in their sessions:
// our span, event and attribute names, schema URLs, pasted receipts and
// traces, README lines.
func honestTexts(t *testing.T) []string {
	receipt, err := os.ReadFile(repoPath("golden/mcp_tool_search/basic.receipt.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	trace, err := os.ReadFile(repoPath("golden/mcp_tool_search/basic.otel.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(repoPath("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return []string{
		"execute_tool Bash",
		"why is there an execute_tool Bash span and a chat span of zero length?",
		"compaction",
		"the trace says " + otlp.SchemaURL + " and scope github.com/contextreceipts/convert/converters/claude_code",
		"context.compaction.started, context.input.loaded and convert.summary are the event names",
		"gen_ai.usage.input_tokens gen_ai.usage.cache_read.input_tokens mcp.tool_call.status",
		"resourceSpans scopeSpans startTimeUnixNano endTimeUnixNano",
		string(receipt),
		string(trace),
		string(readme[:min(len(readme), 6000)]),
	}
}

// TestHonestSessionsConvert: a session that quotes our vocabulary is never
// refused, and every output string has a provenance.
func TestHonestSessionsConvert(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i, text := range honestTexts(t) {
		typ := "user"
		if i%2 == 1 {
			typ = "assistant"
		}
		lines = append(lines, ccLine(typ, uuidN(i%10), text))
	}
	p := writeFile(t, dir, "6f1c1d2e-8b1a-4c1e-9d55-0a1b2c3d4e5f.jsonl", strings.Join(lines, "\n")+"\n")
	res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{})
	if res.Err != nil {
		t.Fatalf("honest session refused: %v", res.Err)
	}
	if res.Stats.Untyped != 0 {
		t.Fatalf("%d output strings without provenance", res.Stats.Untyped)
	}
	// Each quote alone is a session too.
	for i, text := range honestTexts(t) {
		p := writeFile(t, dir, fmt.Sprintf("honest-%d.jsonl", i), ccLine("user", uuidN(1), text)+"\n")
		if res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{}); res.Err != nil {
			t.Errorf("honest quote %d refused: %v", i, res.Err)
		}
	}
}

// TestSeedTranscriptsConvert: every real transcript of ../shared/corpus-seed
// converts, plain and keyed, with and without --reveal names, with no
// finding; unkeyed, with no untyped output string either. Without ../shared
// it skips, in CI it fails.
func TestSeedTranscriptsConvert(t *testing.T) {
	seeds := testshared.Dir(t, "corpus-seed") // skips on a clone without ../shared, fails in CI
	files, _ := filepath.Glob(filepath.Join(seeds, "*", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no seed transcripts (*/*.jsonl) in " + seeds)
	}
	keyed, err := receipt.NewKeyed([]byte("ca8b22d0db83a22db163b560b3e4e51527e533d31d067b614a0c33c4d2df8432"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []struct {
		name string
		opt  Options
	}{{"plain", Options{}}, {"reveal", Options{Reveal: true}}, {"keyed", Options{Hash: keyed}}, {"keyed-reveal", Options{Hash: keyed, Reveal: true}}} {
		refused := 0
		for _, f := range files {
			res := Convert(Input{Path: f, Rel: filepath.Base(f)}, mode.opt)
			if res.Err != nil {
				refused++
				t.Errorf("%s, %s: refused: %v", mode.name, filepath.Base(f), res.Err)
				continue
			}
			// Keyed, the summary's key id is a keyed hex of its own, no digest.
			if !strings.HasPrefix(mode.name, "keyed") && res.Stats.Untyped != 0 {
				t.Errorf("%s, %s: %d output strings without provenance", mode.name, filepath.Base(f), res.Stats.Untyped)
			}
		}
		t.Logf("%s: %d seed transcripts, %d refused", mode.name, len(files), refused)
	}
}

// hostileCase plants canaries in one class of place.
type hostileCase struct {
	name  string
	lines []string
	leak  bool // the conversion must fail closed (else: it must convert)
	// canaries are this case's own canaries, besides the common ones.
	canaries []string
	reveal   bool // --reveal names
}

const sid = "6f1c1d2e-8b1a-4c1e-9d55-0a1b2c3d4e5f"

func ccRec(extra string) string {
	return `{"type":"assistant","uuid":"` + uuidN(1) + `","sessionId":"` + sid + `","timestamp":"2026-05-01T10:00:01Z","version":"2.1.50"` + extra + `}`
}

// TestHostileSessions: canaries in object keys, numbers, short values,
// case-changed copies, pass-through fields of every shape, and secrets of
// every family glued to a word never reach an output or a message.
func TestHostileSessions(t *testing.T) {
	cases := []hostileCase{
		{name: "canary as an object key of a tool result", lines: []string{
			ccRec(`,"message":{"role":"assistant","model":"claude-opus-4-6","content":[{"type":"tool_use","id":"toolu_01A","name":"Bash","input":{"CANARYkey-tenant-payroll":1}}]}`),
			`{"type":"user","uuid":"` + uuidN(2) + `","sessionId":"` + sid + `","timestamp":"2026-05-01T10:00:02Z","toolUseResult":{"CANARYresultkey":true},"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01A","content":"CANARY output"}]}}`}},
		{name: "canary password in a model field", lines: []string{
			ccRec(`,"message":{"role":"assistant","model":"CANARYhunter2hunter2hunter2x","id":"msg_01A","content":[{"type":"text","text":"hi"}]}`)}},
		{name: "canary password in a session id", lines: []string{
			`{"type":"user","uuid":"` + uuidN(1) + `","sessionId":"CANARY-Tr0ub4dor-and-3-horses","timestamp":"2026-05-01T10:00:01Z","message":{"role":"user","content":"hello"}}`}},
		{name: "canary in a version field", lines: []string{
			`{"type":"user","uuid":"` + uuidN(1) + `","sessionId":"` + sid + `","timestamp":"2026-05-01T10:00:01Z","version":"CANARY.1.2","message":{"role":"user","content":"hello"}}`}},
		{name: "canary in a tool-use id", lines: []string{
			ccRec(`,"message":{"role":"assistant","model":"claude-opus-4-6","content":[{"type":"tool_use","id":"toolu_CANARY/with/slash","name":"Bash","input":{}}]}`)}},
		{name: "numeric session id (a card number)", lines: []string{
			`{"type":"user","uuid":"` + uuidN(1) + `","sessionId":4111111111111111,"timestamp":"2026-05-01T10:00:01Z","message":{"role":"user","content":"CANARY"}}`}},
		{name: "secret glued to a word in the model field", lines: []string{
			ccRec(`,"message":{"role":"assistant","model":"x_sk-ant-api03-CANARYQx7Lm2Np9Rt4Vw8Yz1Bc5Df","id":"msg_01A","content":[]}`)}},
		{name: "secret in a stop reason", lines: []string{
			ccRec(`,"message":{"role":"assistant","model":"claude-opus-4-6","id":"msg_01A","stop_reason":"key_ghp_CANARY0123456789abcdefABCDEF0123","content":[]}`)}},
		{name: "canary in an unknown record type", lines: []string{
			`{"type":"CANARY-new-type","uuid":"` + uuidN(1) + `","sessionId":"` + sid + `","timestamp":"2026-05-01T10:00:01Z"}`,
			ccRec(`,"message":{"role":"assistant","model":"claude-opus-4-6","content":[]}`)}},
	}
	cases = append(cases, personalDataCases()...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeFile(t, dir, sid+".jsonl", strings.Join(tc.lines, "\n")+"\n")
			res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{Reveal: tc.reveal})
			if (res.Err != nil) != tc.leak {
				t.Fatalf("err = %v, want failure %v", res.Err, tc.leak)
			}
			everything := string(res.Receipt) + string(res.Trace) + strings.Join(res.Diags, "\n")
			if res.Err != nil {
				everything += res.Err.Error()
			}
			for _, bad := range append([]string{"CANARY", "canary", "4111111111111111", "hunter2"}, tc.canaries...) {
				if strings.Contains(everything, bad) {
					t.Fatalf("%q reached an output or message", bad)
				}
			}
		})
	}
}

// TestHostileScenarioNumbers: numbers from a scenario log are written only
// as a declared, bounded count (issue #40, item 5): a card number as
// session_id, a phone number as conversation_id, agent or latency_ms never
// reaches an output or a message, in plain or keyed mode.
func TestHostileScenarioNumbers(t *testing.T) {
	cases := []struct{ name, log string }{
		{"numeric session, conversation and agent ids", `{"type":"session.start","time":"2026-06-02T09:15:00.000Z","session_id":4111111111111111,"conversation_id":5551234567,"agent":5551234567,"repo":"CANARY-repo","model":"claude-sonnet-4.5"}
{"type":"session.end","time":"2026-06-02T09:16:00.000Z","session_id":4111111111111111,"status":"completed"}
`},
		{"a phone number as latency_ms", `{"type":"memory.search","time":"2026-06-08T16:00:01.000Z","retrieval_id":"ret-01","provider":"team-memory-mcp","client":"claude-code","project":"CANARY-project","query_text":"CANARY-query","snapshot_id":"snap-01","latency_ms":5551234567,"results":[]}
`},
	}
	for _, tc := range cases {
		for _, h := range []receipt.Hasher{{}, testKey(t)} {
			t.Run(tc.name+" "+h.Mode(), func(t *testing.T) {
				p := writeFile(t, t.TempDir(), "6f1c1d2e-8b1a-4c1e-9d55-0a1b2c3d4e5f.jsonl", tc.log)
				conv := "session"
				if strings.Contains(tc.log, "memory.search") {
					conv = "memory"
				}
				res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{Converter: conv, Hash: h})
				everything := string(res.Receipt) + string(res.Trace) + strings.Join(res.Diags, "\n")
				if res.Err != nil {
					everything += res.Err.Error()
				}
				if res.Receipt == nil && res.Err == nil {
					t.Fatal("nothing written and no error")
				}
				for _, bad := range []string{"4111111111111111", "5551234567", "CANARY", "canary"} {
					if strings.Contains(everything, bad) {
						t.Errorf("%q reached an output or message:\n%s", bad, everything)
					}
				}
			})
		}
	}
}

// personalDataCases put personal data and keys in pass-through fields whose
// syntax they fit (issue 40): a card number, an SSN or an IP address as a
// version, keys of the families without a prefix of their own as ids, a
// phone number as a label or a token count, an e-mail address as a name
// written in clear with --reveal names. Each converts (a refused value is
// a digest or a gap, never an error) and none reaches an output.
func personalDataCases() []hostileCase {
	ver := func(v string) string {
		return `{"type":"user","uuid":"` + uuidN(1) + `","sessionId":"` + sid + `","timestamp":"2026-05-01T10:00:01Z","version":"` + v + `","message":{"role":"user","content":"hello"}}`
	}
	asst := func(msgID, stop, toolID, tool string, inputTokens string) string {
		return `{"type":"assistant","uuid":"` + uuidN(2) + `","sessionId":"` + sid + `","timestamp":"2026-05-01T10:00:02Z","version":"2.1.50","agentId":"a1b2c3d",` +
			`"message":{"role":"assistant","model":"claude-opus-4-6","id":"` + msgID + `","stop_reason":"` + stop + `","usage":{"input_tokens":` + inputTokens + `,"output_tokens":7},` +
			`"content":[{"type":"tool_use","id":"` + toolID + `","name":"` + tool + `","input":{}}]}}`
	}
	const (
		mailgun = "key-3ab1c2d4e5f60718293a4b5c6d7e8f90"
		datadog = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
		heroku  = "84e2a1b7-3c5d-4f60-9a8b-7c6d5e4f3a21"
	)
	return []hostileCase{
		{name: "card number as a version", lines: []string{ver("4111-1111-1111-1111")}, canaries: []string{"4111-1111"}},
		{name: "IP address as a version", lines: []string{ver("192.168.1.20")}, canaries: []string{"192.168.1.20"}},
		{name: "IPv6 address as a label", lines: []string{ver("2.1.50"), asst("msg_01A", "fe80::1ff:fe23:4567:890a", "toolu_01A", "Bash", "3")}, canaries: []string{"fe80::1ff"}},
		{name: "SSN and phone number as labels", lines: []string{ver("2.1.50"), asst("msg_01A", "078-05-1120", "toolu_01A", "Bash", "3"),
			asst("msg_01B", "555-867-5309", "toolu_01B", "Bash", "3")}, canaries: []string{"078-05-1120", "555-867-5309"}},
		{name: "Mailgun key as a message id", lines: []string{asst(mailgun, "end_turn", "toolu_01A", "Bash", "3")}, canaries: []string{mailgun, mailgun[4:]}},
		{name: "32-hex key as a message id", lines: []string{asst(datadog, "end_turn", "toolu_01A", "Bash", "3")}, canaries: []string{datadog}},
		{name: "UUID-shaped key as a tool call id", lines: []string{asst("msg_01A", "end_turn", heroku, "Bash", "3")}, canaries: []string{heroku}},
		{name: "phone number as a token count", lines: []string{asst("msg_01A", "end_turn", "toolu_01A", "Bash", "5558675309")}, canaries: []string{"5558675309"}},
		{name: "e-mail address as a revealed MCP server name", reveal: true,
			lines:    []string{asst("msg_01A", "end_turn", "toolu_01A", "mcp__alice.kowalczyk@acme.io__search", "3")},
			canaries: []string{"alice.kowalczyk", "acme.io"}},
	}
}

// TestDerivedPartsAreTyped: with --reveal names, the server and tool halves
// of an admitted mcp__server__tool name are written on their own; they
// carry the name's provenance, so a session whose tool input, result or
// text also holds one of them (a tool named after the repository it
// searches) converts, with no record naming the halves on their own
// (Claude Code writes progress records only for some calls). A name the
// shape refuses gives its halves nothing: they are digests, and a canary
// in one never reaches an output.
func TestDerivedPartsAreTyped(t *testing.T) {
	use := func(name, input string) string {
		return ccRec(`,"message":{"role":"assistant","model":"claude-opus-4-6","id":"msg_01A","content":[{"type":"tool_use","id":"toolu_01A","name":"` + name + `","input":` + input + `}]}`)
	}
	result := func(text string) string {
		return `{"type":"user","uuid":"` + uuidN(2) + `","sessionId":"` + sid + `","timestamp":"2026-05-01T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01A","content":"` + text + `"}]}}`
	}
	for _, tc := range []struct {
		name   string
		lines  []string
		honest bool
		canary string
	}{
		{"halves repeated in the tool input", []string{use("mcp__github__search_code", `{"owner":"github","tool":"search_code"}`), result("ok")}, true, ""},
		{"half repeated as a result", []string{use("mcp__linear__list_issues", `{}`), result("linear")}, true, ""},
		{"canary half of a refused name", []string{use("mcp__CANARYalice.kowalczyk@acme.io__list", `{"q":"CANARYalice.kowalczyk@acme.io"}`), result("list")}, true, "kowalczyk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := writeFile(t, dir, sid+".jsonl", strings.Join(tc.lines, "\n")+"\n")
			res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{Reveal: true})
			if (res.Err == nil) != tc.honest {
				t.Fatalf("err = %v, want converted %v", res.Err, tc.honest)
			}
			everything := string(res.Receipt) + string(res.Trace) + strings.Join(res.Diags, "\n")
			if res.Err != nil {
				everything += res.Err.Error()
			}
			for _, bad := range []string{"CANARY", "canary", tc.canary} {
				if bad != "" && strings.Contains(everything, bad) {
					t.Fatalf("%q reached an output or message", bad)
				}
			}
		})
	}
}

// TestCodeSearchExtensionIsOurs: code search writes a result path's
// extension, a part of a raw path: in clear only as one of its own words
// ("go", "md"), else "other", so a path whose extension is a name or a
// code ("notes.canaryzq") never lends it to the receipt.
func TestCodeSearchExtensionIsOurs(t *testing.T) {
	sample, err := os.ReadFile(repoPath("samples/code_search_retrieval/basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.ReplaceAll(string(sample), "customs.markdown", "customs.canaryzq")
	if body == string(sample) {
		t.Fatal("the sample no longer has the path this test changes")
	}
	p := writeFile(t, t.TempDir(), "basic.jsonl", body)
	res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{})
	if res.Err != nil {
		t.Fatalf("refused: %v", res.Err)
	}
	everything := string(res.Receipt) + string(res.Trace) + strings.Join(res.Diags, "\n")
	for _, bad := range []string{"CANARY", "canary"} {
		if strings.Contains(everything, bad) {
			t.Fatalf("%q reached an output or message", bad)
		}
	}
	if !strings.Contains(string(res.Receipt), `"code_search.result.path_extension":"other"`) {
		t.Error("the unknown extension is not written as other")
	}
	if res.Stats.Untyped != 0 {
		t.Errorf("%d output strings without provenance", res.Stats.Untyped)
	}
}

// TestRevealedNamesAreValid: a name the name shape admits is valid where
// the schemas expect a name, so --reveal names never turns an honest
// session into a schema failure: skills and subagent types written with a
// plugin's "/" or a version's "@" ("acme/pdf-tools", "reviewer@2"), MCP
// servers and tools likewise.
func TestRevealedNamesAreValid(t *testing.T) {
	lines := []string{
		ccRec(`,"message":{"role":"assistant","model":"claude-opus-4-6","id":"msg_01A","content":[` +
			`{"type":"tool_use","id":"toolu_01A","name":"Skill","input":{"skill":"acme/pdf-tools"}},` +
			`{"type":"tool_use","id":"toolu_01B","name":"Task","input":{"subagent_type":"reviewer@2","prompt":"look"}},` +
			`{"type":"tool_use","id":"toolu_01C","name":"mcp__acme/docs__search@v2","input":{}}]}`),
	}
	p := writeFile(t, t.TempDir(), sid+".jsonl", strings.Join(lines, "\n")+"\n")
	res := Convert(Input{Path: p, Rel: filepath.Base(p)}, Options{Reveal: true})
	if res.Err != nil {
		t.Fatalf("refused: %v", res.Err)
	}
	for _, name := range []string{`"acme/pdf-tools"`, `"acme/docs"`, `"search@v2"`} {
		if !strings.Contains(string(res.Receipt)+string(res.Trace), name) {
			t.Errorf("%s is not written in clear", name)
		}
	}
}
