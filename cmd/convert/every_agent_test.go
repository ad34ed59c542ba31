package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/internal/testshared/ocdb"
)

// everyAgentAtHome lays out one session (or more) of every agent a native
// reader reads at that agent's default location under a home: the bundled
// samples copied, the SQLite stores built from their readers' scripts
// (testdata/*.sql; no binary is committed). A reader added without a row
// here fails TestRunEveryAgentAtHome.
var everyAgentAtHome = []struct {
	converter string
	from      string // a samples/ folder, or converters/<reader>/testdata/<script>.sql
	to        string // under the home
}{
	{"claude_code", "claude_code/basic", ".claude/projects"},
	{"codex", "codex/basic/sessions", ".codex/sessions"},
	{"cursor", "cursor/transcripts/projects", ".cursor/projects"},
	{"copilot_cli", "copilot_cli/basic/session-state", ".copilot/session-state"},
	{"gemini_cli", "gemini_cli/basic/tmp", ".gemini/tmp"},
	{"opencode", "opencode/storage", ".local/share/opencode/storage"},
	{"kilo", "ocdb", ".local/share/kilo/kilo.db"},
	{"pi_agent", "pi_agent/basic/sessions", ".pi/agent/sessions"},
	{"pi_agent", "pi_agent/openclaw/agents", ".openclaw/agents"}, // OpenClaw: pi's format, its own folder
	{"droid", "droid/basic/sessions", ".factory/sessions"},
	{"qwen_code", "qwen_code/basic/projects", ".qwen/projects"},
	{"kimi_cli", "kimi_cli/basic/sessions", ".kimi/sessions"},
	{"goose", "goose/testdata/sessions.sql", ".local/share/goose/sessions/sessions.db"},
	{"hermes", "hermes/testdata/state.sql", ".hermes/state.db"},
	{"amp", "amp/basic/threads", ".local/share/amp/threads"},
	{"codebuff", "codebuff/basic/projects", ".config/manicode/projects"},
	{"antigravity", "antigravity/testdata/6f1d7e2a-3c4b-4d5e-8f90-a1b2c3d4e5f6.sql",
		".gemini/antigravity/conversations/6f1d7e2a-3c4b-4d5e-8f90-a1b2c3d4e5f6.db"},
	{"grok", "grok/basic/sessions", ".grok/sessions"},
	{"zcode", "zcode/testdata/db.sql", ".zcode/cli/db/db.sqlite"},
}

// TestRunEveryAgentAtHome: with no PATH, convert run finds every agent's
// sessions at its default location on one home and converts each with
// its own reader (the summary's converters line names each one), with no
// failure and no canary in any output or message; convert report over the
// receipts then groups them by agent, one row for each.
func TestRunEveryAgentAtHome(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	clearLocationEnv(t)
	want := map[string]bool{}
	for _, a := range everyAgentAtHome {
		want[a.converter] = true
		to := filepath.Join(home, filepath.FromSlash(a.to))
		switch {
		case a.from == "ocdb":
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				t.Fatal(err)
			}
			ocdb.Build(t, to, nil)
		case strings.HasSuffix(a.from, ".sql"):
			convtest.SQLiteFromFile(t, filepath.Join(repo, "converters", filepath.FromSlash(a.from)), to)
		default:
			copyTree(t, filepath.Join(repo, "samples", filepath.FromSlash(a.from)), to)
		}
	}
	for _, c := range converters.All() {
		if c.Native != nil && !want[c.Name] {
			t.Errorf("%s: a native reader with no session laid out in everyAgentAtHome", c.Name)
		}
	}
	old := stdinPiped
	stdinPiped = func() bool { return false }
	defer func() { stdinPiped = old }()
	out := t.TempDir()
	code, so, se := runCLI(t, "", "run", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, se)
	}
	line := regexp.MustCompile(`(?m)^\s*converters\s+((?:.*,\n\s+)*.*)$`).FindStringSubmatch(se)
	if line == nil {
		t.Fatalf("no converters line in the summary:\n%s", se)
	}
	counted := map[string]bool{}
	for _, f := range strings.Split(line[1], ",") {
		if name, _, ok := strings.Cut(strings.TrimSpace(f), " "); ok {
			counted[name] = true
		}
	}
	for name := range want {
		if !counted[name] {
			t.Errorf("%s: not among the readers that converted (%s)", name, line[1])
		}
	}
	if strings.Contains(se, "failed") || strings.Contains(strings.ToLower(so+se), "canary") {
		t.Errorf("a failure, or a canary, in the run's messages:\n%s", se)
	}
	assertNoCanaryUnder(t, out)

	code, so, se = runCLI(t, "", "report", "--by", "agent", "--format", "json", "--no-cost", out)
	if code != 0 {
		t.Fatalf("report: exit %d\n%s", code, se)
	}
	if strings.Contains(strings.ToLower(so+se), "canary") {
		t.Errorf("a canary in the report")
	}
	var rep struct {
		Groups []struct {
			Key string `json:"key"`
		} `json:"groups"`
	}
	if err := json.Unmarshal([]byte(so), &rep); err != nil {
		t.Fatalf("report JSON: %v\n%.2000s", err, so)
	}
	var agents []string
	for _, g := range rep.Groups {
		agents = append(agents, g.Key)
	}
	slices.Sort(agents)
	// Each reader's agent (pi's two: pi and OpenClaw; Kimi CLI's one here).
	if len(agents) < len(want) {
		t.Errorf("report by agent has %d groups, want at least %d: %v", len(agents), len(want), agents)
	}
	t.Logf("%d readers converted; report groups: %v", len(counted), agents)
}
