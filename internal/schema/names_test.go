package schema

import (
	"io/fs"
	"path"
	"reflect"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/schemas"
)

// TestEventNamesAreTheGlob: newSet lists the event schemas as
// fs.Glob("events/*.schema.json") does.
func TestEventNamesAreTheGlob(t *testing.T) {
	s, err := newSet(schemas.FS)
	if err != nil {
		t.Fatal(err)
	}
	files, err := fs.Glob(schemas.FS, "events/*.schema.json")
	if err != nil || len(files) < 10 {
		t.Fatalf("glob: %d files, %v", len(files), err)
	}
	want := map[string]bool{}
	for _, f := range files {
		want[strings.TrimSuffix(path.Base(f), ".schema.json")] = true
	}
	if !reflect.DeepEqual(s.names, want) {
		t.Errorf("event names %v, the glob says %v", s.names, want)
	}
}
