package jsonschema_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// suiteDir is upstream's git submodule github.com/json-schema-org/
// JSON-Schema-Test-Suite. The module zip this copy comes from does not carry
// submodules, so it is absent unless checked out there by hand; TestMain
// serves its remotes on localhost:1234.
const suiteDir = "testdata/JSON-Schema-Test-Suite"

// suiteRemote matches a schema that loads a schema from the suite's remotes.
var suiteRemote = regexp.MustCompile(`"\$(schema|ref)"\s*:\s*"http://localhost:1234/`)

// skipWithoutSuite skips t, saying why, when what it tests (a folder of the
// suite, or a schema that loads one of the suite's remotes) needs the suite
// and the suite is absent. Nothing else is skipped. [convert patch]
func skipWithoutSuite(t *testing.T, what string) {
	t.Helper()
	if !strings.HasPrefix(what, suiteDir) && !suiteRemote.MatchString(what) {
		return
	}
	if _, err := os.Stat(suiteDir + "/tests"); err == nil {
		return
	}
	t.Skipf("needs %s (upstream's git submodule, not in the module zip)", suiteDir)
}
