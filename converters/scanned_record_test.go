package converters

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/jsonscan"
	"github.com/tidwall/gjson"
)

// TestScannedRecordIsIndexTop: the index the pipeline builds from
// jsonscan's members is the one gjson's ForEach builds, field by field
// (key, type, raw, string, number), on every object line of the samples,
// the fuzz seeds and a few hand-made shapes (escaped keys, duplicates,
// numbers, whitespace).
func TestScannedRecordIsIndexTop(t *testing.T) {
	lines := []string{
		`{}`, ` { "a" : 1 , "b" : "x\"y" } `, `{"k\u00e9y":true,"k\\":null,"dup":1,"dup":"2"}`,
		`{"n":-12.5e3,"z":0,"o":{"p":[1,{"q":2}]},"s":"\ud83d\ude00"}`,
	}
	for _, root := range []string{"../samples", "testdata/fuzz"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			fh, err := os.Open(p)
			if err != nil {
				return err
			}
			defer fh.Close()
			sc := bufio.NewScanner(fh)
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				lines = append(lines, string(bytes.Clone(sc.Bytes())))
			}
			return sc.Err()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	checked := 0
	for _, l := range lines {
		var members []jsonscan.Member
		object, err := jsonscan.Scan([]byte(l), &members)
		if err != nil || !object {
			continue
		}
		checked++
		got := ScannedRecord(l, members)
		want := Record{JSON: gjson.Parse(l)}
		want.IndexTop()
		if len(got.top) != len(want.top) {
			t.Fatalf("%.120q: %d fields, IndexTop %d", l, len(got.top), len(want.top))
		}
		for i, g := range got.top {
			w := want.top[i]
			if g.key != w.key || g.val.Type != w.val.Type || g.val.Raw != w.val.Raw || g.val.Str != w.val.Str || g.val.Num != w.val.Num {
				t.Fatalf("%.120q field %d: %q=%+v, IndexTop %q=%+v", l, i, g.key, g.val, w.key, w.val)
			}
		}
		if got.JSON.Raw != strings.TrimLeft(l, " \t\r\n") || got.JSON.Type != gjson.JSON {
			t.Fatalf("%.120q: record JSON %v", l, got.JSON.Type)
		}
	}
	if checked < 300 {
		t.Fatalf("checked only %d object lines", checked)
	}
}
