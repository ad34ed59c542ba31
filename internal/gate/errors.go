package gate

import "fmt"

// LeakError means an output would have carried raw input: nothing was
// written. Path names the input ("" when the caller says it).
type LeakError struct {
	Path     string
	Findings []Finding
}

func (e *LeakError) Error() string {
	msg := "leak check failed, nothing written"
	if e.Path != "" {
		msg = e.Path + ": " + msg
	}
	if len(e.Findings) == 0 {
		return msg
	}
	f := e.Findings[0]
	msg += fmt.Sprintf(": %s in %s", f.What, f.Where)
	if f.Line > 0 {
		msg += fmt.Sprintf(" (from input line %d)", f.Line)
	}
	if n := len(e.Findings) - 1; n > 0 {
		msg += fmt.Sprintf(" and %d more", n)
	}
	return msg
}

// SchemaError means an output broke its schema or the OTLP rules. Path is
// the output (a file, or what prepare calls it), Line its line when known.
type SchemaError struct {
	Path string
	Line int
	Msg  string
}

func (e *SchemaError) Error() string {
	switch {
	case e.Path == "":
		return "schema: " + e.Msg
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: schema: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: schema: %s", e.Path, e.Msg)
}
