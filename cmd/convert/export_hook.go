package main

import (
	"context"
	"errors"

	"github.com/contextreceipts/convert/internal/export"
	"github.com/contextreceipts/convert/internal/pipeline"
)

// afterWrite returns a pipeline.RunOptions.AfterWrite hook that exports
// each input's trace exactly as it was written to its file. A failed export
// is that input's export failure; its files stay in place. Once the
// endpoint is given up on, the remaining inputs fail at once with an error
// that wraps pipeline.ErrExportSkipped.
// It joins the two packages here, in the command, so that neither the
// exporter nor the pipeline imports the other.
func afterWrite(e *export.Exporter) func(context.Context, pipeline.Input, *pipeline.Result) error {
	return func(ctx context.Context, in pipeline.Input, res *pipeline.Result) error {
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
