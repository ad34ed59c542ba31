package converters_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/tidwall/gjson"
)

// referenceDir holds the reference scenario fixtures, read in place (they are
// never copied into this repository).
const referenceDir = "../../shared/reference/pluribus"

// referenceCases maps a converter to its reference input and receipt.
var referenceCases = map[string][2]string{
	"session":                             {"sample-session-log.jsonl", "session-receipt.ndjson"},
	"mcp_tool_search":                     {"sample-mcp-tool-search-log.jsonl", "mcp-tool-search-receipt.ndjson"},
	"agent_overlay":                       {"agent-overlay-log.jsonl", "agent-overlay-receipt.ndjson"},
	"context_selection":                   {"sample-context-selection-log.jsonl", "context-selection-receipt.ndjson"},
	"skill":                               {"skill-invocation-log.jsonl", "skill-receipt.ndjson"},
	"skill_registry":                      {"sample-skill-registry-log.jsonl", "skill-registry-receipt.ndjson"},
	"skill_routing":                       {"sample-skill-routing-log.jsonl", "skill-routing-receipt.ndjson"},
	"project_telos_comparison":            {"sample-project-telos-comparison-log.jsonl", "project-telos-comparison-receipt.ndjson"},
	"memory":                              {"sample-memory-retrieval-log.jsonl", "memory-receipt.ndjson"},
	"memory_provenance":                   {"sample-memory-provenance-log.jsonl", "memory-provenance-receipt.ndjson"},
	"memory_consolidation":                {"sample-memory-consolidation-log.jsonl", "memory-consolidation-receipt.ndjson"},
	"memory_governance_delete":            {"sample-memory-governance-delete-log.jsonl", "memory-governance-delete-receipt.ndjson"},
	"brain_remediation":                   {"sample-brain-remediation-log.jsonl", "brain-remediation-receipt.ndjson"},
	"code_search_retrieval":               {"sample-code-search-retrieval-log.jsonl", "code-search-retrieval-receipt.ndjson"},
	"compaction":                          {"sample-compaction-log.jsonl", "compaction-receipt.ndjson"},
	"compaction_transaction":              {"sample-compaction-transaction-log.jsonl", "compaction-transaction-receipt.ndjson"},
	"pruning":                             {"sample-pruning-log.jsonl", "pruning-receipt.ndjson"},
	"cli_progressive_disclosure":          {"sample-cli-progressive-disclosure-log.jsonl", "cli-progressive-disclosure-receipt.ndjson"},
	"agentgateway_progressive_disclosure": {"sample-agentgateway-progressive-disclosure-log.jsonl", "agentgateway-progressive-disclosure-receipt.ndjson"},
	"claudekit_mcp_manager":               {"sample-claudekit-mcp-manager-log.jsonl", "claudekit-mcp-manager-receipt.ndjson"},
	"subagent_context_budget":             {"sample-subagent-context-budget-log.jsonl", "subagent-context-budget-receipt.ndjson"},
	"subagent_delegation":                 {"sample-subagent-delegation-log.jsonl", "subagent-delegation-receipt.ndjson"},
	"subagent_toolsearch_propagation":     {"sample-subagent-toolsearch-propagation-log.jsonl", "subagent-toolsearch-propagation-receipt.ndjson"},
	"secret_scanning":                     {"sample-secret-scanning-log.jsonl", "secret-scanning-receipt.ndjson"},
}

// TestReferenceParity runs each converter on its reference input and
// requires every (event name, attribute key) pair of the reference receipt,
// auto-detection of the input, and none of the reference's forbidden
// strings in any output or message. It skips only when ../shared is absent.
func TestReferenceParity(t *testing.T) {
	if _, err := os.Stat(referenceDir); err != nil {
		t.Skip("reference fixtures not present beside the checkout: ", referenceDir)
	}
	forbidden := forbiddenStrings(t)
	for _, c := range converters.All() {
		ref, ok := referenceCases[c.Name]
		if !ok {
			continue // native formats have no scenario reference
		}
		t.Run(c.Name, func(t *testing.T) {
			in := filepath.Join(referenceDir, ref[0])
			res := pipeline.Convert(pipeline.Input{Path: in, Rel: ref[0]}, pipeline.Options{})
			if res.Err != nil {
				t.Fatalf("auto-detected conversion failed: %v", res.Err)
			}
			if res.Converter != c.Name {
				t.Errorf("detected %s, want %s", res.Converter, c.Name)
			}
			want := nameKeys(t, readLines(t, filepath.Join(referenceDir, ref[1])))
			got := nameKeys(t, strings.Split(string(res.Receipt), "\n"))
			var missing []string
			for k := range want {
				if !got[k] {
					missing = append(missing, k)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("%d reference name/key pairs missing: %s", len(missing), strings.Join(missing, ", "))
			}
			blob := string(res.Receipt) + string(res.Trace) + strings.Join(res.Diags, "\n")
			for _, f := range forbidden[ref[0]] {
				if f != "" && strings.Contains(blob, f) {
					t.Errorf("reference canary %q reached an output", f)
				}
			}
		})
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []string
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

func nameKeys(t *testing.T, lines []string) map[string]bool {
	out := map[string]bool{}
	for _, l := range lines {
		if !gjson.Valid(l) {
			continue
		}
		d := gjson.Parse(l)
		name := d.Get("name").Str
		d.Get("attributes").ForEach(func(k, _ gjson.Result) bool {
			out[name+" "+k.Str] = true
			return true
		})
	}
	return out
}

// forbiddenStrings reads the reference README's table of canaries per input.
func forbiddenStrings(t *testing.T) map[string][]string {
	t.Helper()
	row := regexp.MustCompile("^\\|[^|]*\\| `([^`]*)`.*\\| `(\\[.*\\])` \\|\\s*$")
	out := map[string][]string{}
	for _, l := range readLines(t, filepath.Join(referenceDir, "README.md")) {
		m := row.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		var list []string
		if err := json.Unmarshal([]byte(m[2]), &list); err == nil {
			out[m[1]] = list
		}
	}
	if len(out) == 0 {
		t.Fatal("no forbidden-string table found in the reference README")
	}
	return out
}
