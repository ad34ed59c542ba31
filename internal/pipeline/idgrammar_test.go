package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLeakCheckFilesByGrammar: `convert leakcheck` over a folder of two
// agents' logs admits an id only when it is one of the ids of the agent
// whose log holds it, each input by its own reader's grammar (as each
// reader writes ids): a Claude Code message id of Anthropic's family is a
// pass-through value, one of the id shape but no Anthropic id is raw, and
// so is every id of a ZCode ledger (its reader declares none). A copy of
// a raw one in an output is a leak; it was not when the check admitted
// ids by their shape.
func TestLeakCheckFilesByGrammar(t *testing.T) {
	dir := t.TempDir()
	claude, err := os.ReadFile(repoPath("samples/claude_code/basic/-Users-alice-src-acme-ledger/7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	claude = append(claude, []byte(`{"type":"assistant","sessionId":"7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b","timestamp":"2026-03-14T09:30:00.000Z","message":{"id":"msg_0113ezJR3hNQJo51NLnS26HK","role":"assistant"}}
{"type":"assistant","sessionId":"7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b","timestamp":"2026-03-14T09:30:01.000Z","message":{"id":"msg_01alicekowalczykpayrollQ3","role":"assistant"}}
`)...)
	zcode, err := os.ReadFile(repoPath("samples/zcode/basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(zcode), `"id":"sess_7f3a9c2e1b4d"`) {
		t.Fatal("the ZCode sample's session id moved")
	}
	inputs := []string{filepath.Join(dir, "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b.jsonl"), filepath.Join(dir, "ledger.jsonl")}
	for i, b := range [][]byte{claude, zcode} {
		if err := os.WriteFile(inputs[i], b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out.txt")
	lines := []string{"msg_0113ezJR3hNQJo51NLnS26HK", "msg_01alicekowalczykpayrollQ3", "sess_7f3a9c2e1b4d", "7f3c2a10-5b6e-4d1f-9a8b-0c1d2e3f4a5b"}
	leaks := []bool{false, true, true, false}
	if err := os.WriteFile(out, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Each input by its own reader (auto), and both by Claude Code's
	// (named: the ledger's fields are no pass-through path of it).
	for _, conv := range []string{"", "claude_code"} {
		fds, err := LeakCheckFiles(inputs, conv, []string{out}, false)
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]bool{}
		for _, fd := range fds {
			found[fd.Where.String()] = true
		}
		for i, v := range lines {
			where := out + " line " + string(rune('1'+i))
			if found[where] != leaks[i] {
				t.Errorf("converter %q: %s refused %v, want %v (findings %v)", conv, v, found[where], leaks[i], fds)
			}
		}
	}
}
