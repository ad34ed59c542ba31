package main

import (
	"bytes"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRunShard runs the native samples as 3 shards and as one batch: the
// shards' outputs are disjoint and together exactly the batch's.
func TestRunShard(t *testing.T) {
	repo, _ := filepath.Abs("../..")
	args := []string{filepath.Join(repo, "samples")}
	outputs := func(dir string) []string {
		var got []string
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".receipt.ndjson") {
				rel, _ := filepath.Rel(dir, p)
				got = append(got, filepath.ToSlash(rel))
			}
			return nil
		})
		slices.Sort(got)
		return got
	}
	tmp := t.TempDir()
	var stderr bytes.Buffer
	all := filepath.Join(tmp, "all")
	run(append([]string{"convert", "run", "--jobs", "1", "--out", all}, args...), &bytes.Buffer{}, &stderr)
	want := outputs(all)
	if len(want) < 4 {
		t.Fatalf("the full run wrote %d receipts: %s", len(want), stderr.String())
	}
	var union []string
	nonEmpty := 0
	for _, k := range []string{"0", "1", "2"} {
		dir := filepath.Join(tmp, "shard"+k)
		stderr.Reset()
		code := run(append([]string{"convert", "run", "--jobs", "1", "--shard", k + "/3", "--out", dir}, args...), &bytes.Buffer{}, &stderr)
		if code == exitUsage { // bad_* samples fail (exit 1 or 3) in whichever shard holds them
			t.Fatalf("shard %s/3: exit %d: %s", k, code, stderr.String())
		}
		got := outputs(dir)
		nonEmpty += min(len(got), 1)
		union = append(union, got...)
	}
	slices.Sort(union)
	if !slices.Equal(union, want) {
		t.Fatalf("shards wrote %v\nthe batch wrote %v", union, want)
	}
	if nonEmpty < 2 {
		t.Errorf("only %d of 3 shards got inputs", nonEmpty)
	}
	for _, bad := range []string{"3/3", "x", "-1/2", "0/0"} {
		stderr.Reset()
		if code := run(append([]string{"convert", "run", "--shard", bad, "--out", filepath.Join(tmp, "bad")}, args...), &bytes.Buffer{}, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "--shard") {
			t.Errorf("--shard %s: exit %d, stderr %q", bad, code, stderr.String())
		}
	}
}
