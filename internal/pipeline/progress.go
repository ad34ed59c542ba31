package pipeline

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// progress prints one self-overwriting status line (files, bytes, MB/s,
// ETA) on a terminal while a batch runs.
type progress struct {
	w          io.Writer
	files      int
	done       atomic.Int64
	bytes      atomic.Int64
	totalBytes int64
	start      time.Time
	stop       chan struct{}
	finished   chan struct{}
}

func startProgress(w io.Writer, files int, totalBytes int64) *progress {
	p := &progress{w: w, files: files, totalBytes: totalBytes, start: time.Now(),
		stop: make(chan struct{}), finished: make(chan struct{})}
	go func() {
		defer close(p.finished)
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				fmt.Fprint(p.w, "\r\033[K")
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
	rate := float64(b) / 1e6 / max(el, 1e-9)
	eta := "?"
	if b > 0 && p.totalBytes > b {
		eta = (time.Duration(float64(p.totalBytes-b) / (float64(b) / el) * float64(time.Second))).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r\033[Kconvert: %d/%d files  %s/%s  %.1f MB/s  ETA %s",
		p.done.Load(), p.files, HumanBytes(b), HumanBytes(p.totalBytes), rate, eta)
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
