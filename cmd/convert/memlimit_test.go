package main

import "testing"

// The limit follows the inputs being converted and the live heap, within
// one share's bounds: a history of small sessions stays at the floor, a
// long session gets the most, and a heap live past the shares gets a
// quarter more than it.
func TestMemoryLimit(t *testing.T) {
	const MiB = 1 << 20
	for _, tc := range []struct {
		name       string
		sizes      []int64 // of the inputs being converted
		peak, want int64
	}{
		{"nothing converting", nil, 0, 96 * MiB},
		{"a one-line file", []int64{200}, 0, 96 * MiB},
		{"the median session", []int64{68 << 10}, 20 * MiB, 96 * MiB},
		{"a 64 MB session", []int64{64 * MiB}, 40 * MiB, 96 * MiB},
		{"an 80 MB session", []int64{80 * MiB}, 40 * MiB, 120 * MiB},
		{"a 1 GB session, early", []int64{1 << 30}, 60 * MiB, 160 * MiB},
		{"a 1 GB session at its peak", []int64{1 << 30}, 150 * MiB, 150*MiB + 150*MiB/4},
		{"two workers, small sessions", []int64{10 << 10, 30 << 10}, 30 * MiB, 192 * MiB},
		{"two workers, one long session", []int64{1 << 30, 10 << 10}, 100 * MiB, 256 * MiB},
	} {
		var shares int64
		for _, s := range tc.sizes {
			shares += inputShare(s)
		}
		if got := limitOf(shares, tc.peak); got != tc.want {
			t.Errorf("%s: limit %d MiB, want %d MiB", tc.name, got/MiB, tc.want/MiB)
		}
	}
}
