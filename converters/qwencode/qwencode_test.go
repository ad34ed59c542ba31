package qwencode_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/contextreceipts/convert/converters/all"
	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
)

// figures are token counts in ccusage's terms (testdata/ccusage.json).

// convert converts every input of a sample (a folder or one file), by
// the name of its main file without .jsonl.
func convert(t *testing.T, sample string, opt pipeline.Options) map[string]pipeline.Result {
	t.Helper()
	ins, err := pipeline.Expand([]string{sample})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]pipeline.Result{}
	for _, in := range ins {
		res := pipeline.Convert(in, opt)
		if res.Err != nil {
			t.Fatalf("%s: %v", in.Path, res.Err)
		}
		out[strings.TrimSuffix(filepath.Base(in.Path), ".jsonl")] = res
	}
	return out
}

// TestTokenTotalsAgainstCcusage: each sample session's token totals, in
// ccusage's terms, are the figures ccusage 20.0.24 printed for it.
func TestTokenTotalsAgainstCcusage(t *testing.T) {
	recorded := convtest.RecordedBeside(t)
	testshared.InRepo(t)
	if len(recorded) < 2 {
		t.Fatal("no sessions recorded")
	}
	for _, s := range recorded {
		res, ok := convert(t, s.Sample, pipeline.Options{})[s.Input]
		if !ok || res.Converter != "qwen_code" {
			t.Errorf("%s: no input %s read by qwen_code", s.Sample, s.Input)
			continue
		}
		got := convtest.ReceiptTotals(res.Receipt)
		if got != s.Ccusage {
			t.Errorf("%s %s: ours %+v, ccusage %+v", s.Sample, s.Input, got, s.Ccusage)
		}
	}
}

// qwenChat is a Qwen Code chat of the records an older build writes
// (user and assistant only, no usage): the shape the Claude Code reader
// used to take for its own, since both name type, uuid and sessionId.
const qwenChat = `{"uuid":"c3000001-0000-4000-8000-000000000001","parentUuid":null,"sessionId":"5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b","timestamp":"2026-11-22T08:00:00.000Z","type":"user","cwd":"/CANARY/w","version":"0.0.9","message":{"role":"user","parts":[{"text":"CANARY-prompt"}]}}
{"uuid":"c3000001-0000-4000-8000-000000000002","parentUuid":"c3000001-0000-4000-8000-000000000001","sessionId":"5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b","timestamp":"2026-11-22T08:00:02.000Z","type":"assistant","cwd":"/CANARY/w","version":"0.0.9","model":"qwen3-coder-plus","message":{"role":"model","parts":[{"text":"CANARY-answer"}]}}
`

// TestQwenChatIsNotClaudes: a Qwen chat is detected as Qwen Code's, and
// the Claude Code reader asked for by name refuses it, writing nothing.
func TestQwenChatIsNotClaudes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "5e4d3c2b-1a0f-4e9d-8c7b-6a5f4e3d2c1b.jsonl")
	if err := os.WriteFile(p, []byte(qwenChat), 0o644); err != nil {
		t.Fatal(err)
	}
	in := pipeline.Input{Path: p, Rel: filepath.Base(p)}
	if res := pipeline.Convert(in, pipeline.Options{Converter: "auto"}); res.Err != nil || res.Converter != "qwen_code" {
		t.Fatalf("detected as %q (error %v)", res.Converter, res.Err)
	}
	for _, name := range []string{"claude_code", "gemini_cli"} {
		res := pipeline.Convert(in, pipeline.Options{Converter: name})
		if res.Err == nil || res.Receipt != nil || !strings.Contains(res.Err.Error(), "not a "+name+" log") {
			t.Errorf("%s: converted (error %v)", name, res.Err)
		}
	}
}

// TestLocations: a run given no path reads ~/.qwen/projects/*/chats, or
// the projects under QWEN_DATA_DIR when it is set, as ccusage does.
func TestLocations(t *testing.T) {
	convtest.Locations(t, "qwen_code", "QWEN_DATA_DIR", []string{"HOME/.qwen/projects/*/chats"}, []string{"ENV/projects/*/chats"})
}
