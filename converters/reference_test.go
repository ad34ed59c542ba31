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

	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
	"github.com/tidwall/gjson"
)

// referenceDir is where the reference scenario fixtures are read in place
// (they are never copied into this repository): ../shared/reference/pluribus.
// Without it the test skips, saying so; in CI it fails (testshared.Dir).
func referenceDir(t *testing.T) string {
	t.Helper()
	return testshared.Dir(t, "reference", "pluribus")
}

// referenceFiles names a scenario converter's reference input and receipt in
// the reference suite. They follow the suite's naming (sample-<name>-log.jsonl
// and <name>-receipt.ndjson, with dashes) unless referenceNames says otherwise.
func referenceFiles(name string) [2]string {
	if ref, ok := referenceNames[name]; ok {
		return ref
	}
	kebab := strings.ReplaceAll(name, "_", "-")
	return [2]string{"sample-" + kebab + "-log.jsonl", kebab + "-receipt.ndjson"}
}

// referenceNames lists the reference cases whose files the suite named its own
// way.
var referenceNames = map[string][2]string{
	"agent_overlay": {"agent-overlay-log.jsonl", "agent-overlay-receipt.ndjson"},
	"memory":        {"sample-memory-retrieval-log.jsonl", "memory-receipt.ndjson"},
	"skill":         {"skill-invocation-log.jsonl", "skill-receipt.ndjson"},
}

// noReference lists the scenario converters the reference suite has no case
// for, and why; every other registered scenario converter must have one.
var noReference = map[string]string{
	"context_input": "the context-input rendering scenario is this project's own; the suite has no log of it",
}

// TestReferenceCasesFromRegistry fails when a registered scenario converter
// has no reference case (instead of being silently left out of the parity
// test) and when an override names a converter that is not a scenario.
func TestReferenceCasesFromRegistry(t *testing.T) {
	dir := referenceDir(t)
	scen := map[string]bool{}
	for _, name := range scenario.Scenarios() {
		scen[name] = true
		if _, ok := noReference[name]; ok {
			continue
		}
		for _, f := range referenceFiles(name) {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Errorf("scenario converter %s has no reference case: %v (name its files in referenceNames, or say why in noReference)", name, err)
			}
		}
	}
	for name := range referenceNames {
		if !scen[name] {
			t.Errorf("referenceNames names %s, which is not a registered scenario converter", name)
		}
	}
	for name := range noReference {
		if !scen[name] {
			t.Errorf("noReference names %s, which is not a registered scenario converter", name)
		}
	}
}

// TestReferenceParity runs each converter on its reference input and
// requires every (event name, attribute key) pair of the reference receipt,
// auto-detection of the input, and none of the reference's forbidden
// strings in any output or message. It skips only when ../shared is absent
// and CI is unset.
func TestReferenceParity(t *testing.T) {
	dir := referenceDir(t)
	forbidden := forbiddenStrings(t)
	for _, name := range scenario.Scenarios() {
		if _, ok := noReference[name]; ok {
			continue
		}
		ref := referenceFiles(name)
		t.Run(name, func(t *testing.T) {
			in := filepath.Join(dir, ref[0])
			res := pipeline.Convert(pipeline.Input{Path: in, Rel: ref[0]}, pipeline.Options{})
			if res.Err != nil {
				t.Fatalf("auto-detected conversion failed: %v", res.Err)
			}
			if res.Converter != name {
				t.Errorf("detected %s, want %s", res.Converter, name)
			}
			want := nameKeys(t, readLines(t, filepath.Join(dir, ref[1])))
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
	for _, l := range readLines(t, filepath.Join(referenceDir(t), "README.md")) {
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
