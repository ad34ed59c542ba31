package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// memoryLimit is the soft memory limit of `convert run`: the shares of the
// inputs being converted at once (inputShare), or the largest live heap
// since an input last ended plus a quarter when that is more, and never
// below one share's floor. Unless the user set GOGC, the collector runs
// only near the limit, so that a small run never pauses to collect (a GC
// cycle would be a large part of a one-line file's time). Memory must
// follow the inputs being converted (and the workers), not how many there
// are: each input's share is sized by the input, because one flat share
// for every input lets a history of small sessions peak far above what its
// largest file alone needs. TestMemoryLimit holds the limit for each case.
type memoryLimit struct {
	mu     sync.Mutex
	shares int64 // of the inputs being converted
	peak   int64 // largest live heap after a collection since an input last ended
	set    int64 // the limit in force
}

// Shares: an input's is one and a half times its size on disk, from 96 to
// 160 MiB. A 1 GB Claude Code session keeps about 150 MB live at its peak
// and gets the most (its limit then follows its live heap); a session of
// up to 64 MB, nearly all of a history, the least. The floor holds both
// ways: a lower one makes the collector run often enough to cost wall time
// on a history (the scavenger returning pages and faulting them back), a
// higher one lets the limit, not the input, set the peak. make bench
// measures both.
const (
	minShare = 96 << 20
	maxShare = 160 << 20
)

func inputShare(size int64) int64 { return min(max(size+size/2, minShare), maxShare) }

func newMemoryLimit(gcOff bool) *memoryLimit {
	m := &memoryLimit{}
	m.mu.Lock()
	m.apply()
	m.mu.Unlock()
	if gcOff {
		debug.SetGCPercent(-1)
	}
	m.followLiveHeap()
	return m
}

// converting adds an input's share while it is converted.
func (m *memoryLimit) converting(size int64) (done func()) {
	share := inputShare(size)
	m.mu.Lock()
	m.shares += share
	m.apply()
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		m.shares -= share
		m.peak = 0 // what that input kept live is garbage now
		m.apply()
		m.mu.Unlock()
	}
}

// apply sets the limit; m.mu is held.
func (m *memoryLimit) apply() {
	if limit := limitOf(m.shares, m.peak); limit != m.set {
		m.set = limit
		debug.SetMemoryLimit(limit)
	}
}

// limitOf is the limit for the shares of the inputs being converted and
// the peak live heap since an input last ended.
func limitOf(shares, peak int64) int64 { return max(shares, minShare, peak+peak/4) }

// followLiveHeap reads the live heap after each collection. With the
// collector off below the limit, a heap that stays live past it (a 1 GB
// session's spans and trace) would make the collector run back to back,
// so the limit stays a quarter above its peak, and collections are spaced
// by that much allocation. It must not come down with the live heap while
// the input is converted: a long session's trace is checked after its
// spans are gone, and a limit brought down to them would make that check
// collect back to back. It comes down only when an input ends (converting).
func (m *memoryLimit) followLiveHeap() {
	afterEachGC(func(live uint64) {
		m.mu.Lock()
		m.peak = max(m.peak, int64(live))
		m.apply()
		m.mu.Unlock()
	})
}

// afterEachGC calls fn with the live heap after every collection, on the
// finalizer goroutine (fn must not block long): a finalizer on a fresh
// object runs once the collector has found it garbage, and arms the next.
func afterEachGC(fn func(live uint64)) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		runtime.SetFinalizer(new([16]byte), func(*[16]byte) {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				fn(sample[0].Value.Uint64())
			}
			arm()
		})
	}
	arm()
}
