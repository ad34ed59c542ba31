package pipeline

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/contextreceipts/convert/converters"
)

// A shard is one of N deterministic shares of a batch, so N workers of a
// batch scheduler (a Kubernetes Indexed Job, a Slurm array, GNU parallel),
// each given the same arguments and its own K, convert every input exactly
// once between them.

// ParseShard reads "K/N" (0 <= K < N, N >= 1), the form of --shard.
func ParseShard(s string) (k, n int, err error) {
	ks, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return 0, 0, fmt.Errorf("want K/N, as in 0/4 (K counts from 0)")
	}
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
		return 0, 0, fmt.Errorf("want K/N with N at least 1 and 0 <= K < N, as in 0/4")
	}
	return k, n, nil
}

// Shard returns the inputs of shard k of n, in their order. An input
// belongs to shard ShardOf(SessionKey(in), n): the shards of one list are
// disjoint and together hold every input, whatever the list's order.
func Shard(ins []Input, k, n int) []Input {
	var out []Input
	for _, in := range ins {
		if ShardOf(SessionKey(in), n) == k {
			out = append(out, in)
		}
	}
	return out
}

// ShardOf maps a key to one of n shards: the first 8 bytes of its sha256,
// modulo n. It depends on nothing but the key, so every worker agrees.
func ShardOf(key string, n int) int {
	if n <= 1 {
		return 0
	}
	sum := sha256.Sum256([]byte(key))
	return int(binary.BigEndian.Uint64(sum[:8]) % uint64(n))
}

// SessionKey is the stable key an input is sharded by, from its name only
// (no I/O): the session id when the name carries one (a Claude Code or
// Cursor session file, whose subagent files are its companions and so go
// with it; a Codex rollout's thread id), otherwise the input's path
// relative to its argument. The same session keeps its key wherever the
// archive is mounted.
func SessionKey(in Input) string {
	if e := virtualEntry(in.Path); e != nil && e.err == nil {
		return "session:" + strings.ToLower(e.session.ID) // a session of a database, keyed as its storage/ file is
	}
	base := path.Base(strings.ReplaceAll(in.Rel, "\\", "/"))
	if id := converters.SessionID(base); id != "" {
		return "session:" + id
	}
	return "path:" + in.Rel
}
