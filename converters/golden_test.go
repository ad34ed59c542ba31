package converters_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/pipeline"
)

var update = flag.Bool("update", false, "rewrite golden files from samples (make golden)")

// canary is the marker every raw value of every sample carries. It must
// never reach a receipt, a trace or a message.
const canary = "CANARY"

// otherSamples are sample folders that feed other commands, not a converter.
var otherSamples = map[string]string{
	"audit":   "receipts for convert audit (seed 003 state-assembly and seed 000 PreparedContext shapes)",
	"prepare": "artifacts that convert prepare load imports",
}

// goldenCase is one sample: a .jsonl file, or a directory converted as a
// user would pass it to convert run (native layouts: a project folder with
// sessions and subagent transcripts).
type goldenCase struct {
	converter, name, sample string
	dir                     bool
}

func samples(t *testing.T) []goldenCase {
	t.Helper()
	paths, err := filepath.Glob("samples/*/*")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var out []goldenCase
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if !st.IsDir() && !strings.HasSuffix(p, ".jsonl") {
			continue
		}
		if _, other := otherSamples[filepath.Base(filepath.Dir(p))]; other {
			continue
		}
		out = append(out, goldenCase{
			converter: filepath.Base(filepath.Dir(p)),
			name:      strings.TrimSuffix(filepath.Base(p), ".jsonl"),
			sample:    filepath.ToSlash(p),
			dir:       st.IsDir(),
		})
	}
	return out
}

// convertCase converts a case: the outputs by golden file name (relative to
// golden/<converter>/), and the exit code and messages of the whole case.
func convertCase(t *testing.T, c goldenCase) (map[string][]byte, []byte) {
	t.Helper()
	ins := caseInputs(t, c)
	prefix := ""
	if c.dir {
		prefix = c.name + "/"
	}
	outs := map[string][]byte{}
	var errText bytes.Buffer
	worst := 0
	var msgs bytes.Buffer
	for _, in := range ins {
		// PoisonLines: a converter that keeps a view of a line past it
		// changes the outputs, and the goldens then differ.
		res := pipeline.Convert(in, pipeline.Options{Converter: c.converter, PoisonLines: true})
		rec, trace, e := outcome(res)
		// A case file's goldens keep the case's name (the outputs of a
		// name that is not id-shaped are named by its digest); a folder
		// case's, the names run writes.
		base := c.name
		if c.dir {
			base = prefix + pipeline.OutputName(in.Rel, "")
		}
		outs[base+".receipt.ndjson"], outs[base+".otel.jsonl"] = rec, trace
		msgs.Write(e[bytes.IndexByte(e, '\n')+1:])
		worst = max(worst, exitCode(res.Err))
	}
	fmt.Fprintf(&errText, "exit: %d\n", worst)
	errText.Write(msgs.Bytes())
	return outs, errText.Bytes()
}

// caseInputs are the inputs of a case: its file, or what its folder holds.
func caseInputs(t *testing.T, c goldenCase) []pipeline.Input {
	t.Helper()
	if !c.dir {
		return []pipeline.Input{{Path: c.sample, Rel: c.name + ".jsonl"}}
	}
	ins, err := pipeline.Expand([]string{c.sample})
	if err != nil {
		t.Fatal(err)
	}
	return ins
}

// outcome renders a conversion the way the CLI reports it: the outputs, and
// the exit code with every stderr line.
func outcome(res pipeline.Result) (rec, trace, errText []byte) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "exit: %d\n", exitCode(res.Err))
	for _, d := range res.Diags {
		fmt.Fprintln(&b, d)
	}
	if res.Err != nil {
		fmt.Fprintln(&b, res.Err)
	}
	return res.Receipt, res.Trace, b.Bytes()
}

func exitCode(err error) int {
	var le *pipeline.LeakError
	var se *pipeline.SchemaError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &le):
		return 3
	case errors.As(err, &se):
		return 4
	}
	return 1
}

// TestGolden converts every sample with its converter and compares the
// receipt, the trace and the messages with golden/<converter>/<case>.*.
// -update rewrites them; a missing golden fails instead of being created.
func TestGolden(t *testing.T) {
	testshared.InRepo(t)
	for _, c := range samples(t) {
		t.Run(c.converter+"/"+c.name, func(t *testing.T) {
			files, errText := convertCase(t, c)
			files[c.name+".err"] = errText
			names := make([]string, 0, len(files))
			for n, out := range files {
				names = append(names, n)
				if bytes.Contains(out, []byte(canary)) {
					t.Fatalf("canary %q reached %s of %s", canary, n, c.sample)
				}
			}
			sort.Strings(names)
			if c.dir { // a golden the case no longer writes is stale
				root := filepath.Join("golden", c.converter, c.name)
				filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return nil
					}
					rel, _ := filepath.Rel(filepath.Join("golden", c.converter), p)
					if _, ok := files[filepath.ToSlash(rel)]; !ok {
						if *update {
							os.Remove(p)
						} else {
							t.Errorf("%s is written by no input of %s: run make golden", p, c.sample)
						}
					}
					return nil
				})
			}
			for _, n := range names {
				got := files[n]
				golden := filepath.Join("golden", c.converter, filepath.FromSlash(n))
				if *update {
					writeGolden(t, golden, got)
					continue
				}
				want, err := os.ReadFile(golden)
				switch {
				case errors.Is(err, os.ErrNotExist) && got == nil:
					continue
				case errors.Is(err, os.ErrNotExist):
					t.Errorf("%s is missing: run make golden and review it", golden)
				case err != nil:
					t.Fatal(err)
				case got == nil:
					t.Errorf("%s exists but the conversion wrote nothing: run make golden", golden)
				case !bytes.Equal(got, want):
					t.Errorf("%s differs from the conversion of %s (run make golden and review the diff):\n%s", golden, c.sample, firstDiff(want, got))
				}
			}
		})
	}
}

func writeGolden(t *testing.T, path string, data []byte) {
	t.Helper()
	if data == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// firstDiff shows the first differing line of two outputs.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d\n-want %s\n+got  %s", i+1, wl, gl)
		}
	}
	return "(no line differs)"
}

// TestGoldenHasSample fails on golden files whose sample is gone.
func TestGoldenHasSample(t *testing.T) {
	testshared.InRepo(t)
	goldens, err := filepath.Glob("golden/*/*")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range goldens {
		name := filepath.Base(g)
		for _, ext := range []string{".receipt.ndjson", ".otel.jsonl", ".err"} {
			name = strings.TrimSuffix(name, ext)
		}
		dir := filepath.Join("samples", filepath.Base(filepath.Dir(g)))
		_, e1 := os.Stat(filepath.Join(dir, name+".jsonl"))
		_, e2 := os.Stat(filepath.Join(dir, name))
		if e1 != nil && e2 != nil {
			t.Errorf("%s has no sample in %s: delete it or restore the sample", g, dir)
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
			if bad, _ := filepath.Glob(filepath.Join("samples", c.Name, "bad_*.jsonl")); len(bad) == 0 {
				t.Errorf("no samples/%s/bad_*.jsonl", c.Name)
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
		if _, ok := converters.Lookup(c.converter); !ok {
			continue // TestConformance reports the folder
		}
		ins := []pipeline.Input{{Path: c.sample, Rel: c.name + ".jsonl"}}
		if c.dir {
			var err error
			if ins, err = pipeline.Expand([]string{c.sample}); err != nil {
				t.Fatal(err)
			}
		}
		for _, in := range ins {
			if res := pipeline.Convert(in, pipeline.Options{}); res.Converter != c.converter {
				t.Errorf("%s: detected %q, want %s (%v)", in.Path, res.Converter, c.converter, res.Err)
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
			if auto.Converter != c.converter {
				continue // detection tells it for another kind, or none: its own tests say which
			}
			detected++
			named := pipeline.Convert(in, pipeline.Options{Converter: c.converter, PoisonLines: true})
			if !bytes.Equal(auto.Receipt, named.Receipt) || !bytes.Equal(auto.Trace, named.Trace) || fmt.Sprint(auto.Err) != fmt.Sprint(named.Err) ||
				fmt.Sprint(auto.Diags) != fmt.Sprint(named.Diags) {
				t.Errorf("%s (%s): detected, it converts otherwise than with --converter %s", in.Path, c.name, c.converter)
			}
		}
	}
	if detected < 50 {
		t.Fatalf("detection found the converter of %d sample inputs only", detected)
	}
	t.Logf("%d sample inputs detected and converted alike", detected)
}
