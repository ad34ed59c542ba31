package converters_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters/convtest"

	"github.com/contextreceipts/convert/internal/testshared"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/pipeline"
)

// canary is the marker every raw value of every sample carries. It must
// never reach a receipt, a trace or a message.
const canary = convtest.Canary

// otherSamples are sample folders that feed other commands, not a converter.
var otherSamples = map[string]string{
	"audit":   "receipts for convert audit (seed 003 state-assembly and seed 000 PreparedContext shapes)",
	"prepare": "artifacts that convert prepare load imports",
}

// goldenCase is one sample of any converter (convtest.Case).
type goldenCase = convtest.Case

// samples are the samples of every converter's folder in samples/.
func samples(t *testing.T) []goldenCase {
	t.Helper()
	testshared.InRepo(t)
	dirs, err := filepath.Glob("samples/*")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dirs)
	var out []goldenCase
	for _, d := range dirs {
		if _, other := otherSamples[filepath.Base(d)]; !other {
			out = append(out, convtest.Cases(t, filepath.Base(d))...)
		}
	}
	return out
}

// caseInputs are the inputs of a case: its file, or what its folder holds.
func caseInputs(t *testing.T, c goldenCase) []pipeline.Input { return c.Inputs(t) }

// TestGolden holds the scenario converters' samples to their goldens
// (convtest.Golden). A native reader's goldens are its own folder's test
// (converters/<reader>/golden_test.go), which TestEveryReaderTestsItself
// requires.
func TestGolden(t *testing.T) {
	testshared.InRepo(t)
	for _, c := range converters.All() {
		if c.Native == nil {
			t.Run(c.Name, func(t *testing.T) { convtest.Golden(t, c.Name) })
		}
	}
}

// TestGoldenHasSample fails on a golden folder whose converter is gone
// (convtest.Golden fails on a golden file no sample of its converter writes).
func TestGoldenHasSample(t *testing.T) {
	testshared.InRepo(t)
	dirs, err := filepath.Glob("golden/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, ok := converters.Lookup(filepath.Base(d)); !ok {
			t.Errorf("%s belongs to no registered converter: delete it or restore the converter", d)
		}
	}
}

// TestEveryReaderTestsItself: every native reader's folder (roomDir: the
// package its New is declared in, or its own folder of tests) holds its golden test
// (convtest.Golden), its fuzz target (convtest.FuzzSamples) and, when
// converters/testdata/ccusage.json records its
// sessions, its token test (convtest.Ccusage).
func TestEveryReaderTestsItself(t *testing.T) {
	testshared.InRepo(t)
	figures, err := os.ReadFile("converters/testdata/ccusage.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range converters.All() {
		if c.Native == nil {
			continue
		}
		dir := roomDir(".", c)
		files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
		var all []byte
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, b...)
		}
		want := []string{"convtest.Golden(t, " + strconv.Quote(c.Name), "convtest.FuzzSamples(f, " + strconv.Quote(c.Name)}
		if bytes.Contains(figures, []byte(`"samples/`+c.Name+`/`)) {
			want = append(want, "convtest.Ccusage(t, "+strconv.Quote(c.Name))
		}
		for _, w := range want {
			if !bytes.Contains(all, []byte(w)) {
				t.Errorf("%s: no test calls %s)", dir, w)
			}
		}
	}
}

// TestConformance walks the registry: every converter has a one-line doc,
// a schema for each event it emits, a basic sample and a bad one, and
// goldens; every event schema is used by some converter.
func TestConformance(t *testing.T) {
	testshared.InRepo(t)
	set := loadSchemas(t)
	used := map[string]bool{"convert.summary": true}
	for _, c := range converters.All() {
		t.Run(c.Name, func(t *testing.T) {
			if c.Doc == "" || strings.ContainsAny(c.Doc, "\n\r") || len(c.Doc) > 120 {
				t.Errorf("doc must be one line of at most 120 characters, got %q", c.Doc)
			}
			if len(c.Events) == 0 {
				t.Error("declares no event names")
			}
			for _, e := range c.Events {
				used[e] = true
				if !set.HasEvent(e) {
					t.Errorf("event %q has no schemas/events/%s.schema.json", e, e)
				}
			}
			_, e1 := os.Stat(filepath.Join("samples", c.Name, "basic.jsonl"))
			_, e2 := os.Stat(filepath.Join("samples", c.Name, "basic"))
			if e1 != nil && e2 != nil {
				t.Errorf("no samples/%s/basic.jsonl (or basic/ for a native layout)", c.Name)
			}
			// A bad sample: a file of junk lines, or, for a format whose
			// inputs are folders of documents, a folder of bad ones.
			if bad, _ := filepath.Glob(filepath.Join("samples", c.Name, "bad_*")); len(bad) == 0 {
				t.Errorf("no samples/%s/bad_*.jsonl (or bad_*/ for a native layout)", c.Name)
			}
			_, e1 = os.Stat(filepath.Join("golden", c.Name, "basic.receipt.ndjson"))
			_, e2 = os.Stat(filepath.Join("golden", c.Name, "basic"))
			if e1 != nil && e2 != nil {
				t.Errorf("no golden/%s/basic.receipt.ndjson (or basic/): run make golden", c.Name)
			}
		})
	}
	for _, e := range set.Events() {
		if !used[e] {
			t.Errorf("schemas/events/%s.schema.json is used by no converter", e)
		}
	}
	dirs, _ := filepath.Glob("samples/*")
	for _, d := range dirs {
		_, ok := converters.Lookup(filepath.Base(d))
		if _, other := otherSamples[filepath.Base(d)]; !ok && !other {
			t.Errorf("%s belongs to no registered converter", d)
		}
	}
}

// TestAutoDetect: without --converter, every sample is taken for the
// converter whose folder it is in.
func TestAutoDetect(t *testing.T) {
	testshared.InRepo(t)
	for _, c := range samples(t) {
		if _, ok := converters.Lookup(c.Converter); !ok {
			continue // TestConformance reports the folder
		}
		ins := []pipeline.Input{{Path: c.Sample, Rel: c.Name + ".jsonl"}}
		if c.Dir {
			var err error
			if ins, err = pipeline.Expand([]string{c.Sample}); err != nil {
				t.Fatal(err)
			}
		}
		for _, in := range ins {
			if res := pipeline.Convert(in, pipeline.Options{}); res.Converter != c.Converter {
				t.Errorf("%s: detected %q, want %s (%v)", in.Path, res.Converter, c.Converter, res.Err)
			}
		}
	}
}

// TestGoldenDetected converts every sample whose kind detection finds
// with --converter auto, and holds the outputs to those of its converter
// named: detection's scans of a file's first lines, reused by pass one,
// must change nothing it writes.
func TestGoldenDetected(t *testing.T) {
	testshared.InRepo(t)
	detected := 0
	for _, c := range samples(t) {
		for _, in := range caseInputs(t, c) {
			auto := pipeline.Convert(in, pipeline.Options{Converter: "auto", PoisonLines: true})
			if auto.Converter != c.Converter {
				continue // detection tells it for another kind, or none: its own tests say which
			}
			detected++
			named := pipeline.Convert(in, pipeline.Options{Converter: c.Converter, PoisonLines: true})
			if !bytes.Equal(auto.Receipt, named.Receipt) || !bytes.Equal(auto.Trace, named.Trace) || fmt.Sprint(auto.Err) != fmt.Sprint(named.Err) ||
				fmt.Sprint(auto.Diags) != fmt.Sprint(named.Diags) {
				t.Errorf("%s (%s): detected, it converts otherwise than with --converter %s", in.Path, c.Name, c.Converter)
			}
		}
	}
	if detected < 50 {
		t.Fatalf("detection found the converter of %d sample inputs only", detected)
	}
	t.Logf("%d sample inputs detected and converted alike", detected)
}

// packageDir is the folder, from the repository root, of the package that
// registered c (Converter.Package).
func packageDir(c converters.Converter) string {
	return filepath.FromSlash(strings.TrimPrefix(c.Package, "github.com/contextreceipts/convert/"))
}

// roomDir is the folder that holds a reader's tests and docs: its own
// package's, or, for a converter another reader's package registers under
// an agent's name (Kilo, OpenCode's reader), converters/<name> when that
// folder exists (converters/kilo: its doc.go, tests and testdata).
// root is the repository's root as seen from the working directory.
func roomDir(root string, c converters.Converter) string {
	own := packageDir(c)
	if dir := filepath.Join("converters", strings.ReplaceAll(c.Name, "_", "")); dir != own {
		if st, err := os.Stat(filepath.Join(root, dir)); err == nil && st.IsDir() {
			return dir
		}
	}
	return own
}
