package pipeline

import (
	"fmt"
	"sync/atomic"
	"time"
)

// progress hands a status line (files, MiB, MiB/s, ETA) to show about 4
// times a second while a batch runs; the command owns the terminal.
type progress struct {
	show       func(string)
	files      int
	done       atomic.Int64
	bytes      atomic.Int64
	totalBytes int64
	start      time.Time
	stop       chan struct{}
	finished   chan struct{}
}

func startProgress(show func(string), files int, totalBytes int64) *progress {
	p := &progress{show: show, files: files, totalBytes: totalBytes, start: time.Now(),
		stop: make(chan struct{}), finished: make(chan struct{})}
	go func() {
		defer close(p.finished)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				p.show("")
				return
			case <-t.C:
				p.print()
			}
		}
	}()
	return p
}

func (p *progress) print() {
	el := time.Since(p.start).Seconds()
	b := p.bytes.Load()
	rate := float64(b) / (1 << 20) / max(el, 1e-9)
	eta := "?"
	if b > 0 && p.totalBytes > b {
		eta = (time.Duration(float64(p.totalBytes-b) / (float64(b) / el) * float64(time.Second))).Round(time.Second).String()
	}
	p.show(fmt.Sprintf("convert: %d/%d files  %s/%s  %.1f MiB/s  ETA %s",
		p.done.Load(), p.files, HumanBytes(b), HumanBytes(p.totalBytes), rate, eta))
}

func (p *progress) end() {
	close(p.stop)
	<-p.finished
}

// HumanBytes renders a byte count for people (KiB, MiB, GiB).
func HumanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
