package convtest

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
)

// Locations holds a converter's default locations (Format.Locations) to
// what it says, each location's path worked out twice under a temporary
// home: with no environment variable set (unset), and with env set to a
// temporary folder (set). Paths are written slash-separated, the home as
// HOME and env's folder as ENV:
//
//	convtest.Locations(t, "hermes", "HERMES_HOME",
//		[]string{"HOME/.hermes/state.db"}, []string{"ENV/state.db"})
func Locations(t *testing.T, converter, env string, unset, set []string) {
	t.Helper()
	c, ok := converters.Lookup(converter)
	if !ok || c.Native == nil || len(c.Native.Locations) == 0 {
		t.Fatalf("%s is not registered, or has no location", converter)
	}
	home, dir := t.TempDir(), t.TempDir()
	for _, tc := range []struct {
		value string
		want  []string
	}{{"", unset}, {dir, set}} {
		getenv := func(k string) string {
			if k == env {
				return tc.value
			}
			return ""
		}
		var got []string
		for _, l := range c.Native.Locations {
			for _, p := range l.Paths(getenv, home) { // none: an EnvOnly place, its variable unset
				p = strings.Replace(filepath.ToSlash(p), filepath.ToSlash(dir), "ENV", 1)
				got = append(got, strings.Replace(p, filepath.ToSlash(home), "HOME", 1))
			}
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s=%q: locations %q, want %q", env, tc.value, got, tc.want)
		}
	}
}
