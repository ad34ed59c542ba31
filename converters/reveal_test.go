package converters_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/testshared"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/pipeline"
)

// TestRevealNamesConvertsEverySample: with --reveal names every native
// sample still converts (a name written in clear must come from a declared
// pass-through field, or the leak check refuses the session: a false
// refusal). Canaries are not looked for: samples put some in name slots,
// to show names are digests by default, and --reveal names writes those.
func TestRevealNamesConvertsEverySample(t *testing.T) {
	testshared.InRepo(t)
	for _, c := range converters.Natives() {
		for _, dir := range c.Samples() {
			ins, err := pipeline.Expand([]string{filepath.FromSlash(dir)})
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range ins {
				res := pipeline.Convert(in, pipeline.Options{Converter: c.Name, Reveal: true})
				var le *pipeline.LeakError
				switch {
				case errors.As(res.Err, &le):
					t.Errorf("%s: refused with --reveal names: %v", in.Path, res.Err)
				case res.Err != nil && !strings.HasPrefix(filepath.Base(in.Path), "bad_"):
					t.Errorf("%s: %v", in.Path, res.Err)
				}
			}
		}
	}
}
