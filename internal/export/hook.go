package export

import (
	"context"

	"github.com/contextreceipts/convert/internal/pipeline"
)

// AfterWrite returns a pipeline.RunOptions.AfterWrite hook that exports
// each input's trace exactly as it was written to its file. A failed export
// fails that input; its files stay in place.
func (e *Exporter) AfterWrite() func(context.Context, pipeline.Input, *pipeline.Result) error {
	return func(ctx context.Context, in pipeline.Input, res *pipeline.Result) error {
		if err := e.Export(ctx, res.Trace); err != nil {
			return &pipeline.InputError{Path: in.Path, Converter: res.Converter, Msg: "otlp export: " + err.Error() + " (the files were written)"}
		}
		return nil
	}
}
