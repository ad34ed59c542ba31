package pipeline

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		k, n int
		ok   bool
	}{
		{"0/1", 0, 1, true}, {"3/4", 3, 4, true}, {" 2/10 ", 2, 10, true},
		{"4/4", 0, 0, false}, {"-1/4", 0, 0, false}, {"0/0", 0, 0, false},
		{"1", 0, 0, false}, {"a/b", 0, 0, false}, {"1/2/3", 0, 0, false}, {"", 0, 0, false},
	} {
		k, n, err := ParseShard(tc.in)
		if (err == nil) != tc.ok || (tc.ok && (k != tc.k || n != tc.n)) {
			t.Errorf("ParseShard(%q) = %d, %d, %v; want %d, %d, ok=%v", tc.in, k, n, err, tc.k, tc.n, tc.ok)
		}
	}
}

func TestSessionKey(t *testing.T) {
	for _, tc := range []struct{ rel, want string }{
		{"-home-bob-x/0a1b2c3d-1111-4222-8333-444455556666.jsonl", "session:0a1b2c3d-1111-4222-8333-444455556666"},
		{"elsewhere/0A1B2C3D-1111-4222-8333-444455556666.jsonl", "session:0a1b2c3d-1111-4222-8333-444455556666"},
		{"sessions/2025/11/17/rollout-2025-11-17T20-00-00-019a93b9-1111-7222-8333-444455556666.jsonl", "session:019a93b9-1111-7222-8333-444455556666"},
		{"rollout-2025-11-17T20-00-00-019a93b9-1111-7222-8333-444455556666.jsonl.zst", "session:019a93b9-1111-7222-8333-444455556666"},
		{"mcp_tool_search/basic.jsonl", "path:mcp_tool_search/basic.jsonl"},
	} {
		if got := SessionKey(Input{Rel: tc.rel}); got != tc.want {
			t.Errorf("SessionKey(%q) = %q, want %q", tc.rel, got, tc.want)
		}
	}
}

// TestShardPartitions proves the N shards of a list are disjoint and cover
// it, for the bundled samples (sessions with their subagent companions) and
// a generated archive, and that every companion stays with its session.
func TestShardPartitions(t *testing.T) {
	samples, err := Expand([]string{"../../samples"})
	if err != nil {
		t.Fatal(err)
	}
	var archive []Input
	for i := range 500 {
		archive = append(archive, Input{Rel: fmt.Sprintf("p%d/%08x-1111-4222-8333-%012x.jsonl", i%7, i, i)})
		archive = append(archive, Input{Rel: fmt.Sprintf("sessions/2026/01/%02d/rollout-2026-01-01T00-00-00-%08x-2222-7333-8444-%012x.jsonl", i%28+1, i, i)})
		archive = append(archive, Input{Rel: fmt.Sprintf("scenario/case%d.jsonl", i)})
	}
	withCompanions := 0
	for _, in := range samples {
		withCompanions += min(len(in.Companions), 1)
	}
	if withCompanions == 0 {
		t.Fatal("no sample session has companions: the test would not prove they stay together")
	}
	for _, tc := range []struct {
		name string
		ins  []Input
	}{{"samples", samples}, {"archive", archive}} {
		for _, n := range []int{1, 2, 3, 4, 7, 16} {
			seen := map[string]int{}
			for k := range n {
				for _, in := range Shard(tc.ins, k, n) {
					if prev, dup := seen[in.Rel]; dup {
						t.Fatalf("%s n=%d: %s in shards %d and %d", tc.name, n, in.Rel, prev, k)
					}
					seen[in.Rel] = k
					for _, c := range in.Companions {
						if !strings.HasPrefix(c.Path, "../../samples") {
							t.Fatalf("%s: companion %s outside the samples", tc.name, c.Rel)
						}
					}
				}
			}
			if len(seen) != len(tc.ins) {
				t.Fatalf("%s n=%d: shards hold %d inputs, want %d", tc.name, n, len(seen), len(tc.ins))
			}
		}
	}
	// Balance: no shard of the generated archive is far from its share.
	for k := range 4 {
		if got := len(Shard(archive, k, 4)); got < len(archive)/4*8/10 || got > len(archive)/4*12/10 {
			t.Errorf("shard %d/4 holds %d of %d inputs", k, got, len(archive))
		}
	}
	// The key is the session, not the path: the same session under another
	// root lands in the same shard.
	a := Input{Rel: "a/0a1b2c3d-1111-4222-8333-444455556666.jsonl"}
	b := Input{Rel: "mnt/archive/b/0a1b2c3d-1111-4222-8333-444455556666.jsonl"}
	for n := 2; n < 20; n++ {
		if ShardOf(SessionKey(a), n) != ShardOf(SessionKey(b), n) {
			t.Fatalf("n=%d: one session, two shards", n)
		}
	}
}
