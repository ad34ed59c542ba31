package convtest

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

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
)

var update = flag.Bool("update", false, "rewrite golden files from samples (make golden)")

// Updating reports whether the tests run with -update (make golden).
func Updating() bool { return *update }

// Case is one sample of a converter: a .jsonl file, or a folder converted
// as a user would pass it to convert run (native layouts: a project
// folder with sessions and subagent transcripts).
type Case struct {
	Converter, Name string
	Sample          string // samples/<converter>/<name>[.jsonl], slash-separated
	Dir             bool
}

// Cases are the samples of converter, by name.
func Cases(t *testing.T, converter string) []Case {
	t.Helper()
	testshared.InRepo(t)
	paths, err := filepath.Glob(filepath.Join("samples", converter, "*"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var out []Case
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if !st.IsDir() && !strings.HasSuffix(p, ".jsonl") {
			continue
		}
		out = append(out, Case{converter, strings.TrimSuffix(filepath.Base(p), ".jsonl"), filepath.ToSlash(p), st.IsDir()})
	}
	return out
}

// Inputs are the inputs of a case: its file, or what its folder holds.
func (c Case) Inputs(t *testing.T) []pipeline.Input {
	t.Helper()
	if !c.Dir {
		return []pipeline.Input{{Path: c.Sample, Rel: c.Name + ".jsonl"}}
	}
	ins, err := pipeline.Expand([]string{c.Sample})
	if err != nil {
		t.Fatal(err)
	}
	return ins
}

// outputs converts a case: the outputs by golden file name (relative to
// golden/<converter>/), the .err file (the exit code and messages of the
// whole case) among them.
func (c Case) outputs(t *testing.T) map[string][]byte {
	t.Helper()
	outs := map[string][]byte{}
	var msgs bytes.Buffer
	worst := 0
	for _, in := range c.Inputs(t) {
		// PoisonLines: a converter that keeps a view of a line past it
		// changes the outputs, and the goldens then differ.
		res := pipeline.Convert(in, pipeline.Options{Converter: c.Converter, PoisonLines: true})
		// A case file's goldens keep the case's name (the outputs of a
		// name that is not id-shaped are named by its digest); a folder
		// case's, the names run writes.
		base := c.Name
		if c.Dir {
			base = c.Name + "/" + pipeline.OutputName(in.Rel, "")
		}
		outs[base+".receipt.ndjson"], outs[base+".otel.jsonl"] = res.Receipt, res.Trace
		for _, d := range res.Diags {
			fmt.Fprintln(&msgs, d)
		}
		if res.Err != nil {
			fmt.Fprintln(&msgs, res.Err)
		}
		worst = max(worst, ExitCode(res.Err))
	}
	outs[c.Name+".err"] = append([]byte(fmt.Sprintf("exit: %d\n", worst)), msgs.Bytes()...)
	return outs
}

// Golden converts every sample of converter and compares the receipts,
// traces and messages with golden/<converter>/<case>.*: .receipt.ndjson,
// .otel.jsonl, and .err (the exit code and every stderr line). No Canary
// may reach any of them or their names. -update rewrites them; a missing
// golden fails instead of being created, and so does a golden that no
// sample writes any more.
func Golden(t *testing.T, converter string) {
	t.Helper()
	cases := Cases(t, converter)
	if len(cases) == 0 {
		t.Fatalf("no samples in samples/%s", converter)
	}
	written := map[string]bool{}
	all := true
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			files := c.outputs(t)
			for n, out := range files {
				written[n] = true
				if bytes.Contains(out, []byte(Canary)) || strings.Contains(n, Canary) {
					t.Errorf("canary %q reached %s of %s", Canary, n, c.Sample)
				}
				compareGolden(t, filepath.Join("golden", converter, filepath.FromSlash(n)), c.Sample, out)
			}
		})
	}
	for _, c := range cases {
		all = all && written[c.Name+".err"]
	}
	if all { // under go test -run TestGolden/<case>, other cases' goldens are not stale
		staleGoldens(t, converter, written)
	}
}

// CompareGolden holds got to the golden file path, relative to the
// repository root, or writes it under -update. A nil got means no such
// output: the golden must not exist.
func CompareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	testshared.InRepo(t)
	compareGolden(t, path, "its test's input", got)
}

func compareGolden(t *testing.T, path, sample string, got []byte) {
	t.Helper()
	if *update {
		writeGolden(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist) && got == nil:
	case errors.Is(err, os.ErrNotExist):
		t.Errorf("%s is missing: run make golden and review it", path)
	case err != nil:
		t.Fatal(err)
	case got == nil:
		t.Errorf("%s exists but the conversion wrote nothing: run make golden", path)
	case !bytes.Equal(got, want):
		t.Errorf("%s differs from the conversion of %s (run make golden and review the diff):\n%s", path, sample, firstDiff(want, got))
	}
}

// staleGoldens fails on (or, under -update, removes) the files of
// golden/<converter>/ that no sample wrote.
func staleGoldens(t *testing.T, converter string, written map[string]bool) {
	t.Helper()
	root := filepath.Join("golden", converter)
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if written[filepath.ToSlash(rel)] {
			return nil
		}
		if *update {
			os.Remove(p)
		} else {
			t.Errorf("%s is written by no sample of samples/%s: delete it or restore the sample (make golden)", p, converter)
		}
		return nil
	})
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
