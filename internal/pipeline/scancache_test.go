package pipeline

import (
	"strings"
	"testing"

	"github.com/contextreceipts/convert/internal/jsonl"
	"github.com/contextreceipts/convert/internal/jsonscan"
)

// TestScanCache: pass one gets a line's scan from the cache only when it
// is the line detection scanned (same number, length and bytes), and the
// cache keeps no more than maxCachedMembers members, whatever the lines.
func TestScanCache(t *testing.T) {
	scan := func(s string) (bool, error, []jsonscan.Member) {
		var m []jsonscan.Member
		obj, err := jsonscan.Scan([]byte(s), &m)
		return obj, err, m
	}
	c := &scanCache{seed: lineSeed}
	lines := []string{`{"type":"user","a":1}`, `{"type":`, `[1,2]`, `{"b":"x"}`}
	for i, s := range lines {
		obj, err, m := scan(s)
		c.add(jsonl.Line{N: i + 1, Bytes: []byte(s)}, obj, err, m)
	}
	for i, s := range lines {
		var got []jsonscan.Member
		obj, err, ok := c.lookup(0, jsonl.Line{N: i + 1, Bytes: []byte(s)}, &got)
		wobj, werr, want := scan(s)
		if !ok || obj != wobj || err != werr || werr == nil && len(got) != len(want) {
			t.Errorf("line %d: cached %v %v %v (%d members), scanned %v %v (%d)", i+1, ok, obj, err, len(got), wobj, werr, len(want))
		}
	}
	c.next = 0
	var m []jsonscan.Member
	if _, _, ok := c.lookup(0, jsonl.Line{N: 1, Bytes: []byte(`{"type":"user","a":2}`)}, &m); ok {
		t.Error("a line changed since detection was taken from the cache")
	}
	if _, _, ok := c.lookup(1, jsonl.Line{N: 4, Bytes: []byte(lines[3])}, &m); ok {
		t.Error("a companion file's line was taken from the main file's cache")
	}

	wide := "{" + strings.Repeat(`"k":0,`, maxCachedMembers/2) + `"k":0}`
	big := &scanCache{seed: lineSeed}
	for n := 1; n <= 4; n++ {
		obj, err, m := scan(wide)
		big.add(jsonl.Line{N: n, Bytes: []byte(wide)}, obj, err, m)
	}
	if len(big.members) > maxCachedMembers || len(big.lines) != 1 {
		t.Errorf("%d members of %d lines kept; want at most %d, of one line", len(big.members), len(big.lines), maxCachedMembers)
	}
}
