package converters_test

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared"

	"github.com/contextreceipts/convert/converters/convtest"
	"github.com/contextreceipts/convert/converters/scenario"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/jsonschema"
	"github.com/contextreceipts/convert/internal/pipeline"
)

// The schema differential: the event schemas of two schema trees (a
// directory holding defs.schema.json and events/, or an older commit's,
// which the test extracts with git archive into a temporary directory) must
// accept and reject the same event attributes. The attributes checked are
// every golden receipt line, every receipt converted from every sample and
// from every fuzz corpus entry, and mutants of each (a key dropped, a
// value of another type, a negative number, a string that is no token, an
// unknown key added). Run:
//
//	go test ./converters -run TestSchemaDiff -schemadiff.rev 45b3317 -v
var (
	diffRev = flag.String("schemadiff.rev", "", "git revision whose schemas/ to compare with (TestSchemaDiff)")
	diffOld = flag.String("schemadiff.old", "", "schema tree to compare with, instead of -schemadiff.rev (TestSchemaDiff)")
	diffNew = flag.String("schemadiff.new", "../schemas", "schema tree compared (TestSchemaDiff)")
)

// argued are the disagreements with the hand-written schemas of 45b3317
// that the differential expects ("event: mutant key"), each with the reason
// the generated schema is right: both are tightenings to what the
// converter can write, so no output changes (the goldens are identical).
var argued = map[string]string{
	"brain.doctor.precheck.completed: negate brain.doctor.score.before":                          intMove,
	"brain.doctor.remediation.completed: negate brain.doctor.score.after":                        intMove,
	"brain.doctor.remediation.completed: negate brain.doctor.score.before":                       intMove,
	"brain.doctor.remediation.completed: negate brain.doctor.target_score":                       intMove,
	"brain.doctor.remediation.plan.selected: negate brain.remediation.plan.expected_score_delta": intMove,
	"team_memory.bundle.hydrated: negate team_memory.loaded.sequence_max":                        intMove,
	"team_memory.bundle.hydrated: negate team_memory.loaded.sequence_min":                        intMove,
	"team_memory.entry.corrected: negate team_memory.entry.sequence":                             intMove,
	"team_memory.entry.promoted: negate team_memory.entry.sequence":                              intMove,
	"context.input.candidate_suppressed: drop context.input.activation":                          reqMove,
	"context.input.candidate_suppressed: drop context.input.applies_to":                          reqMove,
	"context.input.candidate_suppressed: drop context.input.composition_policy":                  reqMove,
	"context.input.candidate_suppressed: drop context.input.fallback_policy":                     reqMove,
	"context.input.candidate_suppressed: drop context.input.load_order":                          reqMove,
	"context.skill.registry.index.loaded: drop context.skill.body.token_bucket":                  reqMove,
	"context.skill.registry.reuse.evaluated: drop context.skill.relevance.decisive_count":        reqMove,
	"context.skill.registry.reuse.evaluated: drop context.skill.relevance.supporting_count":      reqMove,
	"context.skill.registry.reuse.evaluated: drop context.skill.relevance.unknown_count":         reqMove,
	"context.skill.registry.reuse.evaluated: drop context.skill.relevance.unused_count":          reqMove,
	"skill.router.case.evaluated: drop skill.router.top_k_hash":                                  reqMove,
}

const (
	intMove = "written by an Int move, which refuses a number below 0: the old schema said integer, the generated one the count definition (minimum 0)"
	reqMove = "written by a Req move, which fails the record without its field: every event carries the key, and the generated schema requires it"
)

const schemaBase = "https://schemas.contextreceipts.dev/convert/v1/"

// schemaTree compiles the event schemas of a schema tree.
func schemaTree(t *testing.T, dir string) map[string]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	var events []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".schema.json") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasPrefix(rel, "events/") {
			events = append(events, rel)
		}
		return c.AddResource(schemaBase+rel, bytes.NewReader(b))
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Schema{}
	for _, rel := range events {
		s, err := c.Compile(schemaBase + rel)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		out[strings.TrimSuffix(strings.TrimPrefix(rel, "events/"), ".schema.json")] = s
	}
	return out
}

// instance is one event's attributes, as a receipt line carries them.
type instance struct {
	event string
	attrs map[string]any
}

func (in instance) key() string {
	b, _ := json.Marshal(in.attrs)
	return in.event + " " + string(b)
}

// receiptInstances reads the events of receipt NDJSON.
func receiptInstances(data []byte) []instance {
	var out []instance
	for _, line := range bytes.Split(data, []byte("\n")) {
		var l struct {
			Name       string         `json:"name"`
			Attributes map[string]any `json:"attributes"`
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		if len(bytes.TrimSpace(line)) == 0 || dec.Decode(&l) != nil || l.Name == "" {
			continue
		}
		if l.Attributes == nil {
			l.Attributes = map[string]any{}
		}
		out = append(out, instance{l.Name, l.Attributes})
	}
	return out
}

// mutant is an instance changed in one way, named for the report.
type mutant struct {
	instance
	what string // "drop k", "retype k", ...
}

func mutants(in instance) []mutant {
	var out []mutant
	with := func(what, k string, v any, drop bool) {
		m := make(map[string]any, len(in.attrs)+1)
		for k2, v2 := range in.attrs {
			m[k2] = v2
		}
		if drop {
			delete(m, k)
		} else {
			m[k] = v
		}
		out = append(out, mutant{instance{in.event, m}, what + " " + k})
	}
	for _, k := range sortedAttrKeys(in.attrs) {
		with("drop", k, nil, true)
		switch v := in.attrs[k].(type) {
		case string:
			with("retype", k, json.Number("7"), false)
			with("untoken", k, "not a token: "+v, false)
		case json.Number:
			with("retype", k, "7", false)
			with("negate", k, json.Number("-1"), false)
		case bool:
			with("retype", k, "true", false)
			with("flip", k, !v, false)
		default:
			with("retype", k, true, false)
		}
	}
	with("add", "zz.unknown_key", "x", false)
	return out
}

func sortedAttrKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// fuzzEntry decodes a go test fuzz v1 corpus file: its []byte and uint8
// (or byte) arguments, in order.
var fuzzArg = regexp.MustCompile(`^(\[\]byte|uint8|byte)\((.*)\)$`)

func fuzzEntry(data []byte) (bs [][]byte, ns []uint8, err error) {
	for _, line := range strings.Split(string(data), "\n")[1:] {
		m := fuzzArg.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		switch m[1] {
		case "[]byte":
			s, err := strconv.Unquote(m[2])
			if err != nil {
				return nil, nil, err
			}
			bs = append(bs, []byte(s))
		default:
			if n, err := strconv.ParseUint(m[2], 0, 8); err == nil {
				ns = append(ns, uint8(n))
			} else if r, err := strconv.Unquote(m[2]); err == nil && len(r) == 1 {
				ns = append(ns, r[0])
			}
		}
	}
	return bs, ns, nil
}

// fuzzCases turns every corpus entry into the case its fuzz target runs.
func fuzzCases(t *testing.T) map[string]convtest.FuzzCase {
	grammars := scenarioGrammars(t)
	convs := map[bool][]converters.Converter{true: fuzzConverters(true), false: fuzzConverters(false)}
	out := map[string]convtest.FuzzCase{}
	files, _ := filepath.Glob("testdata/fuzz/*/*")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		bs, ns, err := fuzzEntry(data)
		if err != nil || len(bs) == 0 {
			t.Fatalf("%s: not a fuzz corpus entry (%v)", f, err)
		}
		switch target := filepath.Base(filepath.Dir(f)); target {
		case "FuzzScenarioLogs":
			out[f] = scenarioCase(grammars, bs[0])
		case "FuzzNativeConverters", "FuzzScenarioConverters":
			cs := convs[target == "FuzzNativeConverters"]
			which := 0
			if len(ns) > 0 {
				which = int(ns[0])
			}
			out[f] = convtest.FuzzCase{Conv: cs[which%len(cs)], Files: pipeline.Files{"in.jsonl": bs[0]}, In: pipeline.Input{Path: "in.jsonl", Rel: "in.jsonl"}}
		default:
			t.Fatalf("%s: unknown fuzz target", f)
		}
	}
	return out
}

// diffInputs gathers the instances: golden lines, then receipts of the
// samples and of the fuzz corpora. It counts the lines read of each kind
// and the conversions that failed.
func diffInputs(t *testing.T) (ins []instance, lines map[string]int, failed []string) {
	lines = map[string]int{}
	add := func(kind string, data []byte) {
		got := receiptInstances(data)
		lines[kind] += len(got)
		ins = append(ins, got...)
	}
	err := filepath.WalkDir(testshared.Repo(t, "golden"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".receipt.ndjson") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			add("golden", b)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range converters.All() {
		for _, p := range convtest.SampleFiles(t, c) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			// Native readers write some names in clear with --reveal names.
			reveals := []bool{false}
			if c.Native != nil {
				reveals = append(reveals, true)
			}
			for _, reveal := range reveals {
				opt := pipeline.Options{Converter: c.Name, MaxLine: 1 << 20, Reveal: reveal}
				res := pipeline.ConvertFiles(pipeline.Files{"in.jsonl": data}, pipeline.Input{Path: "in.jsonl", Rel: "in.jsonl"}, opt)
				if res.Err != nil {
					failed = append(failed, fmt.Sprintf("sample %s (%s): %v", p, c.Name, convtest.ErrText(res.Err)))
				}
				add("sample", res.Receipt)
			}
		}
	}
	cases := fuzzCases(t)
	for _, f := range slices.Sorted(maps.Keys(cases)) {
		res := cases[f].Convert(false)
		if res.Err != nil {
			failed = append(failed, fmt.Sprintf("fuzz %s: %v", f, convtest.ErrText(res.Err)))
		}
		add("fuzz", res.Receipt)
	}
	return ins, lines, failed
}

func accepts(set map[string]*jsonschema.Schema, in instance) bool {
	s := set[in.event]
	return s != nil && s.Validate(in.attrs) == nil
}

// TestSchemaDiff compares two schema trees on every instance and its
// mutants: it fails on any disagreement that argued does not explain.
func TestSchemaDiff(t *testing.T) {
	oldDir := *diffOld
	if oldDir == "" && *diffRev != "" {
		oldDir = filepath.Join(extractSchemas(t, *diffRev), "schemas")
	}
	if oldDir == "" {
		t.Skip("no -schemadiff.rev or -schemadiff.old to compare with")
	}
	old, cur := schemaTree(t, oldDir), schemaTree(t, *diffNew)
	ins, lines, failed := diffInputs(t)
	for _, f := range failed {
		if strings.Contains(f, "schema: ") {
			t.Errorf("conversion rejected by the schemas: %s", f)
		}
	}
	t.Logf("conversions that failed (the converter refuses the input: bad_* samples, fuzz findings): %d", len(failed))
	seen := map[string]bool{}
	var mutated, agree, disagreeing int
	disagree := map[string]int{} // "event: what (verdicts)" -> distinct instances
	examples := map[string]string{}
	check := func(in instance, what string) {
		k := in.key()
		if seen[k] {
			return
		}
		seen[k] = true
		o, n := accepts(old, in), accepts(cur, in)
		if o == n {
			agree++
			return
		}
		disagreeing++
		d := fmt.Sprintf("%s: %s (old accepts: %v, new: %v)", in.event, what, o, n)
		disagree[d]++
		if examples[d] == "" {
			examples[d] = k
		}
	}
	for _, in := range ins {
		check(in, "line as written")
	}
	mutatedFrom := map[string]bool{}
	for _, in := range ins {
		if k := in.key(); !mutatedFrom[k] {
			mutatedFrom[k] = true
			for _, m := range mutants(in) {
				mutated++
				check(m.instance, m.what)
			}
		}
	}
	t.Logf("receipt lines: %d golden, %d from samples, %d from fuzz corpora (%d distinct); mutants: %d; distinct instances checked: %d",
		lines["golden"], lines["sample"], lines["fuzz"], len(mutatedFrom), mutated, len(seen))
	t.Logf("agreements: %d, disagreements: %d (%d kinds)", agree, disagreeing, len(disagree))
	for _, d := range slices.Sorted(maps.Keys(disagree)) {
		why := argued[strings.SplitN(d, " (", 2)[0]]
		if why == "" {
			t.Errorf("%s x%d, e.g. %s", d, disagree[d], examples[d])
		} else {
			t.Logf("argued: %s x%d: %s", d, disagree[d], why)
		}
	}
}

// unwritten are the declared keys that no golden receipt and no sample
// converted with --reveal names carries, and why they are declared.
var unwritten = map[string]string{
	"brain.doctor.precheck.completed: gen_ai.conversation.id":                   "SessionIDs: the brain samples have no conversation id",
	"brain.doctor.remediation.completed: gen_ai.conversation.id":                "SessionIDs: the brain samples have no conversation id",
	"brain.doctor.remediation.job.evaluated: gen_ai.conversation.id":            "SessionIDs: the brain samples have no conversation id",
	"brain.doctor.remediation.plan.selected: gen_ai.conversation.id":            "SessionIDs: the brain samples have no conversation id",
	"brain.doctor.remediation.job.evaluated: brain.remediation.job.skip_reason": "no sample skips a job",
	"team_memory.entry.corrected: team_memory.author.human.id_hash":             "no sample correction names a human author",
	"gen_ai.token_usage.summarized: session.id":                                 "kept from the hand-written schema; the summary is emitted without it",
	"mcp.tool_definition.loaded: gen_ai.tool.name":                              "no sample loads a built-in tool's definition",
	"context.compaction.summary_loaded: context.compaction.audit_gap":           "no sample has a compaction summary without its boundary (claudecode's TestCompactSummaryWithoutBoundary and FuzzLogs corpus write it)",
}

// TestDeclaredKeysWritten fails when a declared event key is written by
// nothing the goldens and samples show, unless unwritten says why, and when
// unwritten names a key that is written after all: declarations must not
// outlive the code that writes them.
func TestDeclaredKeysWritten(t *testing.T) {
	ins, _, _ := diffInputs(t)
	written := map[string]bool{}
	for _, in := range ins {
		for k := range in.attrs {
			written[in.event+": "+k] = true
		}
	}
	gen, _ := scenario.EventSchemas()
	for _, ev := range slices.Sorted(maps.Keys(gen)) {
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(gen[ev], &s); err != nil {
			t.Fatal(err)
		}
		for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
			key := ev + ": " + k
			switch {
			case !written[key] && unwritten[key] == "":
				t.Errorf("%s is declared but nothing writes it (golden, samples, --reveal names)", key)
			case written[key] && unwritten[key] != "":
				t.Errorf("%s is written: remove it from unwritten", key)
			}
		}
	}
}

// extractSchemas writes rev's schemas/ into a temporary directory (git
// archive, read as tar here) and returns the directory.
func extractSchemas(t *testing.T, rev string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", "..", "archive", rev, "schemas").Output()
	if err != nil {
		t.Fatalf("git archive %s schemas: %v", rev, err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(bytes.NewReader(out))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return dir
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if h.Typeflag == tar.TypeDir || !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			continue
		}
		b, err := io.ReadAll(tr)
		if err == nil {
			err = os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err == nil {
			err = os.WriteFile(p, b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
