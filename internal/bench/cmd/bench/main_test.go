package main

import (
	"testing"

	"github.com/contextreceipts/convert/internal/bench"
)

type resultAlias = bench.Result

func TestReported(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"session":[{},{},{}],"totals":{}}`, "3 sessions reported"},
		{`{"sessions":[]}`, "0 sessions reported"},
		{`{"daily":[{}]}`, "keys daily"},
		{`not json`, "output is not a JSON object"},
	}
	for _, c := range cases {
		if got := reported([]byte(c.in)); got != c.want {
			t.Errorf("%s: %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSubset(t *testing.T) {
	units := []unit{{"a", 10}, {"b", 30}, {"c", 60}}
	cases := []struct {
		want  int64
		paths int
		bytes int64
	}{{0, 0, 0}, {5, 1, 10}, {10, 1, 10}, {11, 2, 40}, {100, 3, 100}, {1000, 3, 100}}
	for _, c := range cases {
		paths, n := subset(units, c.want)
		if len(paths) != c.paths || n != c.bytes {
			t.Errorf("subset(%d) = %v, %d; want %d paths, %d bytes", c.want, paths, n, c.paths, c.bytes)
		}
	}
}

func TestPoint(t *testing.T) {
	p := point(benchResult(2e6, 4, 2), 8)
	if p.WallSecPerMB != 2 || p.CPUSecPerMB != 1 || p.WallMsPerSess != 500 || p.Files != 8 {
		t.Errorf("%+v", p)
	}
}

func benchResult(bytes int64, wall, cpu float64) (r resultAlias) {
	r.Bytes, r.WallSeconds, r.CPUSeconds = bytes, wall, cpu
	return r
}
