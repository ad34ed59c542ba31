package converters_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextreceipts/convert/converters"
	"github.com/contextreceipts/convert/internal/leak"
	"github.com/contextreceipts/convert/internal/pipeline"
	"github.com/contextreceipts/convert/internal/testshared"
)

// unknownLabel prefixes a label value: still a label's syntax, no longer
// a word the program knows.
const unknownLabel = "unknownlabelzq"

// relabel rewrites, in a line's JSON value, the string values at the
// declared paths in paths (object keys joined by ".", "#" for an array
// element) to unknown labels, and counts them.
func relabel(v any, path string, paths map[string]bool, n *int) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if s, ok := e.(string); ok && paths[p] && s != "" {
				x[k] = unknownLabel + s
				*n++
				continue
			}
			x[k] = relabel(e, p, paths, n)
		}
	case []any:
		for i, e := range x {
			x[i] = relabel(e, path+".#", paths, n)
		}
	}
	return v
}

// recordKind are the label fields that say what a record is (its type,
// pi's run transcripts' recordType, a message's role, the store a kin of
// OpenCode marks its lines with, $store): made unknown, the
// record is another one, which the reader skips and counts.
var recordKind = map[string]bool{"type": true, "recordType": true, "record_type": true, "role": true, "$store": true}

// TestUnknownLabelsNeverWritten: every native reader's samples, with the
// value of each field it declares a label (but those that say what a
// record is, recordKind) replaced by a word the program does not
// know, convert with --reveal names and write none of them: a label is
// in clear only when the program knows it, and an unknown one is never a
// refusal (a leak check failure included).
func TestUnknownLabelsNeverWritten(t *testing.T) {
	testshared.InRepo(t)
	for _, c := range converters.All() {
		if c.Native == nil {
			continue
		}
		paths := map[string]bool{}
		for p, sh := range c.PassThrough {
			if k := p[strings.LastIndexByte(p, '.')+1:]; sh == leak.Label && !recordKind[k] {
				paths[p] = true
			}
		}
		t.Run(c.Name, func(t *testing.T) {
			src := filepath.Join("samples", c.Name)
			dst := t.TempDir()
			n := 0
			err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".jsonl") {
					var lines [][]byte
					for _, l := range bytes.Split(b, []byte{'\n'}) {
						d := json.NewDecoder(bytes.NewReader(l))
						d.UseNumber()
						var v any
						if d.Decode(&v) == nil && !d.More() {
							if out, err := json.Marshal(relabel(v, "", paths, &n)); err == nil {
								l = out
							}
						}
						lines = append(lines, l)
					}
					b = bytes.Join(lines, []byte{'\n'})
				}
				q := filepath.Join(dst, strings.TrimPrefix(p, src))
				if err := os.MkdirAll(filepath.Dir(q), 0o755); err != nil {
					return err
				}
				return os.WriteFile(q, b, 0o644)
			})
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				t.Skipf("no declared label field holds a value in the samples of %s", c.Name)
			}
			ins, err := pipeline.Expand([]string{dst})
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range ins {
				res := pipeline.Convert(in, pipeline.Options{Reveal: true})
				if res.Err != nil {
					t.Errorf("%s: refused: %v", in.Rel, res.Err)
					continue
				}
				out := string(res.Receipt) + string(res.Trace) + strings.Join(res.Diags, "\n")
				if strings.Contains(out, unknownLabel) {
					t.Errorf("%s: an unknown label was written in clear", in.Rel)
				}
			}
			t.Logf("%d label values made unknown in %d inputs", n, len(ins))
		})
	}
}
