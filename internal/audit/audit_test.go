package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func rulesOf(fs []Finding) []string {
	var r []string
	for _, f := range fs {
		r = append(r, f.Rule)
	}
	sort.Strings(r)
	return r
}

func noCanary(t *testing.T, fs []Finding) {
	t.Helper()
	b, _ := json.Marshal(fs)
	for _, f := range fs {
		b = append(b, f.String()...)
	}
	if strings.Contains(string(b), "CANARY") {
		t.Errorf("raw value in findings: %s", b)
	}
}

// Each of seed 003's six failure modes is found in its bad sample, at the
// line of the entry where there is one, and nothing in the good ones.
func TestStateAssemblySamples(t *testing.T) {
	tests := []struct {
		file  string
		rules []string
		line  int // line of the first finding; 0: not checked
	}{
		{"good.json", nil, 0},
		{"good_merged_conflict.json", nil, 0},
		{"bad_stale_fact.json", []string{RuleStaleFact}, 30},
		{"bad_superseded.json", []string{RuleSuperseded}, 14},
		{"bad_tombstoned.json", []string{RuleTombstoned}, 30},
		{"bad_unflagged_conflict.json", []string{RuleConflict}, 54},
		{"bad_as_of_fallback.json", []string{RuleAsOfFallback}, 1},
		{"bad_context_hash.json", []string{RuleContextHash, RuleContextHash}, 1},
		{"mixed.ndjson", []string{RuleSuperseded}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			fs, err := File(filepath.Join("../../samples/audit", tt.file), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := rulesOf(fs); !reflect.DeepEqual(got, tt.rules) {
				t.Fatalf("rules = %v, want %v\n%v", got, tt.rules, fs)
			}
			if tt.line > 0 && fs[0].Line != tt.line {
				t.Errorf("line = %d, want %d (%s)", fs[0].Line, tt.line, fs[0])
			}
			noCanary(t, fs)
		})
	}
}

// The caller's side given on the command line overrides the document's.
func TestOptions(t *testing.T) {
	p := "../../samples/audit/good.json"
	tests := []struct {
		name  string
		opt   Options
		rules []string
	}{
		{"same as_of in another zone", Options{AsOf: "2026-06-01T14:00:00+02:00"}, nil},
		{"other as_of", Options{AsOf: "2026-06-02T00:00:00Z"}, []string{RuleAsOfFallback}},
		{"bad as_of", Options{AsOf: "yesterday"}, []string{RuleAsOfFallback}},
		{"other delivered bytes", Options{Context: []byte("CANARY other bytes")}, []string{RuleContextHash, RuleContextHash}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, err := File(p, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if got := rulesOf(fs); !reflect.DeepEqual(got, tt.rules) {
				t.Errorf("rules = %v, want %v\n%v", got, tt.rules, fs)
			}
			noCanary(t, fs)
		})
	}
}

// Our own receipts: the goldens are clean, and each broken invariant is found.
func TestConvertReceipts(t *testing.T) {
	golden, err := os.ReadFile("../../golden/session/basic.receipt.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(golden), "\n"), "\n")
	last := len(lines) - 1
	edit := func(i int, old, new string) string {
		l := append([]string(nil), lines...)
		if !strings.Contains(l[i], old) {
			t.Fatalf("line %d lacks %q", i+1, old)
		}
		l[i] = strings.Replace(l[i], old, new, 1)
		return strings.Join(l, "\n") + "\n"
	}
	tests := []struct {
		name  string
		data  string
		rules []string
	}{
		{"golden", string(golden), nil},
		{"event dropped", strings.Join(append(append([]string(nil), lines[:2]...), lines[3:]...), "\n"), []string{RuleEventCount}},
		{"summary not last", strings.Join(append([]string{lines[last]}, lines[:last]...), "\n"), []string{RuleSummaryLast, RuleSummaryLast}},
		{"converter", edit(0, `"converter":"session"`, `"converter":"memory"`), []string{RuleConverter}},
		{"schema", edit(1, `"schema":"convert.receipt.v1"`, `"schema":"x.v9"`), []string{RuleSchema}},
		{"trace id", edit(1, `"trace_id":"7b`, `"trace_id":"8b`), []string{RuleTraceID}},
		{"lines", edit(last, `"convert.input.lines":9`, `"convert.input.lines":10`), []string{RuleLineAccounting}},
		{"skipped", edit(last, `"convert.input.lines.skipped":0`, `"convert.input.lines.skipped":1`), []string{RuleLineAccounting, RuleSkipReasons}},
		{"leak", edit(last, `"convert.leak_check.status":"passed"`, `"convert.leak_check.status":"failed"`), []string{RuleLeakCheck}},
		{"digest", edit(last, `"convert.input.sha256":"sha256:c5`, `"convert.input.sha256":"md5:c5`), []string{RuleInputDigest}},
		{"not json", "{\"schema\":\"convert.receipt.v1\"}\nCANARY oops\n", []string{RuleParse}},
		{"unknown shape", `{"CANARY":"x"}`, []string{RuleUnknownShape}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := Data("r.receipt.ndjson", []byte(tt.data), Options{})
			if got := rulesOf(fs); !reflect.DeepEqual(got, tt.rules) {
				t.Errorf("rules = %v, want %v\n%v", got, tt.rules, fs)
			}
			noCanary(t, fs)
		})
	}
}

// Seed 000's PreparedContext invariants.
func TestPreparedContext(t *testing.T) {
	good, err := os.ReadFile("../../samples/audit/pc_good.json")
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Replace(string(good), `"omitted": [`, `"omitted": [`+strings.Repeat(`{"family": "profile", "reason": "duplicate", "count": 1, "pad": "`+strings.Repeat("x", 1000)+`"},`, 17), 1)
	tests := []struct {
		name  string
		data  string
		rules []string
	}{
		{"good", string(good), nil},
		{"no receipt asked for", `{"schema": "powercontext.prepared-context.v1", "status": "ready", "content": "CANARY", "content_bytes": 6}`, nil},
		{"bounds", big, []string{RulePCBounds, RulePCBounds}},
		{"bare receipt, wrong policy", `{"schema": "powercontext.prepared-context-receipt.v1", "policy_id": "CANARY", "retrieval": {}}`, []string{RulePCShape}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := Data("pc.json", []byte(tt.data), Options{})
			if got := rulesOf(fs); !reflect.DeepEqual(got, tt.rules) {
				t.Errorf("rules = %v, want %v\n%v", got, tt.rules, fs)
			}
			noCanary(t, fs)
		})
	}
	fs, err := File("../../samples/audit/pc_bad.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{RulePCBytes, RulePCContentDigest, RulePCEnum, RulePCNonDeterm, RulePCRerankConfig, RulePCIdentity, RulePCTruncated}
	sort.Strings(want)
	if got := rulesOf(fs); !reflect.DeepEqual(got, want) {
		t.Errorf("pc_bad rules = %v, want %v", got, want)
	}
	noCanary(t, fs)
	if fs, _ := File("../../samples/audit/pc_bad_null_receipt.json", Options{}); !reflect.DeepEqual(rulesOf(fs), []string{RulePCNullReceipt}) {
		t.Errorf("null receipt: %v", fs)
	}
}
