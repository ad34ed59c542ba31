// Package pipeline owns everything converters share: reading, detection,
// positions in errors, writing, and running many inputs in parallel with
// deterministic results. Validation and the leak check are the gate's
// (internal/gate), which prepare shares.
package pipeline

import (
	"errors"
	"fmt"
	"strings"

	"github.com/contextreceipts/convert/internal/gate"
)

// InputError is a failure tied to an input position: "path:line: name: msg".
// Err, when set, is the typed cause (ErrInterrupted), for errors.Is.
type InputError struct {
	Path      string
	Line      int
	Converter string
	Msg       string
	Err       error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Converter != "" {
		b.WriteString(": " + e.Converter)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

func (e *InputError) Unwrap() error { return e.Err }

// ErrInterrupted is the cause of an input stopped by cancellation (Ctrl-C,
// SIGTERM): errors.Is(err, ErrInterrupted) tells it from a failure.
var ErrInterrupted = errors.New("interrupted")

// ErrBorrowed is the cause of an input whose converter put a view of a
// read buffer into its output (see file.borrowed): a bug in the converter,
// never in the input.
var ErrBorrowed = errors.New("a converter kept a borrowed view")

// LeakError means an output would have carried raw input: nothing was written.
type LeakError = gate.LeakError

// SchemaError means an output line broke its schema or the OTLP rules.
type SchemaError = gate.SchemaError
