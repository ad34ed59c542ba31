// Package convtest is the kit a converter's tests are written with, as
// analysistest is for go/analysis passes: only tests import it (the import
// policy test, internal/deps, holds that), and it links every converter
// (converters/all) so detection and messages are the binary's.
//
// A reader's folder, converters/<reader>/, tests itself with it:
//
//	func TestGolden(t *testing.T)  { convtest.Golden(t, "codex") }
//	func TestCcusage(t *testing.T) { convtest.Ccusage(t, "codex", convtest.CachedIn) }
//
// What it offers:
//
//   - Golden: every sample of samples/<converter>/ converted and compared
//     with golden/<converter>/ (go test -update rewrites them, as make
//     golden does), with no Canary in any output, output name or message.
//   - Convert and ConvertLines: a sample folder or file, or lines written
//     to a temporary file, converted as convert run converts them.
//   - Spans, Chain, WithEvent, Span.Attr, SpanError; Events, Attr, Usage,
//     Outline and ExpectOutline: what a receipt and a trace say, read back.
//   - NoCanary: no Canary (nor any other raw string given) in a result's
//     receipt, trace, messages, error or output name.
//   - Ccusage and Terms: a converter's token totals held to the figures
//     ccusage printed for its samples (converters/testdata/ccusage.json).
//
// Paths are relative to the repository root (samples/codex/basic), as the
// README names them: Golden, Convert and Ccusage make the root the test's
// working directory.
package convtest

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/contextreceipts/convert/converters/all" // every converter, as the binary links them

	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
)

// Canary is the marker every raw value of every sample carries (prompts,
// tool arguments, paths, memory bodies...). It must never reach a receipt,
// a trace, an output's name or a message.
const Canary = "CANARY"

// Convert converts path (a sample folder or file, relative to the
// repository root) as convert run would: every input pipeline.Expand finds
// in it, each with its companions. A failed conversion fails t.
func Convert(t *testing.T, path string, opt pipeline.Options) []pipeline.Result {
	t.Helper()
	testshared.InRepo(t)
	ins, err := pipeline.Expand([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	var out []pipeline.Result
	for _, in := range ins {
		res := pipeline.Convert(in, opt)
		if res.Err != nil {
			t.Fatalf("%s: %v", in.Path, res.Err)
		}
		out = append(out, res)
	}
	return out
}

// ConvertLines writes lines as one input file called name in a temporary
// folder and converts it with converter ("" detects it). The result is
// returned as it is, failed or not.
func ConvertLines(t *testing.T, converter, name string, lines ...string) pipeline.Result {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return pipeline.Convert(pipeline.Input{Path: p, Rel: name}, pipeline.Options{Converter: converter})
}

// NoCanary fails t when Canary or any of raw reaches res: its receipt,
// trace, warnings, error, or the name its outputs are written under.
func NoCanary(t testing.TB, res pipeline.Result, raw ...string) {
	t.Helper()
	var errText string
	if res.Err != nil {
		errText = res.Err.Error()
	}
	outs := map[string][]byte{
		"receipt":     res.Receipt,
		"trace":       res.Trace,
		"warnings":    []byte(strings.Join(res.Diags, "\n")),
		"error":       []byte(errText),
		"output name": []byte(pipeline.OutputName(res.Rel, ".receipt.ndjson")),
	}
	for _, s := range append([]string{Canary}, raw...) {
		for where, out := range outs {
			if s != "" && bytes.Contains(out, []byte(s)) {
				t.Errorf("%s: raw input %q reached the %s", res.Path, s, where)
			}
		}
	}
}

// ExitCode is the exit code convert run gives a conversion that ended with
// err: 0, 3 for a leak refusal, 4 for a schema refusal, else 1.
func ExitCode(err error) int {
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
