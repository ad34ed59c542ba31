// Package pipeline owns everything converters share: reading, detection,
// positions in errors, the leak check, schema validation, writing, and
// running many inputs in parallel with deterministic results.
package pipeline

import (
	"fmt"
	"strings"

	"github.com/contextreceipts/convert/internal/leak"
)

// InputError is a failure tied to an input position: "path:line: name: msg".
type InputError struct {
	Path      string
	Line      int
	Converter string
	Msg       string
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

// LeakError means an output would have carried raw input: nothing was written.
type LeakError struct {
	Path     string
	Findings []leak.Finding
}

func (e *LeakError) Error() string {
	f := e.Findings[0]
	msg := fmt.Sprintf("%s: leak check failed, nothing written: %s in %s", e.Path, f.What, f.Where)
	if f.Line > 0 {
		msg += fmt.Sprintf(" (from input line %d)", f.Line)
	}
	if n := len(e.Findings) - 1; n > 0 {
		msg += fmt.Sprintf(" and %d more", n)
	}
	return msg
}

// SchemaError means an output line broke its schema or the OTLP rules.
type SchemaError struct {
	Path string // output file
	Line int
	Msg  string
}

func (e *SchemaError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: schema: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: schema: %s", e.Path, e.Msg)
}
