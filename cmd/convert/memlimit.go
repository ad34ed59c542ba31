package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// followLiveHeap keeps the soft memory limit above what a conversion keeps
// live. With the collector off below the limit, a heap that stays live past
// it (a 1 GB session's spans and trace) made the collector run back to back:
// 40% of that run's CPU. After each collection, when the live heap is past
// three quarters of the limit, the limit moves to the live heap plus a
// quarter, and collections are again spaced by that much allocation. The
// limit only grows, and only with live memory: it is never below base.
func followLiveHeap(base int64) {
	limit := base
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var arm func()
	arm = func() {
		runtime.SetFinalizer(new([16]byte), func(*[16]byte) {
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				if live := int64(sample[0].Value.Uint64()); live > limit/4*3 {
					limit = live + live/4
					debug.SetMemoryLimit(limit)
				}
			}
			arm()
		})
	}
	arm()
}
