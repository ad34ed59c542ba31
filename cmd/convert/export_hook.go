package main

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/contextreceipts/convert/internal/export"
	"github.com/contextreceipts/convert/internal/pipeline"
)

// afterWrite returns a pipeline.RunOptions.AfterWrite hook that exports
// each input's trace as it was written to its file. A failed export is
// that input's export failure; its files stay in place. Once the endpoint
// is given up on, the remaining inputs fail at once with an error that
// wraps pipeline.ErrExportSkipped. clock, when not nil, measures the time
// spent exporting.
// It joins the two packages here, in the command, so that neither the
// exporter nor the pipeline imports the other.
func afterWrite(e *export.Exporter, clock *busyClock) func(context.Context, pipeline.Input, *pipeline.Result) error {
	return func(ctx context.Context, in pipeline.Input, res *pipeline.Result) error {
		if clock != nil {
			defer clock.start()()
		}
		if err := e.Export(ctx, res.Trace); err != nil {
			ie := &pipeline.InputError{Path: in.Shown(), Converter: res.Converter, Msg: "otlp export: " + err.Error() + " (the files were written)"}
			if errors.Is(err, export.ErrDown) {
				return skipped{ie}
			}
			return ie
		}
		return nil
	}
}

// skipped is an export not attempted: it reads as its InputError and is
// pipeline.ErrExportSkipped.
type skipped struct{ *pipeline.InputError }

func (s skipped) Unwrap() []error { return []error{s.InputError, pipeline.ErrExportSkipped} }

// busyClock measures the wall time during which at least one export is in
// flight: exports run on several goroutines at once, and what the run
// summary sets apart from conversion is the time the run spent on them.
type busyClock struct {
	mu       sync.Mutex
	inFlight int
	since    time.Time
	total    time.Duration
}

// start notes an export starting and returns what notes its end.
func (b *busyClock) start() func() {
	b.mu.Lock()
	if b.inFlight == 0 {
		b.since = time.Now()
	}
	b.inFlight++
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		b.inFlight--
		if b.inFlight == 0 {
			b.total += time.Since(b.since)
		}
		b.mu.Unlock()
	}
}

// Total is the busy time so far.
func (b *busyClock) Total() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total
}
