package opencode_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
)

// TestOpenCodeServerToolNames: OpenCode names an MCP tool <server>_<tool>.
// With --reveal names the reader writes the two halves apart, and the
// leak check types them as parts of the admitted name (the field declares
// leak.ServerToolName, whose split the reader uses too), so a session
// whose text and tool input repeat the server name converts; without
// --reveal names both halves are digests. No canary of the session
// reaches an output or a message either way.
func TestOpenCodeServerToolNames(t *testing.T) {
	testshared.InRepo(t)
	b, err := os.ReadFile(filepath.Join("samples", "opencode", "bad_junk_lines.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	for _, r := range [][2]string{
		{`"tool":"grep"`, `"tool":"acmevault_search_code"`},
		{`"input":{"pattern":"round\\(",`, `"input":{"repo":"acmevault","query":"search_code","pattern":"round\\(",`},
		{`CANARY-subprompt find every caller of round()`, `CANARY-subprompt ask acmevault to find every caller of round()`},
	} {
		if !strings.Contains(line, r[0]) {
			t.Fatalf("the sample changed: no %s", r[0])
		}
		line = strings.Replace(line, r[0], r[1], 1)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "ses_4f1e2c8a1ffeH8i9J0k1L2m3N4.json")
	if err := os.WriteFile(p, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, reveal := range []bool{false, true} {
		res := pipeline.Convert(pipeline.Input{Path: p, Rel: filepath.Base(p)}, pipeline.Options{Reveal: reveal})
		if res.Err != nil {
			t.Fatalf("reveal %v: refused: %v", reveal, res.Err)
		}
		out := string(res.Receipt) + string(res.Trace)
		for _, w := range res.Diags {
			out += w
		}
		if strings.Contains(strings.ToUpper(out), "CANARY") {
			t.Errorf("reveal %v: a canary reached an output or a warning", reveal)
		}
		ev := convtest.Events(res.Receipt, "mcp.tool_call.completed")
		if len(ev) != 1 {
			t.Fatalf("reveal %v: %d mcp.tool_call.completed events, want 1", reveal, len(ev))
		}
		a := ev[0].Get("attributes")
		server, tool := a.Get(`mcp\.server\.name`), a.Get(`mcp\.tool\.name`)
		if reveal && (server.Str != "acmevault" || tool.Str != "search_code") {
			t.Errorf("revealed server %q, tool %q; want acmevault, search_code", server.Str, tool.Str)
		}
		if !reveal && (server.Exists() || tool.Exists() || !strings.HasPrefix(a.Get(`mcp\.server\.name_hash`).Str, "sha256:")) {
			t.Errorf("names not hashed without --reveal names: %s", a.Raw)
		}
		if !reveal && strings.Contains(out, "acmevault") {
			t.Error("the server name was written without --reveal names")
		}
	}
}
